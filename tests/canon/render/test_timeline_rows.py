"""A timeline's page of events read in the database, whole or of one era, is exactly what reading every event and
placing and sorting them in memory gives, for the GM, a player, a player through a character's lens, and as of
dates and scenes; an event stands in the first of its eras the reader sees."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import BigInteger, literal, select

from bot.app import CanonServices, build_canon
from canon.campaigns import Campaign
from canon.graph import CanonReader
from canon.knowing import Learned
from canon.models import AsOf, Viewer, Visibility
from canon.proposals import EntityContent, Ref, RelationshipContent
from canon.render.from_graph import timeline_of
from canon.render.timeline import EraBand, TimelineEvent, era_bounds
from canon.render.timeline_rows import _year, events_page
from canon.storage import Database
from canon.visibility import Knowing, entity_hidden
from memory.scene_service import SceneService
from tests.bot.wiki.conftest import GM
from tests.conftest import DatabaseTarget
from tests.helpers.valdorn import VALDORN, campaign_in


@pytest.fixture
async def db(db_target: DatabaseTarget) -> AsyncIterator[Database]:
    """The test's database holding the imported Valdorn world: a copy of one built once per process."""
    async with VALDORN.opened(db_target) as opened:
        yield opened


@pytest.fixture
async def world(db: Database) -> tuple[Campaign, CanonServices]:
    return await campaign_in(db), build_canon(db, SceneService(db))


def _begun(validity_key: int | None, scene: int | None, as_of: AsOf) -> bool:
    if as_of.world_key is not None and validity_key is not None and validity_key > as_of.world_key:
        return False
    return as_of.scene is None or scene is None or scene <= as_of.scene


