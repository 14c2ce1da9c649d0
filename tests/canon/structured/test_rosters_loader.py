"""Characters and factions files are read as strictly as the other kinds, every problem at its line."""

from __future__ import annotations

from canon.structured import load_lore_file
from tests.helpers.paths import YAML_FIXTURES

FIXTURES = YAML_FIXTURES


def problems(text: str) -> list[tuple[int, int, str]]:
    result = load_lore_file(text, "roster.yaml")
    return [(p.line, p.column, p.message) for p in result.problems]


def test_the_fixture_roster_and_factions_load_with_their_types_edges_and_hidden_fields() -> None:
    roster = load_lore_file(FIXTURES / "characters.yaml")
    assert roster.ok and roster.kind == "characters"
    types = {e.id: e.entity_type for e in roster.entries}
    assert types["kestrel"] == "PC" and types["sister_ilse"] == "NPC"
    varek = next(e for e in roster.entries if e.id == "varek_the_red")
    assert "status" in varek.gm_only and varek.attributes["status"] == "imprisoned"
    edges = {(r.type, r.source_id, r.target_id) for r in roster.relations}
    assert ("LIVES_IN", "sister_ilse", "silverfall_abbey") in edges
    assert ("MEMBER_OF", "sister_ilse", "sisterhood_of_silver") in edges
    factions = load_lore_file(FIXTURES / "factions.yaml")
    assert factions.ok and factions.kind == "factions"
    edges = {(r.type, r.source_id, r.target_id, r.visibility) for r in factions.relations}
    assert ("LEADS", "aldric_raventhorne", "house_vyr", "public") in edges
    assert ("SEAT_OF", "thornwall_keep", "house_vyr", "public") in edges
    assert ("MEMBER_OF", "the_nameless_heir", "sisterhood_of_silver", "gm_only") in edges
    # Both factions name their alliance: one edge, whichever side lists it.
    allies = [r for r in factions.relations if r.type == "ALLY_OF"]
    assert len(allies) == 1


def test_a_bad_roster_reports_every_problem_at_its_line() -> None:
    text = (
        "characters:\n"
        "  - id: anna\n"
        "    name: Anna\n"
        "    role: villain\n"
        "    status: sleepy\n"
        "    gm_only: [name, faction, secrets]\n"
        "    home: [a, b]\n"
        "  - id: bo\n"
        "    name: Bo\n"
        "    faction: Crimson Pact\n"
        "    born: 1200\n"
        "    died: 1100\n"
        "    hometown: mardsville\n"
    )
    found = problems(text)
    assert (4, 11, '"role" must be one of: npc, pc; got "villain"') in found
    assert (
        5,
        13,
        '"status" must be one of: alive, wounded, missing, imprisoned, cursed, undead, dead; got "sleepy"',
    ) in found
    assert any(
        line == 7 and '"home" must be a name like “Anna” (or its id, anna)' in m for line, _, m in found
    )
    assert not any(
        line == 10 for line, _, _ in found
    )  # "Crimson Pact" names the faction: its id is crimson_pact
    assert any(line == 13 and 'unknown field "hometown"' in m and '"home"' in m for line, _, m in found)


def test_gm_only_must_name_fields_it_can_hide_and_dates_must_run_forwards() -> None:
    text = (
        "characters:\n"
        "  - id: anna\n"
        "    name: Anna\n"
        "    gm_only: [name, faction, secrets]\n"
        "    born: 1200\n"
        "    died: 1100\n"
    )
    found = problems(text)
    assert [(line, column) for line, column, _ in found] == [(4, 15), (4, 30), (6, 11)]
    assert found[0][2].startswith(
        '"gm_only" lists "name", which is not a field it can hide; it may list: role,'
    )
    assert found[2][2] == '"died" (1100) is before "born" (1200)'


def test_a_faction_cannot_be_both_ally_and_rival_nor_refer_to_itself() -> None:
    text = (
        "factions:\n"
        "  - id: pact\n"
        "    name: The Pact\n"
        "    allies: [vyr]\n"
        "    rivals: [vyr, pact]\n"
        "    leader: pact\n"
    )
    found = problems(text)
    assert (5, 14, '"vyr" is listed both as an ally and as a rival') in found
    assert any(line == 5 and 'refers to "pact" itself' in m for line, _, m in found)
    assert any(line == 6 and 'refers to "pact" itself' in m for line, _, m in found)


def test_a_character_named_where_a_person_is_expected_is_one_and_a_faction_is_not() -> None:
    text = (
        "kind: characters\n"
        "characters:\n"
        "  - id: anna\n"
        "    name: Anna\n"
        "    faction: bo\n"
        "  - id: bo\n"
        "    name: Bo\n"
    )
    found = problems(text)
    assert found == [(5, 14, '"faction" must name a Faction or Lineage; “Bo” is the NPC at line 6')]
