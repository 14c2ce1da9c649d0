"""Who rules a place, read from its card and the cards found with it: a group seated there, a larger place."""

from __future__ import annotations

import pytest

from memory.knowledge.answer_models import Relation
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.rulers import asks_ruler, ruler_answer


def _card(
    name: str, kind: str, relations: list[tuple[str, str, str]], facts: list[str] | None = None
) -> CanonFact:
    return CanonFact(
        entity_id=abs(hash(name)) % 1000,
        entity_name=name,
        entity_type=kind,
        matched=name,
        match_score=1.0,
        hidden=False,
        description=None,
        facts=facts or [],
        relations=[Relation(subject=s, predicate=p, object=o) for s, p, o in relations],
    )


@pytest.mark.parametrize(
    ("question", "held"),
    [
        ("who rules Greyquay?", "greyquay"),
        ("Who controls the Lantern Keep", "the lantern keep"),
        ("who is in charge of Saltcombe", "saltcombe"),
        ("who governs the north", "the north"),
        ("who is Maelis", None),
        ("who leads the corsairs", None),
    ],
)
def test_a_ruler_asked(question: str, held: str | None) -> None:
    assert asks_ruler(question) == held


def test_a_seat_says_the_group_and_who_leads_it() -> None:
    keep = _card("The Lantern Keep", "Location", [("The Lantern Keep", "SEAT_OF", "House Orrow")])
    house = _card("House Orrow", "Faction", [("Maelis Orrow", "LEADS", "House Orrow")])
    assert ruler_answer("who rules the lantern keep", [keep, house]) == (
        "The Lantern Keep is the seat of House Orrow; Maelis Orrow leads House Orrow. [1]",
        1,
    )


def test_a_place_canon_says_no_ruler_of_is_asked_of_the_place_it_is_part_of() -> None:
    combe = _card("Saltcombe", "Location", [("Saltcombe", "PART_OF", "Duskholm")])
    realm = _card("Duskholm", "Region", [("Saltcombe", "PART_OF", "Duskholm")])
    queen = _card(
        "Maelis Orrow",
        "NPC",
        [],
        ["Maelis Orrow is Queen of Duskholm", "Maelis Orrow is part of Duskholm"],
    )
    assert ruler_answer("who rules saltcombe", [combe, realm, queen]) == (
        "Saltcombe is part of Duskholm; Maelis Orrow is Queen of Duskholm. [1]",
        1,
    )


def test_a_place_of_no_ruler_anywhere_is_not_answered() -> None:
    alone = _card("Saltcombe", "Location", [])
    assert ruler_answer("who rules saltcombe", [alone]) is None
    assert ruler_answer("who is saltcombe", [alone]) is None


def test_a_ruler_canon_relates_comes_first() -> None:
    port = _card(
        "Greyquay",
        "Location",
        [("Ysra Dunmore", "RULES", "Greyquay"), ("Greyquay", "SEAT_OF", "The Ashen Corsairs")],
    )
    assert ruler_answer("who governs greyquay", [port]) == (
        "Ysra Dunmore rules Greyquay; Greyquay is the seat of the Ashen Corsairs. [1]",
        1,
    )
