"""The forms of the questions of beasts, results, births and secrets in other words: what each reads as its
own, and what it leaves to the other steps (a person's residents, a question naming nobody)."""

from __future__ import annotations

import pytest

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_born_wed import born_by_marriage
from memory.knowledge.retrieval.answer_came_of import asks_came_of
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.creature_words import asks_creatures
from memory.knowledge.retrieval.hidden_senses import same_sense


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("are there any dangerous beasts in the Mirefen?", True),
        ("Are there monsters near Sallow Stair", True),
        ("what lives in the Mirefen?", True),
        ("what creatures live in Corbel Weir?", True),
        ("which beasts roam the Dry Downs?", True),
        ("who lives in the Mirefen?", False),
        ("what is in the Mirefen?", False),
        ("are there any shops in Corbel Weir?", False),
        ("what happened in the Mirefen?", False),
        ("", False),
    ],
)
def test_a_question_of_beasts_is_read_as_one(question: str, asks: bool) -> None:
    assert asks_creatures(question) is asks


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("what came of the Siege of Corbel Weir?", True),
        ("How did the siege end", True),
        ("what happened after the Drowning Fair?", True),
        ("what was the upshot of the riot?", True),
        ("what happened at the Drowning Fair?", False),
        ("when did the siege end?", False),
        ("how did Ansel meet his end", False),
        ("", False),
    ],
)
def test_a_question_of_what_came_of_something_is_read_as_one(question: str, asks: bool) -> None:
    assert asks_came_of(question) is asks


def test_a_secret_in_other_words_is_of_the_same_family_only() -> None:
    said = set(fold_words("Lune Penhallow is dying of the grey cough, and hides it from her mother."))
    assert same_sense("sick", said) and same_sense("ill", said)
    assert not same_sense("tall", said) and not same_sense("mad", said) and not same_sense("lune", said)
    assert not same_sense("sick", set()) and not same_sense("", said)


def test_a_birth_against_a_marriage_needs_the_form_and_someone_named() -> None:
    nobody: list[CanonFact] = []
    assert born_by_marriage("was Zorvan born out of wedlock?", nobody) is None
    assert born_by_marriage("was Zorvan born in Corbel Weir?", nobody) is None
    assert born_by_marriage("", nobody) is None
