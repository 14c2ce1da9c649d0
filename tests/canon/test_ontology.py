"""The ontology: the bundled one validates, a broken one is refused naming each problem, extensions only add."""

from __future__ import annotations

import io
from importlib import resources
from typing import Any

import pytest
from ruamel.yaml import YAML

from canon.errors import InvalidInput
from canon.ontology import Ontology, base_ontology, parse_ontology

REQUIRED_TYPES = {
    "Person",
    "PC",
    "NPC",
    "Faction",
    "Location",
    "Region",
    "Item",
    "Creature",
    "Deity",
    "Culture",
    "Language",
    "MagicSystem",
    "Spell",
    "Era",
    "Event",
    "Lineage",
    "Title",
    "Plane",
    "Material",
}


def bundled() -> dict[str, Any]:
    """Return the bundled ontology document as data, to break copies of it."""
    text = resources.files("config").joinpath("ontology.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = YAML(typ="safe", pure=True).load(text)
    return data


def dump(data: dict[str, Any]) -> str:
    """Return data as a YAML document."""
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, out)
    return out.getvalue()


def test_the_bundled_ontology_has_the_required_types_and_rules() -> None:
    o = base_ontology()
    assert set(o.entity_types) >= REQUIRED_TYPES
    assert o.relation_types["ALLY_OF"].exclusive_with == ("ENEMY_OF",)
    assert o.relation_types["PARENT_OF"].max_incoming == 2 and not o.relation_types["PARENT_OF"].temporal
    assert o.is_a("NPC", ["Person"]) and not o.is_a("Item", ["Person"])
    assert not o.transition_allowed("dead", "alive")
    assert o.transition_allowed("dead", "alive", via="resurrection")
    assert not o.transition_allowed("dead", "alive", via="raising")
    assert o.transition_allowed("alive", "wounded")


def test_every_type_can_end_from_each_of_its_states_without_a_warning() -> None:
    # A cursed sword may be destroyed, an intact guild dissolve, a missing ring be found intact.
    o = base_ontology()
    for type_name in o.entity_types:
        states = [n for n, tag in o.states.tags.items() if o.is_a(type_name, tag.applies_to)]
        ends = [n for n in states if o.states.tags[n].terminal]
        for state in states:
            if o.states.tags[state].terminal:
                continue
            for end in ends:
                assert o.transition_allowed(state, end), f"{type_name}: {state} -> {end}"
    for found in ("intact", "damaged"):
        assert o.transition_allowed("missing", found) and o.transition_allowed("cursed", found)
    assert not o.transition_allowed("destroyed", "intact")
    assert o.transition_allowed("destroyed", "intact", via="restoration")


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda d: d["entity_types"]["PC"].update(parent="Hero"), "entity type PC: unknown parent Hero"),
        (
            lambda d: d["relation_types"]["LEADS"].update({"to": ["Guild"]}),
            "relation LEADS: unknown endpoint type Guild",
        ),
        (
            lambda d: d["relation_types"]["ENEMY_OF"].update(exclusive_with=[]),
            "relation ALLY_OF: exclusive with ENEMY_OF, but not the other way round",
        ),
        (
            lambda d: d["states"]["transitions"]["alive"].append("petrified"),
            "transition alive -> unknown state petrified",
        ),
        (lambda d: d["states"]["via"]["raising"].update({"to": ["lich"]}), "via raising: unknown state lich"),
        (
            lambda d: d["states"]["tags"]["alive"].update(applies_to=["Robot"]),
            "state alive: unknown type Robot",
        ),
        (lambda d: d["relation_types"]["SPOUSE_OF"].update(max_incoming=0), "max_incoming"),
        (
            lambda d: d["entity_types"]["NPC"].update(colour="blue"),
            "“colour” of “NPC” of “entity_types” is not something it has",
        ),
    ],
)
def test_a_broken_ontology_is_refused_naming_the_problem(breakage: Any, message: str) -> None:
    data = bundled()
    breakage(data)
    with pytest.raises(InvalidInput, match="The ontology is invalid") as raised:
        parse_ontology(dump(data))
    assert message in raised.value.message


def test_every_problem_is_named_at_once() -> None:
    data = bundled()
    data["entity_types"]["PC"]["parent"] = "Hero"
    data["states"]["transitions"]["alive"].append("petrified")
    with pytest.raises(InvalidInput) as raised:
        parse_ontology(dump(data))
    assert "unknown parent Hero" in raised.value.message
    assert "unknown state petrified" in raised.value.message


