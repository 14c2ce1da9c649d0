"""The holder of a title asked now: "how many children does the warden have" asks the living Warden, not one
dead who held the title before.

A title found on several cards (each found by it, not by a name of theirs) is asked of its holders alive; the
dead ones are read after them, unless the question asks of the past ("did", "was", "had").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["present_first"]

_PAST = re.compile(r"\b(?:was|were|did|had|before|after|former|previous|last|first)\b")


def present_first(question: str, facts: Sequence[CanonFact]) -> list[int]:
    """Return the facts' numbers, the dead found by a title a living one was also found by after the rest."""
    numbers = list(range(1, len(facts) + 1))
    if _PAST.search(question.casefold()):
        return numbers
    living = {f.matched.casefold() for f in facts if f.state != "dead" and _by_title(f)}
    return sorted(numbers, key=lambda n: _past_holder(facts[n - 1], living))


def _by_title(fact: CanonFact) -> bool:
    return not set(fold_words(fact.matched)) & set(fold_words(fact.entity_name))


def _past_holder(fact: CanonFact, living: set[str]) -> bool:
    return fact.state == "dead" and _by_title(fact) and fact.matched.casefold() in living
