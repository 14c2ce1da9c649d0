"""A life's words read from a description: how someone died, where they are held, or where canon last put them; and "whos" read as two words."""

from __future__ import annotations

import pytest

from memory.knowledge.answer_models import Relation
from memory.knowledge.models import CanonFact
from memory.knowledge.question import spelled_out
from memory.knowledge.retrieval.lives import death_cause, held_at, last_placed


@pytest.mark.parametrize(
    ("description", "said"),
    [
        ("A harbour pilot who drowned in the Weeping Sound.", "Dunmore Pike drowned in the Weeping Sound"),
        ("Orrin's son, drowned at sea.", "Dunmore Pike drowned at sea"),
        (
            "An old soldier. He was slain at the ford by raiders.",
            "Dunmore Pike was slain at the ford by raiders",
        ),
        ("The smuggler queen. She poisoned Lord Orrin's wine.", None),  # a deed done, not a death
        ("A tall captain who hunts smugglers.", None),
        (None, None),
    ],
)
def test_a_death_is_read_from_the_description_that_says_it(description: str | None, said: str | None) -> None:
    assert death_cause("Dunmore Pike", description) == said


@pytest.mark.parametrize(
    ("description", "said"),
    [
        (
            "A smuggler poet, held in the Glass Gaol since the revolt.",
            "held in the Glass Gaol since the revolt",
        ),
        ("Maren's brother, kept in the Glass Gaol for plotting.", "kept in the Glass Gaol for plotting"),
        ("A masked singer, chained beneath the keep.", "chained beneath the keep"),
        ("A singer who kept the old songs.", None),  # "kept" without a place is no prison
        ("A lamplighter's apprentice.", None),
    ],
)
def test_where_someone_is_held_is_read_from_the_description(description: str, said: str | None) -> None:
    assert held_at(description) == said


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("whos the grey wren", "who is the grey wren"),
        ("Who's the Ash Fox?", "Who is the Ash Fox?"),
        ("whats the glass gaol", "what is the glass gaol"),
        ("wheres sefa held", "where is sefa held"),
        ("who is the ember queen", "who is the ember queen"),
        ("whose sword is this", "whose sword is this"),
        ("how's maren", "how is maren"),
    ],
)
def test_a_question_word_run_into_is_is_read_as_two_words(typed: str, read: str) -> None:
    assert spelled_out(typed) == read


def _person(relations: list[tuple[str, str]], facts: list[str] = ()) -> CanonFact:  # type: ignore[assignment]
    return CanonFact(
        entity_id=1,
        entity_name="Kell Varrow",
        entity_type="NPC",
        matched="kell",
        match_score=1.0,
        hidden=False,
        description=None,
        facts=list(facts),
        relations=[Relation(subject="Kell Varrow", predicate=p, object=o) for p, o in relations],
    )


def test_a_place_play_gave_comes_before_the_home_and_the_sex_says_the_pronoun() -> None:
    placed = _person(
        [("LIVES_IN", "Saltcombe"), ("LOCATED_IN", "The Lantern Keep")], ["Kell Varrow's sex: male"]
    )
    assert last_placed(placed) == "the last place canon puts him is the Lantern Keep"
    assert last_placed(_person([("LIVES_IN", "Saltcombe")])) == "the last place canon puts them is Saltcombe"


def test_someone_canon_places_nowhere_has_no_last_place() -> None:
    assert last_placed(_person([("MEMBER_OF", "House Orrow")])) is None
    # Someone else's home on the card is not theirs.
    other = _person([])
    other = other.model_copy(
        update={"relations": [Relation(subject="Bram", predicate="LIVES_IN", object="Greyquay")]}
    )
    assert last_placed(other) is None