SPACE = {
    "entity_types": {"Starship": {"kind": "concrete", "parent": "Item", "description": "a ship of the void"}},
    "relation_types": {"CREWS": {"from": ["Person"], "to": ["Starship"], "temporal": True}},
    "states": {
        "tags": {
            "petrified": {"applies_to": ["Person", "Creature"], "description": "turned to stone"},
            "adrift": {"applies_to": ["Starship"]},
        },
        "transitions": {"alive": ["petrified"], "intact": ["adrift"], "adrift": ["intact", "destroyed"]},
        "via": {"stone_to_flesh": {"from": ["petrified"], "to": ["alive"]}},
    },
}


def test_an_extension_adds_types_relations_states_transitions_and_events() -> None:
    o = base_ontology().extended(SPACE)
    assert o.entity_type("starship") == "Starship" and o.is_a("Starship", ["Item"])
    o.check_endpoints("CREWS", "NPC", "Starship")
    with pytest.raises(InvalidInput, match="cannot point at a Location"):
        o.check_endpoints("CREWS", "NPC", "Location")
    o.check_state_applies("adrift", "Starship")
    assert o.transition_allowed("alive", "petrified")
    assert o.transition_allowed("alive", "wounded")  # the base's transitions are kept
    assert o.transition_allowed("intact", "adrift") and o.transition_allowed("adrift", "destroyed")
    assert not o.transition_allowed("petrified", "alive")
    assert o.transition_allowed("petrified", "alive", via="stone_to_flesh")  # `via` entries are kept
    assert o.transition_allowed("dead", "alive", via="resurrection")
    assert not o.transition_allowed("dead", "alive")
    assert "Starship" not in base_ontology().entity_types  # the base is untouched


@pytest.mark.parametrize(
    ("extension", "message"),
    [
        ({"states": {"transitions": {"dead": ["alive"]}}}, "dead is terminal, so leaving it takes an event"),
        ({"states": {"transitions": {"destroyed": ["intact"]}}}, "destroyed is terminal"),
        (
            {"states": {"transitions": {"undead": ["alive"]}}},
            "undead -> alive: the base ontology does not allow it",
        ),
        (
            {"states": {"tags": {"ghost": {"applies_to": ["Person"]}}, "transitions": {"dead": ["ghost"]}}},
            "dead is terminal",
        ),
        (
            {
                "states": {
                    "tags": {"lich": {"applies_to": ["Person"], "terminal": True}},
                    "transitions": {"lich": ["alive"]},
                }
            },
            "lich is terminal",
        ),
        ({"entity_types": {"NPC": {"kind": "concrete"}}}, "NPC is already defined"),
        (
            {"relation_types": {"ALLY_OF": {"from": ["Person"], "to": ["Person"]}}},
            "ALLY_OF is already defined",
        ),
        ({"states": {"tags": {"dead": {"applies_to": ["Item"]}}}}, "the state dead is already defined"),
        (
            {"states": {"via": {"resurrection": {"from": ["dead"], "to": ["undead"]}}}},
            "the event kind resurrection is already defined",
        ),
        ({"entity_type": {"Starship": {}}}, "'entity_type' is not a section of the extension"),
        ({"states": {"tag": {}}}, "'tag' is not a section of states"),
        (
            {"relation_types": {"CREWS": {"from": ["Person"], "to": ["Spaceship"]}}},
            "relation CREWS: unknown endpoint type Spaceship",
        ),
        (
            {"states": {"transitions": {"alive": ["petrified"]}}},
            "transition alive -> unknown state petrified",
        ),
        (
            {"entity_types": {"Starship": {"kind": "imaginary"}}},
            "“kind” of “Starship” of “entity_types” must be one of 'concrete' or 'axiomatic'",
        ),
        (["Starship"], "a mapping"),
    ],
)
def test_an_extension_that_redefines_or_loosens_the_base_is_refused(extension: Any, message: str) -> None:
    with pytest.raises(InvalidInput, match=r"invalid|mapping") as raised:
        base_ontology().extended(extension)
    assert message in raised.value.message


def test_an_extension_may_leave_a_terminal_state_through_a_new_event() -> None:
    o = base_ontology().extended(
        {
            "states": {
                "tags": {"ghost": {"applies_to": ["Person"]}},
                "via": {"haunting": {"from": ["dead"], "to": ["ghost"]}},
            }
        }
    )
    assert not o.transition_allowed("dead", "ghost")
    assert o.transition_allowed("dead", "ghost", via="haunting")
    assert isinstance(o, Ontology)


# -- attributes ------------------------------------------------------------------------------------------


