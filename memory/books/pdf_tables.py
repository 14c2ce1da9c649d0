"""A PDF table read back into rows: its columns found from where its cells start, a wrapped cell joined to its row.

A printed table's cell that wraps sets its lines above and below its row's baseline, each on a line of its own (a
long "Effect" beside one-word cells), and a header may wrap too ("Strain" over "cost"). Read line by line, each
such piece breaks the table into loose lines. Here a table is the run of lines from one of several cells on: the
lines of several cells, and the lines between them holding one piece set right of the table's first column (or in
it, close under a row: a name that wraps). Its columns start where its body's cells start; each line that fills
most columns is a row, and every other line belongs to the row nearest it, each piece in its column. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memory.books.pdf_layout import Line

__all__ = ["table_rows"]

#: Points between two cells' left edges for them to start one column.
SAME_COLUMN = 4.0
#: Points a lone piece must sit right of the table's first column to be a wrapped cell's line.
INDENT = 20.0
#: How close under the line before it (in shares of its type size) a piece in the first column must be.
WRAPPED = 0.8
#: How far under the line before it a lone piece of a table may be (in shares of the type size).
TABLE_GAP = 1.65


def _edges(lines: Sequence[Line]) -> list[float]:
    """Return the left edges of a table's columns: where its cells start, give or take `SAME_COLUMN` points."""
    edges: list[float] = []
    for x in sorted(cell.x for line in lines for cell in line.cells):
        if not edges or x - edges[-1] > SAME_COLUMN:
            edges.append(x)
    return edges


def _column(x: float, edges: Sequence[float]) -> int:
    return max((i for i, edge in enumerate(edges) if edge <= x + 3), default=0)


def _belongs(line: Line, before: Line, first: float, body: float) -> bool:
    """Return whether a line goes on a table whose last line so far is `before` and first column is at `first`."""
    if line.size > body * 1.1 and len(line.cells) == 1:
        return False  # a heading
    if len(line.cells) >= 2:
        return True  # rows of several cells, however far apart the book sets them
    gap = before.y - line.y
    if gap < 0 or gap > max(line.size, before.size) * TABLE_GAP:
        return False
    x = line.cells[0].x
    return x > first + INDENT or (abs(x - first) <= SAME_COLUMN and gap < line.size * WRAPPED)


def table_rows(lines: Sequence[Line], index: int, body: float) -> tuple[int, int, list[list[str]]] | None:
    """Return the table starting at `lines[index]` (a line of several cells): the index of its first line (a
    wrapped header's line may come before), of its last, and its rows; None when it is not two rows or more."""
    first = lines[index].cells[0].x
    start = index
    while (
        start > 0
        and len(lines[start - 1].cells) == 1
        and lines[start - 1].size <= body * 1.1
        and lines[start - 1].cells[0].x > first + INDENT
        and 0 <= lines[start - 1].y - lines[start].y < lines[start].size * WRAPPED
    ):
        start -= 1
    end = index
    while end + 1 < len(lines) and _belongs(lines[end + 1], lines[end], first, body):
        end += 1
    block = lines[start : end + 1]
    edges = _edges([line for line in lines[index + 1 : end + 1]] or [lines[index]])
    columns = {id(line): {_column(c.x, edges) for c in line.cells} for line in block}
    least = max(2, math.ceil(len(edges) / 2))
    anchors = [line for line in block if len(columns[id(line)]) >= least]
    if len(anchors) < 2:
        return None
    cells: dict[int, list[list[str]]] = {id(a): [[] for _ in edges] for a in anchors}
    for line in block:  # top to bottom: a wrapped cell's pieces join in reading order
        row = min(anchors, key=lambda a: abs(a.y - line.y))
        for cell in line.cells:
            cells[id(row)][_column(cell.x, edges)].append(cell.text)
    rows = [[" ".join(parts) for parts in cells[id(a)]] for a in anchors]
    return start, end, _merged(rows)


def _merged(rows: list[list[str]]) -> list[list[str]]:
    """Return rows with a column only the header fills joined to the one before it (a header's wrapped word
    set a little right of its column: "Strain" over "cost")."""
    keep = [0, *(c for c in range(1, len(rows[0])) if any(row[c] for row in rows[1:]))]
    merged = []
    for row in rows:
        out: list[str] = []
        for c, text in enumerate(row):
            if c in keep:
                out.append(text)
            elif text:
                out[-1] = f"{out[-1]} {text}".strip()
        merged.append(out)
    return merged
