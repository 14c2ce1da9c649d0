"""The "nothing known" sentence re-says a question only when the words make a clause; else it quotes or says "that"."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.answer_nothing import nothing_known


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("who is the harbour-master of Brinemouth?", "says who the harbour-master of Brinemouth is."),
        ("who was Lirael's teacher?", "says who Lirael's teacher was."),
        ("what is saltglass?", "says what saltglass is."),
    ],
)
def test_a_noun_phrase_is_re_said_as_a_clause(question: str, said: str) -> None:
    assert nothing_known(question) == f"Nothing the table knows {said}"


@pytest.mark.parametrize(
    "question",
    [
        "who was Harbour-master when the Siege of Brinemouth began?",
        "who was harbour-master in 812?",
        "who is captain of the Brine Watch",
        "who was Harbour-master in 812?",
        "what was tithe while the drought lasted?",
    ],
)
def test_a_clause_or_a_bare_noun_is_quoted_never_re_ordered(question: str) -> None:
    reply = nothing_known(question)
    assert reply == f"Nothing the table knows answers “{question.rstrip('?')}?”."


@pytest.mark.parametrize("question", ["?", " ?! ", "…", ""])
def test_a_question_with_no_words_gets_a_plain_sentence(question: str) -> None:
    assert nothing_known(question) == "Nothing the table knows answers that."
