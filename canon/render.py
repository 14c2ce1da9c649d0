"""Pictures of the canon graph: a family tree and a timeline, as PNG images (Pillow), readable at a glance.

Two layers:
- pure functions that take plain data (`FamilyTree`, `Timeline`) and return a `Picture`: the PNG bytes and the
  layout they were drawn from (every box, label and band with its pixel rectangle and the text drawn), so
  tests and callers can check the image against the graph;
- `family_tree_of` / `timeline_of`, which read that data from the canon graph through a `CanonReader`. The
  reader's viewer decides what is shown: for a player, GM-only entities and facts never reach the data, so
  they cannot reach the picture.

Family tree: one row per generation (parents above children), spouses side by side joined by a double line,
each child joined to its parents by an elbow line; each person is a box with the name and the years of birth
and death. Timeline: eras as coloured bands on a year axis (sub-eras in a band below their era), events as
markers placed by date with their names in lanes that never overlap.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from canon.domain import StatementKind
from canon.errors import InvalidInput, NotFound
from canon.graph import CanonReader

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Rect = tuple[int, int, int, int]

BACKGROUND = (252, 250, 245)
INK = (40, 36, 32)
MUTED = (110, 104, 96)
BOX_FILL = (236, 229, 214)
BOX_BORDER = (92, 72, 48)
FOCUS_FILL = (250, 224, 160)
LINE = (92, 72, 48)
BAND_COLOURS = (
    (200, 222, 240),
    (214, 232, 206),
    (244, 220, 200),
    (228, 212, 238),
    (240, 236, 196),
    (206, 232, 230),
)
MARKER = (160, 48, 40)

MAX_TREE_PEOPLE = 150
MAX_TIMELINE_EVENTS = 120
MAX_WIDTH = 12_000


# --------------------------------------------------------------------------------------------- fonts


@cache
def font(size: int, *, bold: bool = False) -> Font:
    """Return DejaVu Sans at a size (bold if asked), else Pillow's own scalable default font."""
    names = ("DejaVuSans-Bold.ttf",) if bold else ("DejaVuSans.ttf",)
    for name in (*names, "DejaVuSans.ttf"):
        for candidate in (name, f"/usr/share/fonts/truetype/dejavu/{name}"):
            try:
                return ImageFont.truetype(candidate, size)
            except OSError:
                continue
    return ImageFont.load_default(size)


def _text_width(text: str, typeface: Font) -> int:
    left, _, right, _ = typeface.getbbox(text)
    return math.ceil(right - left)


def fit(text: str, typeface: Font, width: int) -> str:
    """Return `text`, or as much of it as fits in `width` pixels followed by an ellipsis."""
    if _text_width(text, typeface) <= width:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _text_width(text[:middle].rstrip() + "…", typeface) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


# --------------------------------------------------------------------------------------------- family tree


@dataclass(frozen=True)
class TreePerson:
    """One person of a family tree: the entity, its name, and the years shown under it."""

    id: int
    name: str
    born: str | None = None
    died: str | None = None


@dataclass(frozen=True)
class FamilyTree:
    """What a family tree picture shows: people, who is whose parent, who married whom."""

    title: str
    people: tuple[TreePerson, ...]
    parent_of: tuple[tuple[int, int], ...] = ()  # (parent id, child id)
    spouses: tuple[tuple[int, int], ...] = ()
    focus: int | None = None
    omitted: int = 0


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


@dataclass(frozen=True)
class Picture:
    """A rendered picture: PNG bytes, the layout it was drawn from, and a title for the message."""

    png: bytes
    layout: TreeLayout | TimelineLayout
    title: str


BOX_W, BOX_H = 196, 60
GAP_X, COUPLE_GAP, GAP_Y = 34, 22, 74
MARGIN, TITLE_H = 28, 54


