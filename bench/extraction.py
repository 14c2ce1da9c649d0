"""Proposal extraction quality: precision and recall against what a careful GM would accept, tokens and time.

Runs the production extraction path (`bot.voice.extraction`: pieces, the ontology-typed prompt with the known
entities, per-item validation, conversion to proposal content, merging, and the check that drops what canon
already says, against a real canon in a throwaway SQLite file: one campaign per scene, holding its known
entities and its `canon`) on the scripted scenes of `bench/extraction_scenes.py`, with the LLM configured in
the settings (LOREKEEPER_LLM__BASE_URL and LOREKEEPER_LLM__MODEL, or lorekeeper.toml). Names are then resolved
as the gate would (canon names and aliases exactly, then fuzzy), and the proposals matched one to one against
the gold ones:

- entity: same name; fact: same subject and a value saying the same (the attribute's wording is free);
- relationship: same relation and ends (either order for symmetric relations); state change: subject and state;
- event: the same participants, or a name saying the same.

Prints one JSON line. Without an LLM configured it prints a line saying so (status "skipped").
`--stub-gold` runs the same harness against the local stub server replaying the gold answers and the canon a
scene restates (to every piece): a check of the harness itself (it must score 1.0, every restated item merged
into canon), clearly labelled, never a measure of any model.

    .venv/bin/python -m bench.extraction [--stub-gold] [--scenes N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from rapidfuzz import fuzz

from bench.extraction_scenes import SCENES
from bot.app import build_canon
from bot.llm.client import InMemoryTokenLedger, LLMClient
from bot.llm.openai_compatible import OpenAICompatibleLLM
from bot.schema import database
from bot.services.canon_access import CanonAccess
from bot.voice.extraction import (
    Candidate,
    ExtractionReport,
    Extractor,
    Piece,
    item_content,
    merge_candidates,
    names_in,
    split_pieces,
    without_canon,
)
from bot.voice.prompts import extraction_reply_model
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, create_campaign
from canon.date_reading import examples
from canon.graph import fold
from canon.models import Viewer
from canon.ontology import Ontology, base_ontology
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    ProposalContent,
    RelationshipContent,
    StateChangeContent,
)
from canon.storage import Database
from config.settings import load_settings
from memory.scene_service import SceneService
from memory.scenes import Actor
from memory.tokens import count_tokens

NAME_MATCH = 90
VALUE_MATCH = 75
EVENT_NAME_MATCH = 70
LABELS = {"player": "player", "gm": "GM"}


def scene_lines(scene: dict[str, Any]) -> list[tuple[int, str]]:
    """Return a scripted scene as numbered transcript lines (as `transcript_lines` renders real turns)."""
    lines = []
    for number, (kind, author, text) in enumerate(scene["turns"], 1):
        who = "Narrator" if kind == "narrator" else f"{author} ({LABELS[kind]})"
        lines.append((number, f"{who}: {text}"))
    return lines


def gold_contents(scene: dict[str, Any], ontology: Ontology, key: str = "gold") -> list[ProposalContent]:
    """Return a scene's gold proposals (or its prior `canon`) as content, validated by the production model."""
    reply = extraction_reply_model(ontology).model_validate({"items": scene.get(key, [])})
    if reply.dropped:
        raise ValueError(f"scene {scene['id']}: invalid {key} items: {reply.dropped}")
    return [item_content(item) for item in reply.items]


