"""A PDF printed from another game's Markdown reads back with its tables' rows and its fields' lines whole."""

from __future__ import annotations

from memory.books import read_book
from memory.books.own_lines import definition_of, starts_field
from memory.books.pdf_layout import Line, Run
from memory.books.pdf_tables import table_rows
from tests.helpers.paths import REPO

PRINTED = REPO / "bench" / "data" / "saltglass" / "books" / "saltglass-gear-and-beasts.pdf"


def _printed() -> list[str]:
    return read_book(PRINTED.read_bytes(), PRINTED.name).text.splitlines()


def test_a_table_whose_columns_sit_close_keeps_each_cell_in_its_column() -> None:
    lines = _printed()
    assert "| **Weapon** | **Damage** | **Range** | **Cost** | **Notes** |" in lines
    assert "| Hook-knife | 2 | Close | 4 sh | Can be hidden |" in lines
    assert "| Sharkskin jack | 2 | 25 sh |  |" in lines
    # The notes column starts near the page's middle: the page is still one column, each note on its row.
    assert "| Harpoon | 4 | Near | 12 sh | After a hit, the target is Pinned |" in lines


def test_a_wrapped_cell_and_a_wrapped_header_join_their_row() -> None:
    lines = _printed()
    assert "| **Song** | **Strain** **cost** | **Difficulty** | **Range** | **Effect** |" in lines
    assert "| Mending Hum | 2 | 1 | Close | Heals 3 Wounds to another (never yourself) |" in lines
    row = "| The Drowning Choir | 5 | 3 | Far | Everyone in range rolls Grit + Endure, Difficulty 2, or gains Drowned-lung |"
    assert row in lines


def test_fields_keep_a_line_each() -> None:
    lines = _printed()
    assert "Desalter kit ..... 25 sh" in lines and "Lantern-jar ..... 3 sh" in lines
    assert "**Armour:** 0" in lines and "**Wounds:** 6" in lines
    assert "Wounds — 14" in lines and "Armour: 0" in lines
    # A field's value that wraps goes on with its line.
    assert any(
        line.startswith("Attack — Rusted greatblade") and line.endswith("Drowned-lung.") for line in lines
    )


def test_a_field_line_is_told_from_prose() -> None:
    assert starts_field("Desalter kit ..... 25 sh", "Rope ..... 2 sh", True)
    assert starts_field("Old Tech is found, not bought.", "Passage, per leg ..... 3 sh", True)
    assert starts_field("**Wounds:** 6", "**Armour:** 0", False)
    assert starts_field("Wounds — 14", "Armour — 3", False)
    assert not starts_field("**move** a distance up to your speed", "On your turn, you can", False)
    assert not starts_field("**take one action**. You decide", "a distance up to your speed and", False)
    assert not starts_field(
        "Endure or gains Drowned-lung.", "Attack — Rusted greatblade, 4 damage; everyone", False
    )
    assert definition_of(": 0", "Armour") == "Armour: 0"
    assert definition_of(": 0", "A sentence that ended.") is None
    assert definition_of("0", "Armour") is None


def _line(y: float, *cells: tuple[float, str]) -> Line:
    return Line(y, 10.0, [Run(x, y, 10.0, text) for x, text in cells])


def test_lone_pieces_far_from_a_table_are_not_its_rows() -> None:
    lines = [
        _line(500, (50, "Name"), (150, "Cost")),
        _line(485, (50, "Rope"), (150, "2 sh")),
        _line(470, (50, "Lamp"), (150, "3 sh")),
        _line(440, (45, "A paragraph after the table starts at the margin.")),
    ]
    start, end, rows = table_rows(lines, 0, 10.0) or (0, 0, [])
    assert (start, end) == (0, 2)
    assert rows == [["Name", "Cost"], ["Rope", "2 sh"], ["Lamp", "3 sh"]]


def test_one_row_is_no_table() -> None:
    assert table_rows([_line(500, (50, "Name"), (150, "Cost"))], 0, 10.0) is None


def test_a_header_printed_on_two_lines_and_names_wrapped_round_a_centred_row_read_as_one_row_each() -> None:
    # A browser centres a row's short cells between the two lines of a long name, and a header's one-word cells
    # between the two lines of the others ("Mass" over "(t)").
    lines = [
        _line(700, (130, "**Thrust**"), (190, "**Mass**")),
        _line(695, (40, "**Drive**"), (250, "**Crew**")),
        _line(690, (130, "**(kN)**"), (190, "**(t)**")),
        _line(678, (40, "Harrow")),
        _line(673, (130, "900"), (190, "12"), (250, "3")),
        _line(668, (40, "torch-drive")),
        _line(656, (40, "Ion skiff"), (130, "40"), (190, "2"), (250, "1")),
    ]
    start, end, rows = table_rows(lines, 0, 10.0) or (0, 0, [])
    assert (start, end) == (0, 6)
    assert rows == [
        ["**Drive**", "**Thrust (kN)**", "**Mass (t)**", "**Crew**"],
        ["Harrow torch-drive", "900", "12", "3"],
        ["Ion skiff", "40", "2", "1"],
    ]


def test_a_price_list_has_no_header_and_its_amounts_set_flush_right_are_one_column() -> None:
    lines = [
        _line(500, (50, "Oxygen candle, box"), (210, "12 cr")),
        _line(488, (50, "Ration bar"), (216, "2 cr")),
        _line(476, (50, "Vacuum tape"), (216, "3 cr")),
    ]
    _, _, rows = table_rows(lines, 0, 10.0) or (0, 0, [])
    assert rows == [
        ["", ""],
        ["Oxygen candle, box", "12 cr"],
        ["Ration bar", "2 cr"],
        ["Vacuum tape", "3 cr"],
    ]
