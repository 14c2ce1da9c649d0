"""A timeline as a picture: eras as coloured bands on a year axis, events as markers with labels in lanes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from canon.errors import InvalidInput
from canon.render.drawing import (
    BACKGROUND,
    BAND_COLOURS,
    BOX_BORDER,
    INK,
    MARGIN,
    MARKER,
    MUTED,
    TITLE_H,
    Picture,
    Rect,
    fit,
    font,
    png_bytes,
    text_width,
)


@dataclass(frozen=True)
class EraBand:
    """An era of the timeline: its bounds (absolute years, inclusive; None when open or unknown)."""

    id: int
    name: str
    start: int | None
    end: int | None
    parent: int | None = None


@dataclass(frozen=True)
class TimelineEvent:
    """An event of the timeline: its year (and month) when known, else the era it happened in."""

    id: int
    name: str
    year: int | None
    month: int | None = None
    era: int | None = None


@dataclass(frozen=True)
class Timeline:
    """What a timeline picture shows: eras and events."""

    title: str
    eras: tuple[EraBand, ...]
    events: tuple[TimelineEvent, ...]
    omitted: int = 0


@dataclass(frozen=True)
class Label:
    """Something drawn on the timeline: its rectangle and text (and, for an event, where its marker is)."""

    id: int
    rect: Rect
    text: str
    marker: tuple[int, int] | None = None


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


TIMELINE_W = 1400
BAND_H, BAND_GAP, LANE_H = 34, 6, 24


def _depths(eras: Sequence[EraBand]) -> dict[int, int]:
    by_id = {e.id: e for e in eras}
    depth: dict[int, int] = {}
    for era in eras:
        d, current, seen = 0, era, set()
        while current.parent is not None and current.parent in by_id and current.parent not in seen:
            seen.add(current.id)
            current = by_id[current.parent]
            d += 1
        depth[era.id] = d
    return depth


def era_bounds(eras: Sequence[EraBand]) -> dict[int, tuple[int | None, int | None]]:
    """Return each era's bounds, a sub-era inheriting what it lacks from its parent."""
    by_id = {e.id: e for e in eras}
    found: dict[int, tuple[int | None, int | None]] = {}
    for era in eras:
        start, end, current, seen = era.start, era.end, era, set()
        while (start is None or end is None) and current.parent in by_id and current.id not in seen:
            seen.add(current.id)
            current = by_id[current.parent]
            start = current.start if start is None else start
            end = current.end if end is None else end
        found[era.id] = (start, end)
    return found


def _nice_step(span: float) -> int:
    raw = span / 10
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return max(1, int(factor * magnitude))
    return max(1, int(10 * magnitude))


def layout_timeline(timeline: Timeline) -> TimelineLayout:
    """Place eras as bands over a year axis and events as markers with non-overlapping labels."""
    bounds = era_bounds(timeline.eras)
    years: list[float] = []
    for start, end in bounds.values():
        years += [y for y in (start, end) if y is not None]
    years += [e.year + ((e.month or 1) - 1) / 12 for e in timeline.events if e.year is not None]
    if not years:
        raise InvalidInput("Nothing on this timeline has a year: give eras a start or events a year.")
    first, last = min(years), max(years)
    pad = max((last - first) * 0.04, 1.0)
    first_year, last_year = first - pad, last + pad + 1
    depth = _depths(timeline.eras)
    band_rows = (max(depth.values()) + 1) if depth else 0
    left, right = MARGIN + 10, TIMELINE_W - MARGIN - 10
    top = TITLE_H + 10
    axis_y = top + band_rows * (BAND_H + BAND_GAP) + 24
    span = last_year - first_year

    def x_of(year: float) -> int:
        return round(left + (year - first_year) / span * (right - left))

    band_font = font(14, bold=True)
    bands: dict[int, Label] = {}
    for era in sorted(timeline.eras, key=lambda e: (depth[e.id], bounds[e.id][0] or 0)):
        start, end = bounds[era.id]
        if start is None and end is None:
            continue
        x0 = x_of(start) if start is not None else left
        x1 = x_of(end + 1) if end is not None else right
        y0 = top + depth[era.id] * (BAND_H + BAND_GAP)
        inside = fit(era.name, band_font, max(x1 - x0 - 10, 8))
        # A band too narrow for its name gets the whole name beside it (when there is room).
        room = max(right - x1, x0 - left) - 8
        text = era.name if inside != era.name and text_width(era.name, band_font) < room else inside
        bands[era.id] = Label(era.id, (x0, y0, max(x1, x0 + 2), y0 + BAND_H), text)
    events, lane_count = _event_labels(timeline, bounds, x_of, left, right, axis_y)
    step = _nice_step(span)
    ticks: list[tuple[int, int]] = []
    year = math.ceil(first_year / step) * step
    while year <= last_year:
        ticks.append((year, x_of(year)))
        year += step
    height = axis_y + 22 + max(lane_count, 1) * LANE_H + MARGIN
    return TimelineLayout(
        width=TIMELINE_W,
        height=height,
        first_year=first_year,
        last_year=last_year,
        left=left,
        right=right,
        axis_y=axis_y,
        bands=bands,
        events=events,
        ticks=tuple(ticks),
        title=timeline.title,
    )