class CanonWorld:
    """A throwaway canon in a SQLite file: one campaign per scene, with its known entities and prior canon."""

    GM = Actor(id=0, name="bench", is_gm=True)

    def __init__(self, directory: str, ontology: Ontology) -> None:
        self.db = Database.from_url(f"sqlite+aiosqlite:///{directory}/extraction.sqlite3")
        self.canon = build_canon(self.db, SceneService(self.db), access=CanonAccess(ontology))
        self.ontology = ontology

    async def open(self) -> None:
        """Create the schema."""
        await database.upgrade(self.db)

    async def close(self) -> None:
        """Close the database."""
        await self.db.dispose()

    async def campaign_for(self, scene: dict[str, Any]) -> Campaign:
        """Return a new campaign whose canon holds the scene's known entities and what it restates."""
        campaign = await self.db.run(lambda s: create_campaign(s, f"bench {scene['id']}"))
        contents: list[ProposalContent] = [
            EntityContent(name=name, entity_type=entity_type, aliases=tuple(aliases))
            for name, entity_type, aliases in scene["known"]
        ]
        for content in [*contents, *gold_contents(scene, self.ontology, "canon")]:
            await self.canon.canon.add_direct(campaign, content, self.GM, command="bench")
        return campaign

    async def new_only(
        self, campaign: Campaign, candidates: Sequence[Candidate], report: ExtractionReport
    ) -> list[Candidate]:
        """Return the candidates canon does not already hold (the production check)."""
        async with self.db.session() as session:
            reader = await self.canon.access.reader(session, campaign, Viewer.GM)
            return await without_canon(reader, candidates, report)


class Names:
    """Canonical names of a scene: known entities (with aliases) and the new ones the material introduces."""

    def __init__(self, known: Sequence[tuple[str, str, list[str]]], extra: Sequence[str] = ()) -> None:
        self.spellings: dict[str, str] = {}
        for name, _, aliases in known:
            for spelling in (name, *aliases):
                self.spellings[fold(spelling)] = name
        for name in extra:
            self.spellings.setdefault(fold(name), name)

    def canonical(self, name: str) -> str:
        """Return the name as canon spells it (exactly, then the closest fuzzy match), or as given."""
        folded = fold(name)
        if folded in self.spellings:
            return self.spellings[folded]
        best = max(self.spellings, key=lambda s: fuzz.WRatio(folded, s), default=None)
        if best is not None and fuzz.WRatio(folded, best) >= NAME_MATCH:
            return self.spellings[best]
        return name


def _same(a: str, b: str, names: Names) -> bool:
    left, right = fold(names.canonical(a)), fold(names.canonical(b))
    return left == right or fuzz.WRatio(left, right) >= NAME_MATCH


def matches(predicted: ProposalContent, gold: ProposalContent, names: Names, ontology: Ontology) -> bool:
    """Return whether a predicted proposal says what a gold one says (see the module docstring)."""
    if predicted.type != gold.type:
        return False
    match predicted, gold:
        case EntityContent(), EntityContent():
            return _same(predicted.name, gold.name, names)
        case FactContent(), FactContent():
            return _same(predicted.subject.name, gold.subject.name, names) and (
                fuzz.token_set_ratio(fold(predicted.value), fold(gold.value)) >= VALUE_MATCH
            )
        case RelationshipContent(), RelationshipContent():
            if predicted.relation != gold.relation:
                return False
            straight = _same(predicted.subject.name, gold.subject.name, names) and _same(
                predicted.object.name, gold.object.name, names
            )
            swapped = _same(predicted.subject.name, gold.object.name, names) and _same(
                predicted.object.name, gold.subject.name, names
            )
            return straight or (swapped and ontology.relation_types[gold.relation].symmetric)
        case StateChangeContent(), StateChangeContent():
            return _same(predicted.subject.name, gold.subject.name, names) and predicted.state == gold.state
        case EventContent(), EventContent():
            wanted = {fold(names.canonical(p.name)) for p in gold.participants}
            got = {fold(names.canonical(p.name)) for p in predicted.participants}
            same_people = bool(wanted) and wanted <= got
            return (
                same_people or fuzz.token_set_ratio(fold(predicted.name), fold(gold.name)) >= EVENT_NAME_MATCH
            )
    return False


def score(
    predicted: Sequence[ProposalContent], gold: Sequence[ProposalContent], names: Names, ontology: Ontology
) -> tuple[list[tuple[ProposalContent, ProposalContent]], list[ProposalContent], list[ProposalContent]]:
    """Match predictions to gold one to one (greedy, in order); return matched pairs, extra and missed."""
    left = list(gold)
    pairs, extra = [], []
    for item in predicted:
        hit = next((g for g in left if matches(item, g, names, ontology)), None)
        if hit is None:
            extra.append(item)
        else:
            left.remove(hit)
            pairs.append((item, hit))
    return pairs, extra, left


