"""How many live in a place, as canon states it: a gazetteer's `population:` (a number, or words such as "a
few hundred souls"), or a population fact the GM typed. "How many people live in Fenreach?", "what is the
population of the Reach?" (a place found by an alias too): "Fenreach's population is 2400".

Only the typed fact is read here: a place whose card states no population is left to the passages (a
description or a chapter may say it), never answered "nothing" from the graph alone. Only the cards the asker
may read are read: a GM-only population is no line of a player's card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words

__all__ = ["asks_population", "population_answer"]

_ASKS = re.compile(
    r"^\s*(?:how\s+many\s+(?:\w+\s+){0,2}(?:live|lives|living|dwell|dwells|reside|resides|inhabit|inhabits)\b|"
    r"how\s+(?:populous|many\s+(?:people|folk|souls|inhabitants|residents|citizens|villagers|townsfolk)\s+"
    r"(?:are|is|were)\s+(?:there\s+)?(?:in|at)\b)|"
    r"what(?:'s|’s|\s+is|\s+was)\s+(?:the\s+)?population\b|how\s+(?:big|large)\s+is\s+(?:the\s+)?population\b)"
    r"|\bpopulation\s+of\b",
    re.IGNORECASE,
)
#: The words a population question is put in, beside the place's name.
_ASKING = frozenset(
    {
        *("how", "many", "much", "what", "whats", "population", "populous", "big", "large", "there"),
        *("people", "folk", "souls", "inhabitants", "residents", "citizens", "villagers", "townsfolk"),
        *("live", "lives", "living", "dwell", "dwells", "reside", "resides", "inhabit", "inhabits"),
    }
)


def asks_population(question: str) -> bool:
    """Tell whether a question asks how many live somewhere ("how many people live in X", "population of X")."""
    return _ASKS.search(question) is not None


def population_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the population canon states of the place asked about, as a sentence naming it, or None."""
    if not asks_population(question):
        return None
    for number, fact in enumerate(facts, 1):
        said = attribute_value(fact, "population")
        if said is None or not _about(question, fact):
            continue
        return f"{possessive(fact.entity_name)} population is {said.rstrip('.')}. [{number}]", number
    return None


def _about(question: str, fact: CanonFact) -> bool:
    """Tell whether the question's words, asking words aside, all name this place (by its name or the alias
    that found it)."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    return all(has_word(named, w) for w in key_words(question) if w not in _ASKING)
