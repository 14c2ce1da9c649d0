"""Tests for the strict structured-lore YAML loader: valid files, every rejection rule, the normalised records."""

from __future__ import annotations

import pathlib
import tracemalloc
from collections import Counter

import pytest
from sqlalchemy import func, select

from canon import campaigns
from canon.calendar import WorldDate
from canon.campaigns import ChangesetRow
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured import (
    RELATION_FIELDS,
    BestiaryFile,
    CultureFile,
    FamilyTreeFile,
    LoadResult,
    LoreKind,
    LoreModel,
    TimelineFile,
    load_lore_file,
    parse_yaml_as,
)
from canon.structured.ingest import ingest, load_files
from canon.structured.tables import StructuredFileRow
from canon.tables import EntityRow, EvidenceRow, StatementRow
from tests.helpers.paths import SHARED, YAML_FIXTURES

FIXTURES = YAML_FIXTURES
SRD_BESTIARY = SHARED / "corpora" / "srd" / "world" / "bestiary.yaml"
VALID = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]
# Factions are not defined by any of the six kinds; they stay unresolved for the caller.
EXTERNAL_FACTIONS = {"sisterhood_of_silver", "crimson_pact"}


def load(name: str, **kwargs: object) -> LoadResult:
    return load_lore_file(FIXTURES / name, **kwargs)  # type: ignore[arg-type]


def problems(result: LoadResult) -> list[tuple[int, int, str]]:
    return [(p.line, p.column, p.message) for p in result.problems]


def relations(result: LoadResult, kind: str) -> set[tuple[str, str]]:
    return {(r.source_id, r.target_id) for r in result.relations if r.type == kind}


# --- the valid fixtures ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", VALID)
def test_each_valid_fixture_loads_without_problems(kind: LoreKind) -> None:
    result = load(f"{kind}.yaml")
    assert result.problems == ()
    assert result.ok
    assert result.kind == kind
    assert result.document is not None
    assert 10 <= len(result.entries) <= 30
    ids = [entry.id for entry in result.entries]
    assert len(ids) == len(set(ids))
    assert all(
        entry.file == f"{kind}.yaml" and entry.line >= 1 and entry.column >= 1 for entry in result.entries
    )


def test_the_valid_fixtures_reference_each_other_consistently() -> None:
    results = [load(f"{kind}.yaml") for kind in VALID]
    defined = {entry.id: entry.entity_type for result in results for entry in result.entries}
    leftovers = set()
    for result in results:
        for reference in result.unresolved:
            entity_type = defined.get(reference.target_id)
            if entity_type is None:
                leftovers.add(reference.target_id)
            else:
                assert entity_type in reference.expected_types, str(reference)
    assert leftovers == EXTERNAL_FACTIONS


def test_entry_types_per_kind() -> None:
    expected = {
        "timeline": {"Era": 4, "Event": 11},
        "family_tree": {"Lineage": 1, "Person": 17},
        "gazetteer": {"Location": 9, "Region": 4},
        "bestiary": {"Creature": 10},
        "magic_system": {"MagicSystem": 4, "Spell": 7},
        "culture": {"Culture": 3, "Language": 4, "Deity": 3},
    }
    for kind, counts in expected.items():
        assert Counter(e.entity_type for e in load(f"{kind}.yaml").entries) == counts


def test_family_tree_relations_point_the_documented_way() -> None:
    result = load("family_tree.yaml")
    parent_of = {(r.source_id, r.target_id): r for r in result.relations if r.type == "PARENT_OF"}
    # parents: [cael_vyr, yssa_raventhorne] on aldric => cael_vyr PARENT_OF aldric_raventhorne
    edge = parent_of[("cael_vyr", "aldric_raventhorne")]
    assert edge.valid_from == WorldDate(era="3rd_age", year=300)  # the child's birth
    assert edge.valid_until == WorldDate(era="3rd_age", year=345)  # the parent's death
    assert (edge.field, edge.line, edge.column) == ("parents", 73, 15)
    assert ("yssa_raventhorne", "aldric_raventhorne") in parent_of
    assert ("aldric_raventhorne", "cael_vyr") not in parent_of
    # Spouses listed on both sides give one edge.
    spouses = relations(result, "SPOUSE_OF")
    assert ("theron_ashveil", "mara_ashveil") in spouses
    assert ("mara_ashveil", "theron_ashveil") not in spouses
    assert not any(r.type == "FOUNDED" for r in result.relations)  # founding_ancestor is an attribute
    assert next(e for e in result.entries if e.id == "house_vyr_bloodline").attributes[
        "founding_ancestor"
    ] == ("Theron Ashveil")
    members = {
        r.source_id: r
        for r in result.relations
        if r.type == "MEMBER_OF" and r.target_id == "house_vyr_bloodline"
    }
    assert len(members) == 17
    assert members["maelis_vyr"].valid_until == WorldDate(era="3rd_age", year=340, month=3, day=17)
    assert ("theron_ashveil", "valdorni") in relations(result, "MEMBER_OF")
    births = {(e.entity_id, e.event): e.date for e in result.life_events}
    assert births[("mara_ashveil", "born")] == WorldDate(era="3rd_age", year=184, month=2, day=11)
    assert births[("yssa_raventhorne", "born")].precision == "era"
    assert births[("orrin_vyr", "died")].is_unknown


