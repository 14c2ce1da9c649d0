"""Who knows what: every player path probed for every character at several dates, and what the rule costs.

A generated world (`bench.canon_data`, 2,000 facts by default) is given 20 player characters, 20 GM-only
entities and 500 hidden facts, each revealed to a few characters (or the party) from a random in-world year.
Then, for every character and each of four points (three years across the world's history, and now), the
player paths read canon through that character's lens: entity cards (the facts and relations shown), the
`/lore` canon facts of a question naming an entity, and (now only: they have no date) the autocomplete, the
directory and what an NPC may tell them (each hidden fact the secret guard is not fed through the lens). Each shown or missing item is checked against the rule computed here from the generated
reveals, independently of the program: `leaks` counts what a player saw that their character does not know
(goal 0), `withheld` what the character knows that the player did not see (goal 0).

The cost the rule adds is measured in the same run: the p95 of a card and of the `/lore` canon-facts step with
the character's lens (its loading included, as a command pays it) against the same calls without
per-character knowledge (a plain player's view). Both in wall time (`*_p95_added_ms`, the goal's) and in this
process's CPU time (`*_cpu_p95_added_ms`): on a shared machine other processes stretch the first, hardly the
second. Prints one JSON line.

    .venv/bin/python -m bench.knowledge [--entities 400] [--statements 2000] [--cards 12]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import update

from bench.canon_data import generate
from bot.app import build_canon
from bot.schema import database
from bot.services.characters import CharacterDesk, Member
from bot.services.directory import Directory
from bot.services.knowledge import KnowledgeDesk
from canon import campaigns
from canon.campaigns import Campaign, lineage
from canon.errors import NotFound
from canon.knowledge import learned
from canon.models import NOW, AsOf, StatementKind, Viewer
from canon.storage import Database
from canon.tables import EntityRow, StatementRow
from canon.visibility import Knowing, view_hidden, visibility_of
from memory.knowledge.retrieval.config import preset
from memory.knowledge.retrieval.entities import EntityFinder
from memory.leaks import card_secrets
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="GM", is_gm=True)
CHARACTERS = 20
HIDDEN_ENTITIES = 20
KNOWN_FACTS = 500


def p95(values: list[float]) -> float:
    """Return the 95th percentile of durations, in milliseconds."""
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000, 3)


class Truth:
    """The rule, computed from what was generated: who may see which statement and entity, from when."""

    def __init__(self) -> None:
        self.hidden_entities: set[int] = set()
        self.hidden_statements: set[int] = set()
        self.ends: dict[int, tuple[int, ...]] = {}
        # statement id -> [(character id or None for the party, from which world key)]
        self.reveals: dict[int, list[tuple[int | None, int]]] = {}
        self.players: list[tuple[int, int]] = []  # (member id, character id)
        self.years: tuple[int, int] = (0, 0)

    def knows(self, character: int, statement: int, key: int | None) -> bool:
        """Return whether a character knows a statement at a world key (None: now)."""
        return any(
            (who is None or who == character) and (key is None or since <= key)
            for who, since in self.reveals.get(statement, ())
        )

    def statement_seen(self, character: int, statement: int, key: int | None) -> bool:
        """Return whether the character's player may see a statement at a world key."""
        if self.knows(character, statement, key):
            return True
        ends = self.ends.get(statement, ())
        return statement not in self.hidden_statements and not self.hidden_entities.intersection(ends)

    def entity_seen(self, character: int, entity: int, key: int | None) -> bool:
        """Return whether the player may see an entity: public, or named by a fact their character knows."""
        if entity not in self.hidden_entities:
            return True
        return any(entity in self.ends.get(s, ()) and self.knows(character, s, key) for s in self.reveals)


