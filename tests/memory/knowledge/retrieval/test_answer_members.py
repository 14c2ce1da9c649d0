"""Who is in a group, read from the group's card: the question forms that ask it, and those that do not."""

from __future__ import annotations

import pytest

from memory.knowledge.answer_models import Relation
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_members import asks_members, members_answer


def _group(name: str, members: list[str], kind: str = "Faction") -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name=name,
        entity_type=kind,
        matched=name,
        match_score=1.0,
        hidden=False,
        description=None,
        facts=[],
        relations=[Relation(subject=m, predicate="MEMBER_OF", object=name) for m in members]
        + [Relation(subject=name, predicate="ENEMY_OF", object="House Orrow")],
    )


@pytest.mark.parametrize(
    "question",
    [
        "who is in the Ashen Corsairs",
        "who belongs to the corsairs?",
        "members of the Tidewardens",
        "who are the members of house orrow",
        "how many people are in the tidewardens",
        "how many members does the Glass Court have",
        "which sailors are in the tidewardens",
        "who makes up the glass court",
        "who serves the ashen corsairs",
    ],
)
def test_these_ask_the_members(question: str) -> None:
    assert asks_members(question)


@pytest.mark.parametrize(
    "question",
    [
        "is Nessa a member of the corsairs",
        "who is in charge of the corsairs",
        "who leads the corsairs",
        "what faction is Bram in",
        "how many factions are there",
    ],
)
def test_these_do_not(question: str) -> None:
    assert not asks_members(question)


def test_members_are_named_together_and_counted_only_as_seen() -> None:
    corsairs = _group("The Ashen Corsairs", ["Ysra Dunmore", "Kell Varrow", "The Grey Sisters"])
    assert members_answer("who is in the ashen corsairs", [corsairs]) == (
        "Ysra Dunmore, Kell Varrow and the Grey Sisters are members of the Ashen Corsairs. [1]",
        1,
    )
    assert members_answer("how many people are in the ashen corsairs", [corsairs]) == (
        "The Ashen Corsairs have three members: Ysra Dunmore, Kell Varrow and the Grey Sisters. [1]",
        1,
    )


def test_a_person_named_first_is_no_group_and_a_group_with_none_seen_names_none() -> None:
    person = CanonFact(
        entity_id=2,
        entity_name="Bram Tulley",
        entity_type="NPC",
        matched="bram",
        match_score=1.0,
        hidden=False,
        description=None,
        facts=[],
    )
    empty = _group("House Orrow", [], kind="Lineage")
    assert members_answer("who is in house orrow", [person, empty]) == (
        "Nothing the table knows names a member of House Orrow. [2]",
        2,
    )
    assert members_answer("who is in bram tulley", [person]) is None
