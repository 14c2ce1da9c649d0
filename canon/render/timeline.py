"""A timeline as a picture: eras as coloured bands on a year axis, events as markers with labels in lanes.

Drawn for the width Discord shows (`SHOWN_WIDTH`): the picture never grows wider. The year axis leaves room
on its right for the last events' labels (`LABEL_ROOM`), a label longer than the room to the picture's edge is
shortened, and crowded years take more lanes, downwards: the picture grows taller, never smaller to read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from canon.errors import InvalidInput
from canon.render.canvas import Canvas, PngCanvas
from canon.render.drawing import (
    BACKGROUND,
    BAND_COLOURS,
    BOX_BORDER,
    INK,
    MARGIN,
    MARKER,
    MUTED,
    SHOWN_WIDTH,
    TITLE_H,
    Picture,
    fit,
    font,
    text_width,
)
from canon.render.layouts import Label, Rect, TimelineLayout


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
    """An event of the timeline: its year (and month) when known, else the era it happened in, else the scene
    of play it happened in (`scene`, the story order)."""

    id: int
    name: str
    year: int | None
    month: int | None = None
    era: int | None = None
    scene: int | None = None


@dataclass(frozen=True)
class Timeline:
    """What a timeline picture shows: eras and events."""

    title: str
    eras: tuple[EraBand, ...]
    events: tuple[TimelineEvent, ...]
    omitted: int = 0


TIMELINE_W = SHOWN_WIDTH
#: The widest an event's label may be (a longer one is shortened with an ellipsis).
LABEL_MAX = 300
#: Room kept right of the year axis for the labels of the last events.
LABEL_ROOM = 200
BAND_H, BAND_GAP, LANE_H = 34, 6, 24
#: The size of an event's label, in pixels.
LABEL_SIZE = 13


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


def _nice_step(span: float, count: int = 10) -> int:
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return max(1, int(factor * magnitude))
    return max(1, int(10 * magnitude))


def layout_timeline(timeline: Timeline, *, width: int = TIMELINE_W) -> TimelineLayout:
    """Place eras as bands over a year axis and events as markers with non-overlapping labels, in a picture
    `width` pixels wide (Discord's by default; the wiki draws wider)."""
    bounds = era_bounds(timeline.eras)
    years: list[float] = []
    for start, end in bounds.values():
        years += [y for y in (start, end) if y is not None]
    placed = placed_events(timeline, bounds)
    years += [year for year, _ in placed]
    if not years:
        raise InvalidInput("Nothing on this timeline has a year: give eras a start or events a year.")
    first, last = min(years), max(years)
    pad = max((last - first) * 0.04, 1.0)
    first_year, last_year = first - pad, last + pad + 1
    depth = _depths(timeline.eras)
    band_rows = (max(depth.values()) + 1) if depth else 0
    left, right = MARGIN + 10, width - MARGIN - LABEL_ROOM
    top = TITLE_H + 10
    axis_y = top + band_rows * (BAND_H + BAND_GAP) + 24
    span = last_year - first_year

    def x_of(year: float) -> int:
        return round(left + (year - first_year) / span * (right - left))

    rects: dict[int, Rect] = {}
    for era in sorted(timeline.eras, key=lambda e: (depth[e.id], bounds[e.id][0] or 0)):
        start, end = bounds[era.id]
        if start is None and end is None:
            continue
        x0 = x_of(start) if start is not None else left
        x1 = x_of(end + 1) if end is not None else right
        y0 = top + depth[era.id] * (BAND_H + BAND_GAP)
        rects[era.id] = (x0, y0, max(x1, x0 + 2), y0 + BAND_H)
    names = {era.id: era.name for era in timeline.eras}
    bands = _band_labels(rects, names, MARGIN, width - MARGIN)
    events, lane_count = _event_labels(timeline, placed, x_of, left, width, axis_y)
    step = _nice_step(span, max(3, (right - left) // 90))
    ticks: list[tuple[int, int]] = []
    year = math.ceil(first_year / step) * step
    while year <= last_year:
        ticks.append((year, x_of(year)))
        year += step
    height = axis_y + 22 + max(lane_count, 1) * LANE_H + MARGIN
    return TimelineLayout(
        width=width,
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


def _band_labels(rects: dict[int, Rect], names: dict[int, str], lo: int, hi: int) -> dict[int, Label]:
    """Name each band: inside it when its name fits, else beside it, right or left, in room no band nor name
    takes (between `lo` and `hi`, the picture's margins), else shortened inside it (or not at all, when not
    even an ellipsis fits). Bands are named row by row, left to right: a name beside a band keeps its room."""
    band_font = font(14, bold=True)
    taken = list(rects.values())
    labels: dict[int, Label] = {}
    for era, rect in sorted(rects.items(), key=lambda item: (item[1][1], item[1][0])):
        x0, y0, x1, y1 = rect
        name, wide = names[era], text_width(names[era], band_font)
        beside = [
            (a, b)
            for a, b in ((x1 + 8, x1 + 8 + wide), (x0 - 8 - wide, x0 - 8))
            if lo <= a and b <= hi and all(_apart((a, y0, b, y1), other) for other in taken)
        ]
        if wide > x1 - x0 - 6 and beside:
            caption = (beside[0][0], y0, beside[0][1], y1)
            taken.append(caption)
            labels[era] = Label(era, rect, name, caption=caption)
            continue
        text = fit(name, band_font, x1 - x0 - 6) if text_width("…", band_font) <= x1 - x0 - 6 else ""
        shown = text_width(text, band_font) if text else 0
        left = (x0 + x1 - shown) // 2
        labels[era] = Label(era, rect, text, caption=(left, y0, left + shown, y1))
    return labels


def _apart(a: Rect, b: Rect) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def placed_events(
    timeline: Timeline, bounds: dict[int, tuple[int | None, int | None]]
) -> list[tuple[float, TimelineEvent]]:
    """Return each event that can be placed with its (fractional) year, in order.

    A dated event stands at its date; an undated one in the middle of its era; one of play with neither stands
    in story order, just after the latest dated event of its scene or an earlier one (else after everything
    dated), events of the same place spread over that year in the order of their scenes.
    """
    placed: list[tuple[float, TimelineEvent]] = []
    story: list[TimelineEvent] = []
    for event in timeline.events:
        if event.year is not None:
            placed.append((event.year + ((event.month or 1) - 1) / 12, event))
        elif event.era is not None and event.era in bounds and bounds[event.era] != (None, None):
            start, end = bounds[event.era]
            s = start if start is not None else (end or 0)
            e = end if end is not None else s
            placed.append(((s + e + 1) / 2, event))
        elif event.scene is not None:
            story.append(event)
    if story:
        dated = [(e.scene, y) for y, e in placed if e.scene is not None and e.year is not None]
        years = [y for y, _ in placed] + [y for span in bounds.values() for y in span if y is not None]
        last = max(years, default=0.0)
        # Events of one place are spread apart (about 1/80 of the picture each) up to the next event there.
        spread = max(1.0, (last - min(years, default=0.0)) / 80)
        groups: dict[float, list[TimelineEvent]] = {}
        for event in sorted(story, key=lambda e: (e.scene or 0, e.id)):
            before = [y for scene, y in dated if scene is not None and scene <= (event.scene or 0)]
            groups.setdefault(max(before) if before else last, []).append(event)
        for anchor, members in groups.items():
            following = min((y for y, _ in placed if y > anchor), default=None)
            step = spread if following is None else min(spread, (following - anchor) / (len(members) + 1))
            placed += [(anchor + (i + 1) * step, e) for i, e in enumerate(members)]
    return sorted(placed, key=lambda item: (item[0], item[1].name))


def _when(event: TimelineEvent, timeline: Timeline) -> str:
    if event.year is not None:
        return str(event.year)
    if event.era is not None:
        return "in " + next((e.name for e in timeline.eras if e.id == event.era), "its era")
    return f"scene {event.scene}"


def _event_labels(
    timeline: Timeline,
    placed: list[tuple[float, TimelineEvent]],
    x_of: Callable[[float], int],
    left: int,
    picture_width: int,
    axis_y: int,
) -> tuple[dict[int, Label], int]:
    """Place each event's marker on the axis and its label in a lane below; return them and the number of
    lanes used.

    Labels never overlap, and no leader line (down from the marker, then across to its label) crosses another
    label: the labels are placed from right to left, each in the first lane below every label whose marker
    its own label (or leader) would cover, with room in that lane, and where no label above covers its marker
    (events at one point share one leader).
    """
    label_font = font(LABEL_SIZE)
    edge = picture_width - MARGIN // 2  # labels stay inside the picture
    taken: list[tuple[int, int, int, int]] = []  # (lane, span start, span end, marker x) of each label
    events: dict[int, Label] = {}
    for year, event in sorted(placed, key=lambda item: (-item[0], item[1].name)):
        x = x_of(year)
        # To the right of its marker (the axis leaves `LABEL_ROOM` for the last ones), shortened to the edge.
        x0 = max(x + 6, left)
        text = fit(f"{event.name} ({_when(event, timeline)})", label_font, min(LABEL_MAX, edge - x0 - 8))
        width = text_width(text, label_font) + 8
        span = (x, x0 + width)
        deepest = 1 + max((t[0] for t in taken), default=-1)
        lane = _lane(span, x, taken, deepest)
        taken.append((lane, *span, x))
        y0 = axis_y + 22 + lane * LANE_H
        events[event.id] = Label(event.id, (x0, y0, x0 + width, y0 + LANE_H - 6), text, marker=(x, axis_y))
    return events, 1 + max((t[0] for t in taken), default=0)


def _lane(span: tuple[int, int], marker: int, taken: list[tuple[int, int, int, int]], deepest: int) -> int:
    """Return the first lane (up to `deepest`) a label spanning `span` (from its marker to its end) may go in.

    One pass over the labels placed: each rules out lanes (at or above its own, below it, or its own alone).
    """
    lowest, highest, blocked = 0, deepest, set()
    for other_lane, start, end, other_marker in taken:
        if other_marker == marker:
            # Events at one point share one leader, their labels one under another.
            lowest = max(lowest, other_lane + 1)
            continue
        if start - 10 < span[1] and span[0] < end + 10:
            blocked.add(other_lane)  # the labels would overlap in that lane
        if span[0] <= other_marker < span[1]:
            lowest = max(lowest, other_lane)  # that label's leader, coming down past lanes above, would cross
        if start <= marker < end:
            highest = min(highest, other_lane)  # this label's leader, going below that label, would cross it
    return next(n for n in range(lowest, highest + 1) if n not in blocked)


def render_timeline(timeline: Timeline) -> Picture:
    """Draw a timeline as a PNG for the width Discord shows; see `layout_timeline` for the layout."""
    layout = layout_timeline(timeline)
    canvas = PngCanvas(layout.width, layout.height, BACKGROUND)
    draw_timeline(canvas, layout, timeline)
    return Picture(png=canvas.png(), layout=layout, title=timeline.title)


def draw_timeline(
    canvas: Canvas,
    layout: TimelineLayout,
    timeline: Timeline,
    link: Callable[[int, str], str | None] | None = None,
) -> None:
    """Draw a laid-out timeline on a canvas; `link` gives the page of an era or event, by id and name (SVG)."""
    names = {e.id: e.name for e in timeline.eras} | {e.id: e.name for e in timeline.events}
    title = layout.title + (f"  (+{timeline.omitted} not shown)" if timeline.omitted else "")
    canvas.text(
        (MARGIN, 16), fit(title, font(20, bold=True), layout.width - 2 * MARGIN), size=20, bold=True, fill=INK
    )
    for index, band in enumerate(sorted(layout.bands.values(), key=lambda b: (b.rect[1], b.rect[0]))):
        colour = BAND_COLOURS[index % len(BAND_COLOURS)]
        with canvas.linked(link(band.id, names[band.id]) if link else None):
            canvas.rectangle(band.rect, fill=colour, outline=BOX_BORDER, width=1)
            assert band.caption is not None
            x0, y0, x1, y1 = band.caption
            if band.text:
                canvas.text(
                    ((x0 + x1) // 2, (y0 + y1) // 2), band.text, size=14, bold=True, fill=INK, anchor="mm"
                )
    canvas.line([(layout.left, layout.axis_y), (layout.right, layout.axis_y)], fill=INK, width=2)
    for year, x in layout.ticks:
        canvas.line([(x, layout.axis_y - 5), (x, layout.axis_y + 5)], fill=INK, width=1)
        canvas.text((x, layout.axis_y - 8), str(year), size=12, fill=MUTED, anchor="mb")
    # Connectors first, then the labels on an opaque ground: a line passing a label goes behind it.
    for label in layout.events.values():
        assert label.marker is not None
        mx, my = label.marker
        x0, y0, x1, y1 = label.rect
        hook = x0 if x0 >= mx else x1
        canvas.line([(mx, my), (mx, (y0 + y1) // 2), (hook, (y0 + y1) // 2)], fill=MUTED, width=1)
    for label in layout.events.values():
        assert label.marker is not None
        mx, my = label.marker
        with canvas.linked(link(label.id, names[label.id]) if link else None):
            canvas.ellipse((mx - 5, my - 5, mx + 5, my + 5), fill=MARKER, outline=INK)
            x0, y0, x1, y1 = label.rect
            canvas.rectangle(label.rect, fill=BACKGROUND)
            canvas.text((x0 + 4, (y0 + y1) // 2), label.text, size=LABEL_SIZE, fill=INK, anchor="lm")
