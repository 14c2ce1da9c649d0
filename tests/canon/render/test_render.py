"""Pictures of the canon: decode the PNG and check it against the data (and the graph) it was drawn from."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from canon.render import (
    BACKGROUND,
    BOX_BORDER,
    BOX_FILL,
    MARKER,
    EraBand,
    FamilyTree,
    Timeline,
    TimelineEvent,
    TimelineLayout,
    TreeLayout,
    TreePerson,
    fit,
    font,
    generations,
    render_family_tree,
    render_timeline,
)
from tests.helpers.picture_checks import decode, inside, person_boxes


def lineage(depth: int) -> FamilyTree:
    """A couple per generation, each couple's first child marrying into the next generation."""
    people: list[TreePerson] = []
    parent_of: list[tuple[int, int]] = []
    spouses: list[tuple[int, int]] = []
    for g in range(depth):
        heir, spouse = 100 + g * 10, 100 + g * 10 + 1
        people += [TreePerson(heir, f"Heir {g}", born=str(100 + 25 * g)), TreePerson(spouse, f"Spouse {g}")]
        spouses.append((heir, spouse))
        if g:
            parent_of += [(100 + (g - 1) * 10, heir), (100 + (g - 1) * 10 + 1, heir)]
    return FamilyTree(
        title=f"{depth} generations", people=tuple(people), parent_of=tuple(parent_of), spouses=tuple(spouses)
    )


def test_generations_are_rows_and_spouses_share_their_partners_row() -> None:
    tree = lineage(4)
    level = generations(tree)
    assert [level[100 + g * 10] for g in range(4)] == [0, 1, 2, 3]
    assert all(level[100 + g * 10 + 1] == g for g in range(4))  # spouses have no parents here


