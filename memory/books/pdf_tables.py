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


def _belongs(line: Line, before: Line, first: float, body: float, after: Line | None = None) -> bool:
    """Return whether a line goes on a table whose last line so far is `before` and first column is at `first`
    (`after`: the line under it)."""
    if line.size > body * 1.1 and len(line.cells) == 1:
        return False  # a heading
    if len(line.cells) >= 2:
        return True  # rows of several cells, however far apart the book sets them
    gap = before.y - line.y
    if gap < 0 or gap > max(line.size, before.size) * TABLE_GAP:
        return False
    x = line.cells[0].x
    over = after is not None and len(after.cells) >= 2 and 0 <= line.y - after.y < line.size * WRAPPED
    if abs(x - first) <= SAME_COLUMN and over:
        return True  # a name that wraps in a row set in the middle of its cells: its first line sits just over it
    return x > first + INDENT or (abs(x - first) <= SAME_COLUMN and gap < line.size * WRAPPED)


def _header_lines(anchors: Sequence[Line]) -> int:
    """Return how many of a table's first rows are its header's lines: a header that wraps is set in lines of bold
    cells, or, under its first, lines of words alone in no first column ("Weight" over "(kg)")."""
    count = 1
    for line in anchors[1:]:
        bold = all(cell.text.startswith("**") for cell in line.cells)
        words = all(not any(ch.isdigit() for ch in cell.text) for cell in line.cells)
        if not (bold and all(c.text.startswith("**") for c in anchors[0].cells)) and not (
            words and min(c.x for c in line.cells) > anchors[0].cells[0].x + INDENT
        ):
            break
        count += 1
    return count


def table_rows(lines: Sequence[Line], index: int, body: float) -> tuple[int, int, list[list[str]]] | None:
    """Return the table starting at `lines[index]` (a line of several cells): the index of its first line (a
    wrapped header's line may come before), of its last, and its rows; None when it is not two rows or more."""
    # A header that wraps may leave its first column off its first line ("Range" over "band" beside "Gun").
    first = min(
        cell.x
        for line in lines[index : index + 3]
        if 0 <= lines[index].y - line.y < lines[index].size * TABLE_GAP and len(line.cells) >= 2
        for cell in line.cells
    )
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
    while end + 1 < len(lines) and _belongs(
        lines[end + 1], lines[end], first, body, lines[end + 2] if end + 2 < len(lines) else None
    ):
        end += 1
    block = lines[start : end + 1]
    # Columns start where the body's cells start; a first line in no bold is maybe a row too (a price list's),
    # and its cells start columns as well (a column only a header fills is joined back: `_merged`).
    plain = not any(cell.text.startswith("**") for cell in lines[index].cells)
    edges = _edges([line for line in lines[index + (0 if plain else 1) : end + 1]] or [lines[index]])
    columns = {id(line): {_column(c.x, edges) for c in line.cells} for line in block}
    least = max(2, math.ceil(len(edges) / 2))
    anchors = [line for line in block if len(columns[id(line)]) >= least]
    if len(anchors) < 2:
        return None
    head = _header_lines(anchors)
    top = anchors[head - 1].y  # a header's lines, and any piece beside them, are one row: the first
    anchors = [anchors[0], *anchors[head:]]
    if len(anchors) < 2:
        return None
    cells: dict[int, list[list[str]]] = {id(a): [[] for _ in edges] for a in anchors}
    for line in block:  # top to bottom: a wrapped cell's pieces join in reading order
        row = anchors[0] if line.y >= top - 0.5 else min(anchors, key=lambda a: abs(a.y - line.y))
        for cell in line.cells:
            cells[id(row)][_column(cell.x, edges)].append(cell.text)
    # A bold header's wrapped words are one bold name ("**Weight** **(kg)**": "**Weight (kg)**").
    rows = [[" ".join(parts).replace("** **", " ") for parts in cells[id(a)]] for a in anchors]
    rows = _merged(rows)
    return start, end, [[""] * len(rows[0]), *rows] if _headless(rows) else rows


def _numbered(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _headless(rows: Sequence[Sequence[str]]) -> bool:
    """Return whether a table has no header: its first row is one of its rows, a name and amounts like the next
    ("Suit tank refill | 3 gl" over "Line, 50 m | 4 gl"), no name of a column in bold."""
    first, second = rows[0], rows[1]
    if any(cell.startswith("**") for cell in first):
        return False
    amounts = [c for c, cell in enumerate(first) if c and cell]
    return bool(amounts) and all(_numbered(first[c]) and _numbered(second[c]) for c in amounts)


def _merged(rows: list[list[str]]) -> list[list[str]]:
    """Return rows with a column only the header fills joined to the one before it (a header's wrapped word
    set a little right of its column: "Strain" over "cost"), and with a column no row fills beside the one before
    it joined to it."""
    plain = not any(cell.startswith("**") for cell in rows[0])
    keep = [
        0,
        *(
            c
            for c in range(1, len(rows[0]))
            if any(row[c] for row in rows[1:]) or (plain and _numbered(rows[0][c]))  # an amount: a row's
        ),
    ]
    # Amounts set flush right start where their widths let them ("10 gl", "3 gl"): two columns no row fills
    # both of are one column.
    keep = [
        c
        for i, c in enumerate(keep)
        if i == 0 or c - 1 != keep[i - 1] or keep[i - 1] == 0 or any(row[c] and row[c - 1] for row in rows)
    ]
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
