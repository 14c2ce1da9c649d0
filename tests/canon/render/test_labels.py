"""Timeline labels read at a glance: the boxes of the drawn labels never intersect, and no leader line crosses
another label, however crowded the years; events of play without a date stand in story order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from canon.render import EraBand, Rect, Timeline, TimelineEvent, TimelineLayout, font, render_timeline


def drawn_boxes(layout: TimelineLayout) -> dict[int, Rect]:
    """Return the box of each event label's text as it is drawn (Pillow's own measure of the drawn text)."""
    draw = ImageDraw.Draw(Image.new("RGB", (layout.width, layout.height)))
    boxes: dict[int, Rect] = {}
    for event_id, label in layout.events.items():
        x0, y0, _, y1 = label.rect
        box = draw.textbbox((x0 + 4, (y0 + y1) // 2), label.text, font=font(13), anchor="lm")
        boxes[event_id] = (int(box[0]), int(box[1]), int(box[2]), int(box[3]))
    return boxes


def intersect(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def leader(layout: TimelineLayout, event_id: int) -> list[Rect]:
    """Return a label's leader line as thin rectangles: down from the marker, then across to the label."""
    label = layout.events[event_id]
    assert label.marker is not None
    mx, my = label.marker
    x0, y0, x1, y1 = label.rect
    middle = (y0 + y1) // 2
    hook = x0 if x0 >= mx else x1
    return [(mx, my + 6, mx + 1, middle + 1), (min(mx, hook), middle, max(mx, hook) + 1, middle + 1)]


def assert_readable(layout: TimelineLayout) -> None:
    boxes = drawn_boxes(layout)
    ids = sorted(boxes)
    for index, a in enumerate(ids):
        assert layout.events[a].rect[0] <= boxes[a][0] and boxes[a][2] <= layout.events[a].rect[2]
        for b in ids[index + 1 :]:
            assert not intersect(boxes[a], boxes[b]), (layout.events[a].text, layout.events[b].text)
    for a in ids:
        own_marker = layout.events[a].marker
        for b in ids:
            if a == b or layout.events[b].marker == own_marker:
                continue  # events at one point share a leader
            for segment in leader(layout, a):
                assert not intersect(segment, layout.events[b].rect), (
                    layout.events[a].text,
                    layout.events[b].text,
                )


def crowded() -> Timeline:
    """Twelve events, most within a few years of each other, two in the same year, one at each end."""
    years = [300, 301, 301, 302, 305, 306, 310, 340, 341, 342, 399, 400]
    events = tuple(
        TimelineEvent(i, f"The {word} of the harbour", year)
        for i, (word, year) in enumerate(
            zip(
                [
                    "burning",
                    "flood",
                    "feast",
                    "wedding",
                    "duel",
                    "siege",
                    "truce",
                    "fall",
                    "return",
                    "storm",
                    "parting",
                    "ending",
                ],
                years,
                strict=True,
            )
        )
    )
    return Timeline(title="Crowded", eras=(EraBand(1, "The Third Age", 300, 400),), events=events)


def test_ten_and_more_crowded_labels_never_overlap_nor_cut_each_other() -> None:
    layout = render_timeline(crowded()).layout
    assert isinstance(layout, TimelineLayout) and len(layout.events) == 12
    assert_readable(layout)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=60), min_size=10, max_size=30))
def test_any_crowd_of_years_reads_without_overlaps(years: list[int]) -> None:
    events = tuple(TimelineEvent(i, f"Event number {i}", year) for i, year in enumerate(years))
    layout = render_timeline(Timeline(title="Any", eras=(), events=events)).layout
    assert isinstance(layout, TimelineLayout)
    assert_readable(layout)


def test_events_of_play_without_a_date_stand_in_story_order() -> None:
    events = (
        TimelineEvent(1, "The ambush", 340, scene=1),
        TimelineEvent(2, "The march", None, scene=2),
        TimelineEvent(3, "The feast", None, scene=3),
        TimelineEvent(4, "The crowning", 352, scene=4),
        TimelineEvent(5, "The parley", None, scene=5),
        TimelineEvent(6, "An old war", 120),
    )
    layout = render_timeline(
        Timeline(title="Play", eras=(EraBand(9, "Age", 100, 360),), events=events)
    ).layout
    assert isinstance(layout, TimelineLayout)
    x = {i: label.marker[0] for i, label in layout.events.items() if label.marker is not None}
    # After the ambush (the latest dated event of an earlier scene) and before the crowning, in scene order;
    # the parley after the crowning.
    assert x[6] < x[1] < x[2] < x[3] < x[4] < x[5]
    assert layout.events[2].text == "The march (scene 2)"
    assert_readable(layout)
