"""Structured lore (YAML) into the canon graph on a real database: exact, all or nothing, re-ingest by difference.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.app import CanonServices, build_canon
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, ChangesetRow
from canon.errors import InvalidInput
from canon.graph import CanonReader
from canon.models import AsOf, Authority, CanonLevel, EvidenceKind, StatementKind, Viewer, Visibility
from canon.ontology import base_ontology
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent
from canon.storage import Database, utc_now
from canon.structured import load_lore_file
from canon.structured.ingest import ChangeCounts
from canon.structured.tables import StructuredFileRow
from canon.tables import ConflictRow, EntityRow, EvidenceRow, StatementRow, StatusChangeRow
from memory.scenes import Actor, SceneService, SpeakerKind
from memory.turn_log import IncomingMessage, TurnLog
from tests.conftest import SRD, DatabaseTarget, require_shared
from tests.helpers.llm_stub import LLMStub
from tests.helpers.paths import YAML_FIXTURES
from tests.helpers.picture_checks import (
    EraSpan,
    assert_timeline_shows,
    assert_tree_shows,
    decode,
    era_bands,
    inside,
    standing,
    year_of,
)
from tests.helpers.valdorn import GM, KINDS, add_factions, counts, fixture_files, ingest_all
from tests.helpers.voice_fixtures import open_services, settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply

FIXTURES = YAML_FIXTURES
PAT = Actor(id=2, name="Pat", is_gm=False)
CHANNEL = 700


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


@pytest.fixture
async def canon(db: Database) -> CanonServices:
    return build_canon(db, SceneService(db))


@pytest.fixture
def importer(db: Database, canon: CanonServices) -> StructuredImportService:
    return StructuredImportService(db, canon.access.ontology_for)


async def reader_of(
    db: Database, session: Any, campaign: Campaign, viewer: Viewer = Viewer.GM
) -> CanonReader:
    return await CanonReader.open(session, campaign.id, base_ontology(), viewer=viewer)


async def by_key(db: Database, campaign: Campaign, key: str) -> Any:
    """Return the standing entity with a key, its statements and each statement's evidence."""
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        found = [e for e in await reader.find_exact(key) if e.key == key]
        assert len(found) == 1, f"{key}: {found}"
        entity = found[0]
        statements = await reader.statements(subject_ids=[entity.id], object_ids=[entity.id])
        evidence = (await reader.evidence("entity", [entity.id])).get(entity.id, [])
        return entity, statements, evidence


# --- the real bestiary -------------------------------------------------------------------------------------


