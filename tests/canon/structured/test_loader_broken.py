"""Tests for the loader's rejections: every broken fixture, out-of-range dates and numbers, the place a problem is read at, and YAML bombs."""

from __future__ import annotations

import tracemalloc

import pytest

from canon.structured import load_lore_file
from tests.helpers.lore_loader import FIXTURES, load, problems

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
            "this file holds the top-level keys of several kinds: creatures (bestiary), members (family tree); "
            "each kind needs a part of its own: put a line `---` (three dashes alone on the line, at its left "
            "edge) before `members:` (line 4), or put each kind in its own file",
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
            'an event listed outside an era needs its date: "date:" written as a person\'s "born:" is (in the '
            'calendar\'s words, or a year), "era:" (the era it happened in), or "year:" in a campaign whose years '
            "have no eras",
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
            "the top; the kinds are timeline, family tree, gazetteer, bestiary, magic system, culture, characters, "
            "factions and items",
        ),
    ],
    "broken_missing_field.yaml": [
        # Mara Ashveil has a name and no id: her name gives it. The others are asked for a name, not an id.
        (1, 1, "this entry needs a name, written like `name: Mara Ashveil` (the id comes from the name)"),
        (2, 5, "this entry needs a name, written like `name: Mara Ashveil` (the id comes from the name)"),
    ],
    "broken_multiple_documents.yaml": [
        (7, 9, 'duplicate id "pale_worm": already used for the Creature at line 2, column 9'),
    ],
    "broken_not_mapping.yaml": [
        (
            1,
            1,
            "a lore file must be a mapping of top-level fields (such as era:, members:, locations:, creatures:, "
            "systems:, cultures:, characters:, factions:, items:); this file is a list",
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
            'unknown field "habitats" (did you mean "habitat"?); allowed fields: id, name, aliases, species, '
            "alignment, habitat, first_appeared, description, defeated_by, gm_notes, gm_only, visibility",
        ),
        (
            5,
            5,
            'unknown field "weight"; allowed fields: id, name, aliases, species, alignment, habitat, '
            "first_appeared, description, defeated_by, gm_notes, gm_only, visibility",
        ),
    ],
    "broken_unknown_kind.yaml": [
        (
            1,
            1,
            "this file has no `kind:` line, and its top-level keys (monsters) do not say which kind of world file "
            "it is: say which one in a line such as `kind: timeline` at the top; the kinds are timeline, family "
            "tree, gazetteer, bestiary, magic system, culture, characters, factions and items",
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
            'unknown field "nickname" (did you mean "aliases"?); allowed fields: id, name, aliases, sex, born, '
            "died, died_at, birth_name, birthplace, cause_of_death, public_cause_of_death, killed_by, adoptive_parents, "
            "foster_parents, held_at, parents, children, reputed_parents, spouse_of, "
            "spouse, culture, home, faction, factions, lineage, titles, status, public_status, ties, worships, "
            "description, gm_notes, gm_only, visibility, spouses (= spouse_of), born_as (= birth_name), maiden_name "
            "(= birth_name), origin (= birthplace), religion (= worships), faith (= worships)",
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
