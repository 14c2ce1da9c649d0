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
