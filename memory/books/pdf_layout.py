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


def _marked(run: Run) -> str:
    """Return a run's text, between `**` marks when it is set in a bold face."""
    return f"**{run.text}**" if run.bold else run.text


def reading_lines(runs: list[Run], width: float) -> list[Line]:
    """Return a page's lines in reading order: the left column, then the right one on a two-column page.

    A page is two columns when many runs start at one left edge near its middle (the right column's margin).
    """
    middle = width / 2
    near = Counter(round(run.x) for run in runs if middle - width * 0.06 <= run.x <= middle + width * 0.12)
    if not near or len(runs) < 6:
        return _lines(runs)
    edge, hits = near.most_common(1)[0]
    # The right column's paragraphs start at its edge, its list bullets a little left of it, its items' text a
    # little right of it: all of them count.
    hits = sum(count for x, count in near.items() if abs(x - edge) <= 12)
    lines = {round(run.y) for run in runs}
    if hits < max(3, len(lines) * 0.15):
        return _lines(runs)
    edge = min(x for x in near if abs(x - edge) <= 12)
    # A table's column starting near the middle is no page column: the page's lines run across it.
    across = sum(
        1 for run in runs if run.x < edge - 2 and run.x + len(run.text) * run.size * NARROW > edge + ACROSS
    )
    if across >= 3:
        return _lines(runs)
    left = [run for run in runs if run.x < edge - 2]
    right = [run for run in runs if run.x >= edge - 2]
    return _lines(left) + _lines(right)


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