def test_other_relation_directions() -> None:
    bestiary = load("bestiary.yaml")
    assert ("aldric_raventhorne", "pale_worm") in relations(bestiary, "DEFEATED")
    assert ("pale_worm", "frostmere") in relations(bestiary, "INHABITS")
    assert not any(r.source_id == "marsh_troll" for r in bestiary.relations if r.type == "INHABITS")
    culture = load("culture.yaml")
    assert ("valdorni", "aelar_the_patient") in relations(culture, "WORSHIPS")
    assert ("frostfolk", "common_tongue") in relations(culture, "SPEAKS")
    assert ("old_valdorni", "valdorni") in relations(culture, "LANGUAGE_OF")
    assert ("valdorn", "valdorni") in relations(culture, "HOMELAND_OF")
    magic = load("magic_system.yaml")
    assert ("valdorni", "the_weave") in relations(magic, "PRACTICES")
    assert ("valdorni", "emberlance") in relations(magic, "PRACTICES")
    assert ("emberlance", "the_weave") in relations(magic, "BELONGS_TO")
    gazetteer = load("gazetteer.yaml")
    part_of = relations(gazetteer, "PART_OF")
    assert {
        ("thornwall_keep", "valdorn"),
        ("valdorn", "northern_reaches"),
        ("frostmere", "frosthollow"),
    } <= part_of
    # `frostmere.part_of: frosthollow` and `frosthollow.contains: [frostmere]` are one edge.
    assert (
        sum(
            1
            for r in gazetteer.relations
            if (r.type, r.source_id, r.target_id) == ("PART_OF", "frostmere", "frosthollow")
        )
        == 1
    )
    assert ("valdorni", "thornwall_keep") in relations(gazetteer, "CULTURE_OF")
    assert ("coronation_of_aelric", "thornwall_keep") in relations(gazetteer, "OCCURRED_AT")
    thornwall = next(e for e in gazetteer.entries if e.id == "thornwall_keep")
    assert thornwall.attributes == {
        "type": "fortress",
        "coordinates": {"x": 1240, "y": 870},
        "description": "Seat of House Vyr, on the Valdorn ridge.",
    }


def test_timeline_eras_events_and_dates() -> None:
    result = load("timeline.yaml")
    assert isinstance(result.document, TimelineFile)
    eras = {e.id: e for e in result.entries if e.entity_type == "Era"}
    assert eras["3rd_age"].name == "The Third Age"
    assert eras["3rd_age"].attributes["start"] == -100
    assert ("age_of_iron", "3rd_age") in relations(result, "SUB_ERA_OF")
    during = relations(result, "OCCURRED_DURING")
    assert ("battle_of_black_spire", "age_of_iron") in during  # era: 3rd_age.age_of_iron -> the last segment
    assert ("coronation_of_aelric", "3rd_age") in during  # nested events occur during the enclosing era
    battle = next(
        r for r in result.relations if r.type == "PARTICIPATED_IN" and r.source_id == "aldric_raventhorne"
    )
    assert battle.target_id == "battle_of_black_spire"
    assert battle.valid_from == WorldDate(era="age_of_iron", year=340, month=3, day=17)
    occurred = {e.entity_id: e.date for e in result.life_events if e.event == "occurred"}
    assert occurred["raising_of_the_black_spire"].precision == "era"
    assert {(e.entity_id, e.event) for e in result.life_events} >= {
        ("1st_age", "era_start"),
        ("3rd_age", "era_end"),
    }
    coronation = next(e for e in result.entries if e.id == "coronation_of_aelric")  # written with slug/label
    assert coronation.name == "Coronation of Aelric"
    assert coronation.attributes["date"] == "3rd_age.year_12"


def test_hidden_entries_and_relations_that_touch_them_are_gm_only() -> None:
    result = load("family_tree.yaml")
    visibility = {e.id: e.visibility for e in result.entries}
    assert visibility["the_nameless_heir"] == "gm_only"
    assert visibility["aldric_raventhorne"] == "public"
    edge = next(r for r in result.relations if r.type == "PARENT_OF" and r.target_id == "the_nameless_heir")
    assert edge.visibility == "gm_only"
    assert (
        next(
            r for r in result.relations if r.type == "PARENT_OF" and r.target_id == "corvin_raventhorne"
        ).visibility
        == "public"
    )
    timeline = load("timeline.yaml")
    hidden = {e.id for e in timeline.entries if e.visibility == "gm_only"}
    assert hidden == {"drowning_of_the_library", "the_nameless_birth"}


def test_visibility_defaults_to_the_enclosing_block() -> None:
    text = "lineage: l\nvisibility: gm_only\nmembers:\n  - id: a\n    name: A\n  - id: b\n    name: B\n    visibility: public\n"
    result = load_lore_file(text, "t.yaml")
    assert {e.id: e.visibility for e in result.entries} == {"l": "gm_only", "a": "gm_only", "b": "public"}
    assert {r.source_id: r.visibility for r in result.relations} == {"a": "gm_only", "b": "gm_only"}


# --- the Norway problem ----------------------------------------------------------------------------------------


def test_norway_strings_survive_exactly() -> None:
    result = load("norway.yaml")
    assert result.ok, result.problems
    document = result.document
    assert isinstance(document, CultureFile)
    cultures = {c.id: (c.name, c.description) for c in document.cultures}
    assert cultures == {
        "norse": ("NO", "yes"),
        "on": ("on", "off"),
        "012": ("012", "1e3"),
        "hexers": ("0x1F", "1:20"),
        "nulls": ("~", "null"),
        "empties": ("null", ""),
    }
    assert document.languages[0].script == "0o17"
    deity = document.deities[0]
    assert deity.id == "yes"
    assert deity.domain == [
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "true",
        "false",
        "1e3",
        "012",
        "0x1F",
        "1:20",
        "~",
        "null",
        ".inf",
        ".nan",
    ]
    assert (deity.alignment, deity.symbol) == ("TRUE", "3.10")
    assert ("on", "norsk") in relations(result, "SPEAKS")


def test_numbers_must_be_real_unquoted_integers() -> None:
    text = "spells:\n  - id: a\n    name: A\n    level: 3\n  - id: b\n    name: B\n    level: -0\n"
    result = load_lore_file(text)
    assert result.ok
    assert [s.level for s in result.document.spells] == [3, 0]  # type: ignore[union-attr]
    for written, hint in [
        ('"3"', "written without quotes"),
        ("3.0", ""),
        ("1_000", ""),
        ("yes", ""),
        ("0o7", ""),
    ]:
        result = load_lore_file(f"spells:\n  - id: a\n    name: A\n    level: {written}\n")
        assert len(result.problems) == 1, written
        assert result.problems[0].message.startswith('"level" must be a whole number like 340'), written
        assert hint in result.problems[0].message
        assert (result.problems[0].line, result.problems[0].column) == (4, 12)


