"""The short answers of `/lore` without a language model, on the SRD world: right facts, honest "nothing known".

Imports `../shared/corpora/srd/world/*.md` as Reference (as `bench.lore_quality` does; `--work DIR` reuses its
import) and asks each question of `bench/data/lore_answers.jsonl` as a player: questions the world answers
(`fact`: the strings a right answer holds) and questions it does not (`unanswerable`: names and places that are
nowhere in it, and things the SRD never says). Prints one JSON line: the share of answers that hold their fact,
the share of unanswerable questions answered "nothing known", the share of answerable ones wrongly answered
"nothing known", and the answer latency (retrieval and answer, no language model) p50 / p95.

    .venv/bin/python -m bench.lore_answers [--work DIR] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.lore_quality import SRD, open_corpus
from canon.models import Viewer
from memory.embedding import MiniLMEmbedder

QUESTIONS = Path(__file__).resolve().parent / "data" / "lore_answers.jsonl"


def percentile(values: Sequence[float], share: float) -> float:
    """Return the value below which `share` of the values fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else 0.0


def holds(text: str, facts: Sequence[str]) -> bool:
    """Return whether an answer holds every string of its fact (case ignored)."""
    folded = text.casefold()
    return all(f.casefold() in folded for f in facts)


async def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--work", type=Path, default=None, help="keep (and reuse) the imported world here")
    parser.add_argument("--misses", action="store_true", help="include the wrong answers in the output")
    args = parser.parse_args(argv)
    if not (SRD / "world").is_dir():
        print(json.dumps({"skipped": f"SRD corpus not found at {SRD}"}))
        return {}
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line]
    temporary = tempfile.TemporaryDirectory() if args.work is None else None
    work = Path(temporary.name) if temporary else args.work
    try:
        world = sorted((SRD / "world").glob("*.md"))
        service, db, campaign_id, seconds = await open_corpus(
            work / "world", "SRD world", [(p, p.name) for p in world], MiniLMEmbedder()
        )
        await service.ask(campaign_id, "warm up", viewer=Viewer.PLAYER, record=False)
        timings: list[float] = []
        right = unknown_right = unknown_wrong = 0
        misses: list[dict[str, Any]] = []
        for q in questions:
            started = time.perf_counter()
            answer = await service.ask(campaign_id, q["q"], viewer=Viewer.PLAYER, record=False)
            timings.append((time.perf_counter() - started) * 1000)
            reply = answer.reply
            assert reply is not None
            if q.get("unanswerable"):
                ok = not reply.known
                unknown_right += ok
            else:
                ok = reply.known and holds(reply.text, q["fact"])
                right += ok
                unknown_wrong += not reply.known
            if not ok:
                misses.append({"id": q["id"], "q": q["q"], "answer": reply.text})
        await db.dispose()
    finally:
        if temporary is not None:
            temporary.cleanup()
    answerable = sum(1 for q in questions if not q.get("unanswerable"))
    unanswerable = len(questions) - answerable
    report: dict[str, Any] = {
        "bench": "lore_answers",
        "answerable": answerable,
        "unanswerable": unanswerable,
        "fact_in_answer": round(right / (answerable or 1), 3),
        "nothing_known_when_unanswerable": round(unknown_right / (unanswerable or 1), 3),
        "nothing_known_when_answerable": round(unknown_wrong / (answerable or 1), 3),
        "latency_ms_p50": round(percentile(timings, 0.5), 1),
        "latency_ms_p95": round(percentile(timings, 0.95), 1),
        "import_s": seconds,
    }
    if args.misses:
        report["misses"] = misses
    print(json.dumps(report, ensure_ascii=False))
    return report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
