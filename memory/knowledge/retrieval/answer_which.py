"""A name given in part that several of one kind share: the answer names them all and asks which one is meant.

"How old is Brann?" where canon knows Brann Moss and Brann Tally is answered by neither alone: choosing one
silently would answer another question than the one asked. The cards found by one window of the question that
begins each of their names ("Brann"), of one type, are those the answer names.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.counts import in_words
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["which_answer"]

_PEOPLE = frozenset({"Person", "NPC", "PC"})
_ARTICLES = frozenset({"the", "a", "an"})


def _begins(window: list[str], name: str) -> bool:
    words = fold_words(name)
    words = words[1:] if len(words) > 1 and words[0] in _ARTICLES else words
    return len(words) > len(window) and words[: len(window)] == window


def which_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the names a part of a name given in the question stands for, when it stands for several of one type
    ("Two people are called Brann: Brann Moss and Brann Tally; which one do you mean?"), or None."""
    shared: dict[tuple[str, str], list[tuple[int, CanonFact]]] = {}
    for number, fact in enumerate(facts, 1):
        window = fold_words(fact.matched)
        if fact.step_span or not window or not _begins(window, fact.entity_name):
            continue
        kind = (
            "people" if fact.entity_type in _PEOPLE else fact.entity_type
        )  # a PC and an NPC are both people
        shared.setdefault((" ".join(window), kind), []).append((number, fact))
    for (_, kind), found in shared.items():
        if len(found) < 2:
            continue
        number, first = found[0]
        count = in_words(len(found)).capitalize()
        who = f"{count} people are" if kind == "people" else f"{count} are"
        names = names_list(sorted(f.entity_name for _, f in found))
        return f"{who} called {first.matched}: {names}; which one do you mean? [{number}]", number
    return None
