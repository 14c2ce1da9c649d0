"""What a faction wants, said as a sentence: its goals joined as a person lists them."""

from __future__ import annotations

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import goal_answer


def _faction(name: str, goals: str) -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name=name,
        entity_type="Faction",
        matched=name,
        match_score=1.0,
        hidden=False,
        description=None,
        facts=[f"{name}'s goals: {goals}"],
    )


def test_several_goals_read_as_one_sentence_each_after_wants() -> None:
    brine = _faction(
        "The Brine Brotherhood", "Free the Red Gull from the Chainhold, Take the toll of the Amar straits"
    )
    assert goal_answer("what does the brine brotherhood want", [brine]) == (
        "The Brine Brotherhood wants to free the Red Gull from the Chainhold and to take the toll of the Amar straits. [1]",
        1,
    )
    three = _faction("Corsa Vey", "Revenge, Rule the straits, Sink every Tidecourt ship")
    assert goal_answer("what are corsa vey's goals", [three]) == (
        "Corsa Vey wants revenge, to rule the straits and to sink every Tidecourt ship. [1]",
        1,
    )


def test_one_goal_keeps_its_commas_and_a_question_of_no_goal_is_not_answered() -> None:
    salt = _faction("House Vaske", "Keep the salt roads open, whatever the cost")
    assert goal_answer("what is house vaske after", [salt]) == (
        "House Vaske wants to keep the salt roads open, whatever the cost. [1]",
        1,
    )
    assert goal_answer("where is house vaske", [salt]) is None
