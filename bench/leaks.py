"""The secret guard (`memory.leaks.find_leaks`) on generated narrations: the share of leaks caught, per class.

`bench/leaks_data.py` builds worlds with GM-only states, facts, relations and an entity, and narrations that
say one of them verbatim, paraphrased, or verbatim dressed up (soft hyphens, zero-width characters, Cyrillic
look-alikes, leetspeak, words broken across lines, full-width forms), and innocent narrations sharing the
secrets' words. A leak is caught when the guard names its secret; an innocent text is a false alarm when the
guard names any. Goal: every verbatim or dressed leak caught, false alarms under 5 %. Prints one JSON line.

    .venv/bin/python -m bench.leaks
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

from bench.leaks_data import cases
from memory.leaks import find_leaks


def run(worlds: int = 12) -> dict[str, Any]:
    """Check every generated case; return the share caught per class and the false-alarm rate."""
    total: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    missed: list[str] = []
    alarms: list[str] = []
    started = time.perf_counter()
    generated = cases(worlds)
    for case in generated:
        labels = {leak.label for leak in find_leaks(case.text, case.secrets, case.public)}
        total[case.kind] += 1
        if case.expected is None:
            if labels:
                alarms.append(case.text)
        elif case.expected in labels:
            caught[case.kind] += 1
        else:
            missed.append(f"{case.kind}: {case.text!r}")
    elapsed = time.perf_counter() - started
    leak_kinds = [k for k in total if k != "innocent"]
    normalised = [k for k in leak_kinds if k != "paraphrase"]
    return {
        "bench": "leaks",
        "cases": len(generated),
        "caught": {k: round(caught[k] / total[k], 3) for k in leak_kinds},
        "cases_per_class": dict(total),
        "verbatim_and_normalised_caught": round(
            sum(caught[k] for k in normalised) / sum(total[k] for k in normalised), 3
        ),
        "false_alarm_rate": round(len(alarms) / total["innocent"], 3),
        "goal_met": all(caught[k] == total[k] for k in normalised) and len(alarms) < 0.05 * total["innocent"],
        "ms_per_case": round(1000 * elapsed / len(generated), 2),
        "missed": missed[:10],
        "false_alarms": alarms[:10],
    }


def main() -> None:
    """Print the benchmark's JSON line."""
    print(json.dumps(run(), ensure_ascii=False))


if __name__ == "__main__":
    main()
