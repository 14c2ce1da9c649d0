"""A part of a question answered alone as the whole was, on cards written here: a person named with "old" or
"the late" and a title before the name is still the one asked about."""

from __future__ import annotations

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import kind_answer


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
