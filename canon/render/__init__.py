"""Pictures of the canon graph: a family tree and a timeline, as PNG images (Pillow), readable at a glance.

Each picture is drawn through a canvas (`canvas`): as a PNG for the width Discord shows, or at full size as
SVG for the wiki (`svg`: zoomable, text selectable, each box linking to its page).

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

The modules: `drawing` (fonts, colours, `Picture`), `family_tree` and `timeline` (data, layout, drawing), and
`from_graph` (the data read through a `CanonReader`).
"""

from canon.render.drawing import (
    BACKGROUND,
    BAND_COLOURS,
    BOX_BORDER,
    BOX_FILL,
    FOCUS_FILL,
    INK,
    LINE,
    MARKER,
    MAX_TIMELINE_EVENTS,
    MAX_TREE_PEOPLE,
    MAX_WIDTH,
    MUTED,
    Font,
    Picture,
    fit,
    font,
)
from canon.render.family_tree import (
    BOX_H,
    BOX_W,
    FamilyTree,
    TreePerson,
    generations,
    layout_family_tree,
    render_family_tree,
)
from canon.render.from_graph import family_tree_of, timeline_of
from canon.render.layouts import Box, Label, Rect, TimelineLayout, TreeLayout
from canon.render.svg import SvgPicture, family_tree_svg, full_timeline_width, timeline_svg
from canon.render.timeline import (
    EraBand,
    Timeline,
    TimelineEvent,
    layout_timeline,
    render_timeline,
)

__all__ = [
    "BACKGROUND",
    "BAND_COLOURS",
    "BOX_BORDER",
    "BOX_FILL",
    "BOX_H",
    "BOX_W",
    "FOCUS_FILL",
    "INK",
    "LINE",
    "MARKER",
    "MAX_TIMELINE_EVENTS",
    "MAX_TREE_PEOPLE",
    "MAX_WIDTH",
    "MUTED",
    "Box",
    "EraBand",
    "FamilyTree",
    "Font",
    "Label",
    "Picture",
    "Rect",
    "SvgPicture",
    "Timeline",
    "TimelineEvent",
    "TimelineLayout",
    "TreeLayout",
    "TreePerson",
    "family_tree_of",
    "family_tree_svg",
    "fit",
    "font",
    "full_timeline_width",
    "generations",
    "layout_family_tree",
    "layout_timeline",
    "render_family_tree",
    "render_timeline",
    "timeline_of",
    "timeline_svg",
]
