"""An items file read into records: what an item is, who made and holds it (from when), where it is, its state."""

from __future__ import annotations

from canon.calendar import WorldDate
from canon.structured import load_lore_file

FLUTE = (
    "kind: item\nitems:\n  - name: The Bone Flute\n    kind: a flute of bone\n    made: 12\n"
    "    made_by: The Piper\n    made_of: [bone]\n    owner: The Piper\n    held_since: 40\n"
    "    location: The Hollow Hill\n    status: lost\n    gm_only: [owner]\n"
)


def test_an_item_is_an_entity_with_its_maker_holder_and_place() -> None:
    result = load_lore_file(FLUTE, "items.yaml")
    assert result.ok, result.problems
    (flute,) = result.entries
    assert (flute.entity_type, flute.name) == ("Item", "The Bone Flute")
    assert flute.attributes == {
        "type": "a flute of bone",
        "made": "12",
        "made_of": ["bone"],
        "status": "missing",  # `lost` is the ontology's missing
    }
    # `gm_only: [owner]` hides the holder and since when it holds it.
    assert {"held_by", "held_since"} <= set(flute.gm_only)
    edges = {(r.type, r.source_id, r.target_id): r for r in result.relations}
    assert set(edges) == {
        ("MADE", "the_piper", "the_bone_flute"),
        ("POSSESSES", "the_piper", "the_bone_flute"),
        ("LOCATED_IN", "the_bone_flute", "the_hollow_hill"),
    }
    held = edges[("POSSESSES", "the_piper", "the_bone_flute")]
    assert held.visibility == "gm_only" and held.valid_from == WorldDate(year=40)
    assert edges[("MADE", "the_piper", "the_bone_flute")].visibility == "public"


def test_a_bad_item_is_refused_at_its_lines() -> None:
    result = load_lore_file(
        "items:\n  - name: Cup\n    held_since: 3\n    materials: [tin]\n    status: smashed\n", "items.yaml"
    )
    said = [(p.line, p.message) for p in result.problems]
    assert said[0][0] == 4 and said[0][1].startswith('unknown field "materials" (did you mean "made_of"?)')
    assert said[1] == (
        5,
        '"status" must be one of: intact, damaged, destroyed, missing, lost, cursed; got "smashed"',
    )
    assert not result.entries
    alone = load_lore_file("items:\n  - name: Cup\n    held_since: 3\n", "items.yaml")
    assert [(p.line, p.message) for p in alone.problems] == [
        (3, '"held_since" says since when someone holds it: add "held_by"')
    ]


def test_an_items_file_may_say_its_kind_as_artifacts() -> None:
    result = load_lore_file("kind: artifacts\nartifacts:\n  - name: The Bone Flute\n", "items.yaml")
    assert result.ok and result.kind == "items", result.problems
    assert [e.name for e in result.entries] == ["The Bone Flute"]
