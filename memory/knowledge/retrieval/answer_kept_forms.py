"""The canon forms of facts a card keeps that `answer_graph` asks before its older forms, in one place: what a
group's entry keeps (`answer_kept`), who founded something (`answer_founders`), and which of two is larger or came
first (`answer_compare`); who has or made a thing (`answer_items`) and what it is made of (`answer_materials`), the culture a person is of (`answer_cultures`), whom a person worships (`answer_faith`), and from the other end what a person made,
has or founded and whom they serve (`answer_reverse`); what title a person holds (`answer_titles`)."""

from __future__ import annotations

from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_compare import compare_answer
from memory.knowledge.retrieval.answer_cultures import culture_answer
from memory.knowledge.retrieval.answer_faith import faith_answer
from memory.knowledge.retrieval.answer_founders import founder_answer
from memory.knowledge.retrieval.answer_items import item_answer
from memory.knowledge.retrieval.answer_kept import kept_answer
from memory.knowledge.retrieval.answer_materials import material_answer
from memory.knowledge.retrieval.answer_reverse import reverse_answer
from memory.knowledge.retrieval.answer_titles import title_answer

__all__ = ["kept_forms"]


def kept_forms(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer of the first of these forms that answers the question, or None."""
    return (
        material_answer(question, facts)  # what a thing is made of, never who made it
        or culture_answer(question, facts)  # the culture a person is of
        or faith_answer(question, facts)  # whom a person worships, who worships a god
        or title_answer(question, facts)
        or item_answer(question, facts)
        or reverse_answer(question, facts)
        or kept_answer(question, facts)
        or founder_answer(question, facts)
        or compare_answer(question, facts)
    )
