"""Events asked without their names: the words of a year, who was there, and a deed's verb for its noun."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.happenings import asked_when, asks_who_was_there, deed_of, does_deed


@pytest.mark.parametrize(
    ("question", "when"),
    [
        ("What happened in 212 RL?", "212 rl"),
        ("what happened in year 212 of the Reign of Lamps", "year 212 of the reign of lamps"),
        ("what took place during the year 305?", "the year 305"),
        ("what events happened in 866", "866"),
        ("which events took place during the Long Dusk?", "the long dusk"),
        ("what happened at Greyquay", None),
        ("when did the siege end", None),
    ],
)
def test_the_words_after_in_are_the_year_asked(question: str, when: str | None) -> None:
    assert asked_when(question) == when


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("who fought at Fenwatch?", True),
        ("Who was at the battle of Saltcombe", True),
        ("who were present at the coronation", True),
        ("who took part in the rout", True),
        ("who died at Greyquay", False),  # a death is no taking part
        ("who is Maelis", False),
        ("who leads the corsairs", False),
    ],
)
def test_who_was_there(question: str, asked: bool) -> None:
    assert asks_who_was_there(question) is asked


@pytest.mark.parametrize(
    ("verb", "noun"),
    [
        ("burned", "burning"),
        ("burnt", "burning"),
        ("crowned", "coronation"),
        ("besieged", "siege"),
        ("drowned", "drowning"),
        ("founded", "founding"),
        ("betrayed", "betrayal"),
        ("sank", "sinking"),
        ("planned", "planning"),
        ("invested", "investiture"),
    ],
)
def test_a_deed_s_verb_and_its_noun_share_a_stem(verb: str, noun: str) -> None:
    assert deed_of(verb) == deed_of(noun)


def test_an_event_is_led_by_its_deed_and_a_name_of_one_word_by_none() -> None:
    assert does_deed("burned", "The Burning of the Harbour Lights")
    assert does_deed("crowned", "Coronation of Queen Maelis")
    assert not does_deed("burned", "The Drowning of the Pilot")
    assert not does_deed("crowned", "Harbour Lights")  # its first word is no deed asked
    assert not does_deed("burned", "Burning")  # a name of one word names nothing else to find it by
