"""A PDF page's text runs laid back out as lines: one baseline makes a line, a wide gap starts a cell, and a page
whose lines start at two left edges is read as two columns, the left one first. The running head and page number
(lines in the top and bottom bands repeated on many pages) are found here too. Pure: no I/O beyond the page.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from memory.books.ocr import Placement
from memory.books.pdf_columns import page_columns

BAND = 0.075  # the share of a page's height at its top and at its bottom where furniture lives
DIGITS = re.compile(r"\d+")
#: Lines on which runs start at one edge (give or take `ALIGN_TOLERANCE` points) for it to be a table's column.
ALIGNED = 3
ALIGN_TOLERANCE = 1.5
#: The narrowest a text's average letter is, in shares of its type size (a run past it does not overlap it).
NARROW = 0.4
#: How far past the middle column's edge a run must reach (points) to show the page is one wide column.
ACROSS = 20.0


@dataclass(slots=True)
class Run:
    x: float
    y: float
    size: float
    text: str
    bold: bool = False

    @property
    def end(self) -> float:
        return self.x + len(self.text) * self.size * 0.5


@dataclass(slots=True)
class Line:
    y: float
    size: float
    cells: list[Run]

    @property
    def x(self) -> float:
        return self.cells[0].x

    @property
    def text(self) -> str:
        return " ".join(cell.text for cell in self.cells)

    @property
    def words(self) -> str:
        """The line's text without bold marks (a heading's, a running head's)."""
        return self.text.replace("**", "")


def page_runs(page: object, pictures: list[Placement]) -> list[Run]:
    """Return a page's text runs with their position and type size; the pictures drawn on it go to `pictures`."""
    runs: list[Run] = []

    def drawn(operator: bytes, operands: list[object], cm: list[float], tm: list[float]) -> None:
        if operator == b"Do" and operands and len(pictures) < 100:
            pictures.append((str(operands[0]), list(cm)))

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if not text or not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs(tm[3] * cm[3] + tm[2] * cm[1]) or abs(tm[0] * cm[0]) or 1.0
        bold = "bold" in str(font.get("/BaseFont", "") if isinstance(font, dict) else "").lower()
        for number, piece in enumerate(text.split("\n")):
            if piece.strip():
                height = (size or 10.0) * scale
                runs.append(Run(x, y - number * height * 1.2, round(height * 2) / 2, piece.strip(), bold))

    _inflate(page)
    page.extract_text(visitor_text=visit, visitor_operand_before=drawn)  # type: ignore[attr-defined]
    return runs


def _inflate(page: object) -> None:
    """Decode the page's content streams first: pypdf's text extraction would hide a stream over its limits."""
    contents = page.get("/Contents")  # type: ignore[attr-defined]
    if contents is None:
        return
    contents = contents.get_object()
    for item in contents if isinstance(contents, list) else [contents]:
        stream = item.get_object()
        if hasattr(stream, "get_data"):
            stream.get_data()


def _aligned(rows: list[list[Run]]) -> list[float]:
    """Return the left edges at which runs past a line's first start on `ALIGNED` lines or more: a table's
    columns (a word set in another face mid-sentence starts wherever the sentence puts it)."""
    starts: list[float] = []
    for row in rows:
        ordered = sorted(row, key=lambda r: r.x)
        # A run set at the same place as the one before it (a text object's runs, placed by its start) says no
        # column; a bullet starts none after it.
        starts += [
            run.x
            for before, run in itertools.pairwise(ordered)
            if run.x - before.x > ALIGN_TOLERANCE and not _bullet(before.text)
        ]
    starts.sort()
    edges: list[float] = []
    group: list[float] = []
    for x in [*starts, float("inf")]:
        if group and x - group[-1] > ALIGN_TOLERANCE:
            if len(group) >= ALIGNED:
                edges.append(group[0])
            group = []
        group.append(x)
    return edges


def _bullet(text: str) -> bool:
    """Return whether a run is a list's bullet (one mark, neither letter nor digit)."""
    mark = text.replace("**", "").strip()
    return len(mark) == 1 and not mark.isalnum()