def test_the_image_grows_with_the_generations_and_every_box_is_where_the_layout_says() -> None:
    sizes = []
    for depth in (1, 2, 4):
        picture = render_family_tree(lineage(depth))
        image = decode(picture.png)
        layout = picture.layout
        assert isinstance(layout, TreeLayout)
        assert image.size == (layout.width, layout.height)
        assert len(layout.rows) == depth
        sizes.append(image.size[1])
        assert person_boxes(image) == sorted(inside(box.rect, 2) for box in layout.boxes.values())
        for box in layout.boxes.values():
            x0, y0, x1, y1 = box.rect
            assert image.getpixel(((x0 + x1) // 2, y0 + 1)) == BOX_BORDER  # the top border
            assert image.getpixel((x0 + 6, (y0 + y1) // 2)) == BOX_FILL  # inside, left of the text
            assert image.getpixel((x1 + 1, y0 - 2)) == BACKGROUND
    assert sizes[0] < sizes[1] < sizes[2]


def test_each_person_name_is_drawn_in_their_box_and_spouses_sit_side_by_side() -> None:
    tree = lineage(3)
    picture = render_family_tree(tree)
    layout = picture.layout
    assert isinstance(layout, TreeLayout)
    for person in tree.people:
        box = layout.boxes[person.id]
        assert box.lines[0] == person.name
        if person.born:
            assert person.born in box.lines[1]
    image = decode(picture.png)
    for a, b in layout.spouse_links:
        left, right = sorted((layout.boxes[a].rect, layout.boxes[b].rect))
        assert left[1] == right[1] and 0 < right[0] - left[2] <= 40  # same row, next to each other
        middle = (left[1] + left[3]) // 2
        assert image.getpixel(((left[2] + right[0]) // 2, middle - 3)) != BACKGROUND  # the double line
    # Each child sits below its parents, joined to them by a line that reaches the child's top edge.
    for parent, child in layout.parent_links:
        assert layout.boxes[parent].rect[3] < layout.boxes[child].rect[1]
        cx0, cy0, cx1, _ = layout.boxes[child].rect
        assert image.getpixel(((cx0 + cx1) // 2, cy0 - 3)) != BACKGROUND


def test_text_that_does_not_fit_is_shortened_with_an_ellipsis() -> None:
    long = TreePerson(1, "Aldric Raventhorne the Slayer of the Pale Worm, Lord of Thornwall")
    picture = render_family_tree(FamilyTree(title="One", people=(long,)))
    assert isinstance(picture.layout, TreeLayout)
    drawn = picture.layout.boxes[1].lines[0]
    assert drawn.endswith("…") and long.name.startswith(drawn[:-1])
    assert fit("short", font(15), 500) == "short"


def _timeline(hidden: bool = False) -> Timeline:
    eras = (
        EraBand(1, "The First Age", -3000, -1201),
        EraBand(2, "The Second Age", -1200, -101),
        EraBand(3, "The Third Age", -100, 600),
        EraBand(4, "The Age of Iron", 250, 400, parent=3),
    )
    events = [
        TimelineEvent(10, "Founding of Thornwall", -2400),
        TimelineEvent(11, "Coronation", 12),
        TimelineEvent(12, "Battle of Black Spire", 395, month=3),
        TimelineEvent(13, "Raising of the Spire", None, era=4),
    ]
    if hidden:
        events.append(TimelineEvent(14, "Drowning of the Library", -300))
    return Timeline(title="Timeline", eras=eras, events=tuple(events))


def test_the_timeline_draws_eras_as_bands_and_places_events_by_date() -> None:
    picture = render_timeline(_timeline())
    layout = picture.layout
    assert isinstance(layout, TimelineLayout)
    image = decode(picture.png)
    assert image.size == (layout.width, layout.height)
    # Bands cover their years; sub-eras sit below their era; a narrow band's name goes beside it.
    first, third, iron = layout.bands[1], layout.bands[3], layout.bands[4]
    assert first.rect[0] == layout.x_of(-3000) and first.rect[2] == layout.x_of(-1200)
    assert iron.rect[1] > third.rect[1] and third.rect[0] <= iron.rect[0] and iron.rect[2] <= third.rect[2]
    assert iron.text == "The Age of Iron"
    x0, y0, _, _ = first.rect
    assert image.getpixel((x0 + 3, y0 + 3)) not in (BACKGROUND, BOX_BORDER)  # filled
    # Events in date order along the axis, each marker drawn, labels never overlapping.
    markers = {i: label.marker for i, label in layout.events.items()}
    assert markers[10] is not None and markers[11] is not None and markers[12] is not None
    assert markers[10][0] < markers[11][0] < markers[12][0]
    assert markers[12][0] == layout.x_of(395 + 2 / 12)
    for marker in markers.values():  # (markers a few pixels apart overlap)
        assert marker is not None
        assert any(image.getpixel((marker[0] + dx, marker[1])) == MARKER for dx in range(-3, 4))
    # Near the picture's right edge a long label is shortened, never drawn past the width Discord shows.
    raising = layout.events[13]
    assert raising.text.startswith("Raising of the Spire (in The") and raising.rect[2] <= layout.width
    iron_x0, _, iron_x1, _ = iron.rect
    assert iron_x0 <= markers[13][0] <= iron_x1  # era-only date: inside its era  # type: ignore[index]
    rects = [label.rect for label in layout.events.values()]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    # Ticks are in order and inside the axis.
    xs = [x for _, x in layout.ticks]
    assert xs == sorted(xs) and layout.left <= xs[0] and xs[-1] <= layout.right


def test_a_timeline_with_more_events_is_taller_not_overlapping() -> None:
    base = render_timeline(_timeline()).layout
    crowded = Timeline(
        title="Crowded",
        eras=(EraBand(1, "An Age", 0, 100),),
        events=tuple(TimelineEvent(i, f"Event {i}", 50) for i in range(12)),
    )
    layout = render_timeline(crowded).layout
    assert isinstance(layout, TimelineLayout) and isinstance(base, TimelineLayout)
    assert layout.height > base.height
    assert len({label.rect[1] for label in layout.events.values()}) == 12  # twelve lanes


def test_nothing_to_draw_is_said_plainly() -> None:
    from canon.errors import InvalidInput

    with pytest.raises(InvalidInput, match="nobody to draw"):
        render_family_tree(FamilyTree(title="Empty", people=()))
    with pytest.raises(InvalidInput, match="has a year"):
        render_timeline(Timeline(title="Empty", eras=(EraBand(1, "Age", None, None),), events=()))


def test_a_picture_can_be_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "tree.png"
    path.write_bytes(render_family_tree(lineage(2)).png)
    assert Image.open(path).size[0] > 0


def test_the_gms_tree_marks_gm_only_people_and_says_what_the_mark_means() -> None:
    from dataclasses import replace

    from canon.render.drawing import HIDDEN_FILL, HIDDEN_TAG
    from canon.render.family_tree import TAG_TEXT
    from tests.helpers.picture_checks import assert_tree_shows, hidden_boxes

    tree = lineage(3)
    secret = replace(tree, people=tuple(replace(p, hidden=p.id == 111) for p in tree.people))
    plain, marked = render_family_tree(tree), render_family_tree(secret)
    layout = marked.layout
    assert isinstance(layout, TreeLayout) and isinstance(plain.layout, TreeLayout)
    # One box per person either way; the hidden one filled apart, tagged above its box, and a legend below.
    image = decode(marked.png)
    assert_tree_shows(image, 6) and assert_tree_shows(decode(plain.png), 6)
    (box,) = hidden_boxes(image)
    x0, y0, x1, y1 = layout.boxes[111].rect
    assert x0 < box[0] < box[2] < x1 and y0 < box[1] < box[3] < y1
    tag = layout.marks[111]
    assert set(layout.marks) == {111} and tag[3] <= y0 and x0 <= tag[0] < tag[2] <= x1
    assert image.getpixel((tag[0] + 2, (tag[1] + tag[3]) // 2)) == HIDDEN_TAG
    assert (
        layout.legend is not None
        and image.getpixel((layout.legend[0] + 4, layout.legend[1] + 4)) == HIDDEN_FILL
    )
    assert layout.legend[3] <= layout.height and TAG_TEXT == "GM only"
    # A tree with nobody hidden (what a player receives) has neither mark nor legend.
    assert plain.layout.marks == {} and plain.layout.legend is None and not hidden_boxes(decode(plain.png))
    assert plain.layout.height < layout.height


# --- legible where Discord shows them ------------------------------------------------------------------------


def _smallest_text(picture_png: bytes, layout: TreeLayout | TimelineLayout, sizes: list[int]) -> float:
    """Return the height in pixels, as Discord shows the picture, of the smallest text drawn in it."""
    from canon.render.drawing import SHOWN_WIDTH

    shown = min(1.0, SHOWN_WIDTH / layout.width)
    assert decode(picture_png).size[0] == layout.width
    return shown * min(font(size).getbbox("Hg")[3] - font(size).getbbox("Hg")[1] for size in sizes)


def _many(count: int) -> FamilyTree:
    """Ten children of one couple per generation, the first of each marrying: wide generations."""
    people = [TreePerson(1, "First Ancestor", born="100"), TreePerson(2, "First Spouse")]
    parent_of: list[tuple[int, int]] = []
    spouses = [(1, 2)]
    parents = (1, 2)
    next_id, generation = 3, 1
    while len(people) < count:
        children = list(range(next_id, next_id + 10))
        for child in children:
            people.append(
                TreePerson(child, f"Child {child} of gen {generation}", born=str(100 + 25 * generation))
            )
            parent_of += [(parents[0], child), (parents[1], child)]
        spouse = next_id + 10
        people.append(TreePerson(spouse, f"Spouse {spouse}"))
        spouses.append((children[0], spouse))
        parents, next_id, generation = (children[0], spouse), spouse + 1, generation + 1
    return FamilyTree(
        title="A wide house", people=tuple(people), parent_of=tuple(parent_of), spouses=tuple(spouses)
    )


def test_every_picture_is_drawn_at_the_width_discord_shows_and_its_smallest_text_is_11_pixels_high() -> None:
    crowded = Timeline(
        title="A crowded age",
        eras=(EraBand(1, "An Age", 0, 3000), EraBand(2, "A Sub-Age", 1000, 1200, parent=1)),
        events=tuple(TimelineEvent(i, f"The long-remembered event number {i}", 30 * i) for i in range(90)),
    )
    for picture in (render_timeline(_timeline()), render_timeline(crowded)):
        assert isinstance(picture.layout, TimelineLayout) and picture.layout.width <= 550
        assert _smallest_text(picture.png, picture.layout, [12, 13, 14]) >= 11
        assert all(label.rect[2] <= picture.layout.width for label in picture.layout.events.values())
    for tree in (lineage(4), _many(30)):
        picture = render_family_tree(tree)
        assert isinstance(picture.layout, TreeLayout) and picture.layout.width <= 550
        assert _smallest_text(picture.png, picture.layout, [12, 13, 14]) >= 11
        assert all(box.rect[0] >= 0 and box.rect[2] <= 550 for box in picture.layout.boxes.values())


def test_a_wide_generation_wraps_and_each_child_names_its_parents() -> None:
    tree = _many(30)
    picture = render_family_tree(tree)
    layout = picture.layout
    assert isinstance(layout, TreeLayout) and layout.wrapped
    image = decode(picture.png)
    assert person_boxes(image) == sorted(inside(box.rect, 2) for box in layout.boxes.values())
    child = layout.boxes[3]
    assert child.lines[-1] == "child of First Ancestor"
    tops = sorted({box.rect[1] for box in layout.boxes.values()})
    assert len(tops) > len(layout.rows)  # a generation took more than one line
    # A couple stays on one line.
    for a, b in layout.spouse_links:
        assert layout.boxes[a].rect[1] == layout.boxes[b].rect[1]


def test_a_large_tree_draws_its_first_generations_and_says_who_else_there_is() -> None:
    tree = _many(120)
    picture = render_family_tree(tree)
    layout = picture.layout
    assert isinstance(layout, TreeLayout)
    assert len(layout.boxes) <= 40 and layout.summary
    said = " ".join(layout.summary)
    assert f"{len(tree.people) - len(layout.boxes)} more in generations" in said
    assert "/canon tree name:" in said
    assert layout.summary_top + len(layout.summary) * 18 <= layout.height


def test_a_child_taken_in_is_joined_to_who_took_them_in_by_a_dashed_line_the_legend_explains() -> None:
    from canon.render.drawing import LINE, MUTED
    from canon.render.tree_lines import TAKEN_IN_TEXT

    people = tuple(TreePerson(i, name) for i, name in ((1, "Ysolt"), (2, "Aldo"), (3, "Corm"), (4, "Wenna")))
    tree = FamilyTree(
        title="Wenna", people=people, parent_of=((1, 4), (2, 4)), taken_in=((3, 4),), spouses=((1, 2),)
    )
    picture = render_family_tree(tree)
    layout = picture.layout
    assert isinstance(layout, TreeLayout)
    assert layout.parent_links == ((1, 4), (2, 4)) and layout.taken_links == ((3, 4),)
    # Who took her in stands in her parents' row, above her.
    assert layout.boxes[3].rect[1] == layout.boxes[1].rect[1] < layout.boxes[4].rect[1]
    image = decode(picture.png)
    x0, _, x1, y1 = layout.boxes[3].rect
    down = next(x for x in range(x0, x1) if image.getpixel((x, y1 + 3)) == MUTED)  # the dashed line's leg
    below = [image.getpixel((down, y)) for y in range(y1 + 1, y1 + 30)]
    assert LINE not in below and any(p != MUTED for p in below)  # dashes: ink, then gaps
    assert layout.taken_legend is not None and layout.taken_legend[3] <= layout.height
    assert TAKEN_IN_TEXT == "dashed line: adopted or fostered"
    # A tree of parents by birth only has no dashed line and no legend.
    plain = render_family_tree(FamilyTree(title="Wenna", people=people, parent_of=((1, 4), (2, 4), (3, 4))))
    assert isinstance(plain.layout, TreeLayout) and plain.layout.taken_legend is None
    assert plain.layout.height < layout.height