async def setup(
    path: Path, entities: int, statements: int, rng: random.Random
) -> tuple[Database, Campaign, Truth]:
    """Generate the world, hide entities and facts, give characters to players and reveal the facts."""
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    await database.upgrade(db)
    await db.dispose()
    generated = generate(path, entities=entities, statements=statements, campaign="Secrets")
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    async with db.session() as session:
        campaign = await campaigns.find_campaign_by_name(session, "Secrets")
    canon = build_canon(db, SceneService(db))
    async with db.session() as session:
        reader = await canon.access.reader(session, campaign, Viewer.GM)
        standing = await reader.statements(with_evidence=False)
        people = [
            e for e in (await reader.all_entities()).values() if reader.ontology.is_a(e.type, ["Person"])
        ]
    truth = Truth()
    truth.ends = {s.id: tuple(e for e in (s.subject_id, s.object_id) if e is not None) for s in standing}
    rng.shuffle(people)
    players, secret_people = people[:CHARACTERS], people[CHARACTERS : CHARACTERS + HIDDEN_ENTITIES]
    truth.hidden_entities = {e.id for e in secret_people}
    about_secrets = [s for s in standing if truth.hidden_entities.intersection(truth.ends[s.id])]
    plain = [s for s in standing if s not in about_secrets and s.kind != StatementKind.STATE]
    hidden = rng.sample(plain, min(len(plain), KNOWN_FACTS - min(100, len(about_secrets))))
    truth.hidden_statements = {s.id for s in hidden}
    hidden_value = visibility_of(True).value

    async def hide(session: Any) -> None:
        await session.execute(
            update(EntityRow).where(EntityRow.id.in_(truth.hidden_entities)).values(visibility=hidden_value)
        )
        await session.execute(
            update(StatementRow)
            .where(StatementRow.id.in_(truth.hidden_statements))
            .values(visibility=hidden_value)
        )

    await db.run(hide)
    characters = CharacterDesk(db, canon.access)
    for i, person in enumerate(players):
        await characters.assign(campaign, f"#{person.id}", Member(1000 + i, f"Player {i}"), GM)
    low, high = generated.years
    revealed = hidden + rng.sample(about_secrets, min(100, len(about_secrets)))

    async def reveal(session: Any) -> None:
        for s in revealed:
            start = max(low, (s.validity.world_from_key or low * 10000) // 10000)
            year = rng.randint(start, max(start, high))
            who: list[int | None] = (
                [None] if rng.random() < 0.1 else [p.id for p in rng.sample(players, rng.randint(1, 4))]
            )
            truth.reveals[s.id] = [(w, year * 10000) for w in who]
            await learned.add_reveals(
                session,
                campaign.id,
                "statement",
                s.id,
                who,
                world_from=str(year),
                world_from_key=year * 10000,
                story_from=None,
                scene_id=None,
                reason="generated",
                revealed_by="GM",
            )

    await db.run(reveal)
    truth.players = [(1000 + i, p.id) for i, p in enumerate(players)]
    truth.years = (low, high)
    return db, campaign, truth


#: A call's duration: (wall time, this process's CPU time), in seconds.
Took = tuple[float, float]


async def timed(calls: list[Took], work: Callable[[], Awaitable[Any]]) -> Any:
    """Run a call and keep its duration."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        return await work()
    finally:
        calls.append((time.perf_counter() - started, time.process_time() - cpu))


async def probe(
    db: Database, campaign: Campaign, truth: Truth, cards: int, rng: random.Random
) -> dict[str, Any]:
    """Probe every player path for every character at several dates; count leaks and withheld facts."""
    canon = build_canon(db, SceneService(db))
    desk = KnowledgeDesk(db, canon.access, canon.queries, SceneService(db))
    directory = Directory(db, canon.access)
    finder = EntityFinder(canon.access.ontology_for)
    steps = await lineage_of(db, campaign)
    low, high = truth.years
    points: list[int | None] = [(low + (high - low) * q // 4) * 10000 for q in (1, 2, 3)] + [None]
    touched = sorted(truth.hidden_entities | {e for s in truth.reveals for e in truth.ends.get(s, ())})
    counts = {"attempts": 0, "leaks": 0, "withheld": 0}
    timing: dict[str, list[Took]] = {
        "card_with": [],
        "card_without": [],
        "lore_with": [],
        "lore_without": [],
    }
    names: dict[int, str] = {}
    async with db.session() as session:
        reader = await canon.access.reader(session, campaign, Viewer.GM)
        names = {e.id: e.name for e in (await reader.entities(touched, with_aliases=False)).values()}

    def judge(shown: bool, expected: bool) -> None:
        counts["attempts"] += 1
        counts["leaks"] += shown and not expected
        counts["withheld"] += expected and not shown

    for member, character in truth.players:
        for key in points:
            as_of = NOW if key is None else AsOf(world=str(key // 10000), world_key=key)
            for entity in rng.sample(touched, min(cards, len(touched))):
                lens = await timed(timing["card_with"], partial(desk.lens, campaign, member))
                await card_of(
                    canon,
                    campaign,
                    f"#{entity}",
                    as_of,
                    lens,
                    timing["card_with"],
                    truth,
                    judge,
                    character,
                    key,
                )
                await card_of(
                    canon,
                    campaign,
                    f"#{entity}",
                    as_of,
                    None,
                    timing["card_without"],
                    None,
                    judge,
                    character,
                    key,
                )
                if key is None:
                    await guarded(db, canon, campaign, entity, lens, truth, judge, character)
        lens = await desk.lens(campaign, member)
        for entity in truth.hidden_entities:
            expected = truth.entity_seen(character, entity, None)
            found = await canon.queries.autocomplete(
                campaign, names[entity], viewer=Viewer.PLAYER, knowing=lens
            )
            judge(any(ref.id == entity for ref in found), expected)
            listed = await directory.page(
                campaign, Viewer.PLAYER, kind=None, text=names[entity], knowing=lens
            )
            judge(any(e.id == entity for e in listed.entries), expected)
            for variant, knowing in (("lore_with", lens), ("lore_without", None)):
                if variant == "lore_with":
                    knowing = await timed(timing[variant], partial(desk.lens, campaign, member))
                facts = await timed(
                    timing[variant],
                    partial(lore_facts, db, finder, campaign, steps, names[entity], knowing),
                )
                if variant == "lore_with":
                    judge(entity in facts, expected)
    result: dict[str, Any] = dict(counts)
    for name in ("card", "lore"):
        pairs, alone = merge_pairs(timing[f"{name}_with"]), timing[f"{name}_without"]
        with_, without = p95([t[0] for t in pairs]), p95([t[0] for t in alone])
        result[f"{name}_p95_ms_without"] = without
        result[f"{name}_p95_ms_with"] = with_
        result[f"{name}_p95_added_ms"] = round(with_ - without, 3)
        cpu = p95([t[1] for t in pairs]) - p95([t[1] for t in alone])
        result[f"{name}_cpu_p95_added_ms"] = round(cpu, 3)
    result["dates"] = [None if k is None else k // 10000 for k in points]
    return result


async def guarded(
    db: Database,
    canon: Any,
    campaign: Campaign,
    entity: int,
    lens: Any,
    truth: Truth,
    judge: Callable[[bool, bool], None],
    character: int,
) -> None:
    """Probe what an NPC may tell this character of an entity: each hidden statement the secret guard is not
    fed (`card_secrets` through the lens) counts as told, and must be one the character knows."""
    async with db.session() as session:
        gm_card = await (await canon.access.reader(session, campaign, Viewer.GM)).card(entity)
    bare = dataclasses.replace(gm_card.entity, description=None)
    for view in (*gm_card.facts, *gm_card.relations):
        if not view_hidden(view):
            continue
        is_fact = view in gm_card.facts
        alone = gm_card.model_copy(
            update={
                "entity": bare,
                "state": None,
                "facts": (view,) if is_fact else (),
                "relations": () if is_fact else (view,),
            }
        )
        judge(not card_secrets(alone, lens), truth.statement_seen(character, view.statement.id, None))


def merge_pairs(values: list[Took]) -> list[Took]:
    """Return the durations of lens-and-call pairs as one each (the lens is loaded for every call)."""
    return [
        (values[i][0] + values[i + 1][0], values[i][1] + values[i + 1][1])
        for i in range(0, len(values) - 1, 2)
    ]


async def lineage_of(db: Database, campaign: Campaign) -> list[Any]:
    """Return the campaign's lineage steps."""
    async with db.session() as session:
        return await lineage(session, campaign.id)


async def lore_facts(
    db: Database,
    finder: EntityFinder,
    campaign: Campaign,
    steps: list[Any],
    name: str,
    knowing: Knowing | None,
) -> set[int]:
    """Return the entities `/lore`'s canon step gives a player for a question naming one."""
    async with db.session() as session:
        facts, _ = await finder.find(
            session, campaign, steps, f"Who is {name}?", Viewer.PLAYER, preset("lexical"), knowing
        )
    return {f.entity_id for f in facts}


async def card_of(
    canon: Any,
    campaign: Campaign,
    name: str,
    as_of: AsOf,
    lens: Knowing | None,
    durations: list[Took],
    truth: Truth | None,
    judge: Callable[[bool, bool], None],
    character: int,
    key: int | None,
) -> None:
    """Open a card as a player (through a lens or none); with `truth`, judge what it shows and leaves out."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        card, _ = await canon.queries.worded_card(
            campaign, name, viewer=Viewer.PLAYER, as_of=as_of, knowing=lens
        )
    except NotFound:
        card = None
    durations.append((time.perf_counter() - started, time.process_time() - cpu))
    if truth is None:
        return
    entity = int(name[1:])
    judge(card is not None, truth.entity_seen(character, entity, key))
    if card is None:
        return
    shown = {v.statement.id for v in (*card.facts, *card.relations)}
    gm, _ = await canon.queries.worded_card(campaign, name, viewer=Viewer.GM, as_of=as_of)
    for view in (*gm.facts, *gm.relations):
        judge(view.statement.id in shown, truth.statement_seen(character, view.statement.id, key))


async def main() -> None:
    """Run the benchmark and print its JSON line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=400)
    parser.add_argument("--statements", type=int, default=2000)
    parser.add_argument("--cards", type=int, default=12, help="cards opened per character and date")
    args = parser.parse_args()
    rng = random.Random(30)
    with tempfile.TemporaryDirectory() as tmp:
        db, campaign, truth = await setup(
            Path(tmp) / "knowledge.sqlite3", args.entities, args.statements, rng
        )
        try:
            result = await probe(db, campaign, truth, args.cards, rng)
        finally:
            await db.dispose()
    print(
        json.dumps(
            {
                "bench": "knowledge",
                "characters": CHARACTERS,
                "facts": args.statements,
                "known_facts": len(truth.reveals),
                "hidden_entities": HIDDEN_ENTITIES,
                **result,
                "goal_added_ms": 5,
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