class _Flags(LoreModel):
    enabled: bool
    note: str | None = None


def test_booleans_are_only_true_or_false() -> None:
    model, found = parse_yaml_as(_Flags, "enabled: true\n")
    assert found == ()
    assert model is not None and model.enabled is True
    assert parse_yaml_as(_Flags, "enabled: false\n")[0] == _Flags(enabled=False)
    for written in ["yes", "on", "True", '"true"', "1", "NO"]:
        model, found = parse_yaml_as(_Flags, f"enabled: {written}\n", "flags.yaml")
        assert model is None
        assert [str(p) for p in found] == [
            f'flags.yaml: line 1, column 10: "enabled" must be true or false (without quotes); got "{written.strip(chr(34))}"'
        ]


# --- every broken fixture --------------------------------------------------------------------------------------

DATE_HINT = (
    "3rd_age.300 (an era and a year), 3rd_age.300.3.17 (and a month and a day), 3rd_age (an era), "
    "412 or 412.3.17 (a plain year, without eras) or unknown"
)
BAD_ID = 'must be an id made of lowercase letters, digits, "_" and "-" that starts with a letter or digit'
NAME_GIVES = "(or leave the id out: the name gives one)"

YEARS = "outside the calendar, which runs over years -999,999,999,999 to 999,999,999,999"

