"""Tests for what the loader accepts as input and how it reads it: sources, sizes, encodings, tabs, control characters, nesting, nulls and the order of problems."""

from __future__ import annotations

import pathlib

from sqlalchemy import func, select

from canon import campaigns
from canon.campaigns import ChangesetRow
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured import (
    LoadResult,
    load_lore_file,
    parse_yaml_as,
)
from canon.structured.ingest import ingest, load_files
from canon.structured.tables import StructuredFileRow
from canon.tables import EntityRow, EvidenceRow, StatementRow
from tests.helpers.lore_loader import FIXTURES, _Flags, load, problems

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
