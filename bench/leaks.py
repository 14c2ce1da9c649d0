"""The secret guard (`memory.leaks.find_leaks`) on generated narrations: the share of leaks caught, per class.

`bench/leaks_data.py` builds worlds with GM-only states, facts, relations and an entity, and narrations that
say one of them verbatim, paraphrased, or verbatim dressed up (soft hyphens, zero-width characters, Cyrillic
look-alikes, leetspeak, words broken across lines, full-width forms, names spelled out letter by letter with
spaces, dots, dashes or underscores), and innocent narrations sharing the
secrets' words. A leak is caught when the guard names its secret; an innocent text is a false alarm when the
guard names any. Goal: every verbatim or dressed leak caught, false alarms under 5 %. Also the time of one
check against a narrator's largest context (`ms_large_context`), and the baseline: the spelled-out classes
caught by the guard without its joining of spelled-out letters (`spelled_caught_before`), the paraphrases and
false alarms without its debt words and card-worded relations (`words_before`), and /lore's guard on cards
(`bench.leaks_lore`): the secrets built from typed statements against the free-text card lines it used before
(`lore_before` -> `lore_after`). Prints one JSON line.

    .venv/bin/python -m bench.leaks
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from bench import leaks_lore
from bench.leaks_data import PEOPLE, cases
from memory.leaks import Secret, find_leaks, match, normalize

SPELLED = ("letter_spaced", "dotted", "dashed", "underscored")


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


@contextlib.contextmanager
def _without_spelled_words() -> Iterator[None]:
    """Run the guard as it was before it read spelled-out words ("C r i m s o n P a c t"): the baseline."""
    kept = normalize._SPACED
    normalize._SPACED = re.compile(r"(?!)")
    match.compile_secret.cache_clear()
    try:
        yield
    finally:
        normalize._SPACED = kept
        match.compile_secret.cache_clear()


def spelled_baseline(worlds: int = 12) -> dict[str, float]:
    """Return the share of spelled-out leaks the guard caught before it joined spelled-out letters."""
    with _without_spelled_words():
        result = run(worlds)
    return {k: v for k, v in result["caught"].items() if k in SPELLED}


def large_context_ms(repeats: int = 5) -> float:
    """Return the time of one check against a narrator's largest context: 60 passages, 80 secrets."""
    rng = random.Random(7)
    vocabulary = [
        *PEOPLE,
        *[
            "the",
            "a",
            "of",
            "dead",
            "smith",
            "forge",
            "sea",
            "salt",
            "road",
            "guild",
            "tower",
            "cellar",
            "ledger",
            "gate",
            "rain",
        ],
    ]
    public = [" ".join(rng.choice(vocabulary) for _ in range(300)) + "." for _ in range(60)]
    secrets = [Secret.state((name,), "dead", label=name) for name in PEOPLE] * 2
    secrets += [
        Secret(text=f"The duke poisoned the well at Thornwall in year {i}.", label="t") for i in range(40)
    ]
    reply = "Brann hammers at the forge while the rain falls on the harbour. " * 10
    find_leaks(reply, secrets, public)
    started = time.perf_counter()
    for _ in range(repeats):
        find_leaks(reply, secrets, public)
    return round(1000 * (time.perf_counter() - started) / repeats, 1)


def words_baseline(worlds: int = 12) -> dict[str, Any]:
    """Return the paraphrases caught and the false alarms before the guard read debts ("in debt to" for
    "owes") and relations in the card's own words."""
    with leaks_lore.without_new_words():
        result = run(worlds)
    return {"paraphrase": result["caught"]["paraphrase"], "false_alarm_rate": result["false_alarm_rate"]}


def main() -> None:
    """Print the benchmark's JSON line."""
    baseline = spelled_baseline()
    before = words_baseline()
    line = {
        **run(),
        "spelled_caught_before": baseline,
        "words_before": before,
        **leaks_lore.run(),
        "ms_large_context": large_context_ms(),
    }
    print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    main()
