"""Where `/lore` loses a fact it could give: retrieval, ranking or the answer step, on the SRD tuning sets.

For every answerable question of the sets with answers that may be read while tuning (`SETS`: the outsiders'
tuning sets, `own`, `described`, the large generated `tuning` half, and `paraphrase`: `PARAPHRASE`), the
question is searched as `/lore` searches it (respelled, read through the glossary, its search text), and the
passages holding its fact are marked: a passage holds it when it holds one of the acceptable wordings (all of a
generated question's strings) starting a word, a number not inside a longer one ("13" is not in "130"). Questions
answered yes or no hold no wording: they are counted apart (`unjudged`). Printed per set, one JSON line each:

- `recall_at_1`, `recall_at_5`, `recall_at_20`: the share of judged questions with such a passage first, in the
  first 5 (what the answer step reads), in the first 20 candidates of the search; `specific_at_*` the same of
  the questions whose fact few passages hold (`SPECIFIC`: a number hundreds hold is found by chance);
- `wrong`: the answers not holding their fact, split by where the fact was lost: `retrieval` (no passage holding
  it among the first 20), `ranking` (among the first 20, not the first 5), `answer_step` (among the first 5: the
  answer step chose another line or said nothing is known), `unjudged` (a yes/no question answered wrong);
- the same split for the answers wrongly saying "nothing known" (`nothing_known`);
- with `--lists`, `lexical_at_20` and `semantic_at_20`: the same recall of the words' and the meaning's
  searches alone (the presets `lexical` and `semantic`).

Untouched sets are never searched here: their figures come from `bench.lore_answers` alone. `--misses` prints
every wrong answer (stderr): where it was lost, the search text, the first candidates' headings, and the
headings of the passages that hold the fact.

    .venv/bin/python -m bench.lore_recall --work DIR [--only set1,set2] [--lists] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bench.lore_answers import OUTSIDER, outsider_questions, right
from bench.lore_quality import SRD, open_corpus, split
from bench.lore_questions import question_set
from canon.models import Viewer
from memory.embedding import MiniLMEmbedder
from memory.knowledge.question import analyse, spelled_out
from memory.knowledge.retrieval import SearchConfig, preset
from memory.knowledge.tables import KnowledgeChunkRow

#: The sets with answers that may be read while tuning (never an untouched one).
SETS = (
    "outsider_a",
    "outsider_c",
    "outsider_d",
    "outsider_g",
    "outsider_h",
    "outsider_j",
    "outsider_l",
    "own",
    "described",
    "tuning",
    "paraphrase",
)
#: Questions saying what they ask in other words than the books (a thing described, not named; the table's words
#: for the books' terms), written for this diagnostic from sections picked at random, before any was searched.
PARAPHRASE = Path(__file__).resolve().parent / "data" / "lore_paraphrase.jsonl"
#: The candidates counted: what the answer step reads, and the search's first twenty.
FEW, MANY = 5, 20
#: A fact held by at most this many passages is specific.
SPECIFIC = 3


def _pattern(wording: str) -> re.Pattern[str]:
    """Return a wording found as words: starting a word, and a number not inside a longer one ("13" is not in
    "130"); a word may take an ending ("gnome" in "gnomes")."""
    start = r"(?<!\w)" if wording[:1].isalnum() else ""
    end = r"(?![\d.,]\d|\d)" if wording[-1:].isdigit() else ""
    return re.compile(start + re.escape(wording.casefold()) + end)


class Holding:
    """Which chunks hold a question's fact."""

    def __init__(self, chunks: dict[int, tuple[str, str]]) -> None:
        self.chunks = chunks  # chunk id -> (heading, folded heading and text)

    def of(self, facts: Sequence[str], alternatives: bool) -> set[int] | None:
        """Return the chunks holding a fact (None: a yes/no answer, held by no wording)."""
        folded = [f.casefold() for f in facts if f.strip()]
        if not folded or folded in (["yes"], ["no"]):
            return None
        patterns = [_pattern(f) for f in folded]
        if alternatives:
            return {cid for cid, (_, text) in self.chunks.items() if any(p.search(text) for p in patterns)}
        return {cid for cid, (_, text) in self.chunks.items() if all(p.search(text) for p in patterns)}


class SetTally:
    """The diagnostic counts of one set."""

    def __init__(self) -> None:
        self.answerable = self.judged = self.right = 0
        self.at: Counter[int] = Counter()
        #: The same, of the questions whose fact few passages hold (`SPECIFIC`): a number held by hundreds of
        #: passages is found by chance.
        self.specific = 0
        self.specific_at: Counter[int] = Counter()
        self.wrong: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        #: Judged questions with a passage holding the fact among the first 20 of one list alone.
        self.lists: Counter[str] = Counter()

    def add(self, rank: int | None, holders: int | None, ok: bool, known: bool) -> str:
        """Count one question (`rank`: the first candidate holding its fact, 1-based; `holders`: how many passages
        hold it, None when none is judged); return where it was lost."""
        judged = holders is not None
        self.answerable += 1
        self.judged += judged
        if holders is not None and holders <= SPECIFIC:
            self.specific += 1
            for k in (1, FEW, MANY):
                self.specific_at[k] += rank is not None and rank <= k
        for k in (1, FEW, MANY):
            self.at[k] += rank is not None and rank <= k
        if not judged:
            where = "unjudged"
        elif rank is None:
            where = "retrieval"
        elif rank > FEW:
            where = "ranking"
        else:
            where = "answer_step"
        if ok:
            self.right += 1
            return "right"
        self.wrong[where] += 1
        if not known:
            self.unknown[where] += 1
        return where

    def report(self, name: str) -> dict[str, Any]:
        judged = self.judged or 1
        keys = ("retrieval", "ranking", "answer_step", "unjudged")
        return {
            "bench": "lore_recall",
            "set": name,
            "answerable": self.answerable,
            "judged": self.judged,
            "recall_at_1": round(self.at[1] / judged, 3),
            "recall_at_5": round(self.at[FEW] / judged, 3),
            "recall_at_20": round(self.at[MANY] / judged, 3),
            "specific": self.specific,
            **{
                f"specific_at_{k}": round(self.specific_at[k] / (self.specific or 1), 3)
                for k in (1, FEW, MANY)
            },
            **{f"{name}_at_{MANY}": round(n / judged, 3) for name, n in sorted(self.lists.items())},
            "right": self.right,
            "wrong": {k: self.wrong[k] for k in keys},
            "nothing_known": {k: self.unknown[k] for k in keys},
        }