def generations(tree: FamilyTree) -> dict[int, int]:
    """Return each person's generation: 0 for people without parents in the tree, else a row below them.

    Spouses whose parents are not in the tree stand in their partner's row.
    """
    ids = {p.id for p in tree.people}
    parents: dict[int, list[int]] = defaultdict(list)
    for parent, child in tree.parent_of:
        if parent in ids and child in ids and parent != child:
            parents[child].append(parent)
    level: dict[int, int] = {}

    def depth(person: int) -> int:
        # Iterative: a long line of descent must not hit the recursion limit; a loop (bad canon) stops.
        stack, seen = [person], set()
        while stack:
            current = stack[-1]
            if current in level:
                stack.pop()
                continue
            pending = [p for p in parents.get(current, ()) if p not in level and p not in seen]
            if pending:
                seen.add(current)
                stack.extend(pending)
                continue
            level[current] = max((level.get(p, 0) + 1 for p in parents.get(current, ())), default=0)
            stack.pop()
        return level[person]

    for person in sorted(ids):
        depth(person)
    for _ in range(3):
        for a, b in tree.spouses:
            if a in level and b in level:
                if not parents.get(a) and level[a] < level[b]:
                    level[a] = level[b]
                elif not parents.get(b) and level[b] < level[a]:
                    level[b] = level[a]
    return level


def layout_family_tree(tree: FamilyTree) -> TreeLayout:
    """Place every person: generations in rows, spouses side by side, children under their parents."""
    if not tree.people:
        raise InvalidInput("There is nobody to draw in this family tree.")
    level = generations(tree)
    people = {p.id: p for p in tree.people}
    spouse_of: dict[int, list[int]] = defaultdict(list)
    for a, b in tree.spouses:
        if a in people and b in people and a != b:
            spouse_of[a].append(b)
            spouse_of[b].append(a)
    parents: dict[int, list[int]] = defaultdict(list)
    for parent, child in tree.parent_of:
        if parent in people and child in people:
            parents[child].append(parent)
    rows_of: dict[int, list[int]] = defaultdict(list)
    for person, row in level.items():
        rows_of[row].append(person)
    order: dict[int, float] = {}
    rows: list[list[int]] = []
    for row in sorted(rows_of):
        members = rows_of[row]

        def centre(person: int) -> float:
            placed = [order[p] for p in parents.get(person, ()) if p in order]
            return sum(placed) / len(placed) if placed else math.inf

        # Units: a person with the spouses in the same row, kept side by side.
        units: list[list[int]] = []
        taken: set[int] = set()
        for person in sorted(members, key=lambda p: (centre(p), people[p].born or "", people[p].name, p)):
            if person in taken:
                continue
            unit = [person]
            taken.add(person)
            for spouse in spouse_of.get(person, ()):
                if spouse in members and spouse not in taken:
                    unit.append(spouse)
                    taken.add(spouse)
            units.append(unit)
        units.sort(key=lambda u: (min(centre(p) for p in u), people[u[0]].name))
        flat = [p for unit in units for p in unit]
        for index, person in enumerate(flat):
            order[person] = index
        rows.append(flat)
    # Pixel positions: each row centred on the widest one.
    widths = []
    for flat in rows:
        width = 0
        for index, person in enumerate(flat):
            if index:
                width += COUPLE_GAP if flat[index - 1] in spouse_of.get(person, ()) else GAP_X
            width += BOX_W
        widths.append(width)
    title_font = font(22, bold=True)
    canvas_w = max(max(widths) + 2 * MARGIN, _text_width(tree.title, title_font) + 2 * MARGIN, 360)
    canvas_h = TITLE_H + MARGIN + len(rows) * BOX_H + (len(rows) - 1) * GAP_Y + MARGIN
    boxes: dict[int, Box] = {}
    name_font, date_font = font(15, bold=True), font(13)
    for row_index, flat in enumerate(rows):
        x = (canvas_w - widths[row_index]) // 2
        y = TITLE_H + MARGIN + row_index * (BOX_H + GAP_Y)
        for index, person in enumerate(flat):
            if index:
                x += COUPLE_GAP if flat[index - 1] in spouse_of.get(person, ()) else GAP_X
            p = people[person]
            lines = [fit(p.name, name_font, BOX_W - 16)]
            years = _years(p)
            if years:
                lines.append(fit(years, date_font, BOX_W - 16))
            boxes[person] = Box(person, (x, y, x + BOX_W, y + BOX_H), tuple(lines))
            x += BOX_W
    spouse_links = tuple(
        sorted(
            {
                (min(a, b), max(a, b))
                for a, b in tree.spouses
                if a in boxes and b in boxes and level.get(a) == level.get(b) and a != b
            }
        )
    )
    parent_links = tuple(sorted({(p, c) for p, c in tree.parent_of if p in boxes and c in boxes and p != c}))
    return TreeLayout(
        width=canvas_w,
        height=canvas_h,
        rows=tuple(tuple(r) for r in rows),
        boxes=boxes,
        spouse_links=spouse_links,
        parent_links=parent_links,
        title=tree.title,
    )