async def test_the_srd_bestiary_becomes_334_creatures_with_their_attributes(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    path = require_shared(SRD / "world" / "bestiary.yaml")
    report = await importer.import_paths(campaign, [path], GM)
    assert report.status == "ingested", report.summary()
    assert report.counts == {"Creature": 334}
    assert report.entities.created == 334 and report.errors == ()
    async with db.session() as session:
        rows = (
            (await session.execute(select(EntityRow).where(EntityRow.campaign_id == campaign.id)))
            .scalars()
            .all()
        )
    assert len(rows) == 334 and {r.type for r in rows} == {"Creature"}
    assert len({r.key for r in rows}) == 334
    assert all(r.authority == "source" and r.confidence == 1.0 for r in rows)
    dragon, statements, evidence = await by_key(db, campaign, "adult-black-dragon")
    assert dragon.name == "Adult Black Dragon" and dragon.type == "Creature"
    facts = {s.predicate: s.value for s in statements if s.kind == StatementKind.ATTRIBUTE}
    assert facts["species"] == "dragon" and facts["alignment"] == "chaotic evil"
    assert facts["description"].startswith("Huge dragon. Armor Class 19")
    assert all(
        s.provenance.authority == Authority.SOURCE
        and s.provenance.confidence == 1.0
        and s.provenance.level == CanonLevel.CANON
        for s in statements
    )
    line = next(
        i for i, text in enumerate(path.read_text().splitlines(), 1) if '"adult-black-dragon"' in text
    )
    assert [(e.kind, e.file, e.line) for e in evidence] == [(EvidenceKind.YAML, "world/bestiary.yaml", line)]
    assert all(
        (e.kind, e.file, e.line) == (EvidenceKind.YAML, "world/bestiary.yaml", line)
        for s in statements
        for e in s.evidence
    )
    async with db.session() as session:
        changeset = await session.get(ChangesetRow, report.changeset_id)
    assert changeset is not None and changeset.kind == "yaml_import" and changeset.actor_name == "Gina"


# --- the five hand-written kinds (and the bestiary fixture), together --------------------------------------


async def test_the_hand_written_files_ingest_together_through_the_ontology(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    report = await ingest_all(importer, canon, campaign)
    assert {f.file: f.status for f in report.files} == {f"{k}.yaml": "created" for k in KINDS}
    assert report.counts["Person"] == 17 and report.counts["Era"] == 4 and report.counts["Event"] == 11
    # A lineage: parents with validity from the child's birth, spouses, states from life events.
    aldric, statements, _ = await by_key(db, campaign, "aldric_raventhorne")
    cael, _, _ = await by_key(db, campaign, "cael_vyr")
    parent = next(s for s in statements if s.predicate == "PARENT_OF" and s.subject_id == cael.id)
    assert parent.object_id == aldric.id
    assert (
        parent.validity.world_from == "3rd_age.year_300" and parent.validity.world_until == "3rd_age.year_345"
    )
    assert parent.evidence[0].file == "family_tree.yaml" and parent.evidence[0].line == 73
    states = sorted((s.value, s.validity.world_from) for s in statements if s.kind == StatementKind.STATE)
    assert states == [("alive", "3rd_age.year_300"), ("dead", "3rd_age.year_360")]
    spouse = [s for s in statements if s.predicate == "SPOUSE_OF"]
    assert len(spouse) == 1
    # Eras with bounds, events with dates, what happened where and when.
    third, _, _ = await by_key(db, campaign, "3rd_age")
    assert third.type == "Era" and (third.validity.world_from_key, third.validity.world_until_key) == (
        -100 * 10000,
        600 * 10000,
    )
    battle, battle_statements, _ = await by_key(db, campaign, "battle_of_black_spire")
    assert battle.type == "Event" and battle.validity.world_from == "age_of_iron.year_340.month_3.day_17"
    predicates = {s.predicate for s in battle_statements}
    assert {"OCCURRED_DURING", "OCCURRED_AT", "PARTICIPATED_IN"} <= predicates
    # A reference to an id the files do not define resolved against canon: the Crimson Pact, made in play.
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        pact = (await reader.find_exact("The Crimson Pact"))[0]
    assert any(s.predicate == "PARTICIPATED_IN" and s.subject_id == pact.id for s in battle_statements)
    # Attributes, Norway-safe; coordinates; hidden entries stay hidden.
    _, keep_statements, _ = await by_key(db, campaign, "thornwall_keep")
    facts = {s.predicate: s.value for s in keep_statements if s.kind == StatementKind.ATTRIBUTE}
    assert facts["coordinates"] == "x=1240, y=870" and facts["type"] == "fortress"
    heir, heir_statements, _ = await by_key(db, campaign, "the_nameless_heir")
    assert heir.visibility == Visibility.GM_ONLY
    assert all(s.visibility == Visibility.GM_ONLY for s in heir_statements)
    async with db.session() as session:
        player = await reader_of(db, session, campaign, Viewer.PLAYER)
        assert await player.find_exact("the_nameless_heir") == []
    # The planted anachronism of the fixtures: Hale Vyr takes part in a treaty after his death.
    kinds = {w.kind for w in report.warnings}
    assert "dead_acting" in kinds
    dead = next(w for w in report.warnings if w.kind == "dead_acting")
    assert "Hale Vyr" in dead.message and "Treaty of Emberport" in dead.message
    async with db.session() as session:
        recorded = (await session.execute(select(ConflictRow.kind))).scalars().all()
    assert "dead_acting" in recorded


async def test_every_relation_the_loader_emits_is_one_statement_of_its_type_in_the_database(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    report = await ingest_all(importer, canon, campaign)
    # What the loader says, per file: (type, source id, target id) -> the file and line of the reference.
    emitted: dict[tuple[str, str, str], set[tuple[str, int]]] = {}
    for name, data in fixture_files(*KINDS):
        for relation in load_lore_file(data, name).relations:
            key = (relation.type, relation.source_id, relation.target_id)
            emitted.setdefault(key, set()).add((name, relation.line))
    # What the database holds: every relation statement of the campaign, its ends named by their YAML ids
    # (the two factions made in play have no key: the files call them by their spelled names).
    async with db.session() as session:
        entities = {
            row.id: row.key or "_".join(w for w in row.name_folded.split() if w != "the")
            for row in (
                await session.execute(select(EntityRow).where(EntityRow.campaign_id == campaign.id))
            ).scalars()
        }
        rows = (
            await session.execute(
                select(StatementRow).where(
                    StatementRow.campaign_id == campaign.id, StatementRow.kind == StatementKind.RELATION.value
                )
            )
        ).scalars()
        stored = Counter((r.predicate, entities[r.subject_id], entities[r.object_id or 0]) for r in rows)
        evidence = (
            await session.execute(
                select(StatementRow.predicate, StatementRow.subject_id, StatementRow.object_id, EvidenceRow)
                .join(EvidenceRow, EvidenceRow.target_id == StatementRow.id)
                .where(
                    StatementRow.campaign_id == campaign.id,
                    StatementRow.kind == StatementKind.RELATION.value,
                    EvidenceRow.target_kind == "statement",
                )
            )
        ).all()
    cited: dict[tuple[str, str, str], set[tuple[str, int]]] = {}
    for predicate, subject, obj, row in evidence:
        cited.setdefault((predicate, entities[subject], entities[obj or 0]), set()).add((row.file, row.line))
    # One statement per distinct edge (an edge two files state is one statement with evidence from both) ...
    assert all(n == 1 for n in stored.values()), [k for k, n in stored.items() if n > 1]
    assert set(stored) == set(emitted)
    # ... so the counts per type are the loader's, type by type, and every type the seed names is there.
    by_type = Counter(t for t, _, _ in emitted)
    assert Counter(t for t, _, _ in stored) == by_type
    assert {
        "PARENT_OF",
        "SPOUSE_OF",
        "MEMBER_OF",
        "PART_OF",
        "CULTURE_OF",
        "OCCURRED_AT",
        "OCCURRED_DURING",
        "PARTICIPATED_IN",
        "WORSHIPS",
        "SPEAKS",
        "PRACTICES",
        "DEFEATED",
        "SUB_ERA_OF",
        "INHABITS",
        "BELONGS_TO",
        "LANGUAGE_OF",
        "HOMELAND_OF",
    } == set(by_type)
    assert sum(by_type.values()) == report.statements.created - sum(
        1 for r in await all_statements(db, campaign) if r.kind != StatementKind.RELATION.value
    )
    # Each statement's evidence is the file and line of every reference that states it: where the timeline
    # and the gazetteer both say where an event took place, one statement cites both.
    for edge, places in emitted.items():
        assert cited[edge] == places, edge
    twice = [edge for edge, places in emitted.items() if len({file for file, _ in places}) == 2]
    assert len(twice) == 5 and {t for t, _, _ in twice} == {"OCCURRED_AT"}
    assert report.statements.shared == len(twice)


async def all_statements(db: Database, campaign: Campaign) -> list[Any]:
    async with db.session() as session:
        query = select(StatementRow).where(StatementRow.campaign_id == campaign.id)
        return list((await session.execute(query)).scalars())


async def test_an_id_defined_nowhere_is_an_error_with_its_line_and_nothing_is_written(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    before = await counts(db)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "failed" and not report.ok
    assert await counts(db) == before
    missing = {(e.file, e.line, e.column): e.message for e in report.errors}
    assert ("timeline.yaml", 77, 62) in missing
    assert "names “Crimson Pact”, which is no entry of this file" in missing[("timeline.yaml", 77, 62)]
    assert "crimson_pact" not in missing[("timeline.yaml", 77, 62)]
    assert {e.file for e in report.errors} == {"timeline.yaml", "magic_system.yaml", "culture.yaml"}
    assert "Nothing was written" in report.summary()


async def test_a_reference_resolves_against_canon_by_key_and_by_type(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    # The gazetteer alone refers to a culture and to events no file of this import defines.
    report = await importer.import_files(campaign, fixture_files("gazetteer"), GM)
    assert report.status == "failed"
    assert any("“Valdorni”" in e.message for e in report.errors)
    await add_factions(canon, campaign)
    first = await importer.import_files(
        campaign,
        fixture_files("culture", "timeline", "family_tree", "bestiary", "magic_system", "gazetteer"),
        GM,
    )
    assert first.status == "ingested", first.summary()
    # Later files resolve ids against what earlier ones defined (the campaign's canon).
    tree = (FIXTURES / "family_tree.yaml").read_text()
    extra = tree.replace("  - id: serah_raventhorne", "  - id: serah_raventhorne\n    culture: valdorni", 1)
    changed = await importer.import_files(campaign, [("family_tree.yaml", extra.encode())], GM)
    assert changed.status == "ingested", changed.summary()
    # The wrong type: a language where a culture is expected.
    wrong = tree.replace("    culture: frostfolk", "    culture: old_valdorni", 1)
    failed = await importer.import_files(campaign, [("family_tree.yaml", wrong.encode())], GM)
    assert failed.status == "failed"
    (error,) = failed.errors
    assert "must name a Culture; “Old Valdorni” is the Language" in error.message and error.line > 1


async def test_years_at_the_calendar_s_bounds_are_stored_and_one_past_them_is_an_error_at_its_line(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    text = (
        "kind: timeline\neras:\n  - era: deep_age\n    start: -999999999999\n    end: 999999999999\n"
        "    events:\n      - id: last_light\n        name: Last Light\n        year: 999999999999\n"
    )
    report = await importer.import_files(campaign, [("deep.yaml", text.encode())], GM)
    assert report.status == "ingested", report.summary()
    async with db.session() as session:
        keys = dict((await session.execute(select(EntityRow.key, EntityRow.world_from_key))).all())
    assert keys == {"deep_age": -999_999_999_999 * 10000, "last_light": 999_999_999_999 * 10000}
    before = await counts(db)
    past = text.replace("year: 999999999999", "year: 1000000000000")
    failed = await importer.import_files(campaign, [("deep.yaml", past.encode())], GM)
    assert failed.status == "failed"
    assert [(e.line, e.column, e.message) for e in failed.errors] == [
        (
            9,
            15,
            '"year" is 1,000,000,000,000, outside the calendar, which runs over years -999,999,999,999 to '
            "999,999,999,999",
        )
    ]
    assert await counts(db) == before


# --- re-ingest ---------------------------------------------------------------------------------------------


async def test_the_same_files_again_write_nothing(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    again = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert again.status == "unchanged" and again.changeset_id is None
    assert {f.status for f in again.files} == {"unchanged"}
    assert again.counts["Person"] == 17
    assert await counts(db) == before
    assert "unchanged" in again.summary()


async def test_a_changed_file_applies_only_the_difference_with_retcons_never_deletes(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    async with db.session() as session:
        records_before = {
            row.file: dict(row.statements)
            for row in (await session.execute(select(StructuredFileRow))).scalars()
        }
    old_aldric, old_statements, _ = await by_key(db, campaign, "aldric_raventhorne")
    old_title = next(s for s in old_statements if s.predicate == "title")
    elara, _, _ = await by_key(db, campaign, "elara_raventhorne")
    serah, _, _ = await by_key(db, campaign, "serah_raventhorne")
    tree = (FIXTURES / "family_tree.yaml").read_text()
    changed = (
        tree.replace(
            "titles: [Slayer of the Pale Worm]", "titles: [Slayer of the Pale Worm, Lord of Thornwall]"
        )
        .replace("name: Elara Raventhorne", "name: Elara Raventhorne-Vyr")
        .replace(
            "  - id: serah_raventhorne\n    name: Serah Raventhorne\n    born: 3rd_age.year_355\n    parents: [corvin_raventhorne]\n",
            "",
        )
    )
    assert changed.count("serah") == 0
    report = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert report.status == "ingested", report.summary()
    assert report.files[0].status == "updated"
    # The tree's 18 entries: 16 kept as they were, Elara replaced (renamed), Serah retconned (removed).
    assert report.entities == ChangeCounts(unchanged=16, changed=1, retconned=1)
    # Its facts: Aldric's titles and Elara's five (alive, her lineage, her marriage, her two children) are
    # re-written in their slots; Serah's three (alive, her lineage, her parent) are retconned with the six
    # they replace; nothing else of the file is touched, and nobody else said anything about Elara.
    # The file stated 80 facts: 44 relations, 29 states (Orrin's unknown death among them: dead, the date not
    # known), 7 attributes.
    assert len(records_before["family_tree.yaml"]) == 80
    assert report.statements == ChangeCounts(changed=6, unchanged=80 - 6 - 3, retconned=6 + 3)
    after = await counts(db)
    # Exactly the difference, nothing deleted: 6 statements, 1 entity, their 7 pieces of evidence, 9 statement
    # and 2 entity retcons, one changeset; the file's record gets a new version (the old one is kept, for
    # the branches forked before).
    assert {name: after[name] - before[name] for name in before} == {
        "entities": 1,
        "statements": 6,
        "evidence": 7,
        "status": 11,
        "changesets": 1,
        "files": 1,
        "conflicts": 0,
    }
    # The changed value: the old fact retconned, the new one replaces it, with its evidence.
    aldric, statements, _ = await by_key(db, campaign, "aldric_raventhorne")
    assert aldric.id == old_aldric.id
    title = next(s for s in statements if s.predicate == "title")
    assert title.value == "Slayer of the Pale Worm, Lord of Thornwall" and title.replaces_id == old_title.id
    assert title.evidence[0].file == "family_tree.yaml"
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        history = await reader.statements(statement_ids=[old_title.id], include_retconned=True)
        assert (
            history[0].provenance.level == CanonLevel.RETCONNED
            and history[0].provenance.replaced_by == title.id
        )
        # The renamed entry: a new entity with the same key replaces the old one, its relations carried over.
        old_elara = await reader.entity(elara.id)
        assert old_elara.provenance.level == CanonLevel.RETCONNED
        new_elara = (await reader.find_exact("elara_raventhorne"))[0]
        assert new_elara.name == "Elara Raventhorne-Vyr" and old_elara.provenance.replaced_by == new_elara.id
        spouse = await reader.statements(
            subject_ids=[new_elara.id], object_ids=[new_elara.id], predicates=["SPOUSE_OF"]
        )
        assert len(spouse) == 1
        # The removed entry: retconned, still there as it was.
        gone = await reader.entity(serah.id)
        assert gone.provenance.level == CanonLevel.RETCONNED and gone.name == "Serah Raventhorne"
        assert await reader.statements(subject_ids=[serah.id], object_ids=[serah.id]) == []
        # What we believed before the re-ingest is still answerable.
        async with db.session() as s2:
            changesets = (await s2.execute(select(ChangesetRow).order_by(ChangesetRow.id))).scalars().all()
        before_reingest = AsOf(believed_at=changesets[-2].recorded_at)
        then = await reader.statements(
            subject_ids=[old_aldric.id], predicates=["title"], as_of=before_reingest
        )
        assert [s.value for s in then] == ["Slayer of the Pale Worm"]
    # The same changed file again: nothing new.
    again = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert again.status == "unchanged" and await counts(db) == after


async def test_removing_an_id_other_entries_still_use_is_an_error(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    tree = (FIXTURES / "family_tree.yaml").read_text()
    block = "  - id: tobin_vyr\n    name: Tobin Vyr\n    born: 3rd_age.year_270\n    died: 3rd_age.year_330\n    parents: [orrin_vyr]\n"
    assert block in tree
    report = await importer.import_files(
        campaign, [("family_tree.yaml", tree.replace(block, "").encode())], GM
    )
    assert report.status == "failed"
    assert any(
        "“Tobin Vyr”, which this import removes from family_tree.yaml" in e.message for e in report.errors
    )
    assert await counts(db) == before


# --- every validation rule: errors with lines, nothing written ---------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("broken_*.yaml")))
async def test_a_broken_file_reports_every_problem_and_writes_nothing(
    db: Database, importer: StructuredImportService, campaign: Campaign, name: str
) -> None:
    data = (FIXTURES / name).read_bytes()
    if name == "broken_too_large.yaml":  # too large for a 1 KiB limit (the default is 2 MiB)
        importer.max_bytes = 1024
    before = await counts(db)
    report = await importer.import_files(campaign, [(name, data)], GM)
    assert report.status == "failed" and report.errors, report.summary()
    assert all(e.file == name and e.line >= 1 and e.column >= 1 and e.message for e in report.errors)
    # The new campaign's calendar (no eras yet): a date not in the stored form is read in its words.
    loaded = load_lore_file(data, name, max_bytes=importer.max_bytes, calendar=CampaignCalendar())
    if loaded.problems:  # the loader's own rules: reported as the loader says
        assert [(e.line, e.column, e.message) for e in report.errors] == [
            (p.line, p.column, p.message) for p in loaded.problems
        ]
    assert report.error is not None and "nothing was written" in report.error
    assert await counts(db) == before


async def test_a_file_that_is_not_yaml_by_name_is_refused(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    with pytest.raises(InvalidInput, match=r"\.yaml or \.yml"):
        await importer.import_bytes(campaign, "notes.txt", b"creatures: []")


# --- checks on ingest ------------------------------------------------------------------------------------


async def test_anachronisms_are_warnings_recorded_as_conflicts(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    timeline = """\
kind: timeline
eras:
  - era: old_kingdom
    name: The Old Kingdom
    start: 100
    end: 500
"""
    late_events = """\
kind: timeline
events:
  - id: late_feast
    name: The Late Feast
    era: old_kingdom
    year: 700
    participants: [old_king]
"""
    tree = """\
lineage: kings
members:
  - id: old_king
    name: The Old King
    born: old_kingdom.year_200
    died: old_kingdom.year_260
  - id: young_prince
    name: The Young Prince
    born: old_kingdom.year_150
    parents: [old_king]
  - id: old_queen
    name: The Old Queen
    born: old_kingdom.year_210
    died: old_kingdom.year_270
  - id: late_heir
    name: The Late Heir
    born: old_kingdom.year_300
    parents: [old_king, old_queen]
"""
    first = await importer.import_files(
        campaign, [("eras.yaml", timeline.encode()), ("kings.yaml", tree.encode())], GM
    )
    assert first.status == "ingested", first.summary()
    assert sorted(w.kind for w in first.warnings) == ["born_after_parents_death", "born_before_parent"]
    born = next(w for w in first.warnings if w.kind == "born_before_parent")
    assert "The Young Prince" in born.message and "The Old King" in born.message
    assert any("kings.yaml" in side for side in born.sides)
    orphan = next(w for w in first.warnings if w.kind == "born_after_parents_death")
    assert orphan.message.startswith("The Late Heir is born (old_kingdom.year_300) after the deaths")
    assert "The Old King (old_kingdom.year_260)" in orphan.message
    assert "The Old Queen (old_kingdom.year_270)" in orphan.message
    lines = tree.splitlines()
    cited = {int(side.rsplit("line ", 1)[1]) for side in orphan.sides if "kings.yaml, line" in side}
    assert {
        lines.index("    born: old_kingdom.year_300") + 1,
        lines.index("    died: old_kingdom.year_270") + 1,
    } <= cited
    second = await importer.import_files(campaign, [("events.yaml", late_events.encode())], GM)
    assert second.status == "ingested", second.summary()
    kinds = {w.kind for w in second.warnings}
    assert {"event_outside_era", "dead_acting"} <= kinds
    async with db.session() as session:
        recorded = set((await session.execute(select(ConflictRow.kind))).scalars())
    assert {"born_before_parent", "born_after_parents_death", "event_outside_era", "dead_acting"} <= recorded


async def test_yaml_contradicting_play_wins_and_the_conflict_cites_both_sides(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    # Play first: a player says the Pale Worm is lawful good, and that Orrin is Aldric's parent.
    scene = await canon.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=20, channel_id=CHANNEL, title="Rumours", location=None, actor=GM
    )
    log = TurnLog(db)
    log.start()
    await log.append(
        IncomingMessage(
            message_id=9001,
            channel_id=CHANNEL,
            author_id=PAT.id,
            author_name="Pat",
            speaker=SpeakerKind.PLAYER,
            text="The Pale Worm is kind, and Orrin fathered Aldric.",
            created_at=utc_now(),
        )
    )
    await log.close()
    await canon.proposals.propose(
        campaign, CHANNEL, EntityContent(name="The Pale Worm", entity_type="Creature"), PAT
    )
    await canon.proposals.propose(
        campaign,
        CHANNEL,
        FactContent(subject=Ref(name="The Pale Worm"), attribute="alignment", value="lawful good"),
        PAT,
    )
    await canon.canon.end_scene(CHANNEL)
    await canon.reviews.accept_all(scene.id, GM)
    await canon.canon.commit_scene(scene.id, GM)
    worm_id: int
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        (worm,) = await reader.find_exact("The Pale Worm")
        worm_id = worm.id
        (played,) = await reader.statements(subject_ids=[worm.id], predicates=["alignment"])
    assert played.provenance.authority == Authority.PLAYER

    await add_factions(canon, campaign)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "ingested", report.summary()
    assert report.entities.adopted == 1  # the Pale Worm of play is the bestiary's pale_worm, not a second one
    worm, statements, _ = await by_key_or_id(db, campaign, worm_id)
    yaml_fact = next(
        s for s in statements if s.predicate == "alignment" and s.provenance.authority == Authority.SOURCE
    )
    assert yaml_fact.value == "chaotic_evil"
    contradiction = next(w for w in report.warnings if w.kind == "contradicts_higher_authority")
    assert contradiction.prevailing_id == yaml_fact.id
    assert set(contradiction.statement_ids) == {yaml_fact.id, played.id}
    assert "chaotic_evil" in contradiction.message and "prevails" in contradiction.message
    assert contradiction.superseded_ids == (played.id,) and report.statements.superseded == 1
    async with db.session() as session:
        row = (
            await session.execute(
                select(ConflictRow).where(ConflictRow.kind == "contradicts_higher_authority")
            )
        ).scalar_one()
    sides = row.details["sides"]
    cited = {e["kind"] for side in sides for e in side["evidence"]}
    assert {"yaml", "turns"} <= cited  # the YAML file and line, and the turns of play
    assert row.details["prevailing_id"] == yaml_fact.id
    await assert_yaml_is_current(db, campaign, worm_id, yaml_fact.id, played.id, "chaotic_evil")


async def assert_yaml_is_current(
    db: Database, campaign: Campaign, entity_id: int, yaml_id: int, other_id: int, value: str
) -> None:
    """Check that the card shows only the YAML value, and that the other fact is kept, superseded by it."""
    async with db.session() as session:
        for viewer in (Viewer.GM, Viewer.PLAYER):
            reader = await reader_of(db, session, campaign, viewer)
            card = await reader.card(entity_id)
            alignments = [v.statement for v in card.facts if v.statement.predicate == "alignment"]
            assert [(s.id, s.value) for s in alignments] == [(yaml_id, value)]
            as_of = await reader.card(entity_id, AsOf(world="3rd_age.year_400", world_key=400 * 10000))
            assert [v.statement.id for v in as_of.facts if v.statement.predicate == "alignment"] == [yaml_id]
        reader = await reader_of(db, session, campaign)
        (kept,) = await reader.statements(statement_ids=[other_id], include_retconned=True)
        assert kept.provenance.level == CanonLevel.RETCONNED and kept.provenance.replaced_by == yaml_id
        history = [v.statement.id for v in await reader.timeline(entity_id)]
        assert other_id in history and yaml_id in history
        why = await session.scalar(
            select(StatusChangeRow.rationale).where(
                StatusChangeRow.target_kind == "statement", StatusChangeRow.target_id == other_id
            )
        )
    assert why is not None and "bestiary.yaml, line" in why and "prevails" in why


async def test_yaml_contradicting_prose_wins_and_the_conflict_cites_the_chunk(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    # Prose first, the way `/lore import` + extraction writes it: authority source, confidence 0.6, a chunk.
    script = VoiceScript(
        extraction=items_reply(
            {"kind": "entity", "name": "The Pale Worm", "entity_type": "Creature", "turns": [1]},
            {
                "kind": "fact",
                "subject": "The Pale Worm",
                "attribute": "alignment",
                "value": "lawful good",
                "turns": [1],
            },
        )
    )
    async with LLMStub(responder=script) as stub:
        services = await open_services(db_target, settings_for(tmp_path, stub))
        try:
            campaign = await services.campaigns.create("Valdorn", guild_id=20)
            imported = await services.knowledge.import_bytes(
                campaign.id,
                "worm.md",
                b"# The Pale Worm\n\nThe Pale Worm is gentle and kind to travellers.\n",
            )
            extraction = await services.voice.extract_source(campaign, imported.source.id)
            assert extraction.batch is not None and extraction.stored == 2
            await services.reviews.accept_all(None, GM, campaign_id=campaign.id, batch=extraction.batch)
            await services.canon.commit_batch(campaign, extraction.batch, GM)
            async with services.db.session() as session:
                reader = await reader_of(services.db, session, campaign)
                (worm,) = await reader.find_exact("The Pale Worm")
                (prose,) = await reader.statements(subject_ids=[worm.id], predicates=["alignment"])
            assert (prose.provenance.authority, prose.provenance.confidence) == (Authority.SOURCE, 0.6)
            assert EvidenceKind.CHUNK in [e.kind for e in prose.evidence]

            await add_factions(services, campaign)
            report = await services.structured.import_files(campaign, fixture_files(*KINDS), GM)
            assert report.status == "ingested", report.summary()
            assert report.entities.adopted == 1
            _, statements, _ = await by_key_or_id(services.db, campaign, worm.id)
            (yaml_fact,) = [
                s for s in statements if s.predicate == "alignment" and s.provenance.confidence == 1.0
            ]
            (contradiction,) = [w for w in report.warnings if w.kind == "contradicts_higher_authority"]
            assert contradiction.prevailing_id == yaml_fact.id
            assert set(contradiction.statement_ids) == {yaml_fact.id, prose.id}
            assert contradiction.superseded_ids == (prose.id,) and report.statements.superseded == 1
            assert "lawful good" in contradiction.message and "superseded" in contradiction.message
            async with services.db.session() as session:
                row = (
                    await session.execute(
                        select(ConflictRow).where(
                            ConflictRow.campaign_id == campaign.id,
                            ConflictRow.kind == "contradicts_higher_authority",
                        )
                    )
                ).scalar_one()
            evidence = {
                side["statement_id"]: [(e["kind"], e["file"], e["source_id"]) for e in side["evidence"]]
                for side in row.details["sides"]
            }
            assert ("chunk", None, imported.source.id) in evidence[prose.id]
            assert [kind for kind, _, _ in evidence[yaml_fact.id]] == ["yaml"]
            assert evidence[yaml_fact.id][0][1] == "bestiary.yaml"
            await assert_yaml_is_current(
                services.db, campaign, worm.id, yaml_fact.id, prose.id, "chaotic_evil"
            )
        finally:
            await services.close()


async def by_key_or_id(db: Database, campaign: Campaign, entity_id: int) -> Any:
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        entity = await reader.entity(entity_id)
        return entity, await reader.statements(subject_ids=[entity_id]), []


async def test_a_relation_limit_broken_by_play_is_won_by_the_yaml(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    # A player (in a scene) claims a third parent for Aldric; the family tree gives two.
    scene = await canon.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=20, channel_id=CHANNEL, title="Gossip", location=None, actor=GM
    )
    (proposal,) = await canon.proposals.propose(
        campaign,
        CHANNEL,
        RelationshipContent(
            subject=Ref(name="Orrin Vyr"), relation="PARENT_OF", object=Ref(name="Aldric Raventhorne")
        ),
        PAT,
    )
    assert proposal.warnings  # three parents: the GM accepts it anyway, with a reason
    await canon.canon.end_scene(CHANNEL)
    await canon.reviews.decide(proposal.id, accept=True, actor=GM, rationale="Rumour has it.")
    result = (await canon.canon.commit_scene(scene.id, GM)).result
    assert len(result.statement_ids) == 1
    # Re-ingesting the tree with a change that rewrites Aldric's parent edges checks them against play.
    tree = (FIXTURES / "family_tree.yaml").read_text()
    changed = tree.replace(
        "    parents: [cael_vyr, yssa_raventhorne]\n    spouse_of: [elara_raventhorne]",
        "    parents: [yssa_raventhorne, cael_vyr]\n    spouse_of: [elara_raventhorne]\n    description: Slayer.",
        1,
    )
    changed = changed.replace(
        "  - id: aldric_raventhorne\n    name: Aldric Raventhorne\n    born: 3rd_age.year_300",
        "  - id: aldric_raventhorne\n    name: Aldric Raventhorne\n    born: 3rd_age.year_301",
        1,
    )
    report = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert report.status == "ingested", report.summary()
    contradiction = next(w for w in report.warnings if w.kind == "contradicts_higher_authority")
    assert (
        "Orrin Vyr is Aldric Raventhorne's parent" in contradiction.message
        and "the YAML prevails" in contradiction.message
    )
    # The YAML's two parents stand; the played third one is kept, superseded by a YAML parent.
    (played,) = result.statement_ids
    assert contradiction.superseded_ids == (played,) and report.statements.superseded == 1
    aldric, _, _ = await by_key(db, campaign, "aldric_raventhorne")
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        card = await reader.card(aldric.id)
        parents = {
            v.subject.name
            for v in card.relations
            if v.statement.predicate == "PARENT_OF" and v.object and v.object.id == aldric.id
        }
        assert parents == {"Cael Vyr", "Yssa Raventhorne"}
        (kept,) = await reader.statements(statement_ids=[played], include_retconned=True)
    assert kept.provenance.level == CanonLevel.RETCONNED
    assert (
        contradiction.prevailing_id is not None and kept.provenance.replaced_by == contradiction.prevailing_id
    )


async def test_a_branch_ingests_into_itself_only(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    async with db.session() as session:
        last = await session.scalar(select(func.max(ChangesetRow.id)))
    branch = await db.run(lambda s: _fork(s, campaign, int(last or 0)))
    tree = (FIXTURES / "family_tree.yaml").read_text().replace("name: Maric Vyr", "name: Maric the Bold", 1)
    report = await importer.import_files(branch, [("family_tree.yaml", tree.encode())], GM)
    assert report.status == "ingested" and report.entities.changed == 1, report.summary()
    async with db.session() as session:
        root = await reader_of(db, session, campaign)
        assert (await root.find_exact("maric_vyr"))[0].name == "Maric Vyr"
        forked = await reader_of(db, session, branch)
        assert (await forked.find_exact("maric_vyr"))[0].name == "Maric the Bold"


async def _fork(session: Any, parent: Campaign, changeset: int) -> Campaign:
    row = campaigns.CampaignRow(
        name="Valdorn what-if", parent_id=parent.id, fork_changeset_id=changeset, settings={}
    )
    session.add(row)
    await session.flush()
    return await campaigns.get_campaign(session, row.id)


# --- pictures of what was ingested -------------------------------------------------------------------------


async def test_pictures_of_the_ingested_tree_and_timeline_leave_hidden_entries_out_for_players(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    from bot.services.pictures import PictureService
    from canon.render import TimelineLayout, TreeLayout

    await ingest_all(importer, canon, campaign)
    pictures = PictureService(db, canon.access)
    people = {viewer: await standing(db, campaign.id, "Person", viewer) for viewer in Viewer}
    (heir,) = [i for i, row in people[Viewer.GM].items() if row.key == "the_nameless_heir"]
    assert len(people[Viewer.GM]) == 17 and set(people[Viewer.PLAYER]) == set(people[Viewer.GM]) - {heir}
    for viewer in Viewer:
        picture = await pictures.family_tree(campaign, "The Bloodline of House Vyr", viewer=viewer)
        layout = picture.layout
        assert isinstance(layout, TreeLayout)
        # The decoded PNG: one drawn box per person the viewer may see, each where the layout says.
        drawn = assert_tree_shows(decode(picture.png), len(people[viewer]))
        assert drawn == sorted(inside(box.rect, 2) for box in layout.boxes.values())
        assert {i: box.lines[0] for i, box in layout.boxes.items()} == {
            i: row.name for i, row in people[viewer].items()
        }
        assert (heir in layout.boxes) is (viewer == Viewer.GM)
        # Theron and Mara founded the line: the top row; their grandchildren two rows below.
        names_by_row = [{layout.boxes[i].lines[0] for i in row} for row in layout.rows]
        assert {"Theron Ashveil", "Mara Ashveil"} <= names_by_row[0]
        assert "Cael Vyr" in names_by_row[2]
    aldric = await pictures.family_tree(campaign, "Aldric Raventhorne", viewer=Viewer.PLAYER, up=1, down=1)
    assert isinstance(aldric.layout, TreeLayout)
    names = {box.lines[0] for box in aldric.layout.boxes.values()}
    assert names == {
        "Aldric Raventhorne",
        "Elara Raventhorne",
        "Cael Vyr",
        "Yssa Raventhorne",
        "Corvin Raventhorne",
        "Wren Raventhorne",
    }
    assert_tree_shows(decode(aldric.png), len(names))
    for viewer in Viewer:
        eras = await standing(db, campaign.id, "Era", viewer)
        events = await standing(db, campaign.id, "Event", viewer)
        timeline = await pictures.timeline(campaign, viewer=viewer)
        layout = timeline.layout
        assert isinstance(layout, TimelineLayout)
        image = decode(timeline.png)
        spans = {row.key: era_span(row) for row in eras.values()}
        undated = [row for row in events.values() if row.world_from_key is None]
        assert [row.key for row in undated] == ["raising_of_the_black_spire"]  # only "in the Third Age"
        hidden = [
            row
            for row in (await standing(db, campaign.id, "Event", Viewer.GM)).values()
            if row.id not in events
        ]
        assert_timeline_shows(
            image,
            list(spans.values()),
            [year_of(row.world_from_key) for row in events.values() if row.world_from_key is not None],
            [spans["3rd_age"]],
            x_of=layout.x_of,
            absent=[year_of(row.world_from_key) for row in hidden if row.key == "drowning_of_the_library"],
        )
        assert sorted(era_bands(image)) == sorted(inside(band.rect, 1) for band in layout.bands.values())
        texts = [label.text for label in layout.events.values()]
        assert any(t.startswith("Battle of Black Spire (340)") for t in texts)
        assert any(t.startswith("Drowning of the Library") for t in texts) is (viewer == Viewer.GM)
        assert len(hidden) == (0 if viewer == Viewer.GM else 2)
    era = await pictures.timeline(campaign, "The Age of Iron", viewer=Viewer.PLAYER)
    assert isinstance(era.layout, TimelineLayout)
    assert {b.text for b in era.layout.bands.values()} == {"The Age of Iron"}
    assert all("Founding of Thornwall" not in label.text for label in era.layout.events.values())
    # One era drawn large: a year is several pixels wide here, so a marker a year off would show.
    iron = next(
        row
        for row in (await standing(db, campaign.id, "Era", Viewer.PLAYER)).values()
        if row.key == "age_of_iron"
    )
    span = dataclasses.replace(era_span(iron), sub=False)
    within = [
        year_of(row.world_from_key)
        for row in (await standing(db, campaign.id, "Event", Viewer.PLAYER)).values()
        if row.world_from_key is not None and span.start <= row.world_from_key // 10000 <= span.end
    ]
    assert len(within) == 3  # the battle, the slaying and the treaty; the nameless birth is GM-only
    assert_timeline_shows(decode(era.png), [span], within, x_of=era.layout.x_of)
    assert era_bands(decode(era.png)) == [inside(band.rect, 1) for band in era.layout.bands.values()]


def era_span(row: Any) -> EraSpan:
    """Return an Era entity's years (its validity) and whether it lies inside another era."""
    return EraSpan(
        start=row.world_from_key // 10000, end=row.world_until_key // 10000, sub=row.key == "age_of_iron"
    )


async def test_hidden_makes_every_entry_and_fact_gm_only(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, fixture_files("bestiary"), GM, hidden=True)
    assert report.status == "failed"  # the bestiary fixture names places of the gazetteer
    data = b"creatures:\n  - id: marsh_troll\n    name: Marsh Troll\n    alignment: NO\n"
    report = await importer.import_files(campaign, [("secret.yaml", data)], GM, hidden=True)
    assert report.status == "ingested"
    troll, statements, _ = await by_key(db, campaign, "marsh_troll")
    assert troll.visibility == Visibility.GM_ONLY and statements
    assert all(s.visibility == Visibility.GM_ONLY for s in statements)
    assert [s.value for s in statements if s.predicate == "alignment"] == ["NO"]  # the Norway rule
    async with db.session() as session:
        player = await reader_of(db, session, campaign, Viewer.PLAYER)
        assert await player.find_exact("Marsh Troll") == []
