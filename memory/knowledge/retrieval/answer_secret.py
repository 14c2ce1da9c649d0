"""A secret name, told to the GM: "The Moth is Marisol Teague's secret name." before what canon says of her.

An alias kept for the GM (`aliases: [{name: The Moth, gm_only: true}]`) is on the GM's card alone, as its
"secret aliases", and the GM finds the entity by it. So the GM's answer to a question naming an entity by its
secret name opens by saying whose secret name it is, whatever the entity (a person, a creature, an event, an
item). A player's card holds no secret aliases and a player finds nothing by one: they read the reply a name
nobody knows gets, word for word.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.relations import in_prose, possessive
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["secret_name", "told_secret"]

_ARTICLES = frozenset({"the", "a", "an"})


def _words(name: str) -> set[str]:
    return {w for w in fold_words(name) if w not in _ARTICLES}


def _names(text: str | None) -> list[str]:
    return [n for n in (text or "").split(", ") if n]


def secret_name(fact: CanonFact) -> str | None:
    """Return that the name an entity was found by is its secret one ("The Moth is Marisol Teague's secret
    name"), or None: found by a secret alias (or a word of it: "voice" of the Voice Below) and by no name anyone
    may read."""
    found = _words(fact.matched)
    public = [fact.entity_name, *_names(attribute_value(fact, "aliases"))]
    if not found or any(found <= _words(n) for n in public):
        return None
    alias = next((a for a in _names(attribute_value(fact, "secret aliases")) if found <= _words(a)), None)
    if alias is None:
        return None
    return f"{alias[:1].upper()}{alias[1:]} is {in_prose(possessive(fact.entity_name))} secret name."


def told_secret(answer: ShortAnswer, facts: Sequence[CanonFact]) -> ShortAnswer | None:
    """Return a canon answer opened by whose secret name the entity it cites was found by, or None."""
    if answer.mode != AnswerMode.GRAPH or "secret name" in answer.text:
        return None
    cited = [c.number for c in answer.citations if c.cited and c.kind == "canon" and c.number <= len(facts)]
    said = secret_name(facts[cited[0] - 1]) if cited else None
    return None if said is None else answer.model_copy(update={"text": f"{said} {answer.text}"})