def _years(person: TreePerson) -> str:
    if person.born and person.died:
        return f"{person.born} – {person.died}"
    if person.born:
        return f"born {person.born}"
    if person.died:
        return f"died {person.died}"
    return ""


def render_family_tree(tree: FamilyTree) -> Picture:
    """Draw a family tree as a PNG; see `layout_family_tree` for the layout."""
    layout = layout_family_tree(tree)
    if layout.width > MAX_WIDTH:
        raise InvalidInput(
            f"This family tree is too wide to draw ({len(tree.people)} people); draw one person's family instead."
        )
    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title = layout.title + (f"  (+{tree.omitted} not shown)" if tree.omitted else "")
    draw.text(
        (MARGIN, 16),
        fit(title, font(22, bold=True), layout.width - 2 * MARGIN),
        fill=INK,
        font=font(22, bold=True),
    )
    boxes = layout.boxes
    # Parent -> child elbows: from the couple's joint (or the parent's bottom) to the child's top.
    couples = {frozenset(pair) for pair in layout.spouse_links}
    children_of: dict[int, list[int]] = defaultdict(list)
    for parent, child in layout.parent_links:
        children_of[child].append(parent)
    for child, found in children_of.items():
        cx0, cy0, cx1, _ = boxes[child].rect
        child_x = (cx0 + cx1) // 2
        sources: list[tuple[int, int]] = []
        remaining = sorted(found)
        while remaining:
            parent = remaining.pop(0)
            partner = next((q for q in remaining if frozenset((parent, q)) in couples), None)
            px0, py0, px1, py1 = boxes[parent].rect
            if partner is not None:
                remaining.remove(partner)
                qx0, _, qx1, _ = boxes[partner].rect
                left, right = sorted(((px0 + px1) // 2, (qx0 + qx1) // 2))
                sources.append(((left + right) // 2, (py0 + py1) // 2))
            else:
                sources.append(((px0 + px1) // 2, py1))
        for sx, sy in sources:
            mid = cy0 - GAP_Y // 2
            draw.line([(sx, sy), (sx, mid), (child_x, mid), (child_x, cy0)], fill=LINE, width=2)
    for a, b in layout.spouse_links:
        ax0, ay0, ax1, ay1 = boxes[a].rect
        bx0, _, bx1, _ = boxes[b].rect
        left, right = (ax1, bx0) if ax0 < bx0 else (bx1, ax0)
        y = (ay0 + ay1) // 2
        draw.line([(left, y - 3), (right, y - 3)], fill=LINE, width=2)
        draw.line([(left, y + 3), (right, y + 3)], fill=LINE, width=2)
    name_font, date_font = font(15, bold=True), font(13)
    for box in boxes.values():
        fill = FOCUS_FILL if box.id == tree.focus else BOX_FILL
        draw.rounded_rectangle(box.rect, radius=8, fill=fill, outline=BOX_BORDER, width=2)
        x0, y0, x1, _ = box.rect
        draw.text(((x0 + x1) // 2, y0 + 20), box.lines[0], fill=INK, font=name_font, anchor="mm")
        if len(box.lines) > 1:
            draw.text(((x0 + x1) // 2, y0 + 42), box.lines[1], fill=MUTED, font=date_font, anchor="mm")
    return Picture(png=_png(image), layout=layout, title=tree.title)


# --------------------------------------------------------------------------------------------- timeline


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


def _bounds(eras: Sequence[EraBand]) -> dict[int, tuple[int | None, int | None]]:
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
    bounds = _bounds(timeline.eras)
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
        text = era.name if inside != era.name and _text_width(era.name, band_font) < room else inside
        bands[era.id] = Label(era.id, (x0, y0, max(x1, x0 + 2), y0 + BAND_H), text)
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
        width = _text_width(text, label_font) + 8
        x0 = min(max(x + 6, left), right - width)
        lane = next((i for i, edge in enumerate(lanes) if edge + 10 < x0), None)
        if lane is None:
            lanes.append(0)
            lane = len(lanes) - 1
        lanes[lane] = x0 + width
        y0 = axis_y + 22 + lane * LANE_H
        events[event.id] = Label(event.id, (x0, y0, x0 + width, y0 + LANE_H - 6), text, marker=(x, axis_y))
    step = _nice_step(span)
    ticks: list[tuple[int, int]] = []
    year = math.ceil(first_year / step) * step
    while year <= last_year:
        ticks.append((year, x_of(year)))
        year += step
    height = axis_y + 22 + max(len(lanes), 1) * LANE_H + MARGIN
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
        if _text_width(band.text, band_font) <= x1 - x0 - 6:
            draw.text(((x0 + x1) // 2, (y0 + y1) // 2), band.text, fill=INK, font=band_font, anchor="mm")
        elif x1 + 8 + _text_width(band.text, band_font) <= layout.right:
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
    return Picture(png=_png(image), layout=layout, title=timeline.title)


# --------------------------------------------------------------------------------------------- from the graph


def _year_text(text: str | None, key: int | None) -> str | None:
    if key is not None:
        return str(key // 10000)
    if text:
        return text.split(".", 1)[0].replace("_", " ")  # an era only: say which
    return None


@dataclass
class _Kin:
    parents: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    children: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    spouses: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))


async def _kinship(reader: CanonReader) -> tuple[_Kin, set[int]]:
    statements = await reader.statements(predicates=["PARENT_OF", "SPOUSE_OF"], with_evidence=False)
    kin = _Kin()
    ids: set[int] = set()
    for s in statements:
        if s.object_id is None:
            continue
        ids |= {s.subject_id, s.object_id}
        if s.predicate == "PARENT_OF":
            kin.parents[s.object_id].add(s.subject_id)
            kin.children[s.subject_id].add(s.object_id)
        else:
            kin.spouses[s.subject_id].add(s.object_id)
            kin.spouses[s.object_id].add(s.subject_id)
    return kin, ids


async def family_tree_of(
    reader: CanonReader, name: str, *, up: int = 3, down: int = 3, max_people: int = MAX_TREE_PEOPLE
) -> FamilyTree:
    """Return the family tree around a person (ancestors `up`, descendants `down` generations, spouses), or
    the members of a lineage, as the reader's viewer may see them."""
    entity = await reader.resolve(name)
    kin, _ = await _kinship(reader)
    if reader.ontology.is_a(entity.type, ["Lineage"]):
        members = await reader.statements(
            object_ids=[entity.id], predicates=["MEMBER_OF"], with_evidence=False
        )
        chosen = [s.subject_id for s in sorted(members, key=lambda s: s.id)]
        focus = None
        title = f"Family tree: {entity.name}"
    elif reader.ontology.is_a(entity.type, ["Person", "Creature", "Deity"]):
        chosen = _around(entity.id, kin, up, down)
        focus = entity.id
        title = f"Family tree of {entity.name}"
    else:
        raise InvalidInput(
            f"{entity.name} is a {entity.type}; a family tree is drawn for a person or a lineage."
        )
    visible = await reader.entities(chosen)
    ordered = [i for i in dict.fromkeys(chosen) if i in visible]
    omitted = max(0, len(ordered) - max_people)
    ordered = ordered[:max_people]
    if not ordered:
        raise NotFound(f"There is nobody to draw in the family tree of {entity.name}.")
    chosen_set = set(ordered)
    lives = await _lives(reader, ordered)
    people = tuple(
        TreePerson(
            id=i, name=visible[i].name, born=lives.get(i, (None, None))[0], died=lives.get(i, (None, None))[1]
        )
        for i in ordered
    )
    parent_of = tuple(sorted((p, c) for c in chosen_set for p in kin.parents.get(c, ()) if p in chosen_set))
    spouses = tuple(
        sorted(
            {(min(a, b), max(a, b)) for a in chosen_set for b in kin.spouses.get(a, ()) if b in chosen_set}
        )
    )
    return FamilyTree(
        title=title, people=people, parent_of=parent_of, spouses=spouses, focus=focus, omitted=omitted
    )


def _around(person: int, kin: _Kin, up: int, down: int) -> list[int]:
    """Return a person, their ancestors and descendants within reach, and everyone's spouses, nearest first."""
    chosen: dict[int, None] = {person: None}
    frontier = {person}
    for _ in range(up):
        frontier = {p for child in frontier for p in kin.parents.get(child, ())} - set(chosen)
        chosen.update(dict.fromkeys(sorted(frontier)))
    frontier = {person}
    for _ in range(down):
        frontier = {c for parent in frontier for c in kin.children.get(parent, ())} - set(chosen)
        chosen.update(dict.fromkeys(sorted(frontier)))
    for member in list(chosen):
        chosen.update(dict.fromkeys(sorted(kin.spouses.get(member, ()))))
    return list(chosen)


async def _lives(reader: CanonReader, ids: Iterable[int]) -> dict[int, tuple[str | None, str | None]]:
    """Return each entity's year of birth (first `alive`) and death (first terminal state), as shown."""
    id_list = list(ids)
    tags = reader.ontology.states.tags
    found: dict[int, tuple[str | None, str | None]] = {}
    for start in range(0, len(id_list), 400):
        chunk = id_list[start : start + 400]
        statements = await reader.statements(subject_ids=chunk, predicates=["state"], with_evidence=False)
        by_subject: dict[int, list[tuple[int, str | None, str]]] = defaultdict(list)
        for s in statements:
            if s.kind != StatementKind.STATE or s.value is None:
                continue
            key = s.validity.world_from_key
            by_subject[s.subject_id].append(
                (key if key is not None else 2**62, _year_text(s.validity.world_from, key), s.value)
            )
        for subject, states in by_subject.items():
            states.sort()
            born = next((text for _, text, value in states if value == "alive"), None)
            died = next((text for _, text, value in states if value in tags and tags[value].terminal), None)
            found[subject] = (born, died)
    return found


async def timeline_of(
    reader: CanonReader, era: str | None = None, *, max_events: int = MAX_TIMELINE_EVENTS
) -> Timeline:
    """Return the campaign's timeline (or one era's, sub-eras included), as the reader's viewer may see it."""
    everything = await reader.all_entities()
    eras = {i: e for i, e in everything.items() if reader.ontology.is_a(e.type, ["Era"])}
    events = {i: e for i, e in everything.items() if reader.ontology.is_a(e.type, ["Event"])}
    links = await reader.statements(predicates=["SUB_ERA_OF", "OCCURRED_DURING"], with_evidence=False)
    parent: dict[int, int] = {}
    during: dict[int, int] = {}
    for s in links:
        if s.object_id is None:
            continue
        if s.predicate == "SUB_ERA_OF" and s.subject_id in eras and s.object_id in eras:
            parent.setdefault(s.subject_id, s.object_id)
        elif s.predicate == "OCCURRED_DURING" and s.subject_id in events:
            during.setdefault(s.subject_id, s.object_id)
    title = "Timeline"
    if era is not None:
        chosen = await reader.resolve(era)
        if chosen.id not in eras:
            raise InvalidInput(f"{chosen.name} is a {chosen.type}, not an era; name an era or nothing.")
        keep = {chosen.id}
        changed = True
        while changed:
            changed = False
            for child, up in parent.items():
                if up in keep and child not in keep:
                    keep.add(child)
                    changed = True
        eras = {i: e for i, e in eras.items() if i in keep}
        title = f"Timeline: {chosen.name}"
    bands = tuple(
        EraBand(
            id=i,
            name=e.name,
            start=_key_year(e.validity.world_from_key),
            end=_key_year(e.validity.world_until_key),
            parent=parent.get(i) if parent.get(i) in eras else None,
        )
        for i, e in sorted(eras.items())
    )
    era_bounds = _bounds(bands)
    chosen_events: list[TimelineEvent] = []
    for i, e in sorted(events.items()):
        key = e.validity.world_from_key
        year = _key_year(key)
        month = ((key % 10000) // 100 or None) if key is not None else None
        home = during.get(i)
        if era is not None:
            inside = home in eras
            if not inside and year is not None:
                inside = any(
                    (s is None or s <= year) and (t is None or year <= t) and (s is not None or t is not None)
                    for s, t in era_bounds.values()
                )
            if not inside:
                continue
        if year is None and (home is None or home not in eras):
            continue
        chosen_events.append(
            TimelineEvent(id=i, name=e.name, year=year, month=month, era=home if home in eras else None)
        )
    chosen_events.sort(key=lambda ev: (ev.year if ev.year is not None else 0, ev.name))
    omitted = max(0, len(chosen_events) - max_events)
    if not bands and not chosen_events:
        raise NotFound("This campaign's canon has no eras or dated events yet to draw a timeline from.")
    return Timeline(title=title, eras=bands, events=tuple(chosen_events[:max_events]), omitted=omitted)


def _key_year(key: int | None) -> int | None:
    return None if key is None else key // 10000
