"""Read a rendered PNG back and check it against the canon graph it was drawn from.

`regions` finds what was actually drawn by its colours (person boxes, era bands, event markers); `standing`
reads, straight from the database, what a viewer should see (standing entities of a type, GM-only ones left
out for players). The `assert_*` functions compare the two, so a picture that draws a box too many, keeps a
hidden heir, or puts a marker at the wrong date fails, whatever the renderer's own layout says.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image
from sqlalchemy import select

from canon.models import Viewer, Visibility
from canon.render import BAND_COLOURS, BOX_FILL, BOX_H, BOX_W, FOCUS_FILL, MARKER, Rect
from canon.render.drawing import HIDDEN_FILL
from canon.storage import Database
from canon.tables import EntityRow, StatusChangeRow

Colour = tuple[int, int, int]
# How far (pixels) a drawn marker may sit from where its date puts it: the scale is rounded to whole pixels.
MARKER_SLACK = 3


def decode(png: bytes) -> Image.Image:
    """Return the PNG as an RGB image (failing when it is not a PNG)."""
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG", image.format
    return image.convert("RGB")


def regions(image: Image.Image, colours: Iterable[Colour], *, min_area: int = 1) -> list[tuple[Rect, int]]:
    """Return the 4-connected regions of pixels of exactly these colours: bounding box (inclusive) and area.

    Rows are cut into runs and runs touching a run of the row above are joined (union-find); text drawn
    inside a filled box leaves the box one region.
    """
    pixels = np.asarray(image.convert("RGB"))
    mask = np.zeros(pixels.shape[:2], dtype=bool)
    for colour in colours:
        mask |= np.all(pixels == np.array(colour, dtype=pixels.dtype), axis=2)
    parent: list[int] = []
    extent: list[tuple[int, int, int, int]] = []  # per run: x0, x1, y, length

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    previous: list[tuple[int, int, int]] = []
    for y in range(mask.shape[0]):
        row = mask[y]
        if not row.any():
            previous = []
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([False], row, [False])).astype(np.int8)))
        current = []
        for start, end in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
            run = len(parent)
            parent.append(run)
            extent.append((start, end - 1, y, end - start))
            for above_start, above_end, other in previous:
                if above_start < end and start < above_end:
                    a, b = root(run), root(other)
                    if a != b:
                        parent[a] = b
            current.append((start, end, run))
        previous = current
    merged: dict[int, list[int]] = {}
    for run, (x0, x1, y, length) in enumerate(extent):
        found = merged.setdefault(root(run), [x0, y, x1, y, 0])
        found[0], found[1] = min(found[0], x0), min(found[1], y)
        found[2], found[3] = max(found[2], x1), max(found[3], y)
        found[4] += length
    return sorted(((x0, y0, x1, y1), area) for x0, y0, x1, y1, area in merged.values() if area >= min_area)


def inside(rect: Rect, border: int) -> Rect:
    """Return the filled inside of a rectangle drawn with a border (person boxes: 2 pixels, era bands: 1)."""
    x0, y0, x1, y1 = rect
    return (x0 + border, y0 + border, x1 - border, y1 - border)


def person_boxes(image: Image.Image) -> list[Rect]:
    """Return the filled person boxes of a family tree picture (the focus box and GM-only ones included)."""
    colours = (BOX_FILL, FOCUS_FILL, HIDDEN_FILL)
    return [rect for rect, _ in regions(image, colours, min_area=BOX_W * BOX_H // 4)]


def hidden_boxes(image: Image.Image) -> list[Rect]:
    """Return the boxes of the people a family tree marks GM-only."""
    return [rect for rect, _ in regions(image, (HIDDEN_FILL,), min_area=BOX_W * BOX_H // 4)]


def era_bands(image: Image.Image) -> list[Rect]:
    """Return the filled era bands of a timeline picture, row by row, left to right."""
    found = [rect for colour in BAND_COLOURS for rect, _ in regions(image, (colour,), min_area=200)]
    return sorted(found, key=lambda rect: (rect[1], rect[0]))


def markers(image: Image.Image) -> list[tuple[float, float]]:
    """Return the centre of every event marker drawn (markers drawn over each other count once)."""
    return [((x0 + x1) / 2, (y0 + y1) / 2) for (x0, y0, x1, y1), _ in regions(image, (MARKER,), min_area=4)]


# --------------------------------------------------------------------------------------------- the oracle


async def standing(db: Database, campaign_id: int, entity_type: str, viewer: Viewer) -> dict[int, Any]:
    """Return the campaign's standing entities of a type a viewer may see, by id (rows read with plain SQL)."""
    retconned = select(StatusChangeRow.target_id).where(
        StatusChangeRow.target_kind == "entity", StatusChangeRow.campaign_id == campaign_id
    )
    query = select(EntityRow).where(
        EntityRow.campaign_id == campaign_id, EntityRow.type == entity_type, EntityRow.id.not_in(retconned)
    )
    if viewer == Viewer.PLAYER:
        query = query.where(EntityRow.visibility == Visibility.PUBLIC.value)
    async with db.session() as session:
        return {row.id: row for row in (await session.execute(query)).scalars()}


