"""The family tree and the timeline at full size, as SVG: the wiki's pictures, zoomable, crisp, text selectable.

The same layouts and the same drawing as the PNGs Discord shows (`canon.render.canvas`), laid out wider: a
timeline gets room for its events (`full_timeline_width`), a family tree is as wide as its widest generation
and draws everyone it is given. Text keeps its drawn size (12 px at the smallest) when the picture is shown at
its own size; a page that shows it scrolls sideways rather than shrinking it. Each box or label may link to the
wiki's page of what it shows (`link`: an entity's id and name to a path of the same site, or None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from canon.errors import InvalidInput
from canon.render.canvas import SvgCanvas
from canon.render.drawing import BACKGROUND, MAX_TREE_PEOPLE, MAX_WIDTH
from canon.render.family_tree import FamilyTree, draw_family_tree, layout_family_tree
from canon.render.layouts import TimelineLayout, TreeLayout
from canon.render.timeline import Timeline, draw_timeline, layout_timeline

#: A link from a drawn thing (an entity's id and name) to its page, or None for no link.
Linker = Callable[[int, str], str | None]

#: The narrowest and widest full-size timeline, and the room given to each event in between.
TIMELINE_MIN_WIDTH, TIMELINE_MAX_WIDTH, ROOM_PER_EVENT = 1200, 4000, 22


@dataclass(frozen=True)
class SvgPicture:
    """A picture as an SVG document, the layout it was drawn from, and its title."""

    svg: str
    layout: TreeLayout | TimelineLayout
    title: str


def full_timeline_width(timeline: Timeline) -> int:
    """Return the width of a full-size timeline: wider with more events, so their labels need fewer lanes."""
    wanted = ROOM_PER_EVENT * len(timeline.events)
    return max(TIMELINE_MIN_WIDTH, min(wanted, TIMELINE_MAX_WIDTH))


def timeline_svg(timeline: Timeline, *, width: int | None = None, link: Linker | None = None) -> SvgPicture:
    """Draw a timeline at full size as SVG (`width` pixels wide; by default as wide as its events need)."""
    layout = layout_timeline(timeline, width=width or full_timeline_width(timeline))
    canvas = SvgCanvas(layout.width, layout.height, BACKGROUND, timeline.title)
    draw_timeline(canvas, layout, timeline, link)
    return SvgPicture(svg=canvas.svg(), layout=layout, title=timeline.title)


def family_tree_svg(tree: FamilyTree, *, link: Linker | None = None) -> SvgPicture:
    """Draw a family tree at full size as SVG: everyone given, each generation on one line when it fits."""
    layout = layout_family_tree(tree, width=None, summary_past=MAX_TREE_PEOPLE)
    if layout.width > MAX_WIDTH:
        raise InvalidInput(
            f"This family tree is too wide to draw ({len(tree.people)} people); draw one person's family instead."
        )
    canvas = SvgCanvas(layout.width, layout.height, BACKGROUND, tree.title)
    draw_family_tree(canvas, layout, tree, link)
    return SvgPicture(svg=canvas.svg(), layout=layout, title=tree.title)