BROKEN: dict[str, list[tuple[int, int, str]]] = {
    "broken_alias.yaml": [
        (2, 5, 'anchors ("&base") are not allowed in lore files; write the value out in full'),
        (5, 5, 'aliases ("*base") are not allowed in lore files; write the value out in full'),
    ],
    "broken_ambiguous_kind.yaml": [
        (
            1,
            1,
            "this file has no `kind:` line and holds the top-level keys of several kinds: creatures (bestiary), "
            "members (family tree); put each kind in its own file, or add a line such as `kind: bestiary` at the top",
        ),
    ],
    "broken_bad_id.yaml": [
        (2, 9, f'"id" {BAD_ID}, like pale_worm; got "Pale Worm" {NAME_GIVES}'),
        (5, 9, f'"id" {BAD_ID}, like frost; got "_frost" {NAME_GIVES}'),
        (7, 9, f'"id" {BAD_ID}, like emeraude; got "émeraude" {NAME_GIVES}'),
    ],
    "broken_complex_key.yaml": [(4, 7, "a key must be a simple name, not a list or a mapping")],
    "broken_cycle.yaml": [
        (
            8,
            15,
            '"alpha" would be their own ancestor: alpha -> gamma -> beta -> alpha '
            "(each followed by one of their parents)",
        ),
        (14, 15, 'item 1 of "parents" refers to "delta" itself'),
        (15, 17, 'item 1 of "spouse_of" refers to "delta" itself'),
    ],
    "broken_date_out_of_era.yaml": [
        (8, 15, '"year": year 700 is outside 3rd_age (years -100 to 600)'),
        (12, 10, '"end" (650) is after the end of its parent era 3rd_age (600)'),
        (15, 10, '"end" (10) is before "start" (50)'),
        (21, 12, '"month" must be 1 to 12 (the months of the calendar); got 13'),
        (25, 11, '"year": year 120 is outside age_of_iron (years 250 to 650)'),
    ],
    "broken_died_before_born.yaml": [
        (6, 11, '"died" (3rd_age.year_180) is before "born" (3rd_age.year_252)')
    ],
    "broken_duplicate_id.yaml": [
        (7, 9, 'duplicate id "valdorn": already used for the Location at line 4, column 9'),
        (9, 9, 'duplicate id "thornwall_keep": already used for the Location at line 2, column 9'),
    ],
    "broken_duplicate_key.yaml": [
        (5, 5, 'duplicate key "name" (already given at line 3, column 5)'),
        (6, 36, 'duplicate key "x" (already given at line 6, column 19)'),
        (9, 1, 'duplicate key "locations" (already given at line 1, column 1)'),
    ],
    "broken_empty.yaml": [(1, 1, "the file is empty; a lore file is a mapping such as `creatures: [...]`")],
    "broken_era_both_forms.yaml": [
        (
            1,
            1,
            '"era" describes a single era; with "eras:" put it inside each era\'s entry, or drop "eras:" and '
            "describe one era at the top level",
        ),
        (
            2,
            1,
            '"start" describes a single era; with "eras:" put it inside each era\'s entry, or drop "eras:" and '
            "describe one era at the top level",
        ),
    ],
    "broken_event_era.yaml": [
        (11, 14, '"era" is 2nd_age, but this event is listed under era 3rd_age'),
        (
            18,
            10,
            '"era" is 2nd_age.age_of_iron, but era age_of_iron is not inside 2nd_age (its parent_era is 3rd_age)',
        ),
        (
            19,
            5,
            'an event listed outside an era needs "era:" (the era it happened in), or "year:" in a campaign '
            "whose years have no eras",
        ),
    ],
    "broken_invalid_date.yaml": [
        (5, 11, f'"born" must be a date like {DATE_HINT}; got "300 TA"'),
        (8, 11, f'"born" must be a date like {DATE_HINT}; got "3rd_age.year_abc" ("year_abc" is not a year)'),
        (
            11,
            11,
            f'"born" must be a date like {DATE_HINT}; got "3rd_age.300.13.1" '
            "(month 13 is not a month of the calendar (1 to 12))",
        ),
        (12, 11, f'"died" must be a date like {DATE_HINT}; got "3rd_Age.year_350" (era ids are lowercase)'),
        (15, 11, f'"born" must be a date like {DATE_HINT}; got "340 years ago"'),
    ],
    "broken_kind_value.yaml": [
        (
            1,
            7,
            "“kind: monsters” is not a kind of world file: say which one in a line such as `kind: bestiary` at "
            "the top; the kinds are timeline, family tree, gazetteer, bestiary, magic system, culture, characters "
            "and factions",
        ),
    ],
    "broken_missing_field.yaml": [
        # Mara Ashveil has a name and no id: her name gives it. The others are asked for a name, not an id.
        (1, 1, "this entry needs a name, written like `name: Mara Ashveil` (the id comes from the name)"),
        (2, 5, "this entry needs a name, written like `name: Mara Ashveil` (the id comes from the name)"),
    ],
    "broken_multiple_documents.yaml": [
        (
            4,
            1,
            "a second YAML document starts here; a lore file holds exactly one document "
            "(remove the extra `---` or split the file)",
        ),
    ],
    "broken_not_mapping.yaml": [
        (
            1,
            1,
            "a lore file must be a mapping of top-level fields (such as era:, members:, locations:, creatures:, "
            "systems:, cultures:, characters:, factions:); this file is a list",
        ),
    ],
    "broken_not_utf8.yaml": [
        (
            3,
            12,
            "the file is not valid UTF-8: byte 0xE8 at byte offset 35 cannot be decoded (save the file as UTF-8)",
        ),
        (
            6,
            11,
            "the file is not valid UTF-8: byte 0xFF at byte offset 90 cannot be decoded (save the file as UTF-8)",
        ),
    ],
    "broken_quoted_number.yaml": [
        (2, 8, '"start" must be a whole number like 340 written without quotes; got "-100" in quotes'),
        (7, 11, '"year" must be a whole number like 340 written without quotes; got "340" in quotes'),
    ],
    "broken_reference_wrong_type.yaml": [
        (4, 15, '"language" must name a Language; “Aelar the Patient” is the Deity at line 10'),
        (5, 15, '"homeland" must name a Location or Region; “Valdorni” is the Language at line 7'),
    ],
    "broken_repeated_reference.yaml": [(5, 31, '"parents" lists "theron_ashveil" more than once')],
    "broken_syntax.yaml": [
        (
            3,
            11,
            "a list opened with [ on this line is not closed with ]: close it, or write the list one item a "
            "line, each starting with `- `",
        ),
    ],
    "broken_tab_indentation.yaml": [
        (3, 1, "a tab character is used for indentation; YAML needs spaces"),
        (5, 3, "a tab character is used for indentation; YAML needs spaces"),
    ],
    "broken_tag.yaml": [
        (
            3,
            11,
            'tags ("!!str") are not allowed in lore files; write the plain value (put quotes around it if it must be text)',
        ),
        (
            4,
            18,
            'tags ("!python/object:os.system") are not allowed in lore files; write the plain value '
            "(put quotes around it if it must be text)",
        ),
    ],
    "broken_too_large.yaml": [
        (
            1,
            1,
            "the file is 2,581 bytes; a lore file may be at most 1,024 bytes (split it into several files)",
        ),
    ],
    "broken_unknown_field.yaml": [
        (
            4,
            5,
            'unknown field "habitats" (did you mean "habitat"?); allowed fields: id, name, species, alignment, '
            "habitat, first_appeared, description, defeated_by, visibility",
        ),
        (
            5,
            5,
            'unknown field "weight"; allowed fields: id, name, species, alignment, habitat, first_appeared, '
            "description, defeated_by, visibility",
        ),
    ],
    "broken_unknown_kind.yaml": [
        (
            1,
            1,
            "this file has no `kind:` line, and its top-level keys (monsters) do not say which kind of world file "
            "it is: say which one in a line such as `kind: timeline` at the top; the kinds are timeline, family "
            "tree, gazetteer, bestiary, magic system, culture, characters and factions",
        ),
    ],
    "broken_visibility.yaml": [(4, 17, '"visibility" must be one of: public, gm_only; got "secret"')],
    "broken_year_out_of_range.yaml": [
        (6, 12, f'"start" is -1,000,000,000,000,000, {YEARS}'),
        (11, 15, f'"year" is 1,000,000,000,000,000, {YEARS}'),
    ],
    "broken_wrong_type.yaml": [
        (4, 13, '"system" must be a name like “Emberlance” (or its id, emberlance); got a list'),
        (5, 12, '"level" must be a whole number like 340; got "three"'),
        (
            6,
            20,
            '"practitioners" must be a list like ["a", "b"]; got "valdorni" (write [valdorni] for a single item)',
        ),
        (8, 11, '"name" must be text; got a mapping'),
        (9, 12, '"level" must be a whole number like 340; got "0x1F"'),
        (
            12,
            12,
            '"level" must be a whole number like 340; got "012" (leading zeros are not allowed: write 12)',
        ),
        (15, 12, '"level" must be a whole number like 340; got "1e3"'),
    ],
    "broken_multiple_problems.yaml": [
        (6, 11, f'"born" must be a date like {DATE_HINT}; got "300 TA"'),
        (
            7,
            5,
            'unknown field "nickname" (did you mean "aliases"?); allowed fields: id, name, aliases, born, died, '
            "parents, spouse_of, culture, titles, status, description, visibility",
        ),
        (8, 9, 'duplicate id "theron_ashveil": already used for the Person at line 4, column 9'),
        (10, 5, "this entry needs a name, written like `name: Theron Ashveil` (the id comes from the name)"),
        (16, 5, 'duplicate key "name" (already given at line 15, column 5)'),
        (17, 13, '"titles" must be a list like ["a", "b"]; got "Lord" (write [Lord] for a single item)'),
    ],
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_fixture_reports_exactly_its_problems(name: str) -> None:
    options = {"max_bytes": 1024} if name == "broken_too_large.yaml" else {}
    result = load(name, **options)
    assert not result.ok
    assert result.document is None
    assert result.entries == result.relations == result.life_events == ()
    assert problems(result) == BROKEN[name]
    assert all(p.file == name for p in result.problems)


def test_every_broken_fixture_is_covered() -> None:
    on_disk = {p.name for p in FIXTURES.glob("broken_*.yaml")}
    assert on_disk - set(BROKEN) == {"broken_billion_laughs.yaml", "broken_unresolved_reference.yaml"}


@pytest.mark.parametrize(
    ("text", "place", "message"),
    [
        (
            "lineage: l\nmembers:\n  - id: p\n    name: P\n    born: an_age.year_1000000000000000\n",
            (5, 11),
            "born",
        ),
        (
            "creatures:\n  - id: c\n    name: C\n    first_appeared: an_age.-1000000000000\n",
            (4, 21),
            "first_appeared",
        ),
    ],
)
def test_a_date_whose_year_is_outside_the_calendar_is_reported_with_its_place_and_the_range(
    text: str, place: tuple[int, int], message: str
) -> None:
    result = load_lore_file(text, "f.yaml")
    written = text.split(": ")[-1].strip()
    expected = f'"{message}" must be a date like {DATE_HINT}; got "{written}" (the year is {YEARS})'
    assert problems(result) == [(*place, expected)]


@pytest.mark.parametrize(
    ("text", "place", "message"),
    [
        ("era: an_age\nstart: 1" + "0" * 5000 + "\n", (2, 8), '"start" must be a whole number like 340'),
        (
            "spells:\n  - id: s\n    name: S\n    level: 0" + "9" * 5000 + "\n",
            (4, 12),
            '"level" must be a whole number like 340',
        ),
        (
            "locations:\n  - id: l\n    name: L\n    coordinates: {x: 1" + "0" * 5000 + ".5, y: 1}\n",
            (4, 22),
            '"x" must be a number like 12 or 12.5',
        ),
    ],
)
def test_a_number_too_long_for_any_field_is_refused_with_its_place_not_converted(
    text: str, place: tuple[int, int], message: str
) -> None:
    result = load_lore_file(text, "f.yaml")
    assert problems(result) == [(*place, f"{message} of at most 30 digits; got one of 5,001 digits")]


def test_a_problem_reads_as_file_line_column_message() -> None:
    result = load("broken_invalid_date.yaml")
    assert str(result.problems[0]) == (
        f'broken_invalid_date.yaml: line 5, column 11: "born" must be a date like {DATE_HINT}; got "300 TA"'
    )


def test_the_too_large_fixture_loads_under_the_default_limit() -> None:
    assert load("broken_too_large.yaml").ok


@pytest.mark.timeout(20)
def test_the_billion_laughs_bomb_is_rejected_without_expanding_it() -> None:
    tracemalloc.start()
    try:
        result = load("broken_billion_laughs.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not result.ok
    messages = [p.message for p in result.problems]
    assert sum(m.startswith('aliases ("*lol') for m in messages) == 90
    assert sum(m.startswith('anchors ("&lol') for m in messages) == 10
    first = next(p for p in result.problems if p.message.startswith("anchors"))
    assert (first.line, first.column) == (4, 11)
    assert peak < 20 * 1024 * 1024  # expanded, lol9 alone would need gigabytes


@pytest.mark.timeout(60)
def test_a_huge_alias_fan_out_is_still_cheap() -> None:
    lines = ["creatures:", "  - id: a", "    name: &n x"]
    lines += [f"    k{i}: [{', '.join(['*n'] * 50)}]" for i in range(20)]
    result = load_lore_file("\n".join(lines) + "\n")
    assert not result.ok
    assert len(result.problems) <= 1000 + 1
    assert result.problems[-1].message.startswith("... and ") or len(result.problems) == 1 + 20 + 1000


def test_unresolved_references_are_returned_not_rejected() -> None:
    result = load("broken_unresolved_reference.yaml")
    assert result.ok
    assert [
        (u.line, u.column, u.source_id, u.field, u.target_id, u.expected_types) for u in result.unresolved
    ] == [
        (6, 14, "pale_worm", "habitat", "frostmere", ("Location", "Region")),
        (7, 21, "pale_worm", "first_appeared", "3rd_age", ("Era",)),
        (
            8,
            19,
            "pale_worm",
            "defeated_by",
            "aldric_raventhorne",
            ("Person", "Creature", "Deity", "Faction"),
        ),
    ]
    # spire_wraith is defined in the file, so its DEFEATED edge resolves.
    assert ("spire_wraith", "pale_worm") in relations(result, "DEFEATED")
    assert str(result.unresolved[0]) == (
        'broken_unresolved_reference.yaml: line 6, column 14: "habitat" of "pale_worm" refers to "frostmere", '
        "which this file does not define (expected a Location or Region)"
    )


def test_unresolved_references_are_reported_even_when_the_file_has_problems() -> None:
    result = load("broken_died_before_born.yaml")
    assert not result.ok
    assert {u.target_id for u in result.unresolved} == {"3rd_age"}


# --- the real SRD bestiary ----------------------------------------------------------------------------------------


@pytest.mark.skipif(not SRD_BESTIARY.exists(), reason=f"the SRD bestiary is not available at {SRD_BESTIARY}")
def test_the_real_srd_bestiary_loads() -> None:
    result = load_lore_file(SRD_BESTIARY)
    assert result.problems == ()
    assert result.kind == "bestiary"
    assert isinstance(result.document, BestiaryFile)
    assert len(result.document.creatures) == 334
    assert len(result.entries) == 334
    assert all(c.habitat is None for c in result.document.creatures)  # `habitat: null` means no habitat
    assert result.relations == ()
    assert result.unresolved == ()
    dragon = next(e for e in result.entries if e.id == "adult-black-dragon")  # hyphenated ids are accepted
    assert dragon.attributes["alignment"] == "chaotic evil"


# --- kind detection -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("era: 3rd_age\n", "timeline"),
        ("eras: []\n", "timeline"),
        ("events: []\n", "timeline"),
        ("lineage: l\nmembers: []\n", "family_tree"),
        ("regions: []\n", "gazetteer"),
        ("creatures: []\n", "bestiary"),
        ("spells: []\n", "magic_system"),
        ("deities: []\nlanguages: []\n", "culture"),
        ("kind: bestiary\n", "bestiary"),
        ("kind: culture\ncultures: []\n", "culture"),
    ],
)
def test_kind_is_recognised_from_top_level_keys_or_kind(text: str, kind: str) -> None:
    result = load_lore_file(text)
    assert result.ok, result.problems
    assert result.kind == kind