def year_of(key: int) -> float:
    """Return the fractional year a world key stands for, as the timeline places it (month, not day)."""
    month = (key % 10000) // 100
    return key // 10000 + (max(month, 1) - 1) / 12


@dataclass(frozen=True)
class EraSpan:
    """An era as the graph gives it: its first and last year, and whether it is a sub-era."""

    start: int
    end: int
    sub: bool = False


def assert_tree_shows(image: Image.Image, people: int) -> list[Rect]:
    """Check that a family tree picture has exactly one drawn box per person; return the boxes."""
    boxes = person_boxes(image)
    assert len(boxes) == people, (len(boxes), people)
    for x0, y0, x1, y1 in boxes:
        assert (x1 - x0 + 1, y1 - y0 + 1) == (BOX_W - 3, BOX_H - 3), (x0, y0, x1, y1)
    return boxes


def assert_timeline_shows(
    image: Image.Image,
    eras: Sequence[EraSpan],
    dated: Sequence[float],
    undated: Sequence[EraSpan] = (),
    *,
    x_of: Callable[[float], int] | None = None,
    absent: Sequence[float] = (),
) -> None:
    """Check a timeline picture against the graph: one band per era over its years, sub-eras below their era,
    a marker at every dated event's date and inside the era of every undated one, no other marker, and none
    where the `absent` (hidden) events would be.

    `x_of` is the picture's year scale; without it the scale is read off the picture itself, from the first
    era band's left edge and the last one's right edge.
    """
    bands = era_bands(image)
    assert len(bands) == len(eras), (bands, eras)
    top = sorted((e for e in eras if not e.sub), key=lambda e: e.start)
    subs = sorted((e for e in eras if e.sub), key=lambda e: e.start)
    top_row = min(rect[1] for rect in bands)
    drawn_top = [rect for rect in bands if rect[1] == top_row]
    drawn_subs = [rect for rect in bands if rect[1] != top_row]
    assert (len(drawn_top), len(drawn_subs)) == (len(top), len(subs))
    assert all(rect[1] > drawn_top[0][3] for rect in drawn_subs)  # a sub-era sits below its era
    if x_of is None:
        first, last = top[0], top[-1]
        left, right = drawn_top[0][0] - 1, drawn_top[-1][2] + 1
        per_year = (right - left) / (last.end + 1 - first.start)

        def x_of(year: float) -> int:
            return round(left + (year - first.start) * per_year)

    for era, (x0, _, x1, _) in zip([*top, *subs], [*drawn_top, *drawn_subs], strict=True):
        assert abs(x0 - (x_of(era.start) + 1)) <= 1 and abs(x1 - (x_of(era.end + 1) - 1)) <= 1, (era, x0, x1)
    found = markers(image)
    axis = {round(y) for _, y in found}
    assert len(axis) == 1, found  # every marker on the one axis
    xs = [x for x, _ in found]
    expected = [x_of(year) for year in dated]
    for x in expected:
        assert any(abs(x - drawn) <= MARKER_SLACK for drawn in xs), (x, xs)
    spans = [(x_of(era.start), x_of(era.end + 1)) for era in undated]
    for lo, hi in spans:
        assert any(lo <= drawn <= hi for drawn in xs), (lo, hi, xs)
    for drawn in xs:
        assert any(abs(x - drawn) <= MARKER_SLACK for x in expected) or any(
            lo <= drawn <= hi for lo, hi in spans
        ), (drawn, expected)
    for year in absent:
        x = x_of(year)
        if any(abs(x - other) <= 4 * MARKER_SLACK for other in expected):
            continue  # too close to a shown event to tell apart at this width: the caller checks the labels
        assert all(abs(x - drawn) > MARKER_SLACK for drawn in xs), (year, x, xs)
