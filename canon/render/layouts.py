"""Where everything of a picture was drawn: the layouts the drawing returns with its PNG (and tests read)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: A pixel rectangle: left, top, right, bottom.
Rect = tuple[int, int, int, int]


@dataclass(frozen=True)
class Box:
    """A drawn box: its pixel rectangle and the lines of text written in it."""

    id: int
    rect: Rect
    lines: tuple[str, ...]


@dataclass(frozen=True)
class TreeLayout:
    """Where everything of a family tree picture was drawn."""

    width: int
    height: int
    rows: tuple[tuple[int, ...], ...]
    boxes: dict[int, Box]
    spouse_links: tuple[tuple[int, int], ...]
    parent_links: tuple[tuple[int, int], ...]
    title: str
    marks: dict[int, Rect] = field(default_factory=dict)  # the "GM only" tag over each hidden person's box
    legend: Rect | None = None  # the legend explaining the tag, when anyone is marked
    wrapped: bool = False  # a generation takes several lines: boxes name the parents, no lines are drawn
    summary: tuple[
        str, ...
    ] = ()  # the lines saying who is not drawn (past `SUMMARY_PAST`), and how to see them
    summary_top: int = 0
    taken_links: tuple[tuple[int, int], ...] = ()  # (parent, child): adopted or fostered, drawn dashed
    taken_legend: Rect | None = None  # the legend saying what the dashed line means, when one is drawn


@dataclass(frozen=True)
class Label:
    """Something drawn on the timeline: its rectangle and text (and, for an event, where its marker is; for an
    era's band, where its name is written: inside the band or beside it)."""

    id: int
    rect: Rect
    text: str
    marker: tuple[int, int] | None = None
    caption: Rect | None = None


@dataclass(frozen=True)
class TimelineLayout:
    """Where everything of a timeline picture was drawn, and the year scale."""

    width: int
    height: int
    first_year: float
    last_year: float
    left: int
    right: int
    axis_y: int
    bands: dict[int, Label]
    events: dict[int, Label]
    ticks: tuple[tuple[int, int], ...]  # (year, x)
    title: str

    def x_of(self, year: float) -> int:
        """Return the x pixel of a (fractional) year."""
        span = max(self.last_year - self.first_year, 1e-9)
        return round(self.left + (year - self.first_year) / span * (self.right - self.left))