def gold_responder(ontology: Ontology) -> Any:
    """Return a stub responder answering each extraction request with its scene's gold and restated canon."""
    by_title = {scene["title"]: [*scene["gold"], *scene.get("canon", [])] for scene in SCENES}

    def respond(body: dict[str, Any]) -> Any:
        from tests.helpers.llm_stub import Reply

        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        for title, gold in by_title.items():
            if f"“{title}”" in text:
                return Reply.json({"items": gold})
        return Reply.json({"items": []})

    return respond


async def run_scene(
    scene: dict[str, Any],
    llm: LLMClient,
    ontology: Ontology,
    world: CanonWorld,
    *,
    piece_tokens: int,
    max_tokens: int,
) -> dict[str, Any]:
    """Extract one scene; return its predictions, gold, timing and tokens."""
    campaign = await world.campaign_for(scene)
    lines = scene_lines(scene)
    known = [(n, t, list(a)) for n, t, a in scene["known"]]
    heading = f"Scene: “{scene['title']}”"
    pieces = split_pieces(lines, max_tokens=piece_tokens, heading=heading)
    spellings = [(s, i) for i, (n, _, a) in enumerate(known) for s in (n, *a)]

    def known_for(piece: Piece) -> list[tuple[str, str, list[str]]]:
        return [known[i] for i in sorted(names_in(piece.text, spellings))]

    report = ExtractionReport()
    started = time.perf_counter()
    found = await Extractor(llm, max_tokens=max_tokens).read(
        pieces,
        ontology=ontology,
        known_for=known_for,
        dates=examples(CampaignCalendar()),  # the bench's worlds keep no calendar
        material_kind="transcript",
        campaign_id=None,
        purpose="bench_extraction",
        report=report,
    )
    merged = merge_candidates(found, report)
    new = await world.new_only(campaign, merged, report)
    seconds = time.perf_counter() - started
    predicted = [c.content for c in new]
    gold = gold_contents(scene, ontology)
    new_names = [g.name for g in gold if isinstance(g, EntityContent | EventContent)]
    new_names += [p.name for p in predicted if isinstance(p, EntityContent | EventContent)]
    names = Names(known, new_names)
    pairs, extra, missed = score(predicted, gold, names, ontology)
    return {
        "id": scene["id"],
        "pieces": report.pieces,
        "merged_into_canon": len(merged) - len(new),
        "restated_canon": len(scene.get("canon", [])),
        "predicted": len(predicted),
        "gold": len(gold),
        "matched": len(pairs),
        "extra": [p.type.value for p in extra],
        "missed": [g.type.value for g in missed],
        "kinds_gold": Counter(g.type.value for g in gold),
        "kinds_matched": Counter(g.type.value for _, g in pairs),
        "kinds_predicted": Counter(p.type.value for p in predicted),
        "dropped": len(report.dropped),
        "failed_pieces": len(report.failed_pieces),
        "prompt_tokens": report.usage.prompt_tokens,
        "completion_tokens": report.usage.completion_tokens,
        "seconds": seconds,
    }


