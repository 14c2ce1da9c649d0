"""A PDF page set in columns read column by column, its small capitals as words, its bold heads as headings."""

from __future__ import annotations

from memory.books.pdf_layout import Run, reading_lines
from memory.books.writer import clean_text

WIDTH = 600.0


def _column(x: float, top: float, texts: list[str], size: float = 9.0) -> list[Run]:
    return [Run(x, top - n * size * 1.2, size, text) for n, text in enumerate(texts)]


def _prose(word: str, count: int) -> list[str]:
    return [f"{word} line {n} of the column runs on to its edge" for n in range(count)]


def test_a_three_column_page_reads_its_band_then_each_column_top_to_bottom() -> None:
    band = [
        Run(40, 780, 18, "The Marsh Almanac"),
        Run(
            40,
            760,
            9,
            "An introduction set across the whole page, above the columns, says what every price is in.",
        ),
    ]
    runs = band + _column(40, 730, _prose("west", 14)) + _column(220, 728, _prose("mid", 14))
    runs += _column(400, 731, _prose("east", 14))
    lines = [line.text for line in reading_lines(runs, WIDTH)]
    assert lines[:2] == ["The Marsh Almanac", band[1].text]
    order = [text.split()[0] for text in lines[2:]]
    assert order == ["west"] * 14 + ["mid"] * 14 + ["east"] * 14
    mids = [t for t in lines if t.startswith("mid")]
    assert mids[:2] == [f"mid line {n} of the column runs on to its edge" for n in (0, 1)]


def test_a_table_in_a_page_of_one_column_is_no_column_of_the_page() -> None:
    # Prose runs across the page above and below a table whose second column starts in the middle.
    runs = _column(
        40, 760, ["A long line of prose that runs across the whole page from one margin to the other."] * 3
    )
    for n in range(8):
        y = 720 - n * 11
        runs += [Run(40, y, 9, f"Item {n}"), Run(300, y, 9, f"{n} gp")]
    runs += _column(
        40,
        620,
        ["More prose below the table, again across the whole width of the page, margin to margin."] * 3,
    )
    lines = reading_lines(runs, WIDTH)
    rows = [line for line in lines if line.text.startswith("Item")]
    assert len(rows) == 8 and all(len(line.cells) == 2 for line in rows)


def test_a_column_of_short_names_beside_long_text_is_read_across() -> None:
    runs: list[Run] = []
    for n in range(10):
        y = 760 - n * 11
        runs += [
            Run(40, y, 9, f"Term {n}"),
            Run(250, y, 9, f"what term {n} means, said at length to the margin"),
        ]
    runs = [
        Run(
            40,
            790,
            9,
            "A heading line set across the page, above the terms and what they mean, margin to margin.",
        ),
        *runs,
    ]
    lines = reading_lines(runs, WIDTH)
    assert [line.text for line in lines[1:3]] == [
        "Term 0 what term 0 means, said at length to the margin",
        "Term 1 what term 1 means, said at length to the margin",
    ]


def test_small_capitals_read_as_one_phrase() -> None:
    # "Storm lantern" in small capitals: a capital in the text's size, the rest of each word smaller.
    runs = [
        Run(40, 700, 8.5, "S", bold=True),
        Run(46, 700, 6.0, "TORM", bold=True),
        Run(70, 700, 6.0, "LANTERN", bold=True),
        Run(104, 700, 8.5, "(4 p, 1 stone). Burns a night."),
        Run(40, 680, 8.5, "E", bold=True),
        Run(46.5, 680, 6.0, "EL", bold=True),
        Run(55, 680, 8.5, "-", bold=True),
        Run(58.5, 680, 6.0, "SKIN", bold=True),
        Run(78, 680, 6.0, "WADERS", bold=True),
        Run(110, 680, 8.5, "(9 p)."),
    ]
    assert [line.text for line in reading_lines(runs, WIDTH)] == [
        "**STORM LANTERN** (4 p, 1 stone). Burns a night.",
        "**EEL-SKIN WADERS** (9 p).",
    ]


def test_a_capital_word_then_a_smaller_one_apart_stay_two_words() -> None:
    runs = [Run(40, 700, 9, "A"), Run(52, 700, 6.5, "NOTE"), Run(80, 700, 9, "on the rules.")]
    assert reading_lines(runs, WIDTH)[0].text == "A NOTE on the rules."


def test_ligatures_read_as_their_letters() -> None:
    assert clean_text("The \ufb02ame \ufb01lled the o\ufb03ce") == "The flame filled the office"


def test_a_bold_line_a_little_larger_than_the_text_is_a_heading() -> None:
    from memory.books.pdf import _bold_heads
    from memory.books.pdf_layout import Line

    lines = [
        Line(700, 9.5, [Run(40, 700, 9.5, "**Bog Hound**", bold=True)]),
        Line(690, 8.5, [Run(40, 690, 8.5, "Black hounds that hunt by the sound of oars.")]),
        Line(600, 9.5, [Run(40, 600, 9.5, "**Mire Wisp**", bold=True)]),
        Line(590, 9.0, [Run(40, 590, 9.0, "A lead-in set a little larger, not in bold.")]),
    ]
    assert _bold_heads([(lines, 800.0)], 8.5) == {9.5}
