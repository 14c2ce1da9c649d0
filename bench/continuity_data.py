"""Generate a realistic synthetic canon snapshot, with planted continuity conflicts, for the continuity benchmark.

`make_snapshot(entities, statements, seed)` returns a `Snapshot` of exactly that many entities and statements
and the number of conflicts planted per `ConflictKind`; `canon.continuity.check` should find exactly those.
The background is a consistent world: eras with bounds (one a sub-era), a gazetteer of regions, cities and
sites (PART_OF), people with births, deaths and parents, moves over time (LOCATED_IN, open-ended and closed,
some nested), alliances that turn into enmities, events dated inside their era with participants alive at
the time, items changing hands, factions, attributes from several authorities (restated, or changing over
time), play in scenes (moves, wounds, resurrections, events), retconned facts with their replacements and
retconned minor characters, and dependencies. Each planted conflict uses entities of its own, so planted
conflicts never interact.

Run it directly to time the generator and `check()`:  `.venv/bin/python bench/continuity_data.py 100000 1000000`
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.continuity_builder import ERAS, PLANTED_PER_KIND, _Builder, _plant
from bench.continuity_world import _World
from canon.continuity import ConflictKind, Snapshot, check
from canon.ontology import base_ontology


def make_snapshot(
    entities: int, statements: int, seed: int, *, per_kind: int = PLANTED_PER_KIND
) -> tuple[Snapshot, dict[ConflictKind, int]]:
    """Return a snapshot of exactly `entities` entities and `statements` statements, and the conflicts planted."""
    collecting = gc.isenabled()
    gc.disable()  # millions of new objects, no cycles: the collector would only rescan them over and over
    try:
        return _make_snapshot(entities, statements, seed, per_kind)
    finally:
        if collecting:
            gc.enable()


def make_planted_snapshot(
    entities: int, statements: int, seed: int, *, per_kind: int = PLANTED_PER_KIND
) -> tuple[Snapshot, dict[ConflictKind, list[frozenset[int]]]]:
    """Return a snapshot as `make_snapshot` does, and the entities of each planted conflict, by kind (a finding
    of that kind about one of them finds it; any other finding is a false alarm)."""
    planted: dict[ConflictKind, list[frozenset[int]]] = {}
    collecting = gc.isenabled()
    gc.disable()
    try:
        snapshot, _ = _make_snapshot(entities, statements, seed, per_kind, planted)
    finally:
        if collecting:
            gc.enable()
    return snapshot, planted


def _make_snapshot(
    entities: int,
    statements: int,
    seed: int,
    per_kind: int,
    planted: dict[ConflictKind, list[frozenset[int]]] | None = None,
) -> tuple[Snapshot, dict[ConflictKind, int]]:
    staging = _Builder(seed)
    staging_eras = {era: 0 for era, *_ in ERAS}
    for kind in ConflictKind:
        for copy in range(per_kind):
            _plant(staging, kind, copy, staging_eras)
    b = _Builder(seed)
    world = _World(b, entities - len(staging.entities))
    world.create_entities(statements - len(staging.statements))
    for kind in ConflictKind:
        for copy in range(per_kind):
            first = b.next_entity
            _plant(b, kind, copy, world.era_ids)
            if planted is not None:
                planted.setdefault(kind, []).append(frozenset(range(first, b.next_entity)))
    world.fill(statements)
    if len(b.entities) != entities or len(b.statements) != statements:
        raise AssertionError(f"built {len(b.entities)} entities and {len(b.statements)} statements")
    snapshot = Snapshot(
        entities=b.entities, statements=b.statements, dependencies=b.dependencies, ontology=base_ontology()
    )
    return snapshot, {kind: per_kind for kind in ConflictKind}


def main() -> None:
    """Time the generator and `check()` (wall and CPU seconds); print one JSON line."""
    entities = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    statements = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    wall, cpu = time.perf_counter(), time.process_time()
    snapshot, planted = make_snapshot(entities, statements, seed=1)
    generate = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    findings = check(snapshot)
    checked = (time.perf_counter() - wall, time.process_time() - cpu)
    found: dict[str, int] = {}
    for finding in findings:
        found[finding.kind] = found.get(finding.kind, 0) + 1
    print(
        json.dumps(
            {
                "bench": "continuity",
                "entities": entities,
                "statements": statements,
                "generate_s": round(generate[0], 2),
                "generate_cpu_s": round(generate[1], 2),
                "check_s": round(checked[0], 2),
                "check_cpu_s": round(checked[1], 2),
                "findings": len(findings),
                "planted": sum(planted.values()),
                "found_matches_planted": found == {str(k): v for k, v in planted.items()},
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
