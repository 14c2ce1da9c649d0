"""A family tree as a picture: one row per generation, spouses side by side, children under their parents.

Drawn for the width Discord shows (`SHOWN_WIDTH`): a generation wider than that wraps onto several lines
(couples kept together), and then each child's box says whose child it is instead of a line that would cross
the boxes between; past `SUMMARY_PAST` people the later generations are summarised in words, with the way to
draw one person's family.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from canon.errors import InvalidInput
from canon.render.canvas import Canvas, PngCanvas
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
    SHOWN_WIDTH,
    TITLE_H,
    Font,
    Picture,
    fit,
    font,
    text_width,
    wrap,
)
from canon.render.layouts import Box, Rect, TreeLayout
from canon.render.tree_lines import draw_parent_lines, draw_taken_in_legend


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
    taken_in: tuple[tuple[int, int], ...] = ()  # (parent id, child id): who adopted or fostered the child
    spouses: tuple[tuple[int, int], ...] = ()
    focus: int | None = None
    omitted: int = 0
    subject: str = ""  # the name of the person or lineage it is drawn for


BOX_W, BOX_H = 164, 64
#: The tree's side margins (narrower than the title's: three boxes a line fit the width Discord shows).
SIDE = 12
GAP_X, COUPLE_GAP, GAP_Y, LINE_GAP = 14, 12, 74, 28
#: Past this many people, the later generations are said in words instead of drawn.
SUMMARY_PAST = 40
#: The narrowest full-size tree (room for its title), and the widest (past it, a generation wraps).
FULL_MIN_WIDTH, FULL_MAX_WIDTH = 480, 4000
SUMMARY_LINE = 18
TAG_TEXT, LEGEND_TEXT, LEGEND_H = "GM only", "GM only: not on the players' tree", 40


def generations(tree: FamilyTree) -> dict[int, int]:
    """Return each person's generation: 0 for people without parents in the tree, else a row below them.

    Spouses whose parents are not in the tree stand in their partner's row.
    """
    ids = {p.id for p in tree.people}
    parents: dict[int, list[int]] = defaultdict(list)
    for parent, child in (*tree.parent_of, *tree.taken_in):
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


def layout_family_tree(
    tree: FamilyTree, *, width: int | None = SHOWN_WIDTH, summary_past: int = SUMMARY_PAST
) -> TreeLayout:
    """Place every person: generations in rows, spouses side by side, children under their parents.

    `width` is the picture's (Discord's by default; None: full size, as wide as the widest generation); past
    `summary_past` people the later generations are said in words.
    """
    if not tree.people:
        raise InvalidInput("There is nobody to draw in this family tree.")
    level = generations(tree)
    people = {p.id: p for p in tree.people}
    spouse_of, parents = _kin_of(tree, people)
    rows, rest = _kept_rows(_ordered_rows(level, people, spouse_of, parents), summary_past)
    if width is None:  # full size: as wide as the widest generation (wrapped only past the widest picture)
        widest = max(_line_width(row, spouse_of) for row in rows)
        width = max(FULL_MIN_WIDTH, min(widest + 2 * SIDE, FULL_MAX_WIDTH))
    canvas_w = width
    room = canvas_w - 2 * SIDE
    lines_of = [_wrapped(flat, spouse_of, room) for flat in rows]
    wrapped = any(len(lines) > 1 for lines in lines_of)
    boxes: dict[int, Box] = {}
    marks: dict[int, Rect] = {}
    tag_w = text_width(TAG_TEXT, font(12, bold=True)) + 10
    date_font = font(12)
    y = TITLE_H + MARGIN
    for generation, lines in enumerate(lines_of):
        if generation:
            y += GAP_Y - LINE_GAP
        for line in lines:
            x = (canvas_w - _line_width(line, spouse_of)) // 2
            for index, person in enumerate(line):
                if index:
                    x += COUPLE_GAP if line[index - 1] in spouse_of.get(person, ()) else GAP_X
                p = people[person]
                text = [fit(p.name, name_font_for(p.name), BOX_W - 12), fit(_years(p), date_font, BOX_W - 12)]
                if wrapped and parents.get(person):
                    # One parent's name (the first the canon gives): the couple stands side by side above.
                    text.append(fit(f"child of {people[parents[person][0]].name}", date_font, BOX_W - 12))
                while text and not text[-1]:
                    text.pop()
                boxes[person] = Box(person, (x, y, x + BOX_W, y + BOX_H), tuple(text))
                if p.hidden:
                    marks[person] = (x + 6, y - 18, x + 6 + tag_w, y - 2)
                x += BOX_W
            y += BOX_H + LINE_GAP
    canvas_h = y - LINE_GAP + MARGIN
    summary = _summary(rest, people, level, room)
    summary_top = canvas_h
    canvas_h += len(summary) * SUMMARY_LINE + (MARGIN if summary else 0)
    shown = set(boxes)
    spouse_links = tuple(
        sorted(
            {
                (min(a, b), max(a, b))
                for a, b in tree.spouses
                if a in shown and b in shown and level.get(a) == level.get(b) and a != b
            }
        )
    )
    parent_links = tuple(sorted({(p, c) for p, c in tree.parent_of if p in shown and c in shown and p != c}))
    taken_links = tuple(sorted({(p, c) for p, c in tree.taken_in if p in shown and c in shown and p != c}))
    legend, canvas_h = _legend(bool(marks), canvas_h)
    taken_legend, canvas_h = _legend(bool(taken_links) and not wrapped, canvas_h)  # wrapped: no lines drawn
    return TreeLayout(
        width=canvas_w,
        height=canvas_h,
        marks=marks,
        legend=legend,
        rows=tuple(tuple(r) for r in rows),
        boxes=boxes,
        spouse_links=spouse_links,
        parent_links=parent_links,
        taken_links=taken_links,
        taken_legend=taken_legend,
        title=tree.title,
        wrapped=wrapped,
        summary=tuple(summary),
        summary_top=summary_top,
    )


def _legend(shown: bool, height: int) -> tuple[Rect | None, int]:
    """Return where a legend's sample goes at the foot of the picture, and the picture's height with it."""
    if not shown:
        return None, height
    return (MARGIN, height - MARGIN + 8, MARGIN + 28, height - MARGIN + 26), height + LEGEND_H


def _kin_of(
    tree: FamilyTree, people: dict[int, TreePerson]
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Return each person's spouses and parents among the people drawn."""
    spouse_of: dict[int, list[int]] = defaultdict(list)
    for a, b in tree.spouses:
        if a in people and b in people and a != b:
            spouse_of[a].append(b)
            spouse_of[b].append(a)
    parents: dict[int, list[int]] = defaultdict(list)
    for parent, child in (*tree.parent_of, *tree.taken_in):
        if parent in people and child in people:
            parents[child].append(parent)
    return spouse_of, parents


