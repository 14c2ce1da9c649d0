"""The words a question asks with, read through a typo (`memory.knowledge.retrieval.asking`): pure."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.asking import misspelt, were_where


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("who is brenna marrid to", {"marrid": "married"}),
        ("wher did the duke go", {"wher": "where"}),
        ("wen was the siege", {"wen": "when"}),
        ("is old tom still alve", {"alve": "alive"}),
        ("who r his parnets", {"parnets": "parents"}),
        ("hwo rules the marsh", {"hwo": "who"}),
        ("hwo many ships", {"hwo": "how"}),
        ("hwo old is she", {"hwo": "how"}),
        ("who is the kng now", {"kng": "king"}),
        ("who is her mohter", {"mohter": "mother"}),
        ("how man ships", {"man": "many"}),  # "man" alone is still a slip of "many"
    ],
)
def test_a_misspelt_asking_word_is_read_as_the_word(typed: str, read: dict[str, str]) -> None:
    assert misspelt(typed) == read


@pytest.mark.parametrize(
    "typed",
    [
        "who owns the mill",  # "own" is a word, not "won"
        "what is a hen",  # a slip at the first letter is not read ("when")
        "how much does a lantern cost",
        "who is Alve",  # typed with a capital: a name
        "what dice do i roll",
        "who is married to the lady",
        "does the lead mine still run",  # "lead" is a word of its own
        "who is wystan's old man",  # "old man": a father
    ],
)
def test_a_real_word_or_a_name_stays_as_typed(typed: str) -> None:
    assert misspelt(typed) == {}


def test_were_opening_a_question_before_a_verb_is_where() -> None:
    assert were_where("were did the duke die") == "where did the duke die"
    assert were_where("Were is the ferry?") == "Where is the ferry?"
    assert were_where("were they married") == "were they married"  # a yes/no question