async def in_memory(reader: CanonReader, as_of: AsOf) -> list[TimelineEvent]:
    """Every event of the whole timeline the viewer sees, placed and ordered as the drawing orders them."""
    ontology = reader.ontology
    everything = {
        i: e
        for i, e in (await reader.all_entities()).items()
        if _begun(e.validity.world_from_key, e.validity.story_from, as_of)
    }
    eras = {i for i, e in everything.items() if ontology.is_a(e.type, ["Era"])}
    events = {i: e for i, e in everything.items() if ontology.is_a(e.type, ["Event"])}
    during: dict[int, int] = {}
    statements = await reader.statements(predicates=["OCCURRED_DURING"], with_evidence=False)
    for s in sorted(statements, key=lambda s: s.id):
        if s.object_id in eras and s.subject_id in events:  # its first era the reader sees (and begun)
            during.setdefault(s.subject_id, s.object_id)
    placed = []
    for i, e in sorted(events.items()):
        key, scene = e.validity.world_from_key, e.validity.story_from
        era = during.get(i) if during.get(i) in eras else None
        if key is None and era is None and scene is None:
            continue
        year = key // 10000 if key is not None else None
        month = ((key % 10000) // 100 or None) if key is not None else None
        placed.append(TimelineEvent(id=i, name=e.name, year=year, month=month, era=era, scene=scene))
    placed.sort(key=lambda ev: (ev.year is None and ev.era is None, ev.year or 0, ev.scene or 0, ev.name))
    return placed


async def test_the_page_read_in_the_database_is_the_page_read_in_memory(
    db: Database, world: tuple[Campaign, CanonServices]
) -> None:
    campaign, canon = world
    async with db.session() as session:
        gm = await canon.access.reader(session, campaign, Viewer.GM)
        hidden = [
            e
            for e in (await gm.all_entities()).values()
            if gm.ontology.is_a(e.type, ["Event"]) and entity_hidden(e)
        ]
        assert hidden, "the world has GM-only events"
        lens = Knowing(characters=(), learned=(Learned("entity", hidden[0].id),))
        readers = [
            gm,
            replace_reader(gm, Viewer.PLAYER, None),
            replace_reader(gm, Viewer.PLAYER, lens),
        ]
        era_types = [t for t in gm.ontology.entity_types if gm.ontology.is_a(t, ["Era"])]
        event_types = [t for t in gm.ontology.entity_types if gm.ontology.is_a(t, ["Event"])]
        for reader in readers:
            for as_of in (AsOf(), AsOf(world_key=345_0000), AsOf(world_key=-1), AsOf(scene=1)):
                expected = await in_memory(reader, as_of)
                eras = [
                    i
                    for i, e in (await reader.all_entities(types=era_types)).items()
                    if _begun(e.validity.world_from_key, e.validity.story_from, as_of)
                ]
                for limit in (1, 3, 1000):
                    shown, total = await events_page(reader, event_types, eras, as_of=as_of, limit=limit)
                    assert (shown, total) == (expected[:limit], len(expected)), (reader.viewer, as_of)
            whole = await timeline_of(reader, max_events=2)
            assert whole.omitted == len(await in_memory(reader, AsOf())) - 2


def replace_reader(reader: CanonReader, viewer: Viewer, knowing: Knowing | None) -> CanonReader:
    return CanonReader(reader.session, reader.steps, reader.ontology, viewer=viewer, knowing=knowing)


async def test_an_event_whose_first_era_is_hidden_stands_in_the_era_the_reader_sees(
    db: Database, world: tuple[Campaign, CanonServices]
) -> None:
    campaign, canon = world
    for content in (
        EntityContent(name="The Veiled Age", entity_type="Era", visibility=Visibility.GM_ONLY),
        EntityContent(name="The Open Age", entity_type="Era"),
        EntityContent(name="The Quiet Skirmish", entity_type="Event"),
        RelationshipContent(
            subject=Ref(name="The Quiet Skirmish"),
            relation="OCCURRED_DURING",
            object=Ref(name="The Veiled Age"),
        ),
        RelationshipContent(
            subject=Ref(name="The Quiet Skirmish"),
            relation="OCCURRED_DURING",
            object=Ref(name="The Open Age"),
        ),
    ):
        await canon.canon.add_direct(campaign, content, GM, command="/canon add")
    async with db.session() as session:
        gm = await canon.access.reader(session, campaign, Viewer.GM)
        player = replace_reader(gm, Viewer.PLAYER, None)
        era_types = [t for t in gm.ontology.entity_types if gm.ontology.is_a(t, ["Era"])]
        event_types = [t for t in gm.ontology.entity_types if gm.ontology.is_a(t, ["Event"])]
        ids = {e.name: i for i, e in (await gm.all_entities()).items()}
        for reader, era in ((gm, "The Veiled Age"), (player, "The Open Age")):
            eras = list(await reader.all_entities(types=era_types))
            expected = await in_memory(reader, AsOf())
            shown, total = await events_page(reader, event_types, eras, as_of=AsOf(), limit=1000)
            assert (shown, total) == (expected, len(expected)), reader.viewer
            skirmish = next(e for e in shown if e.name == "The Quiet Skirmish")
            assert skirmish.era == ids[era], reader.viewer


async def era_in_memory(reader: CanonReader, era_id: int, as_of: AsOf) -> list[TimelineEvent]:
    """Every event of one era's timeline (its sub-eras included), placed and ordered as the drawing orders them:
    read whole and placed in memory, as the timeline once did."""
    ontology = reader.ontology
    everything = {
        i: e
        for i, e in (await reader.all_entities()).items()
        if _begun(e.validity.world_from_key, e.validity.story_from, as_of)
    }
    begun_eras = {i: e for i, e in everything.items() if ontology.is_a(e.type, ["Era"])}
    links = await reader.statements(predicates=["SUB_ERA_OF", "OCCURRED_DURING"], with_evidence=False)
    parent: dict[int, int] = {}
    for s in links:
        if s.predicate == "SUB_ERA_OF" and s.subject_id in begun_eras and s.object_id in begun_eras:
            parent.setdefault(s.subject_id, s.object_id)
    keep, grown = {era_id}, True
    while grown:
        more = {child for child, up in parent.items() if up in keep} - keep
        grown, keep = bool(more), keep | more
    eras = {i: e for i, e in begun_eras.items() if i in keep}
    bands = [
        EraBand(
            id=i,
            name=e.name,
            start=None if e.validity.world_from_key is None else e.validity.world_from_key // 10000,
            end=None if e.validity.world_until_key is None else e.validity.world_until_key // 10000,
            parent=parent.get(i) if parent.get(i) in eras else None,
        )
        for i, e in sorted(eras.items())
    ]
    spans = era_bounds(bands)
    during: dict[int, int] = {}
    for s in sorted(links, key=lambda s: s.id):
        if s.predicate == "OCCURRED_DURING" and s.object_id in eras:
            during.setdefault(s.subject_id, s.object_id)
    placed = []
    for i, e in sorted(everything.items()):
        if not ontology.is_a(e.type, ["Event"]):
            continue
        key = e.validity.world_from_key
        year = key // 10000 if key is not None else None
        home = during.get(i)
        inside = home is not None or (
            year is not None
            and any(
                (s is None or s <= year) and (t is None or year <= t) and (s is not None or t is not None)
                for s, t in spans.values()
            )
        )
        if not inside:
            continue
        month = ((key % 10000) // 100 or None) if key is not None else None
        placed.append(
            TimelineEvent(id=i, name=e.name, year=year, month=month, era=home, scene=e.validity.story_from)
        )
    placed.sort(key=lambda ev: (ev.year is None and ev.era is None, ev.year or 0, ev.scene or 0, ev.name))
    return placed


async def test_one_eras_timeline_read_in_the_database_is_the_one_placed_in_memory(
    db: Database, world: tuple[Campaign, CanonServices]
) -> None:
    campaign, canon = world
    async with db.session() as session:
        gm = await canon.access.reader(session, campaign, Viewer.GM)
        era_types = [t for t in gm.ontology.entity_types if gm.ontology.is_a(t, ["Era"])]
        hidden = [e for e in (await gm.all_entities()).values() if entity_hidden(e)]
        lens = Knowing(characters=(), learned=tuple(Learned("entity", e.id) for e in hidden[:2]))
        for reader in (gm, replace_reader(gm, Viewer.PLAYER, None), replace_reader(gm, Viewer.PLAYER, lens)):
            eras = await reader.all_entities(types=era_types)
            assert len(eras) > 1, "the world has eras to draw one of"
            for era_id, era in sorted(eras.items()):
                for as_of in (AsOf(), AsOf(world_key=345_0000), AsOf(scene=1)):
                    if not _begun(era.validity.world_from_key, era.validity.story_from, as_of):
                        continue
                    expected = await era_in_memory(reader, era_id, as_of)
                    for limit in (1, 1000):
                        drawn = await timeline_of(reader, era.name, max_events=limit, as_of=as_of)
                        assert list(drawn.events) == expected[:limit], (reader.viewer, era.name, as_of)
                        assert drawn.omitted == max(0, len(expected) - limit)


async def test_a_keys_year_in_sql_is_pythons_for_every_sign(db: Database) -> None:
    keys = [0, 1, 9999, 10000, 3_550_901, -1, -9999, -10000, -10001, -2_999_100, -3_000_000, -24_000_000]
    async with db.session() as session:
        for key in keys:
            year = await session.scalar(select(_year(literal(key, BigInteger))))
            assert year == key // 10000, key