def name_size_for(name: str) -> int:
    """Return the size of a name in its box: 14 px bold, or 12 px bold for a name too long for that."""
    return 14 if text_width(name, font(14, bold=True)) <= BOX_W - 12 else 12


def name_font_for(name: str) -> Font:
    """Return the font of a name in its box (see `name_size_for`)."""
    return font(name_size_for(name), bold=True)


def _line_width(line: list[int], spouse_of: dict[int, list[int]]) -> int:
    width = 0
    for index, person in enumerate(line):
        if index:
            width += COUPLE_GAP if line[index - 1] in spouse_of.get(person, ()) else GAP_X
        width += BOX_W
    return width


def _wrapped(flat: list[int], spouse_of: dict[int, list[int]], room: int) -> list[list[int]]:
    """Return a generation's people in lines no wider than `room`, a couple never split between two lines."""
    units: list[list[int]] = []
    for person in flat:
        if (
            units
            and units[-1][-1] in spouse_of.get(person, ())
            and _line_width([*units[-1], person], spouse_of) <= room
        ):
            units[-1].append(person)
        else:
            units.append([person])
    lines: list[list[int]] = []
    for unit in units:
        if lines and _line_width([*lines[-1], *unit], spouse_of) <= room:
            lines[-1] += unit
        else:
            lines.append(list(unit))
    return lines


def _kept_rows(rows: list[list[int]], most: int) -> tuple[list[list[int]], list[list[int]]]:
    """Return the generations drawn (the first ones, `most` people at most, one at least) and the rest."""
    kept: list[list[int]] = []
    count = 0
    for index, row in enumerate(rows):
        if count + len(row) > most and kept:
            return kept, rows[index:]
        kept.append(row)
        count += len(row)
    return kept, []


