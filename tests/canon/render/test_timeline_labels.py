"""Where the timeline picture writes its eras' names: each band's name stands in its band or beside it in free
room, never over another band or another band's name; a band with no room at all is named shortened, inside."""

from __future__ import annotations

from canon.render import render_timeline
from canon.render.drawing import INK
from canon.render.layouts import Label, Rect, TimelineLayout
from canon.render.timeline import EraBand, Timeline, TimelineEvent
from tests.helpers.picture_checks import decode


def _layout(
    eras: tuple[EraBand, ...], events: tuple[TimelineEvent, ...] = ()
) -> tuple[TimelineLayout, object]:
    picture = render_timeline(Timeline(title="Timeline", eras=eras, events=events))
    assert isinstance(picture.layout, TimelineLayout)
    return picture.layout, decode(picture.png)


def _apart(a: Rect, b: Rect) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def _check(layout: TimelineLayout) -> None:
    """Every band is named where no other band nor name is, inside the picture."""
    bands = list(layout.bands.values())
    for band in bands:
        assert band.caption is not None, band
        assert band.caption[0] >= 0 and band.caption[2] <= layout.width, band
        for other in bands:
            if other is band:
                continue
            assert other.caption is not None
            assert _apart(band.caption, other.caption), (band, other)
            assert _apart(band.caption, other.rect), (band, other)


def _inked(image: object, label: Label) -> bool:
    assert label.caption is not None
    x0, y0, x1, y1 = label.caption
    pixels = image.load()  # type: ignore[attr-defined]
    return any(pixels[x, y] == INK for x in range(x0, x1) for y in range(y0, y1))


def test_a_long_era_and_an_open_era_after_it_are_each_named_apart() -> None:
    eras = (EraBand(1, "The Dry Centuries", 1, 412), EraBand(2, "The Sluice Age", 413, None))
    layout, image = _layout(eras)
    _check(layout)
    assert all(band.text for band in layout.bands.values())
    dry, sluice = layout.bands[1], layout.bands[2]
    assert dry.text == "The Dry Centuries" and sluice.text == "The Sluice Age"
    assert dry.caption is not None and sluice.caption is not None
    assert sluice.caption[0] >= sluice.rect[0]  # beside its own band, not over the first
    assert _inked(image, dry) and _inked(image, sluice)


def test_an_open_era_with_events_after_a_long_one_is_named_too() -> None:
    eras = (EraBand(1, "The Dry Centuries", 1, 412), EraBand(2, "The Sluice Age", 413, None))
    layout, _ = _layout(eras, (TimelineEvent(5, "Treaty of Stillwater", 438),))
    _check(layout)


def test_narrow_eras_side_by_side_are_shortened_rather_than_drawn_over_each_other() -> None:
    eras = (
        EraBand(1, "The Long Quiet", 1, 900),
        EraBand(2, "The Brief Reign of Marrowgate", 901, 905),
        EraBand(3, "The Second Brief Reign", 906, 910),
        EraBand(4, "The Age After", 911, 1000),
    )
    layout, image = _layout(eras)
    _check(layout)
    assert layout.bands[1].text == "The Long Quiet" and layout.bands[4].text == "The Age After"
    for band in layout.bands.values():  # a band two pixels wide has no room even for an ellipsis
        assert band.caption is not None
        assert _inked(image, band) if band.text else band.caption[0] == band.caption[2], band


def test_a_narrow_sub_era_alone_in_its_row_is_named_in_full_beside_it() -> None:
    eras = (EraBand(1, "The Third Age", -100, 600), EraBand(2, "The Age of Iron", 250, 262, parent=1))
    layout, _ = _layout(eras)
    _check(layout)
    assert layout.bands[2].text == "The Age of Iron"