def test_types_declare_their_attributes_with_aliases_inherited_and_common() -> None:
    o = base_ontology()
    name, spec = o.attribute("NPC", "Titles")  # a Person's attribute, by its alias, on a subtype
    assert name == "title" and spec is not None and not spec.many and spec.changes
    assert o.attribute("Person", "Eye color")[0] == "eye_colour"
    assert o.attribute("Region", "description")[1] is not None  # common to every type
    assert o.attribute("Deity", "domains") == ("domain", o.attribute("Deity", "domain")[1])
    assert o.attribute("Person", "Favourite Song") == ("favourite_song", None)  # unknown: folded, undeclared
    assert o.nearest_attributes("Person", "haircolor")[0] == "hair_colour"
    assert o.nearest_attributes("NPC", "titel")[0] == "title"


def test_an_attribute_is_read_through_its_synonyms_and_only_close_ones_are_offered() -> None:
    o = base_ontology()
    # Another spelling of a name or alias, or a name followed by a preposition: read without asking.
    for typed, meant in [
        ("birthyear", "born"),
        ("Birth Year", "born"),
        ("year of birth", "born"),
        ("born in", "born"),
        ("died on", "died"),
        ("deathyear", "died"),
        ("haircolor", "hair_colour"),
        ("lives in", "home"),
        ("home town", "home"),
    ]:
        name, spec = o.attribute("NPC", typed)
        assert (name, spec is not None) == (meant, True), typed
    # Anything else is asked about: the declared ones it is close to (a typo, a shared word, a name within it).
    assert o.attribute("NPC", "birthplace") == ("birthplace", None)
    assert o.close_attributes("NPC", "birthplace") == ["born"]
    assert o.close_attributes("NPC", "titel") == ["title"]
    assert o.close_attributes("NPC", "job title") == ["title", "occupation"]
    assert o.close_attributes("NPC", "eye") == ["eye_colour"]
    # A name close to nothing is no question: written as a new kind of detail when the GM types it.
    for typed in ("secret", "horse", "treasure", "hideout", "captaincy"):
        assert o.close_attributes("NPC", typed) == [], typed


def test_a_spelling_two_attributes_share_once_squashed_is_no_synonym() -> None:
    from canon.attribute_names import read_attribute

    index = {"home_town": "home", "hometown_": "birthplace"}  # two owners of "hometown"
    assert read_attribute(index, "hometown") is None
    assert read_attribute({"home_town": "home"}, "hometown") == "home"


def test_an_attribute_spelling_shared_by_two_attributes_or_a_bad_value_type_is_refused() -> None:
    data = bundled()
    data["entity_types"]["NPC"]["attributes"] = {
        "rank": {"value": "text"}
    }  # rank: an alias of Person's title
    with pytest.raises(InvalidInput) as error:
        parse_ontology(dump(data))
    assert "entity type NPC: “rank” names both title and rank" in error.value.message
    data = bundled()
    data["entity_types"]["Item"]["attributes"]["value"]["value"] = "colour"
    with pytest.raises(InvalidInput) as error:
        parse_ontology(dump(data))
    assert (
        "“value” of “value” of “attributes” of “Item” of “entity_types” must be one of 'text'"
        in error.value.message
    )


def test_an_extension_adds_a_type_with_its_attributes() -> None:
    extended = base_ontology().extended(
        {"entity_types": {"Ship": {"parent": "Item", "attributes": {"captain": {"value": "entity"}}}}}
    )
    assert extended.attribute("Ship", "Captain")[0] == "captain"
    assert extended.attribute("Ship", "price")[0] == "value"  # from its parent, Item


def test_an_extension_adds_attributes_to_existing_types_but_never_redefines_one() -> None:
    extended = base_ontology().extended({"attributes": {"Person": {"favourite_song": {"aliases": ["song"]}}}})
    assert extended.attribute("NPC", "Song")[0] == "favourite_song"
    with pytest.raises(InvalidInput) as error:
        base_ontology().extended({"attributes": {"Person": {"titles": {}}, "Starship": {"captain": {}}}})
    assert "Person already has the attribute titles" in error.value.message
    assert "attributes of Starship: there is no such entity type" in error.value.message


def test_the_bundled_ontology_reads_the_same_with_either_yaml_loader() -> None:
    # The bundled file is read by PyYAML's C loader at start (fast); a GM's document by ruamel (YAML 1.2). Both
    # must read the bundled one alike (YAML 1.1 would read a bare yes/no/on/off as a boolean).
    text = resources.files("config").joinpath("ontology.yaml").read_text(encoding="utf-8")
    assert parse_ontology(text, bundled=True) == parse_ontology(text) == base_ontology()