def _summary(
    rest: list[list[int]], people: dict[int, TreePerson], level: dict[int, int], room: int
) -> list[str]:
    """Return the lines that say who is not drawn, by generation, and how to see them."""
    if not rest:
        return []
    total = sum(len(row) for row in rest)
    first = level.get(rest[0][0], 0) + 1
    last = level.get(rest[-1][0], 0) + 1
    which = f"generation {first}" if first == last else f"generations {first} to {last}"
    names = ", ".join(people[p].name for p in rest[0][:6]) + (", …" if total > 6 else "")
    typeface = font(13)
    lines = wrap(f"Not drawn: {total} more in {which} ({names}).", typeface, room)
    example = people[rest[0][0]].name
    return lines + wrap(f"To see them, draw one person's family: /canon tree name: {example}", typeface, room)


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
    """Draw a family tree as a PNG for the width Discord shows; see `layout_family_tree` for the layout."""
    layout = layout_family_tree(tree)
    if layout.width > MAX_WIDTH:
        raise InvalidInput(
            f"This family tree is too wide to draw ({len(tree.people)} people); draw one person's family instead."
        )
    canvas = PngCanvas(layout.width, layout.height, BACKGROUND)
    draw_family_tree(canvas, layout, tree)
    return Picture(png=canvas.png(), layout=layout, title=tree.title, subject=tree.subject)


def draw_family_tree(
    canvas: Canvas, layout: TreeLayout, tree: FamilyTree, link: Callable[[int, str], str | None] | None = None
) -> None:
    """Draw a laid-out family tree on a canvas; `link` gives the page of a person, by id and name (SVG only)."""
    names = {p.id: p.name for p in tree.people}
    title = layout.title + (f"  (+{tree.omitted} not shown)" if tree.omitted else "")
    canvas.text(
        (MARGIN, 16), fit(title, font(20, bold=True), layout.width - 2 * MARGIN), size=20, bold=True, fill=INK
    )
    for index, line in enumerate(layout.summary):
        canvas.text((MARGIN, layout.summary_top + index * SUMMARY_LINE), line, size=13, fill=INK)
    boxes = layout.boxes
    if not layout.wrapped:
        draw_parent_lines(canvas, layout, GAP_Y)
    for a, b in layout.spouse_links:
        ax0, ay0, ax1, ay1 = boxes[a].rect
        bx0, _, bx1, _ = boxes[b].rect
        left, right = (ax1, bx0) if ax0 < bx0 else (bx1, ax0)
        y = (ay0 + ay1) // 2
        canvas.line([(left, y - 3), (right, y - 3)], fill=LINE, width=2)
        canvas.line([(left, y + 3), (right, y + 3)], fill=LINE, width=2)
    for box in boxes.values():
        fill = HIDDEN_FILL if box.id in layout.marks else FOCUS_FILL if box.id == tree.focus else BOX_FILL
        with canvas.linked(link(box.id, names[box.id]) if link else None):
            canvas.rectangle(box.rect, radius=8, fill=fill, outline=BOX_BORDER, width=2)
            x0, y0, x1, _ = box.rect
            sizes = (name_size_for(box.lines[0]), 12, 12)
            for index, (line, size, y) in enumerate(zip(box.lines, sizes, (16, 34, 50), strict=False)):
                canvas.text(
                    ((x0 + x1) // 2, y0 + y),
                    line,
                    size=size,
                    bold=index == 0,
                    fill=INK if index == 0 else MUTED,
                    anchor="mm",
                )
    _draw_marks(canvas, layout)
    if layout.taken_legend is not None:
        draw_taken_in_legend(canvas, layout.taken_legend)


def _draw_marks(canvas: Canvas, layout: TreeLayout) -> None:
    """Tag each GM-only person "GM only" and explain the tag in a legend (a shared screenshot says so)."""
    for rect in layout.marks.values():
        canvas.rectangle(rect, radius=4, fill=HIDDEN_TAG)
        x0, y0, x1, y1 = rect
        canvas.text(
            ((x0 + x1) // 2, (y0 + y1) // 2), TAG_TEXT, size=12, bold=True, fill=BACKGROUND, anchor="mm"
        )
    if layout.legend is not None:
        canvas.rectangle(layout.legend, fill=HIDDEN_FILL, outline=BOX_BORDER, width=2)
        x0, y0, x1, y1 = layout.legend
        canvas.text((x1 + 10, (y0 + y1) // 2), LEGEND_TEXT, size=13, fill=INK, anchor="lm")
