"""The wiki's full-size pictures (SVG): the same drawing as the PNGs, wider, text escaped, nothing executable."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from canon.errors import InvalidInput
from canon.render import (
    MAX_WIDTH,
    EraBand,
    FamilyTree,
    Timeline,
    TimelineEvent,
    TreeLayout,
    TreePerson,
    family_tree_svg,
    render_family_tree,
    timeline_svg,
)
from canon.render.canvas import SvgCanvas
from canon.render.drawing import BACKGROUND, SHOWN_WIDTH

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert('x')</script> & \"Sons\" of ]]> Vyr"


def parsed(svg: str) -> ET.Element:
    """Return the document's root, checking it holds nothing a browser would run or fetch."""
    root = ET.fromstring(svg)  # noqa: S314 (the SVG we drew, checked here)
    assert root.tag == f"{SVG}svg"
    for element in root.iter():
        name = element.tag.removeprefix(SVG)
        assert name in {"svg", "title", "rect", "text", "polyline", "ellipse", "a"}, name
        for attribute, value in element.attrib.items():
            assert not attribute.lower().startswith("on"), attribute
            if attribute == "href":
                assert value.startswith("/") and not value.startswith("//"), value
    return root


def texts(root: ET.Element) -> list[tuple[str, float]]:
    """Return every text drawn, with its size in pixels."""
    return [(t.text or "", float(t.attrib["font-size"])) for t in root.iter(f"{SVG}text")]


def wide_timeline(count: int, name: str = "Battle") -> Timeline:
    eras = (EraBand(1, "The Third Age", 0, 600), EraBand(2, "The Age of Iron", 250, 400, parent=1))
    events = tuple(TimelineEvent(10 + i, f"{name} {i}", 5 * i) for i in range(count))
    return Timeline(title="Timeline", eras=eras, events=events)


def test_the_full_timeline_is_wider_than_discord_s_and_its_smallest_text_is_12_px() -> None:
    picture = timeline_svg(wide_timeline(80))
    root = parsed(picture.svg)
    assert picture.layout.width > SHOWN_WIDTH * 2
    assert root.attrib["width"] == str(picture.layout.width)  # shown at its own size, never shrunk
    drawn = texts(root)
    assert min(size for _, size in drawn) >= 12
    labels = {text for text, _ in drawn}
    assert all(label.text in labels for label in picture.layout.events.values())
    assert {f"Battle {i} ({5 * i})" for i in range(80)} <= labels  # every event named in full


def test_a_hostile_name_is_text_in_the_svg_never_markup() -> None:
    timeline = Timeline(
        title=HOSTILE,
        eras=(EraBand(1, HOSTILE, 0, 100),),
        events=(TimelineEvent(5, HOSTILE, 50),),
    )
    svg = timeline_svg(timeline).svg
    assert "<script" not in svg
    root = parsed(svg)
    assert root.find(f"{SVG}title") is not None and root.find(f"{SVG}title").text == HOSTILE  # type: ignore[union-attr]
    assert any(text.startswith(HOSTILE[:20]) for text, _ in texts(root))
    tree = FamilyTree(title=HOSTILE, people=(TreePerson(1, HOSTILE, born="1"),))
    assert "<script" not in family_tree_svg(tree).svg and parsed(family_tree_svg(tree).svg) is not None


def test_labels_and_boxes_link_to_their_pages_and_only_to_pages_of_the_same_site() -> None:
    root = parsed(
        timeline_svg(
            wide_timeline(3),
        ).svg
    )
    assert root.find(f".//{SVG}a") is None  # no links unless asked
    linked = parsed(
        timeline_svg(wide_timeline(3), link=lambda i, _n: f"/w/entity/{i}" if i != 11 else None).svg
    )
    hrefs = [a.attrib["href"] for a in linked.iter(f"{SVG}a")]
    assert "/w/entity/10" in hrefs and "/w/entity/12" in hrefs and "/w/entity/11" not in hrefs
    assert "/w/entity/1" in hrefs  # the era's band
    for bad in ("javascript:alert(1)", "//elsewhere.example/x", "https://elsewhere.example/"):
        with pytest.raises(ValueError):
            timeline_svg(wide_timeline(1), link=lambda _i, _n, bad=bad: bad)
    quoted = SvgCanvas(10, 10, BACKGROUND, "t")
    with quoted.linked('/w/entity/1?as_of=year 3"><script>'):
        pass
    assert "<script>" not in quoted.svg() and parsed(quoted.svg()) is not None


def siblings(count: int) -> FamilyTree:
    people = (
        TreePerson(1, "Maric Vyr"),
        TreePerson(2, "Ysolde Vyr"),
        *tuple(TreePerson(10 + i, f"Child {i}", born=str(300 + i)) for i in range(count)),
    )
    return FamilyTree(
        title="House Vyr",
        people=people,
        parent_of=tuple((p, 10 + i) for i in range(count) for p in (1, 2)),
        spouses=((1, 2),),
        focus=1,
    )


def test_the_full_tree_draws_a_generation_on_one_line_where_discord_s_wraps() -> None:
    small = render_family_tree(siblings(8)).layout
    assert isinstance(small, TreeLayout) and small.wrapped  # Discord's picture: three boxes a line
    picture = family_tree_svg(siblings(8))
    layout = picture.layout
    assert isinstance(layout, TreeLayout) and not layout.wrapped
    tops = {layout.boxes[10 + i].rect[1] for i in range(8)}
    assert len(tops) == 1 and layout.width > 8 * 164
    root = parsed(picture.svg)
    assert min(size for _, size in texts(root)) >= 12
    assert {"Maric Vyr", "Child 7", "born 307"} <= {text for text, _ in texts(root)}
    assert len(layout.parent_links) == 16  # the lines are drawn (not named in the boxes)


def test_the_full_tree_draws_everyone_it_is_given_where_discord_s_says_the_rest_in_words() -> None:
    tree = siblings(60)
    assert render_family_tree(tree).layout.summary  # Discord's: past 40, said in words
    layout = family_tree_svg(tree).layout
    assert isinstance(layout, TreeLayout) and not layout.summary and len(layout.boxes) == 62
    assert layout.width <= MAX_WIDTH and layout.wrapped  # 60 boxes are wider than any picture: wrapped
    with pytest.raises(InvalidInput):
        family_tree_svg(FamilyTree(title="Empty", people=()))


def test_a_gm_only_person_is_tagged_on_the_gm_s_full_tree() -> None:
    tree = FamilyTree(
        title="House Vyr",
        people=(TreePerson(1, "Aldric"), TreePerson(2, "The Nameless Heir", hidden=True)),
        parent_of=((1, 2),),
    )
    drawn = {text for text, _ in texts(parsed(family_tree_svg(tree).svg))}
    assert {"GM only", "GM only: not on the players' tree", "The Nameless Heir"} <= drawn