def test_a_declared_kind_wins_and_other_kinds_keys_are_unknown_fields() -> None:
    result = load_lore_file("kind: bestiary\nmembers: []\n")
    assert problems(result) == [(2, 1, 'unknown field "members"; allowed fields: creatures')]


def test_the_caller_may_insist_on_a_kind() -> None:
    assert load_lore_file("creatures: []\n", kind="bestiary").ok
    result = load_lore_file("creatures: []\n", kind="timeline")
    assert problems(result) == [(1, 1, "this file is a bestiary file, but a timeline file was expected")]


# --- timeline forms -------------------------------------------------------------------------------------------------

SEED_TIMELINE = """\
era: "3rd_age"
parent_era: null
start: -100
end: 600
description: "The Third Age. The age of iron crowns and broken gods."

events:
  - slug: "battle_of_black_spire"
    label: "Battle of Black Spire"
    in_fiction_date: "17 Hearthmoon, 340 TA"
    era: "3rd_age.age_of_iron"
    year: 340
    month: 3
    day: 17
    location: "black_spire_pass"
    participants: ["house_vyr", "crimson_pact"]
"""


def test_the_seed_single_era_timeline_loads() -> None:
    result = load_lore_file(SEED_TIMELINE, "timeline.yaml")
    assert result.ok, result.problems
    document = result.document
    assert isinstance(document, TimelineFile)
    assert [era.era for era in document.eras] == ["3rd_age"]
    assert document.eras[0].events[0].id == "battle_of_black_spire"
    assert {u.target_id for u in result.unresolved} == {
        "age_of_iron",
        "black_spire_pass",
        "house_vyr",
        "crimson_pact",
    }