def _lines(runs: list[Run]) -> list[Line]:
    """Group runs on one baseline into lines (top to bottom), splitting a line where a wide gap opens or where a
    run starts at a column's edge (`_aligned`) past the end of the text before it."""
    runs = sorted(runs, key=lambda r: (-r.y, r.x))
    rows: list[list[Run]] = []
    for run in runs:
        if rows and abs(rows[-1][0].y - run.y) <= max(1.5, run.size * 0.3):
            rows[-1].append(run)
        else:
            rows.append([run])
    rows = [_small_caps_words(row) for row in rows]
    edges = _aligned(rows)
    lines: list[Line] = []
    for row in rows:
        row.sort(key=lambda r: r.x)
        cells: list[Run] = [Run(row[0].x, row[0].y, row[0].size, _marked(row[0]), row[0].bold)]
        for run in row[1:]:
            last = cells[-1]
            chars = len(last.text.replace("**", ""))
            at_edge = any(abs(run.x - edge) <= ALIGN_TOLERANCE for edge in edges)
            if run.x - (last.x + chars * last.size * 0.5) > max(run.size, last.size) * 1.2 or (
                at_edge and not _bullet(last.text) and run.x > last.x + chars * last.size * NARROW
            ):
                cells.append(Run(run.x, run.y, run.size, _marked(run), run.bold))
            elif run.bold and last.bold and last.text.endswith("**"):
                last.text = f"{last.text[:-2]} {run.text}**"  # one bold span set in two runs
            else:
                last.text = f"{last.text} {_marked(run)}"
                last.bold = run.bold
                last.size = max(last.size, run.size)
        lines.append(Line(row[0].y, max(c.size for c in cells), cells))
    return lines


def _small_caps(before: Run, run: Run) -> bool:
    """Return whether a run goes on the word of the run before it, set in small capitals: the word's capital
    then the rest, smaller ("S" then "TORM"), or a hyphen or stop between ("EL", "-", "SKIN"); no space between."""
    if min(before.size, run.size) > max(before.size, run.size) * 0.85 or run.text.upper() != run.text:
        return False
    initial = (
        len(before.text) == 1 and before.text.isupper() and before.size > run.size and run.text[0].isupper()
    )
    joint = before.text == "-" or run.text in ("-", ".", ",", ":", ";")
    return (initial or joint) and run.x - before.x <= len(before.text) * before.size * 1.15


def _small_caps_words(row: list[Run]) -> list[Run]:
    """Return a line's runs (left to right) with each phrase set in small capitals as one run: "S" then "TORM"
    then "LANTERN" (smaller) is "STORM LANTERN", never three cells of a table."""
    merged: list[Run] = []
    caps = False  # the run before is a phrase in small capitals
    previous: Run | None = None
    for run in sorted(row, key=lambda r: r.x):
        before = merged[-1] if merged else None
        glued = before is not None and previous is not None and _small_caps(previous, run)
        previous = run
        if before is not None and glued:
            before.text, before.size, caps = before.text + run.text, max(before.size, run.size), True
        elif (
            before is not None
            and caps
            and run.bold == before.bold
            and run.text.upper() == run.text
            and any(c.isalpha() for c in run.text)
            and run.x - before.x <= len(before.text) * before.size * 0.9 + run.size
        ):
            before.text = f"{before.text} {run.text}"  # the next word of the phrase
        else:
            merged.append(Run(run.x, run.y, run.size, run.text, run.bold))
            caps = False
    return merged


def _marked(run: Run) -> str:
    """Return a run's text, between `**` marks when it is set in a bold face."""
    return f"**{run.text}**" if run.bold else run.text


def reading_lines(runs: list[Run], width: float) -> list[Line]:
    """Return a page's lines in reading order: the band across its top, then its columns left to right
    (`memory.books.pdf_columns`); a page of one column as it is."""
    found = page_columns(runs, width)
    if found is None:
        return _lines(runs)
    band, columns = found
    return [line for part in (band, *columns) if part for line in _lines(part)]


def running_lines(pages: list[tuple[list[Line], float]]) -> set[str]:
    """Return the texts (digits folded) of lines in the top/bottom bands that repeat on many pages."""
    seen: Counter[str] = Counter()
    for lines, height in pages:
        keys = {
            DIGITS.sub("#", line.words.casefold())
            for line in lines
            if line.y > height * (1 - BAND) or line.y < height * BAND
        }
        seen.update(keys)
    needed = max(3, len(pages) // 4)
    return {key for key, count in seen.items() if count >= needed}
