"""Characters and factions files, and plain-year campaigns, into the canon graph on a real database.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from bot.services.canon_access import CanonAccess
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign, ChangesetRow
from canon.graph import CanonReader
from canon.models import StatementKind, Viewer, Visibility
from canon.ontology import base_ontology
from canon.storage import Database
from memory.scenes import Actor
from tests.helpers.paths import YAML_FIXTURES

FIXTURES = YAML_FIXTURES
WORLD = [
    "timeline",
    "family_tree",
    "gazetteer",
    "bestiary",
    "magic_system",
    "culture",
    "characters",
    "factions",
]
GM = Actor(id=1, name="Gina", is_gm=True)


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


@pytest.fixture
def importer(db: Database) -> StructuredImportService:
    return StructuredImportService(db, CanonAccess().ontology_for)


def files(*kinds: str) -> list[tuple[str, bytes]]:
    return [(f"{kind}.yaml", (FIXTURES / f"{kind}.yaml").read_bytes()) for kind in kinds]


async def entity(
    db: Database, campaign: Campaign, key: str, viewer: Viewer = Viewer.GM
) -> tuple[Any, list[Any]]:
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=viewer)
        found = [e for e in await reader.find_exact(key) if e.key == key]
        if not found:
            return None, []
        statements = await reader.statements(subject_ids=[found[0].id], object_ids=[found[0].id])
        return found[0], statements


async def names_of(db: Database, campaign: Campaign, ids: set[int]) -> dict[int, str]:
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.GM)
        return {i: e.key or e.name for i, e in (await reader.entities(ids)).items()}


async def test_a_roster_and_factions_import_with_the_family_tree_and_the_world_without_any_canon_first(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, files(*WORLD), GM)
    assert report.status == "ingested", report.summary()
    assert report.counts["NPC"] == 4 and report.counts["PC"] == 1 and report.counts["Faction"] == 3
    ilse, statements = await entity(db, campaign, "sister_ilse")
    assert ilse.type == "NPC" and set(ilse.aliases) >= {"The Grey Sister", "Ilse of Silverfall"}
    names = await names_of(db, campaign, {s.object_id for s in statements if s.object_id} | {ilse.id})
    relations = {
        (s.predicate, names[s.object_id]) for s in statements if s.object_id and s.subject_id == ilse.id
    }
    assert {("MEMBER_OF", "sisterhood_of_silver"), ("LIVES_IN", "silverfall_abbey")} <= relations
    assert ("LEADS", "sisterhood_of_silver") in relations
    facts = {s.predicate: (s.value, s.visibility) for s in statements if s.kind == StatementKind.ATTRIBUTE}
    assert facts["status"] == ("alive", Visibility.PUBLIC)
    assert facts["gm_notes"][1] == Visibility.GM_ONLY
    states = [(s.value, s.validity.world_from) for s in statements if s.kind == StatementKind.STATE]
    assert states == [("alive", "3rd_age.year_310")]
    kestrel, _ = await entity(db, campaign, "kestrel")
    assert kestrel.type == "PC"
    # The factions: a leader from the family tree, allies both ways in one edge, a seat from the gazetteer.
    _, vyr_statements = await entity(db, campaign, "house_vyr")
    names = await names_of(
        db,
        campaign,
        {s.subject_id for s in vyr_statements} | {s.object_id for s in vyr_statements if s.object_id},
    )
    edges = {
        (names[s.subject_id], s.predicate, names.get(s.object_id or 0)) for s in vyr_statements if s.object_id
    }
    assert ("aldric_raventhorne", "LEADS", "house_vyr") in edges
    assert ("thornwall_keep", "SEAT_OF", "house_vyr") in edges
    assert len([e for e in edges if e[1] == "ALLY_OF"]) == 1  # both factions list it: one statement
    assert ("house_vyr", "ENEMY_OF", "crimson_pact") in edges
    # The timeline's participants now resolve to the factions file, not to canon made by hand.
    _, battle_statements = await entity(db, campaign, "battle_of_black_spire")
    pact, _ = await entity(db, campaign, "crimson_pact")
    assert any(s.predicate == "PARTICIPATED_IN" and s.subject_id == pact.id for s in battle_statements)


async def player_card(db: Database, campaign: Campaign, key: str) -> list[str]:
    """Return the sentences of an entity's card as a player reads it (empty: the player cannot see it)."""
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.PLAYER)
        found = [e for e in await reader.find_exact(key) if e.key == key]
        if not found:
            return []
        card = await reader.card(found[0])
        return [v.sentence() for v in (*card.relations, *card.facts)] + [found[0].name]


async def test_gm_only_fields_and_hidden_characters_never_reach_a_player(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, files(*WORLD), GM)
    assert report.status == "ingested", report.summary()
    varek = " | ".join(await player_card(db, campaign, "varek_the_red"))
    assert "Warlord of the Pact" in varek
    assert "imprisoned" not in varek and "lowest cell" not in varek
    _, gm_statements = await entity(db, campaign, "varek_the_red")
    assert {s.predicate: s.value for s in gm_statements}["status"] == "imprisoned"
    assert await player_card(db, campaign, "the_whisper") == []
    pact = " | ".join(await player_card(db, campaign, "crimson_pact"))
    assert "Varek the Red member of The Crimson Pact" in pact
    assert "Whisper" not in pact and "Avenge" not in pact
    sisterhood = " | ".join(await player_card(db, campaign, "sisterhood_of_silver"))
    assert "Nameless" not in sisterhood and "hidden child" not in sisterhood
    assert "Sister Ilse member of Sisterhood of Silver" in sisterhood  # from the roster, public


