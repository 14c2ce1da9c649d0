"""`gm_only: [field]` and `gm_notes:` on every kind of entry, not only people, factions, places, items and events:
a creature's lair, a deity's true symbol, a spell's school, a culture's or a language's description."""

from __future__ import annotations

import pytest

from canon.structured import load_lore_file

_FILES = {
    "beasts.yaml": """creatures:
  - name: The Mire Hound
    species: hound
    habitat: Blackfen
    description: A grey hound seen at dusk.
    gm_only: [habitat, species]
    gm_notes: It is the baron's cursed son.
---
locations:
  - name: Blackfen
""",
    "faiths.yaml": """cultures:
  - name: The Reedfolk
    description: Boat people of the fens.
    gm_only: [description]
languages:
  - name: Reedcant
    script: knots
    gm_only: [script]
deities:
  - name: Sallow Mother
    symbol: a willow leaf
    alignment: neutral
    gm_only: [symbol]
    gm_notes: She is a drowned witch, not a god.
""",
    "magic.yaml": """systems:
  - name: Knotcraft
    source: breath held in knots
    gm_only: [source]
spells:
  - name: Binding Knot
    level: 2
    school: enchantment
    gm_only: [school]
""",
}


@pytest.mark.parametrize(
    ("file", "entry", "hidden"),
    [
        ("beasts.yaml", "The Mire Hound", {"habitat", "species", "gm_notes"}),
        ("faiths.yaml", "The Reedfolk", {"description", "gm_notes"}),
        ("faiths.yaml", "Reedcant", {"script", "gm_notes"}),
        ("faiths.yaml", "Sallow Mother", {"symbol", "gm_notes"}),
        ("magic.yaml", "Knotcraft", {"source", "gm_notes"}),
        ("magic.yaml", "Binding Knot", {"school", "gm_notes"}),
    ],
)
def test_gm_only_hides_one_field_of_every_kind(file: str, entry: str, hidden: set[str]) -> None:
    result = load_lore_file(_FILES[file].encode(), file)
    assert result.ok, result.problems
    (found,) = [e for e in result.entries if e.name == entry]
    assert set(found.gm_only) == hidden


def test_the_lair_of_a_creature_kept_for_the_gm_is_a_gm_only_edge() -> None:
    result = load_lore_file(_FILES["beasts.yaml"].encode(), "beasts.yaml")
    (lair,) = [r for r in result.relations if r.field == "habitat"]
    assert lair.visibility == "gm_only"
    (hound,) = [e for e in result.entries if e.name == "The Mire Hound"]
    assert hound.attributes["gm_notes"] == "It is the baron's cursed son."


def test_gm_only_naming_no_field_of_the_kind_is_refused_at_its_line() -> None:
    bad = _FILES["magic.yaml"].replace("gm_only: [school]", "gm_only: [schol]")
    result = load_lore_file(bad.encode(), "magic.yaml")
    (problem,) = result.problems
    assert problem.line == 9 and '"schol"' in problem.message and "school" in problem.message


_HOUSE = """kind: family_tree
name: House Marrow
seat: Gallowmere
allies: [House Reed]
description: Old salt money.
gm_only: [seat, description]
gm_notes: The house is bankrupt.
members:
  - name: Ansel Marrow
---
kind: family_tree
name: House Reed
members: []
---
locations:
  - name: Gallowmere
"""


def test_a_family_tree_s_house_hides_its_own_fields_one_by_one() -> None:
    result = load_lore_file(_HOUSE.encode(), "houses.yaml")
    assert result.ok, result.problems
    (house,) = [e for e in result.entries if e.name == "House Marrow"]
    assert set(house.gm_only) == {"seat", "description", "gm_notes"}
    by_field = {
        r.field: r.visibility
        for r in result.relations
        if r.source_id == "house_marrow" or r.target_id == "house_marrow"
    }
    assert by_field["seat"] == "gm_only" and by_field["allies"] == "public", by_field


def test_a_house_cannot_hide_its_members_list_alone() -> None:
    result = load_lore_file(
        _HOUSE.replace("gm_only: [seat, description]", "gm_only: [members]").encode(), "h.yaml"
    )
    (problem,) = result.problems
    assert problem.line == 6 and '"members"' in problem.message
