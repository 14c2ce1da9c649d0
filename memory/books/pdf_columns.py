"""A page's columns: where its text columns start, and the band across the top (a title, an introduction) that
runs over them. Pure: runs in, runs out.

A page set in columns has a left edge inside it at which many lines start (each column's margin) and that no line
of the columns runs across; a table's column is no page column: the lines of the text around it run across its
edge. A book's first page often opens with a title and an introduction set across the page, above its columns:
those lines run across every column's edge, but only above the columns' first lines, and are read first.
Any number of columns is read, left to right (a two-column rulebook, a three-column almanac).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["page_columns"]


class Placed(Protocol):
    """A run of text where a page sets it (`memory.books.pdf_layout.Run`)."""

    x: float
    y: float
    size: float
    text: str


Run = TypeVar("Run", bound=Placed)

#: The narrowest a text's average letter is, in shares of its type size (a run past it does not overlap it).
NARROW = 0.4
#: How far past a column's edge a run must reach (points) to run across it.
ACROSS = 20.0
#: Points between two left edges for them to be one column's (its paragraphs, its bullets, a boxed note's padding).
SAME_EDGE = 12.0
#: The share of a page's width, from each side, where no column starts.
SIDE = 0.15
#: The share of a column's width the lines starting at its edge fill (their median), when a band runs above it:
#: a table's column holds short cells, a column of text lines that reach across it.
FILLED = 0.45


def _reach(run: Placed) -> float:
    return run.x + len(run.text) * run.size * NARROW


def _groups(runs: Sequence[Run], width: float) -> list[list[Run]]:
    """Return the runs starting inside the page's middle, grouped by a left edge (`SAME_EDGE` points apart)."""
    inner = sorted((r for r in runs if width * SIDE <= r.x <= width * (1 - SIDE)), key=lambda r: r.x)
    groups: list[list[Run]] = []
    for run in inner:
        if groups and run.x - groups[-1][0].x <= SAME_EDGE:
            groups[-1].append(run)
        else:
            groups.append([run])
    return groups


def _column_edge(runs: Sequence[Placed], group: Sequence[Placed], right: float) -> tuple[float, float] | None:
    """Return a column's left edge and the height of the band above it (None: no band), or None when the runs
    starting there are no column's: lines of the text around them run across it below its first line."""
    edge = min(r.x for r in group)
    top = max(r.y for r in group)
    across = [r for r in runs if r.x < edge - 2 and _reach(r) > edge + ACROSS]
    below = [r for r in across if r.y <= top + 1]
    if len(below) >= 3:
        return None
    above = [r for r in across if r.y > top + 1]
    if not above:
        return edge, float("inf")
    # A band runs above: the lines right of the edge must be a column's text, not a table's cells.
    if not _filled([r for r in runs if edge - 2 <= r.x < right and r.y <= top + 1], right):
        return None
    return edge, min(r.y for r in above)


def page_columns(runs: Sequence[Run], width: float) -> tuple[list[Run], list[list[Run]]] | None:
    """Return the band across a page's top and its columns' runs, left to right; None for a page of one column."""
    lines = {round(run.y) for run in runs}
    if len(runs) < 6:
        return None
    groups = [g for g in _groups(runs, width) if len(g) >= max(3, len(lines) * 0.15)]
    found: list[tuple[float, float]] = []
    for number, group in enumerate(groups):
        right = min(groups[number + 1][0].x, width) if number + 1 < len(groups) else width * (1 - SIDE / 3)
        edge = _column_edge(runs, group, right)
        if edge is not None:
            found.append(edge)
    if not found:
        return None
    band_from = min(y for _, y in found)
    band = [r for r in runs if r.y >= band_from - r.size * 0.3] if band_from != float("inf") else []
    body = [r for r in runs if not band or r.y < band_from - r.size * 0.3]
    edges = [edge for edge, _ in found]
    columns: list[list[Run]] = [[] for _ in range(len(edges) + 1)]
    for run in body:
        columns[sum(1 for edge in edges if run.x >= edge - 2)].append(run)
    # Each column but the last is filled by its lines up to the next one's edge: a column of short terms or
    # names beside their long text is one table's, read across.
    if not all(_filled(c, edge) for c, edge in zip(columns, edges, strict=False) if c):
        return None
    return band, [c for c in columns if c]


def _filled(column: Sequence[Placed], edge: float) -> bool:
    """Return whether a column's lines reach most of the way to the next column's edge (their median)."""
    start = min(r.x for r in column)
    reach: dict[int, float] = {}
    for run in column:
        reach[round(run.y)] = max(reach.get(round(run.y), start), min(_reach(run), edge))
    return statistics.median(reach.values()) - start >= (edge - start) * FILLED