PLAIN_TREE = b"""lineage: house_mott
name: The Motts of Mardsville
members:
  - id: abel_mott
    name: Abel Mott
    born: 1102
    died: 1170.4.2
  - id: old_mott
    name: Old Mott
    born: 1141
    parents: [abel_mott]
"""
PLAIN_TIMELINE = b"""events:
  - id: great_flood
    name: The Great Flood
    year: 1150
    participants: [abel_mott]
"""


async def test_a_campaign_with_plain_years_needs_no_era(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    roster = b"characters:\n  - id: wenna\n    name: Wenna\n    born: 1160\n    faction: ferrymen\n"
    guild = (
        b"factions:\n  - id: ferrymen\n    name: The Ferrymen\n    leader: old_mott\n    members: [wenna]\n"
    )
    report = await importer.import_files(
        campaign,
        [
            ("tree.yaml", PLAIN_TREE),
            ("timeline.yaml", PLAIN_TIMELINE),
            ("roster.yaml", roster),
            ("guild.yaml", guild),
        ],
        GM,
    )
    assert report.status == "ingested", report.summary()
    _, statements = await entity(db, campaign, "abel_mott")
    states = sorted(
        (s.value, s.validity.world_from, s.validity.world_from_key)
        for s in statements
        if s.kind == StatementKind.STATE
    )
    assert states == [("alive", "1102", 11020000), ("dead", "1170.month_4.day_2", 11700402)]
    flood, _ = await entity(db, campaign, "great_flood")
    assert flood.validity.world_from == "1150"
    # A plain year is checked like any: a child born before a parent is a warning, as with eras.
    late = b"lineage: late\nmembers:\n  - id: late_child\n    name: Late Child\n    born: 1090\n    parents: [abel_mott]\n"
    report = await importer.import_files(campaign, [("late.yaml", late)], GM)
    assert report.status == "ingested", report.summary()
    assert any("Late Child" in w.message for w in report.warnings), [w.message for w in report.warnings]


async def test_aliases_are_given_once_and_kept_when_a_roster_changes(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    first = "characters:\n  - id: mira\n    name: Mira\n    aliases: [The Quiet, the quiet]\n"
    again = "characters:\n  - id: mira\n    name: Mira\n    aliases: [The  Quiet, Mira of the Docks]\n"
    later = "characters:\n  - id: mira\n    name: Mira\n    aliases: [Mira of the Docks]\n"
    for text in (first, again, later):
        report = await importer.import_files(campaign, [("roster.yaml", text.encode())], GM)
        assert report.status == "ingested", report.summary()
    mira, statements = await entity(db, campaign, "mira")
    # One alias per spelling, whatever its case and spaces; an alias the file no longer lists stays a name.
    assert mira.aliases == ("The Quiet", "Mira of the Docks")
    (listed,) = [s.value for s in statements if s.predicate == "aliases"]
    assert listed == "Mira of the Docks"


async def test_a_changed_roster_that_only_adds_is_written_at_once_and_one_that_retcons_asks_first(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    first = "characters:\n  - id: mira\n    name: Mira\n    status: alive\n"
    more = first + "  - id: orin\n    name: Orin\n"
    dead = more.replace("status: alive", "status: dead")

    async def changesets() -> int:
        async with db.session() as session:
            return len(list((await session.execute(select(ChangesetRow.id))).scalars()))

    assert (await importer.import_files(campaign, [("roster.yaml", first.encode())], GM)).status == "ingested"
    before = await changesets()
    added = await importer.import_files(campaign, [("roster.yaml", more.encode())], GM, replace=False)
    assert added.status == "ingested" and added.changeset_id is not None
    assert added.statements.retconned == 0 and await changesets() == before + 1
    orin, _ = await entity(db, campaign, "orin")
    assert orin is not None
    asked = await importer.import_files(campaign, [("roster.yaml", dead.encode())], GM, replace=False)
    assert asked.status == "confirm" and asked.changeset_id is None
    assert (
        "1 fact changed: Mira's status" in asked.retcon_text() and await changesets() == before + 1
    )  # nothing written
    _, statements = await entity(db, campaign, "mira")
    assert [s.value for s in statements if s.predicate == "status"] == ["alive"]
    done = await importer.import_files(campaign, [("roster.yaml", dead.encode())], GM, replace=True)
    assert done.status == "ingested" and done.statements.retconned == 1


async def test_a_family_tree_member_is_found_by_its_aliases(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    tree = (
        "lineage: vaske\nname: House Vaske\nmembers:\n"
        "  - id: orrin\n    name: Orrin Vaske\n    aliases: [Old Salt, Lord Orrin]\n"
        "  - id: tamsin\n    name: Tamsin Vaske\n    parents: [orrin]\n"
    )
    report = await importer.import_files(campaign, [("family.yaml", tree.encode())], GM)
    assert report.status == "ingested", report.summary()
    orrin, statements = await entity(db, campaign, "orrin")
    assert set(orrin.aliases) == {"Old Salt", "Lord Orrin"}
    assert [s.value for s in statements if s.predicate == "aliases"] == ["Old Salt, Lord Orrin"]
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.PLAYER)
        assert [e.name for e in await reader.find_exact("old salt")] == ["Orrin Vaske"]
