"""Continuity: a generated campaign of 100,000 facts with conflicts of every kind planted among a consistent
world; per kind, how many planted were found and how many findings were false alarms, and the whole-graph
check's time.

    .venv/bin/python -m bench continuity [statements] [per_kind]

A planted conflict is found when a finding of its kind names one of the entities planted for it; a finding
that names none (or is of another kind) is a false alarm. Goal: everything found, no false alarm, the check
under 30 s. Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

from bench.continuity_data import make_planted_snapshot
from canon.continuity import ConflictKind, check


def main() -> None:
    """Generate, check once, and print the figures per kind."""
    statements = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    per_kind = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    entities = max(1_000, statements // 10)
    snapshot, planted = make_planted_snapshot(entities, statements, seed=1, per_kind=per_kind)
    wall, cpu = time.perf_counter(), time.process_time()
    findings = check(snapshot)
    checked = (time.perf_counter() - wall, time.process_time() - cpu)
    kinds: dict[str, dict[str, int]] = {}
    for kind in ConflictKind:
        sets = planted.get(kind, [])
        hit: set[int] = set()
        false_alarms = 0
        for finding in (f for f in findings if f.kind == kind):
            matched = [
                i for i, entities_of in enumerate(sets) if not entities_of.isdisjoint(finding.entity_ids)
            ]
            if matched:
                hit.update(matched)
            else:
                false_alarms += 1
        kinds[kind.value] = {"found": len(hit), "planted": len(sets), "false_alarms": false_alarms}
    print(
        json.dumps(
            {
                "bench": "continuity",
                "entities": len(snapshot.entities),
                "statements": len(snapshot.statements),
                "check_s": round(checked[0], 2),
                "check_cpu_s": round(checked[1], 2),
                "all_found": all(k["found"] == k["planted"] for k in kinds.values()),
                "false_alarms": sum(k["false_alarms"] for k in kinds.values()),
                "kinds": kinds,
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
