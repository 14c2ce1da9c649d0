"""Tests for the strict structured-lore YAML loader: valid files, every rejection rule, the normalised records."""

from __future__ import annotations

from collections import Counter

import pytest

from canon.calendar import WorldDate
from canon.structured import (
    BestiaryFile,
    CultureFile,
    LoreKind,
    TimelineFile,
    load_lore_file,
    parse_yaml_as,
)
from tests.helpers.lore_loader import EXTERNAL_FACTIONS, FIXTURES, VALID, _Flags, load, problems, relations
from tests.helpers.paths import SHARED

SRD_BESTIARY = SHARED / "corpora" / "srd" / "world" / "bestiary.yaml"


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


def test_a_declared_kind_wins_and_another_kind_s_key_is_told_where_to_split() -> None:
    result = load_lore_file("kind: bestiary\nmembers: []\nnames: []\n")
    assert problems(result) == [
        (
            2,
            1,
            "“members:” is a key of a family tree file, and this part of the file is a bestiary one: put a line "
            "`---` (three dashes alone on the line, at its left edge) before `members:`, or move it to a file of "
            "its own",
        ),
        (3, 1, 'unknown field "names"; allowed fields: creatures'),
    ]


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


def test_every_yaml_example_in_the_docs_loads() -> None:
    doc = FIXTURES.parents[2] / "docs" / "structured-lore.md"
    blocks = doc.read_text(encoding="utf-8").split("```yaml\n")[1:]
    kinds = []
    for block in blocks:
        result = load_lore_file(block.split("```")[0], "example.yaml")
        assert result.ok, [str(p) for p in result.problems]
        kinds.extend(result.kinds)
    # The kinds' own examples, then a roster's and a timeline's fields of deaths, prisons and outcomes, and a
    # file of several kinds (characters, factions, gazetteer).
    several = ["characters", "factions", "gazetteer"]
    # The roster's example of one name of a list kept for the GM; a house that is a family and a faction at once.
    house = ["family_tree", "characters", "timeline"]
    # The roster's titles held for a span.
    offices = ["characters"]
    told = ["characters", "characters"]  # a public status beside the truth; ties that are not kin
    spans = ["factions", "items"]  # a faction's leaders and an item's holders over time
    faith = ["characters", "culture"]  # whom a person worships, and the god
    assert sorted(kinds) == sorted(
        [
            *VALID,
            "characters",
            "factions",
            "characters",
            "characters",
            "timeline",
            "items",
            *several,
            *house,
            *offices,
            *told,
            *spans,
            *faith,
        ]
    )