async def _all_chunks(db: Any) -> dict[int, tuple[str, str]]:
    t = KnowledgeChunkRow
    async with db.session() as session:
        rows = (await session.execute(select(t.id, t.heading_path, t.text))).all()
    return {
        r.id: (" › ".join(r.heading_path or []), (" ".join(r.heading_path or []) + "\n" + r.text).casefold())
        for r in rows
    }


async def diagnose(
    service: Any,
    campaign_id: int,
    questions: list[dict[str, Any]],
    holding: Holding,
    misses: bool,
    name: str,
    lists: dict[str, SearchConfig] | None = None,
) -> SetTally:
    """Search and answer every answerable question of a set; return its tally (`lists`: the configs of the lists
    searched alone, by name, whose first 20 candidates are counted too)."""
    tally = SetTally()
    config = preset("default")
    glossary = await service.answers.glossary(campaign_id, viewer=Viewer.PLAYER)
    for q in questions:
        facts = q.get("fact")
        if q.get("unanswerable") or not facts:
            continue
        alternatives = bool(q.get("alternatives"))
        reads = await service.retriever.reads()
        read = await service.retriever.respelled(
            campaign_id, spelled_out(" ".join(q["q"].split())), viewer=Viewer.PLAYER, reads=reads
        )
        asked = analyse(read, glossary)
        found = await service.retriever.search(
            campaign_id,
            asked.search_text,
            viewer=Viewer.PLAYER,
            limit=FEW,
            config=config,
            subject=asked.subject if asked.of_entry else (),
            reads=reads,
        )
        ids = [c.chunk_id for c in found.trace.candidates][:MANY]
        held = holding.of(facts, alternatives)
        rank = next((i for i, cid in enumerate(ids, 1) if held and cid in held), None)
        if lists and held:
            for name in ("lexical", "semantic"):
                alone = await service.retriever.search(
                    campaign_id,
                    asked.search_text,
                    viewer=Viewer.PLAYER,
                    limit=FEW,
                    config=lists[name],
                    reads=reads,
                )
                tally.lists[name] += any(c.chunk_id in held for c in alone.trace.candidates[:MANY])
        answer = await service.ask(campaign_id, q["q"], viewer=Viewer.PLAYER, record=False)
        reply = answer.reply
        if alternatives:
            ok = reply.known and any(f.casefold() in reply.text.casefold() for f in facts)
        else:
            ok = reply.known and right(reply, facts)
        where = tally.add(rank, None if held is None else len(held), ok, reply.known)
        if misses and where != "right":
            heads = [holding.chunks[c][0] for c in sorted(held or ())][:4]
            miss = {
                "set": name,
                "id": q.get("id"),
                "q": q["q"],
                "searched": asked.search_text,
                "lost": where,
                "rank": rank,
                "want": list(facts)[:3],
                "top": [c.heading.split(" › ")[-1] for c in found.trace.candidates[:3]],
                "holders": len(held or ()),
                "held_in": heads,
                "answer": reply.text[:120],
            }
            print(json.dumps(miss, ensure_ascii=False), file=sys.stderr)
    return tally


def tuning_sets() -> dict[str, list[dict[str, Any]]]:
    """Return the sets this diagnostic reads, by name."""
    sets = {name: outsider_questions(OUTSIDER[name]) for name in SETS if name in OUTSIDER}
    sets["tuning"] = split(question_set(SRD / "world"))["tuning"]
    sets["paraphrase"] = outsider_questions(PARAPHRASE)
    return sets


async def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, required=True, help="the imported world (`bench.lore_answers`)")
    parser.add_argument("--only", default=None, help="some sets, comma-separated: " + ", ".join(SETS))
    parser.add_argument("--misses", action="store_true", help="print the wrong answers (stderr)")
    parser.add_argument(
        "--lists", action="store_true", help="count the words' and the meaning's lists alone too"
    )
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else list(SETS)
    if unknown := [n for n in chosen if n not in SETS]:
        parser.error(f"not a tuning set with answers: {', '.join(unknown)}")
    world = sorted((SRD / "world").glob("*.md"))
    service, db, campaign_id, _ = await open_corpus(
        args.work / "world", "SRD world", [(p, p.name) for p in world], MiniLMEmbedder()
    )
    await service.ask(campaign_id, "warm up", viewer=Viewer.PLAYER, record=False)
    holding = Holding(await _all_chunks(db))
    sets = tuning_sets()
    reports = []
    for name in chosen:
        alone = {"lexical": preset("lexical"), "semantic": preset("semantic")} if args.lists else None
        tally = await diagnose(service, campaign_id, sets[name], holding, args.misses, name, alone)
        report = tally.report(name)
        reports.append(report)
        print(json.dumps(report), flush=True)
    await db.dispose()
    return reports


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