def _event_labels(
    timeline: Timeline,
    bounds: dict[int, tuple[int | None, int | None]],
    x_of: Callable[[float], int],
    left: int,
    right: int,
    axis_y: int,
) -> tuple[dict[int, Label], int]:
    """Place each event's marker on the axis and its label in the first lane with room; return them and the
    number of lanes used. An event without a year stands in the middle of its era."""
    label_font = font(13)
    lanes: list[int] = []  # right edge of the last label in each lane
    events: dict[int, Label] = {}
    placed: list[tuple[float, TimelineEvent]] = []
    for event in timeline.events:
        if event.year is not None:
            placed.append((event.year + ((event.month or 1) - 1) / 12, event))
        elif event.era is not None and event.era in bounds:
            start, end = bounds[event.era]
            if start is not None or end is not None:
                s = start if start is not None else (end or 0)
                e = end if end is not None else s
                placed.append(((s + e + 1) / 2, event))
    for year, event in sorted(placed, key=lambda item: (item[0], item[1].name)):
        x = x_of(year)
        if event.year is not None:
            when = str(event.year)
        else:
            home = next((e.name for e in timeline.eras if e.id == event.era), "its era")
            when = f"in {home}"
        text = fit(f"{event.name} ({when})", label_font, 320)
        width = text_width(text, label_font) + 8
        x0 = min(max(x + 6, left), right - width)
        lane = next((i for i, edge in enumerate(lanes) if edge + 10 < x0), None)
        if lane is None:
            lanes.append(0)
            lane = len(lanes) - 1
        lanes[lane] = x0 + width
        y0 = axis_y + 22 + lane * LANE_H
        events[event.id] = Label(event.id, (x0, y0, x0 + width, y0 + LANE_H - 6), text, marker=(x, axis_y))
    return events, len(lanes)


def render_timeline(timeline: Timeline) -> Picture:
    """Draw a timeline as a PNG; see `layout_timeline` for the layout."""
    layout = layout_timeline(timeline)
    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_font = font(22, bold=True)
    title = layout.title + (f"  (+{timeline.omitted} not shown)" if timeline.omitted else "")
    draw.text((MARGIN, 16), fit(title, title_font, layout.width - 2 * MARGIN), fill=INK, font=title_font)
    band_font = font(14, bold=True)
    for index, band in enumerate(sorted(layout.bands.values(), key=lambda b: (b.rect[1], b.rect[0]))):
        colour = BAND_COLOURS[index % len(BAND_COLOURS)]
        draw.rectangle(band.rect, fill=colour, outline=BOX_BORDER, width=1)
        x0, y0, x1, y1 = band.rect
        if text_width(band.text, band_font) <= x1 - x0 - 6:
            draw.text(((x0 + x1) // 2, (y0 + y1) // 2), band.text, fill=INK, font=band_font, anchor="mm")
        elif x1 + 8 + text_width(band.text, band_font) <= layout.right:
            draw.text((x1 + 8, (y0 + y1) // 2), band.text, fill=INK, font=band_font, anchor="lm")
        else:
            draw.text((x0 - 8, (y0 + y1) // 2), band.text, fill=INK, font=band_font, anchor="rm")
    draw.line([(layout.left, layout.axis_y), (layout.right, layout.axis_y)], fill=INK, width=2)
    tick_font = font(12)
    for year, x in layout.ticks:
        draw.line([(x, layout.axis_y - 5), (x, layout.axis_y + 5)], fill=INK, width=1)
        draw.text((x, layout.axis_y - 8), str(year), fill=MUTED, font=tick_font, anchor="mb")
    label_font = font(13)
    # Connectors first, then the labels on an opaque ground: a line passing a label goes behind it.
    for label in layout.events.values():
        assert label.marker is not None
        mx, my = label.marker
        x0, y0, x1, y1 = label.rect
        hook = x0 if x0 >= mx else x1
        draw.line([(mx, my), (mx, (y0 + y1) // 2), (hook, (y0 + y1) // 2)], fill=MUTED, width=1)
    for label in layout.events.values():
        assert label.marker is not None
        mx, my = label.marker
        draw.ellipse((mx - 5, my - 5, mx + 5, my + 5), fill=MARKER, outline=INK)
        x0, y0, x1, y1 = label.rect
        draw.rectangle(label.rect, fill=BACKGROUND)
        draw.text((x0 + 4, (y0 + y1) // 2), label.text, fill=INK, font=label_font, anchor="lm")
    return Picture(png=png_bytes(image), layout=layout, title=timeline.title)
