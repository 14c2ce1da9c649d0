"""A part of a question answered alone as the whole was, on cards written here: a person named with "old" or
"the late" and a title before the name is still the one asked about."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import kind_answer
from memory.knowledge.retrieval.answer_parts import joined, two_parts


def _card(name: str, kind: str, *, matched: str, description: str, facts: list[str]) -> CanonFact:
    return CanonFact(
        entity_id=hash(name) % 1000,
        entity_name=name,
        entity_type=kind,
        matched=matched,
        match_score=1.0,
        hidden=False,
        description=description,
        facts=facts,
        relations=[],
    )


BERTIL = _card(
    "Bertil Amsel",
    "Person",
    matched="bertil",
    description="Reeve who drained the Long Fen.",
    facts=["Bertil Amsel died on 4 Frostmoon, year 300 of the Fen Age"],
)


def test_old_or_the_late_before_a_title_and_a_name_still_names_the_one_asked() -> None:
    for question in (
        "when did old reeve bertil die?",
        "when did the late reeve bertil die",
        "when did young bertil die?",
        "when did reeve bertil die?",
    ):
        found = kind_answer(question, [BERTIL])
        assert found is not None, question
        assert "year 300 of the Fen Age" in found[0], question


def test_a_word_that_names_no_one_still_keeps_the_card_from_answering() -> None:
    assert kind_answer("when did bertil's mill burn?", [BERTIL]) is None


def _faction(name: str, matched: str) -> CanonFact:
    return _card(name, "Faction", matched=matched, description="A guild of the Long Fen.", facts=[])


def test_a_bare_asking_word_after_a_deed_asked_by_who_asks_of_that_deed() -> None:
    wickmen = _faction("The Wickmen", "Wickmen")
    assert two_parts("Who founded the Wickmen, and when?", [wickmen]) == (
        "Who founded the Wickmen",
        "when was the Wickmen founded",
    )
    assert two_parts("who built the wickmen and where", [wickmen]) == (
        "who built the wickmen",
        "where was the wickmen built",
    )


def test_a_bare_asking_word_after_a_preposition_is_a_second_part() -> None:
    fenby = _card("Fenby", "Location", matched="fenby", description="A town of the Long Fen.", facts=[])
    assert two_parts("when was fenby founded and by who", [fenby]) == (
        "when was fenby founded",
        "by who was fenby founded",
    )
    assert two_parts("when was fenby founded, and by whom?", [fenby]) == (
        "when was fenby founded",
        "by whom was fenby founded",
    )


def test_a_sentence_both_parts_say_is_said_once() -> None:
    first = ShortAnswer(text="Bertil Amsel died in 300. [1]", mode=AnswerMode.GRAPH, known=True, citations=[])
    second = ShortAnswer(
        text="Bertil Amsel's cause of death was the ague. Bertil Amsel died in 300. [1]",
        mode=AnswerMode.GRAPH,
        known=True,
        citations=[],
    )
    assert joined([first, second]).text == (
        "Bertil Amsel died in 300. Bertil Amsel's cause of death was the ague. [1]"
    )


def test_where_a_group_operates_from_asks_its_seat() -> None:
    from memory.knowledge.answer_models import Relation
    from memory.knowledge.retrieval.answer_graph import graph_answer

    wickmen = _faction("The Wickmen", "Wickmen")
    wickmen.relations.append(Relation(subject="The Mossy Cellar", predicate="SEAT_OF", object="The Wickmen"))
    for question in ("where do the Wickmen operate from?", "where does the Wickmen work out of"):
        found = graph_answer(question, [wickmen])
        assert found is not None and "Mossy Cellar" in found[0], question