def summarise(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Return the benchmark's figures from per-scene results."""
    predicted = sum(r["predicted"] for r in results)
    gold = sum(r["gold"] for r in results)
    matched = sum(r["matched"] for r in results)
    precision = matched / predicted if predicted else (1.0 if not gold else 0.0)
    recall = matched / gold if gold else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    by_kind: dict[str, dict[str, float | None]] = {}
    kinds = set().union(*(r["kinds_gold"] for r in results), *(r["kinds_predicted"] for r in results))
    for kind in sorted(kinds):
        g = sum(r["kinds_gold"][kind] for r in results)
        p = sum(r["kinds_predicted"][kind] for r in results)
        m = sum(r["kinds_matched"][kind] for r in results)
        by_kind[kind] = {
            "gold": g,
            "predicted": p,
            "precision": round(m / p, 3) if p else None,
            "recall": round(m / g, 3) if g else None,
        }
    count = len(results) or 1
    return {
        "scenes": len(results),
        "gold": gold,
        "predicted": predicted,
        "matched": matched,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "by_kind": by_kind,
        "prompt_tokens_per_scene": round(sum(r["prompt_tokens"] for r in results) / count, 1),
        "completion_tokens_per_scene": round(sum(r["completion_tokens"] for r in results) / count, 1),
        "seconds_per_scene": round(sum(r["seconds"] for r in results) / count, 3),
        "pieces": sum(r["pieces"] for r in results),
        "pieces_of_long_scenes": {r["id"]: r["pieces"] for r in results if r["id"].startswith("long-")},
        "restated_canon": sum(r["restated_canon"] for r in results),
        "merged_into_canon": sum(r["merged_into_canon"] for r in results),
        "dropped_items": sum(r["dropped"] for r in results),
        "failed_pieces": sum(r["failed_pieces"] for r in results),
        "worst_scenes": [
            {"id": r["id"], "missed": r["missed"], "extra": r["extra"]}
            for r in sorted(results, key=lambda r: r["matched"] - r["gold"] - len(r["extra"]))[:5]
            if r["missed"] or r["extra"]
        ],
    }


async def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and return its JSON line's content."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--stub-gold", action="store_true", help="harness check: a stub replays the gold answers"
    )
    parser.add_argument("--scenes", type=int, default=None, help="only the first N scenes")
    args = parser.parse_args(argv)
    settings = load_settings()
    ontology = base_ontology()
    scenes = SCENES[: args.scenes] if args.scenes else SCENES
    for scene in scenes:  # the fixture itself must fit the ontology
        gold_contents(scene, ontology)
        gold_contents(scene, ontology, "canon")
    gold_total = sum(len(s["gold"]) for s in scenes)
    base: dict[str, Any] = {"bench": "extraction", "fixture_scenes": len(scenes), "fixture_gold": gold_total}
    if not args.stub_gold and not settings.llm.configured:
        return {
            **base,
            "status": "skipped",
            "reason": "no LLM configured: set LOREKEEPER_LLM__BASE_URL and LOREKEEPER_LLM__MODEL "
            "(or run with --stub-gold to check the harness itself)",
        }
    ledger = InMemoryTokenLedger()
    async with contextlib.AsyncExitStack() as stack:
        world = CanonWorld(stack.enter_context(tempfile.TemporaryDirectory()), ontology)
        await world.open()
        stack.push_async_callback(world.close)
        if args.stub_gold:
            from tests.helpers.llm_stub import LLMStub

            stub = await stack.enter_async_context(LLMStub(responder=gold_responder(ontology)))
            llm = OpenAICompatibleLLM(
                base_url=stub.base_url, model="stub", ledger=ledger, token_counter=count_tokens
            )
            label = {"harness_check": True, "model": "stub replaying the gold answers (not a model)"}
        else:
            llm = OpenAICompatibleLLM.from_settings(settings.llm, ledger, token_counter=count_tokens)
            label = {"harness_check": False, "model": llm.model, "endpoint": urlsplit(llm.base_url).netloc}
        stack.push_async_callback(llm.aclose)
        results = []
        for scene in scenes:
            results.append(
                await run_scene(
                    scene,
                    llm,
                    ontology,
                    world,
                    piece_tokens=settings.voice.extraction_piece_tokens,
                    max_tokens=settings.voice.extraction_max_tokens,
                )
            )
        schema = llm.json_schema_supported
    return {**base, "status": "ok", **label, "json_schema_supported": schema, **summarise(results)}


if __name__ == "__main__":
    outcome = asyncio.run(main())
    print(json.dumps(outcome, ensure_ascii=False, default=str))
    sys.exit(0 if outcome.get("status") in ("ok", "skipped") else 1)
