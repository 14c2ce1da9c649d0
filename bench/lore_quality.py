"""Retrieval quality of `/lore` on the SRD question set: each preset and the naive baselines, side by side.

Imports `../shared/corpora/srd/world/*.md` as Reference into a fresh campaign (real SQLite file, real Chroma,
the real offline embedding model) and answers `eval/dev.jsonl` in each column: the presets `default` (hybrid),
`lexical`, `semantic`, `rrf` and `context`, `raw_question` (the default search of the question as written, not
read through the glossary first: the baseline of `default`), `hybrid_pruned` (the default with the large-campaign pruning forced
on: only the question's three rarest words searched by words), `no_coverage` (the default without its coverage
rerank, `memory.knowledge.retrieval.coverage`), and the naive baselines `bm25` (words alone, one
field, no typo, entity or coverage help), `dense` (meaning alone) and `plain_rrf` (reciprocal rank fusion of those two).

The questions are split once, deterministically, into a tuning half and an untouched half (by a hash of each
question's id: `split`). Search settings are tuned on the tuning half only; the untouched half says how they do
on questions nobody tuned to. Every column is reported on both halves and on all questions.
A hit at k: the target section (or one of its `alt` sections) is inside one of the top k results, i.e. a
result from the target file whose heading path contains the target heading or whose text contains it as a
markdown heading (the corpus README). Reports recall@1, recall@5 and MRR@10, overall and by question kind; then
the same on the generated questions of `bench.lore_questions` that name their section (every monster's, spell's,
item's, class's and race's fields, several phrasings, typos; split the same way), for the default, the default
without its title fit, without its coverage rerank and the naive baselines; then the hand-written descriptive questions of
`bench/data/lore_conceptual.jsonl` (a player describing a monster, spell, item or feature without naming it, as the
dev set's conceptual questions do, about sections the dev set does not ask for): tuning material, all of it (the
dev set's tuning half is nearly all right, so it says little about descriptive questions); then the descriptive
questions of `bench/data/lore_conceptual_check.jsonl` (chatty, slang, misspelt, about still other sections), a
check nobody tunes to: its figures only, never its misses; then the dev questions'
sections in `raw/srd51-wiki/` (imported as a folder into a second campaign). Prints one JSON line.

    .venv/bin/python -m bench.lore_quality [--questions PATH] [--work DIR] [--skip-wiki] [--skip-generated]
                                           [--misses]

`--work DIR` keeps the imported databases in DIR and reuses them on the next run (for tuning the search
configuration without re-importing).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.schema import database
from canon import campaigns
from canon.models import Viewer
from canon.storage import Database
from memory.embedding import MiniLMEmbedder
from memory.knowledge.files import expand_paths
from memory.knowledge.models import KnowledgeClass, LoreResult
from memory.knowledge.retrieval import PRESETS, SearchConfig
from memory.knowledge.service import KnowledgeService
from memory.vector_index import ChromaVectorIndex

SRD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "srd"
CONCEPTUAL = Path(__file__).resolve().parent / "data" / "lore_conceptual.jsonl"
#: Descriptive questions kept for checking, never for tuning: chatty, slang, typos, "that thing that...".
CONCEPTUAL_CHECK = Path(__file__).resolve().parent / "data" / "lore_conceptual_check.jsonl"
MODES = ("lexical", "semantic", "hybrid")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)


def _fold(text: str) -> str:
    return " ".join(text.replace("*", "").replace("_", " ").casefold().split())


def is_hit(result: LoreResult | dict[str, Any], targets: Sequence[dict[str, str]]) -> bool:
    """Return whether a result holds one of the target sections (file + heading)."""
    if isinstance(result, LoreResult):
        filename, path, text = result.filename, result.heading_path, result.text
    else:
        filename, path, text = result["source"], result["heading_path"], result["text"]
    headings = {_fold(h) for h in path} | {_fold(h) for h in _HEADING.findall(text)}
    return any(filename == t["file"] and _fold(t["heading"]) in headings for t in targets)


def first_hit(results: Sequence[LoreResult], targets: Sequence[dict[str, str]]) -> int | None:
    """Return the 1-based rank of the first hit, or None."""
    for rank, result in enumerate(results, 1):
        if is_hit(result, targets):
            return rank
    return None


def metrics(ranks: Sequence[int | None]) -> dict[str, float]:
    """Return recall@1, recall@5 and MRR@10 of first-hit ranks."""
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "recall@1": round(sum(1 for r in ranks if r == 1) / n, 3),
        "recall@5": round(sum(1 for r in ranks if r is not None and r <= 5) / n, 3),
        "mrr@10": round(sum(1 / r for r in ranks if r is not None and r <= 10) / n, 3),
    }


async def open_corpus(
    work: Path, name: str, paths: list[tuple[Path, str]], embedder: MiniLMEmbedder
) -> tuple[KnowledgeService, Database, int, float | None]:
    """Open (or build) a campaign holding `paths` as Reference; return the service, db, campaign id, import s."""
    work.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a benchmark's setup
    fresh = not (work / "lore.sqlite3").exists()
    db = Database.from_url(f"sqlite+aiosqlite:///{work / 'lore.sqlite3'}")
    await database.upgrade(db)
    vectors = ChromaVectorIndex(path=work / "chroma")
    service = KnowledgeService(db, data_dir=work, vectors=vectors, embedder=embedder)
    if not fresh:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, name)
        # Kept from a run before the names view: its names vectors are added now, as the bot would at start.
        if campaign.id in await service.view_builder.pending():
            started = time.perf_counter()
            await service.view_builder.build(campaign.id)
            print(f"names views built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return service, db, campaign.id, None
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))
    started = time.perf_counter()
    for path, filename in paths:
        await service.import_path(
            campaign.id, path, filename=filename, knowledge_class=KnowledgeClass.REFERENCE
        )
    return service, db, campaign.id, round(time.perf_counter() - started, 1)


def split(questions: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Return the tuning and untouched halves of a question set (by the parity of a hash of each id)."""
    halves: dict[str, list[dict[str, Any]]] = {"tuning": [], "untouched": []}
    for q in questions:
        digest = hashlib.sha256(str(q.get("id") or q["q"]).encode()).digest()
        halves["tuning" if digest[0] % 2 == 0 else "untouched"].append(q)
    return halves


