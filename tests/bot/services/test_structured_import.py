"""Structured lore (YAML) into the canon graph on a real database: exact, all or nothing, re-ingest by difference.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import select

from bot.app import CanonServices
from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign, ChangesetRow
from canon.models import Authority, CanonLevel, EvidenceKind, StatementKind, Viewer, Visibility
from canon.storage import Database
from canon.structured import load_lore_file
from canon.tables import ConflictRow, EntityRow, EvidenceRow, StatementRow
from tests.conftest import SRD, require_shared
from tests.helpers.structured_import import by_key, reader_of
from tests.helpers.valdorn import GM, KINDS, fixture_files, ingest_all

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