def test_slug_and_id_together_are_refused() -> None:
    result = load_lore_file("era: a_age\nevents:\n  - slug: e\n    id: e\n    name: E\n")
    assert problems(result) == [(4, 5, '"id" and "slug" mean the same field (line 3); give only one')]


def test_the_seed_family_tree_reads_as_died_before_born_because_years_are_absolute() -> None:
    seed = (
        "lineage: house_vyr_bloodline\nmembers:\n  - id: theron_ashveil\n    name: Theron Ashveil\n"
        '    born: "1st_age.year_412"\n    died: "2nd_age.year_87"\n'
    )
    result = load_lore_file(seed)
    assert problems(result) == [(6, 11, '"died" (2nd_age.year_87) is before "born" (1st_age.year_412)')]


# --- sources, limits and YAML oddities ------------------------------------------------------------------------------


def test_sources_may_be_a_path_bytes_or_text() -> None:
    path = FIXTURES / "bestiary.yaml"
    from_path = load_lore_file(path)
    from_bytes = load_lore_file(path.read_bytes(), "bestiary.yaml")
    from_text = load_lore_file(path.read_text(encoding="utf-8"), "bestiary.yaml")
    assert from_path == from_bytes == from_text
    assert load_lore_file("creatures: []\n").file == "<text>"


def test_size_limit_applies_to_every_source(tmp_path: pathlib.Path) -> None:
    text = "creatures: []\n" + "# padding\n" * 20
    path = tmp_path / "big.yaml"
    path.write_text(text, encoding="utf-8")
    for source in (text, text.encode(), path):
        result = load_lore_file(source, "big.yaml", max_bytes=100)
        assert [p.message for p in result.problems] == [
            f"the file is {len(text):,} bytes; a lore file may be at most 100 bytes (split it into several files)"
        ]


def test_a_missing_file_is_a_problem_not_a_crash(tmp_path: pathlib.Path) -> None:
    result = load_lore_file(tmp_path / "nope.yaml")
    assert len(result.problems) == 1
    assert result.problems[0].message.startswith("the file cannot be read")


def test_bom_and_crlf_are_accepted() -> None:
    result = load_lore_file("\ufeffcreatures:\r\n  - id: a\r\n    name: A\r\n".encode())
    assert result.ok
    assert (result.entries[0].line, result.entries[0].column) == (2, 5)


def test_tabs_inside_block_text_are_content() -> None:
    result = load_lore_file(
        "creatures:\n  - id: a\n    name: A\n    description: |\n      line\n      \tindented\n"
    )
    assert result.ok
    assert result.document.creatures[0].description == "line\n\tindented\n"  # type: ignore[union-attr]


