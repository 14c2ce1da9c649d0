"""A family tree as a picture: one row per generation, spouses side by side, children under their parents."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from canon.errors import InvalidInput
from canon.render.drawing import (
    BACKGROUND,
    BOX_BORDER,
    BOX_FILL,
    FOCUS_FILL,
    HIDDEN_FILL,
    HIDDEN_TAG,
    INK,
    LINE,
    MARGIN,
    MAX_WIDTH,
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
class TreePerson:
    """One person of a family tree: the entity, its name, and the years shown under it."""

    id: int
    name: str
    born: str | None = None
    died: str | None = None
    hidden: bool = False  # GM-only: drawn on the GM's tree marked "GM only", never on a player's


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
    marks: dict[int, Rect] = field(default_factory=dict)  # the "GM only" tag over each hidden person's box
    legend: Rect | None = None  # the legend explaining the tag, when anyone is marked


BOX_W, BOX_H = 196, 60
GAP_X, COUPLE_GAP, GAP_Y = 34, 22, 74
TAG_TEXT, LEGEND_TEXT, LEGEND_H = "GM only", "GM only: not on the players' tree", 40


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
    rows = _ordered_rows(level, people, spouse_of, parents)
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
    canvas_w = max(max(widths) + 2 * MARGIN, text_width(tree.title, title_font) + 2 * MARGIN, 360)
    canvas_h = TITLE_H + MARGIN + len(rows) * BOX_H + (len(rows) - 1) * GAP_Y + MARGIN
    boxes: dict[int, Box] = {}
    marks: dict[int, Rect] = {}
    tag_w = text_width(TAG_TEXT, font(11, bold=True)) + 10
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
            if p.hidden:
                marks[person] = (x + 6, y - 17, x + 6 + tag_w, y - 2)
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
    legend: Rect | None = None
    if marks:
        legend = (MARGIN, canvas_h - MARGIN + 8, MARGIN + 28, canvas_h - MARGIN + 26)
        canvas_h += LEGEND_H
    return TreeLayout(
        width=canvas_w,
        height=canvas_h,
        marks=marks,
        legend=legend,
        rows=tuple(tuple(r) for r in rows),
        boxes=boxes,
        spouse_links=spouse_links,
        parent_links=parent_links,
        title=tree.title,
    )


def _ordered_rows(
    level: dict[int, int],
    people: dict[int, TreePerson],
    spouse_of: dict[int, list[int]],
    parents: dict[int, list[int]],
) -> list[list[int]]:
    """Return each generation's people in drawing order: under their parents, spouses side by side."""
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
    return rows


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
        fill = HIDDEN_FILL if box.id in layout.marks else FOCUS_FILL if box.id == tree.focus else BOX_FILL
        draw.rounded_rectangle(box.rect, radius=8, fill=fill, outline=BOX_BORDER, width=2)
        x0, y0, x1, _ = box.rect
        draw.text(((x0 + x1) // 2, y0 + 20), box.lines[0], fill=INK, font=name_font, anchor="mm")
        if len(box.lines) > 1:
            draw.text(((x0 + x1) // 2, y0 + 42), box.lines[1], fill=MUTED, font=date_font, anchor="mm")
    _draw_marks(draw, layout)
    return Picture(png=png_bytes(image), layout=layout, title=tree.title)


def _draw_marks(draw: ImageDraw.ImageDraw, layout: TreeLayout) -> None:
    """Tag each GM-only person "GM only" and explain the tag in a legend (a shared screenshot says so)."""
    tag_font = font(11, bold=True)
    for rect in layout.marks.values():
        draw.rounded_rectangle(rect, radius=4, fill=HIDDEN_TAG)
        x0, y0, x1, y1 = rect
        draw.text(((x0 + x1) // 2, (y0 + y1) // 2), TAG_TEXT, fill=BACKGROUND, font=tag_font, anchor="mm")
    if layout.legend is not None:
        draw.rectangle(layout.legend, fill=HIDDEN_FILL, outline=BOX_BORDER, width=2)
        x0, y0, x1, y1 = layout.legend
        draw.text((x1 + 10, (y0 + y1) // 2), LEGEND_TEXT, fill=INK, font=font(13), anchor="lm")
