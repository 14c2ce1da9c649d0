"""Tables keyed by numbers: the row a number falls in.

Many tables of a book key their rows by a number or a range of numbers in their first column: ability scores
("26-27 | +8"), character levels ("5th-10th"), die rolls ("01-20"), challenge ratings ("1/2"), distances ("30+").
`keyed_tables` reads a passage's pipe tables (a blank line between two of a table's lines is allowed: some books
are converted so) whose first column keys every row but a few with such a number, and `Keyed.holding` returns the
one row whose key holds a number: equal to it, or within its range. A number no row holds (past the table's ends,
or in a gap between two ranges) or one that two rows hold (ranges overlapping) finds no row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Keyed", "keyed_tables"]

_TABLE_LINE = re.compile(r"^\s*\|(.*?)\|?\s*$")
_RULE_LINE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")
_MARKUP = re.compile(r"[*_`]+")
_ENDING = r"(?:st|nd|rd|th)?"
_FIGURE = r"(\d+(?:/\d+)?)"
#: A key: "5", "1/2", "5th", "2-3", "1st–4th", "10 to 20", "30+", "30 or more", "up to 4".
_EXACT = re.compile(rf"^{_FIGURE}{_ENDING}$")
_RANGE = re.compile(rf"^{_FIGURE}{_ENDING}\s*(?:-|–|—|to)\s*{_FIGURE}{_ENDING}$")
_FROM = re.compile(rf"^{_FIGURE}{_ENDING}\s*(?:\+|or (?:more|higher|above|greater))$")
_UP_TO = re.compile(rf"^(?:up to|under|below|less than)\s+{_FIGURE}{_ENDING}$")
#: The share of a table's rows a number must key for the table to be keyed by numbers.
_KEYED_SHARE = 0.8
_MIN_ROWS = 2
#: The longest line above a table read as its title (a longer one is a paragraph).
_TITLE_CHARS = 80


@dataclass(frozen=True, slots=True)
class KeyedRow:
    """A row of a table keyed by numbers: its key as written, the least and most it holds, its other cells."""

    label: str
    least: Fraction
    most: Fraction | None
    cells: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Keyed:
    """A table keyed by numbers: its title (the heading or line above it), its first column's name, its rows."""

    title: str
    key: str
    rows: tuple[KeyedRow, ...]

    def holding(self, number: Fraction) -> KeyedRow | None:
        """Return the one row whose key holds `number`, or None (none holds it, or more than one)."""
        held = [r for r in self.rows if r.least <= number and (r.most is None or number <= r.most)]
        return held[0] if len(held) == 1 else None

    @property
    def columns(self) -> tuple[str, ...]:
        """Return the names of the columns after the key."""
        return tuple(h for h, _ in self.rows[0].cells) if self.rows else ()


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split()).strip()


def _figure(text: str, die: bool) -> Fraction:
    # On a percentile die "00" is a hundred ("96-00").
    return Fraction(100) if die and text == "00" else Fraction(text)


def key_span(label: str, die: bool = False) -> tuple[Fraction, Fraction | None] | None:
    """Return the least and most numbers a key holds (most None: no end), or None when it is no number's key."""
    text = label.strip().casefold()
    try:
        if (found := _EXACT.match(text)) is not None:
            value = _figure(found.group(1), die)
            return value, value
        if (found := _RANGE.match(text)) is not None:
            least, most = _figure(found.group(1), die), _figure(found.group(2), die)
            return (least, most) if least <= most else None
        if (found := _FROM.match(text)) is not None:
            return _figure(found.group(1), die), None
        if (found := _UP_TO.match(text)) is not None:
            return Fraction(0), _figure(found.group(1), die)
    except (ValueError, ZeroDivisionError):
        return None
    return None


def _tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """Return a passage's pipe tables: the line above each (its title), its header's cells and its rows' cells."""
    found: list[tuple[str, list[str], list[list[str]]]] = []
    lines = text.splitlines()
    title, at = "", 0
    while at < len(lines):
        line = lines[at]
        if _TABLE_LINE.match(line) is None or _RULE_LINE.match(line):
            heading = _HEADING.match(line)
            if heading is not None or (
                0 < len(line.strip()) <= _TITLE_CHARS and line.strip()[-1] not in ".:"
            ):
                title = _clean(heading.group(1) if heading else line)  # a heading, or a short line naming it
            at += 1
            continue
        block: list[str] = []
        while at < len(lines) and (not lines[at].strip() or _TABLE_LINE.match(lines[at])):
            if lines[at].strip():
                block.append(lines[at])
            at += 1
        if len(block) >= 2 and _RULE_LINE.match(block[1]):
            header = [_clean(c) for c in _TABLE_LINE.match(block[0]).group(1).split("|")]  # type: ignore[union-attr]
            rows = [
                [_clean(c) for c in m.group(1).split("|")]
                for line in block[2:]
                if (m := _TABLE_LINE.match(line)) is not None and not _RULE_LINE.match(line)
            ]
            found.append((title, header, rows))
    return found


def keyed_tables(text: str, heading: str = "") -> list[Keyed]:
    """Return a passage's tables keyed by numbers (see the module docstring); `heading` titles a table with no
    line of its own above it."""
    keyed = []
    for title, header, rows in _tables(text):
        if not header or len(rows) < _MIN_ROWS:
            continue
        die = bool(re.fullmatch(r"d\d+", header[0].strip().casefold()))
        read = []
        for cells in rows:
            span = key_span(cells[0], die) if cells else None
            if span is not None:
                named = [*header[1:], *[""] * len(cells)]
                read.append(KeyedRow(cells[0], span[0], span[1], tuple(zip(named, cells[1:], strict=False))))
        if len(read) >= _MIN_ROWS and len(read) >= _KEYED_SHARE * len(rows):
            keyed.append(Keyed(title or heading, header[0], tuple(read)))
    return keyed
