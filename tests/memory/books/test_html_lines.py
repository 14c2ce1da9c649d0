"""An HTML paragraph whose lines are fields, set apart by line breaks, keeps a line for each field."""

from __future__ import annotations

from memory.books import read_book


def _read(body: str) -> list[str]:
    html = f"<html><head><title>Gear</title></head><body><h1>Gear</h1>{body}</body></html>"
    return read_book(html.encode(), "gear.html").text.splitlines()


def test_a_price_list_set_with_line_breaks_keeps_each_line() -> None:
    lines = _read("<p>Filter mask ..... 9 cr<br />Ration tin ..... 2 cr<br/>Route map ..... 4 cr</p>")
    assert {"Filter mask ..... 9 cr", "Ration tin ..... 2 cr", "Route map ..... 4 cr"} <= set(lines)


def test_stat_lines_set_with_line_breaks_keep_each_line() -> None:
    lines = _read(
        "<p><strong>Armour:</strong> 2<br><strong>Health:</strong> 7</p><p>Armour — 5<br>Health — 20</p>"
    )
    assert {"**Armour:** 2", "**Health:** 7", "Armour — 5", "Health — 20"} <= set(lines)


def test_a_sentence_wrapped_with_a_line_break_stays_whole() -> None:
    lines = _read("<p>Ten credits buy<br />a week of food in the Vents.</p>")
    assert "Ten credits buy a week of food in the Vents." in lines