def test_a_file_indented_with_tabs_still_has_its_other_problems_reported_where_they_are_written() -> None:
    tab = "a tab character is used for indentation; YAML needs spaces"
    text = (
        "creatures:\n"
        "  - id: pale_worm\n"
        "\tname: The Pale Worm\n"
        "\talignment: NO\n"
        "\tcolour: white\n"
        "  - id: frost_wyrmling\n"
        "  \tname: Frost Wyrmling\n"
        "  \tfirst_appeared: 3rd_age.year_12.month_13\n"
    )
    found = problems(load_lore_file(text, "tabs.yaml"))
    assert [p for p in found if p[2] == tab] == [
        (3, 1, tab),
        (4, 1, tab),
        (5, 1, tab),
        (7, 3, tab),
        (8, 3, tab),
    ]
    others = [p for p in found if p[2] != tab]
    # Read with the tabs as 4 columns of indentation, the file is two creatures: their own problems show, at
    # the line and column of the file as written ("colour" right after its tab, the date after "  \t...: ").
    assert [(line, column) for line, column, _ in others] == [(5, 2), (8, 20)]
    assert others[0][2].startswith('unknown field "colour"')
    assert "month 13 is not a month" in others[1][2]
    # The same text with spaces has exactly those other problems.
    spaced = problems(load_lore_file(text.expandtabs(4), "spaces.yaml"))
    assert [message for _, _, message in spaced] == [message for _, _, message in others]
    # Where no tab width makes the structure clear, the tabs are all that is said.
    unclear = load_lore_file("creatures:\n  - id: a\n\tname: A\n   \t  bad: [\n", "unclear.yaml")
    assert problems(unclear) == [(3, 1, tab), (4, 4, tab)]


TAB = "a tab character is used for indentation; YAML needs spaces"


def assert_nothing_loaded(result: LoadResult) -> None:
    """A file with any problem gives no document and no records: there is nothing to write."""
    assert not result.ok
    assert result.document is None
    assert (result.entries, result.relations, result.life_events) == ((), (), ())


def test_a_tab_and_a_duplicate_key_are_both_reported_each_at_its_place() -> None:
    text = (
        "creatures:\n"
        "  - id: pale_worm\n"
        "\tname: The Pale Worm\n"  # line 3: the first "name", right after the tab (column 2)
        "    species: worm\n"
        "    name: Pale Worm\n"  # line 5: the duplicate, at column 5
        "  - id: wyrm\n"
        "  \tname: Wyrm\n"  # line 7
        "  \tname: Wyrm again\n"  # line 8: a duplicate on a tab-indented line too
    )
    result = load_lore_file(text, "tabs.yaml")
    assert problems(result) == [
        (3, 1, TAB),
        (5, 5, 'duplicate key "name" (already given at line 3, column 2)'),
        (7, 3, TAB),
        (8, 3, TAB),
        (8, 4, 'duplicate key "name" (already given at line 7, column 4)'),
    ]
    assert_nothing_loaded(result)
    # Written with spaces, the file has just the duplicate keys (their columns are the spaced file's).
    spaced = problems(load_lore_file(text.expandtabs(4), "spaces.yaml"))
    assert [(line, message.split(" (")[0]) for line, _, message in spaced] == [
        (5, 'duplicate key "name"'),
        (8, 'duplicate key "name"'),
    ]


def test_a_tab_and_an_unknown_field_are_both_reported() -> None:
    text = "creatures:\n  - id: a\n\tname: A\n\tcolour: white\n    size: huge\n"
    result = load_lore_file(text, "tabs.yaml")
    found = problems(result)
    assert [(line, column, message.split(";")[0]) for line, column, message in found] == [
        (3, 1, "a tab character is used for indentation"),
        (4, 1, "a tab character is used for indentation"),
        (4, 2, 'unknown field "colour"'),
        (5, 5, 'unknown field "size"'),
    ]
    assert found[2][2] == problems(load_lore_file(text.expandtabs(4)))[0][2]  # the same plain message
    assert_nothing_loaded(result)


def test_a_tab_and_a_reference_to_an_id_defined_nowhere_are_both_reported() -> None:
    text = (
        "creatures:\n"
        "  - id: a\n"
        "\tname: A\n"
        "\thabitat: nowhere\n"  # line 4: the reference's value starts at column 11 as written
        "    defeated_by: [b, nobody]\n"
        "  - id: b\n"
        "    name: B\n"
    )
    result = load_lore_file(text, "tabs.yaml")
    assert problems(result) == [(3, 1, TAB), (4, 1, TAB)]
    assert [(u.line, u.column, u.field, u.target_id) for u in result.unresolved] == [
        (4, 11, "habitat", "nowhere"),
        (5, 22, "defeated_by", "nobody"),
    ]
    assert_nothing_loaded(result)


def test_a_tab_and_an_anchor_and_alias_are_all_reported() -> None:
    text = "creatures:\n  - id: a\n\tname: &n A\n  - id: b\n    name: *n\n"
    result = load_lore_file(text, "tabs.yaml")
    assert problems(result) == [
        (3, 1, TAB),
        (3, 8, 'anchors ("&n") are not allowed in lore files; write the value out in full'),
        (5, 11, 'aliases ("*n") are not allowed in lore files; write the value out in full'),
    ]
    assert_nothing_loaded(result)


def test_a_duplicate_id_after_a_tab_names_the_first_place_as_written() -> None:
    text = "locations:\n\t- id: keep\n\t  name: Keep\n  - id: keep\n    name: Keep again\n"
    assert problems(load_lore_file(text, "tabs.yaml")) == [
        (2, 1, TAB),
        (3, 1, TAB),
        (4, 9, 'duplicate id "keep": already used for the Location at line 2, column 8'),
    ]


def test_a_file_whose_only_problem_is_a_tab_reports_just_the_tab() -> None:
    result = load_lore_file("creatures:\n  - id: a\n\tname: A\n", "tabs.yaml")
    assert problems(result) == [(3, 1, TAB)]
    assert result.unresolved == ()
    assert_nothing_loaded(result)
    model, found = parse_yaml_as(_Flags, "enabled: true\nnote:\n\tsomething\n", "flags.yaml")
    assert model is None
    assert [(p.line, p.column, p.message) for p in found] == [(3, 1, TAB)]


def test_parse_yaml_as_reports_a_tab_with_the_other_problems() -> None:
    model, found = parse_yaml_as(_Flags, "enabled: true\nnote:\n\tx\nenabled: false\n", "flags.yaml")
    assert model is None
    assert [(p.line, p.column, p.message) for p in found] == [
        (3, 1, TAB),
        (4, 1, 'duplicate key "enabled" (already given at line 1, column 1)'),
    ]


