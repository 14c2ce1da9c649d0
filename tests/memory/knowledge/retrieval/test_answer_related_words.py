"""A player's word no source holds, said in the books' own word (`glossary.RELATED`), is no strange word."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scope import strange_words
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

_TOWN = passage(
    "# Brackwell\n\nBrackwell sits on nine arches over the river. The coin of the town is the reed penny, "
    "a round tin piece with a hole in it.",
    "World",
    "Brackwell",
)


def test_money_asked_is_answered_by_the_sentence_saying_the_coin() -> None:
    answer = reply(analyse("what do people use as money in brackwell"), [], [_TOWN], unknown=["money"])
    assert answer.known, answer.text
    assert "reed penny" in answer.text


def test_a_word_with_no_book_word_held_stays_strange() -> None:
    answer = reply(analyse("what do people use as tokens in brackwell"), [], [_TOWN], unknown=["tokens"])
    assert not answer.known, answer.text


def test_a_word_the_books_say_otherwise_is_not_strange() -> None:
    mill = passage("# The Old Mill\n\nThe old mill grinds reed-flour for the fen.", "World", "The Old Mill")
    question = analyse("what do they use for money in brackwell")
    assert strange_words(question, ["money"], [mill, _TOWN]) == []


# A made-up skirmish game's conditions and gear, in its own layout; the wordings below are invented for these tests.
_DAZED = passage(
    "## Dazed\n\n- A dazed creature can't take reactions.\n\n- The creature automatically fails Grit checks.",
    "Conditions",
    "Dazed",
)
_LANTERN = passage(
    "## Fen Lantern\n\nThe lantern's green light reveals hidden runes to a distance of 40 feet.",
    "Gear",
    "Fen Lantern",
)
_SATCHEL = passage(
    "## Forager's Satchel\n\n- **Cost** 4 sp\n\n- **Contents** a knife, a trowel, 3 cloth bags and a tinderbox",
    "Gear",
    "Forager's Satchel",
)


def test_whom_a_rule_counts_asked_as_a_character_or_an_enemy_is_the_books_creature() -> None:
    for question in ("can a dazed character still use reactions", "my pc is dazed, can he take reactions?"):
        answer = reply(analyse(question), [], [_DAZED])
        assert answer.known and "can't take reactions" in answer.text, (question, answer.text)
        assert answer.text.startswith("No"), answer.text


def test_auto_is_read_as_the_books_automatically() -> None:
    answer = reply(analyse("does a dazed enemy auto fail grit checks"), [], [_DAZED])
    assert answer.known and "automatically fails Grit checks" in answer.text, answer.text
    assert answer.text.startswith("Yes"), answer.text


def test_a_range_asked_is_the_distance_said_and_inside_asks_the_contents() -> None:
    answer = reply(analyse("what is the range of the fen lantern's light"), [], [_LANTERN])
    assert answer.known and "40 feet" in answer.text, answer.text
    answer = reply(analyse("whats inside a forager's satchel"), [], [_SATCHEL])
    assert answer.known and "trowel" in answer.text, answer.text


def test_a_made_up_namesake_asked_in_those_words_is_still_nothing_known() -> None:
    # "marsh lantern" and "a stunned character" name things the books do not hold beside words they do.
    answer = reply(analyse("what is the range of the marsh lantern"), [], [_LANTERN], unknown=["marsh"])
    assert not answer.known, answer.text
    answer = reply(
        analyse("can a frostbitten character use reactions"), [], [_DAZED], unknown=["frostbitten"]
    )
    assert not answer.known, answer.text
