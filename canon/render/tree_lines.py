"""The lines of a family tree picture that join children to their parents: a parent by birth by a solid line, one
who adopted or fostered the child by a dashed one (said in the picture's legend)."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence

from canon.render.canvas import Canvas
from canon.render.drawing import INK, LINE, MUTED
from canon.render.layouts import Rect, TreeLayout

#: A dash and the gap after it, in pixels.
DASH, DASH_GAP = 7, 5
#: What the dashed line means, in the legend.
TAKEN_IN_TEXT = "dashed line: adopted or fostered"


def draw_parent_lines(canvas: Canvas, layout: TreeLayout, gap_y: int) -> None:
    """Join each child to its parents: from the couple's joint (or the parent's bottom) to the child's top; a
    child's adoptive or foster parents by a dashed line of their own."""
    for links, dashed in ((layout.parent_links, False), (layout.taken_links, True)):
        for sources, child in _elbows(layout, links):
            cx0, cy0, cx1, _ = layout.boxes[child].rect
            child_x = (cx0 + cx1) // 2
            aside = 8 if dashed else 0  # beside a solid line down the same way, never on it
            for sx, sy in sources:
                mid = cy0 - gap_y // 2 + aside
                points = [(sx + aside, sy), (sx + aside, mid), (child_x + aside, mid), (child_x + aside, cy0)]
                if dashed:
                    _dashed(canvas, points)
                else:
                    canvas.line(points, fill=LINE, width=2)


def draw_taken_in_legend(canvas: Canvas, legend: Rect) -> None:
    """Say what the dashed line means, at the foot of the picture."""
    x0, y0, x1, y1 = legend
    y = (y0 + y1) // 2
    _dashed(canvas, [(x0, y), (x1, y)])
    canvas.text((x1 + 10, y), TAKEN_IN_TEXT, size=13, fill=INK, anchor="lm")


def _elbows(layout: TreeLayout, links: Sequence[tuple[int, int]]) -> list[tuple[list[tuple[int, int]], int]]:
    """Return, per child, where its lines start: a couple's joint, or a lone parent's bottom."""
    boxes = layout.boxes
    couples = {frozenset(pair) for pair in layout.spouse_links}
    parents_of: dict[int, list[int]] = defaultdict(list)
    for parent, child in links:
        parents_of[child].append(parent)
    found: list[tuple[list[tuple[int, int]], int]] = []
    for child, parents in parents_of.items():
        sources: list[tuple[int, int]] = []
        remaining = sorted(parents)
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
        found.append((sources, child))
    return found


def _dashed(canvas: Canvas, points: Sequence[tuple[int, int]]) -> None:
    """Draw a polyline of straight legs as dashes."""
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        at = 0.0
        while at < length:
            end = min(at + DASH, length)
            a, b = at / length, end / length
            start = (round(x0 + (x1 - x0) * a), round(y0 + (y1 - y0) * a))
            stop = (round(x0 + (x1 - x0) * b), round(y0 + (y1 - y0) * b))
            canvas.line([start, stop], fill=MUTED, width=2)
            at = end + DASH_GAP