async def evaluate(
    service: KnowledgeService,
    campaign_id: int,
    questions: list[dict[str, Any]],
    targets_of: Any,
    configs: dict[str, SearchConfig],
) -> dict[str, Any]:
    """Answer every question in every column; return metrics by half, overall and by kind, and default's misses."""
    out: dict[str, Any] = {}
    misses: list[dict[str, Any]] = []
    halves = split(questions)
    half_of = {id(q): name for name, qs in halves.items() for q in qs}
    for mode, config in configs.items():
        ranks: dict[str, list[int | None]] = defaultdict(list)
        by_kind: dict[str, list[int | None]] = defaultdict(list)
        for q in questions:
            targets = targets_of(q)
            if mode == "raw_question":
                # The baseline: the question searched as written (before questions were read through the
                # glossary), with the default preset.
                answer = await service.retriever.search(
                    campaign_id, q["q"], viewer=Viewer.PLAYER, limit=10, config=config
                )
            else:
                answer = await service.ask(
                    campaign_id, q["q"], viewer=Viewer.PLAYER, limit=10, config=config, record=False
                )
            rank = first_hit(answer.results, targets)
            ranks[half_of[id(q)]].append(rank)
            ranks["all"].append(rank)
            by_kind[q.get("kind", "?")].append(rank)
            if mode == "default" and rank != 1:
                misses.append(
                    {
                        "id": q.get("id"),
                        "half": half_of[id(q)],
                        "q": q["q"],
                        "want": [t["heading"] for t in targets],
                        "rank": rank,
                        "got": [" › ".join(r.heading_path[-2:]) for r in answer.results[:3]],
                    }
                )
        out[mode] = {
            **{half: metrics(ranks[half]) for half in ("tuning", "untouched", "all")},
            "by_kind": {k: metrics(v) for k, v in sorted(by_kind.items())},
        }
    out["default_misses"] = misses
    return out


def mode_configs(base: SearchConfig) -> dict[str, SearchConfig]:
    """Return the columns of one run: every preset, hybrid with pruning forced on, and the naive baselines.

    The pruned column is what a campaign above `large_campaign_chunks` gets: words searched by their rarest few.
    """
    configs = {name: PRESETS[name] for name in ("lexical", "semantic", "rrf", "context")}
    configs = {"default": base, "raw_question": base.model_copy(update={"name": "raw_question"}), **configs}
    configs["hybrid_pruned"] = base.model_copy(update={"name": "hybrid_pruned", "large_campaign_chunks": 1})
    configs["no_coverage"] = base.model_copy(update={"name": "no_coverage", "coverage_weight": 0.0})
    naive = SearchConfig(
        typo_cutoff=0, max_entities=0, entity_k=0, heading_weight=1.0, title_weight=0.0, coverage_weight=0.0
    )
    configs["bm25"] = naive.model_copy(update={"name": "bm25", "mode": "lexical"})
    configs["dense"] = naive.model_copy(update={"name": "dense", "mode": "semantic"})
    configs["plain_rrf"] = naive.model_copy(
        update={"name": "plain_rrf", "fusion": "rrf", "lexical_weight": 1.0, "semantic_weight": 1.0}
    )
    return configs