async def test_a_file_with_a_tab_and_other_problems_writes_nothing(db: Database) -> None:
    text = "creatures:\n  - id: a\n\tname: A\n\tcolour: white\n    name: A again\n  - id: b\n    name: B\n"
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Tabs"))
    before = await row_counts(db)
    loaded = load_files([("tabs.yaml", text.encode())])
    report = await db.run(lambda s: ingest(s, campaign.id, loaded, base_ontology()))
    assert report.status == "failed" and "Nothing was written" in report.summary()
    errors = [(e.file, e.line, e.column, e.message.split(";")[0]) for e in report.errors]
    assert errors == [
        ("tabs.yaml", 3, 1, "a tab character is used for indentation"),
        ("tabs.yaml", 4, 1, "a tab character is used for indentation"),
        ("tabs.yaml", 4, 2, 'unknown field "colour"'),
        ("tabs.yaml", 5, 5, 'duplicate key "name" (already given at line 3, column 2)'),
    ]
    assert await row_counts(db) == before


async def row_counts(db: Database) -> dict[str, int]:
    async with db.session() as session:
        return {
            model.__tablename__: int(await session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (EntityRow, StatementRow, EvidenceRow, ChangesetRow, StructuredFileRow)
        }


def test_a_tab_that_ruamel_refuses_mid_line_is_reported_as_a_tab() -> None:
    result = load_lore_file("creatures:\n  - id: a\n    name:\tA\n")
    assert problems(result) == [
        (3, 10, "a tab character is not allowed here; YAML needs spaces (replace the tab)")
    ]


def test_control_characters_are_reported() -> None:
    result = load_lore_file('creatures:\n  - id: a\n    name: "A\x07"\n')
    assert problems(result) == [(3, 13, "the file contains the character U+0007, which YAML does not allow")]


def test_deep_nesting_is_refused() -> None:
    result = load_lore_file(
        "creatures:\n  - id: a\n    name: A\n    description: " + "[" * 100 + "]" * 100 + "\n"
    )
    assert problems(result) == [(4, 79, "the file nests deeper than 64 levels")]


def test_an_empty_value_is_reported_at_its_key() -> None:
    result = load_lore_file("creatures:\n  - id: a\n    name:\n")
    assert problems(result) == [(3, 5, '"name" must not be empty')]


def test_nulls_mean_none_only_for_optional_non_text_fields() -> None:
    text = "locations:\n  - id: a\n    name: A\n    part_of: ~\n    coordinates: null\n    events_held:\n    type: null\n"
    result = load_lore_file(text)
    assert result.ok, result.problems
    place = result.document.locations[0]  # type: ignore[union-attr]
    assert (place.part_of, place.coordinates, place.events_held, place.type) == (None, None, [], "null")


def test_merge_keys_are_just_unknown_fields() -> None:
    result = load_lore_file("creatures:\n  - <<: {id: a}\n    name: A\n")
    assert result.problems[0].message.startswith('unknown field "<<"')


def test_problems_come_back_sorted_by_position() -> None:
    result = load("broken_multiple_problems.yaml")
    positions = [(p.line, p.column) for p in result.problems]
    assert positions == sorted(positions)


def test_the_family_tree_document_model() -> None:
    result = load("family_tree.yaml")
    document = result.document
    assert isinstance(document, FamilyTreeFile)
    assert document.lineage == "house_vyr_bloodline"
    assert document.founding_ancestor == "theron_ashveil"
    assert len(document.members) == 17
    lineage = next(e for e in result.entries if e.entity_type == "Lineage")
    assert lineage.name == "The Bloodline of House Vyr"
    assert (lineage.line, lineage.column) == (3, 10)


# --- agreement with the ontology ---------------------------------------------------------------------------------


def test_every_relation_the_loader_writes_fits_the_base_ontology() -> None:
    ontology = base_ontology()
    for spec in RELATION_FIELDS.values():
        rule = ontology.relation_types[spec.relation]
        owners: tuple[str, ...] = (spec.entity_type,)
        sources, targets = (owners, spec.target_types) if spec.outgoing else (spec.target_types, owners)
        for source in sources:
            assert ontology.is_a(source, rule.from_types), (spec, source)
        for target in targets:
            assert ontology.is_a(target, rule.to_types), (spec, target)
    assert ontology.is_a("Era", ontology.relation_types["SUB_ERA_OF"].from_types)


@pytest.mark.parametrize("kind", VALID)
def test_the_valid_fixtures_relations_fit_the_ontology_once_resolved(kind: str) -> None:
    ontology = base_ontology()
    types = {e.id: e.entity_type for name in VALID for e in load(f"{name}.yaml").entries}
    types.update(dict.fromkeys(EXTERNAL_FACTIONS, "Faction"))
    for relation in load(f"{kind}.yaml").relations:
        ontology.check_endpoints(relation.type, types[relation.source_id], types[relation.target_id])


def test_a_plain_null_is_not_an_id() -> None:
    result = load_lore_file("lineage: l\nmembers:\n  - id: null\n    name: A\n    parents: [~, 'null']\n")
    assert problems(result) == [
        (
            3,
            9,
            '"id" must be an id like a (made of a name such as “A”); got "null" (write it in quotes if it really is one)',
        ),
        (
            5,
            15,
            'item 1 of "parents" must be a name like “A” (or its id, a); got "~" (write it in quotes if it really is one)',
        ),
    ]


def test_every_yaml_example_in_the_docs_loads() -> None:
    doc = FIXTURES.parents[2] / "docs" / "structured-lore.md"
    blocks = doc.read_text(encoding="utf-8").split("```yaml\n")[1:]
    kinds = []
    for block in blocks:
        result = load_lore_file(block.split("```")[0], "example.yaml")
        assert result.ok, [str(p) for p in result.problems]
        kinds.append(result.kind)
    assert sorted(kinds) == sorted([*VALID, "characters", "factions"])