def generated_questions() -> list[dict[str, Any]]:
    """Return the answerable questions of `bench.lore_questions` that name their section (file and heading)."""
    from bench.lore_questions import question_set

    return [
        q
        for q in question_set(SRD / "world")
        if not q.get("unanswerable") and q.get("file") and q.get("heading")
    ]


def generated_configs(configs: dict[str, SearchConfig]) -> dict[str, SearchConfig]:
    """Return the columns for the generated questions: the default, without its title fit or its coverage rerank,
    and the naive ones."""
    chosen = {
        name: configs[name] for name in ("default", "lexical", "semantic", "bm25", "dense", "plain_rrf")
    }
    untitled = configs["default"].model_copy(update={"name": "no_title_fit", "title_weight": 0.0})
    uncovered = configs["default"].model_copy(update={"name": "no_coverage", "coverage_weight": 0.0})
    return {"default": chosen.pop("default"), "no_title_fit": untitled, "no_coverage": uncovered, **chosen}


async def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=Path, default=SRD / "eval" / "dev.jsonl")
    parser.add_argument("--work", type=Path, default=None, help="keep (and reuse) the imported corpora here")
    parser.add_argument("--skip-wiki", action="store_true", help="do not run the raw/srd51-wiki part")
    parser.add_argument(
        "--skip-generated",
        action="store_true",
        help="leave out the generated questions (bench.lore_questions)",
    )
    parser.add_argument(
        "--misses", action="store_true", help="include the default's misses on the tuning half in the output"
    )
    args = parser.parse_args(argv)
    if not (SRD / "world").is_dir() or not args.questions.is_file():
        print(json.dumps({"skipped": f"SRD corpus not found at {SRD}"}))
        return {}
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line]
    embedder = MiniLMEmbedder()
    temporary = tempfile.TemporaryDirectory() if args.work is None else None
    work = Path(temporary.name) if temporary else args.work
    configs = mode_configs(PRESETS["default"])
    halves = split(questions)
    report: dict[str, Any] = {
        "bench": "lore_quality",
        "questions": len(questions),
        "tuning": len(halves["tuning"]),
        "untouched": len(halves["untouched"]),
    }
    try:
        world = sorted((SRD / "world").glob("*.md"))
        service, db, campaign_id, seconds = await open_corpus(
            work / "world", "SRD world", [(p, p.name) for p in world], embedder
        )
        report["world_import_s"] = seconds
        result = await evaluate(service, campaign_id, questions, lambda q: [q, *q.get("alt", [])], configs)
        misses = result.pop("default_misses")
        report["world"] = result
        if args.misses:  # the tuning half's only: the untouched half's failures are never looked at
            report["world_default_misses"] = [m for m in misses if m["half"] == "tuning"]
        if not args.skip_generated:
            generated = generated_questions()
            result = await evaluate(
                service, campaign_id, generated, lambda q: [q], generated_configs(configs)
            )
            misses = result.pop("default_misses")
            report["generated"] = {"questions": len(generated), **result}
            if args.misses:
                report["generated_default_misses"] = [m for m in misses if m["half"] == "tuning"]
        for key, path in (("described", CONCEPTUAL), ("described_check", CONCEPTUAL_CHECK)):
            if not path.is_file():
                continue
            described = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
            result = await evaluate(
                service, campaign_id, described, lambda q: [q, *q.get("alt", [])], generated_configs(configs)
            )
            misses = result.pop("default_misses")
            # Tuning material as a whole (its halves are not reported apart); the check set's misses are never
            # shown: it says how a change does on descriptions nobody tuned to.
            half = "tuning" if key == "described" else "untouched"
            report[key] = {mode: {half: figures["all"]} for mode, figures in result.items()}
            if args.misses and key == "described":
                report["described_default_misses"] = misses
        await db.dispose()

        wiki_dir = SRD / "raw" / "srd51-wiki"
        wiki_questions = [q for q in questions if q.get("srd51_wiki")]
        if not args.skip_wiki and wiki_dir.is_dir() and wiki_questions:
            service, db, campaign_id, seconds = await open_corpus(
                work / "wiki", "SRD wiki", expand_paths([wiki_dir]), embedder
            )
            report["wiki_import_s"] = seconds
            result = await evaluate(service, campaign_id, wiki_questions, lambda q: q["srd51_wiki"], configs)
            misses = result.pop("default_misses")
            report["srd51_wiki"] = result
            if args.misses:
                report["wiki_default_misses"] = [m for m in misses if m["half"] == "tuning"]
            await db.dispose()
    finally:
        if temporary is not None:
            temporary.cleanup()
    print(json.dumps(report, ensure_ascii=False))
    return report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
