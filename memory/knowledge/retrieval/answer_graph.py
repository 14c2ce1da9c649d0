"""Short answers from the canon graph: a relation question, an attribute asked, or the entity asked about.

Canon facts from play outrank imported prose, so these are tried before the passages:
- a relation question ("Who is Ysolde's brother?", "Who rules Greyhaven?") names an entity and a relation word;
  the entity's card answers it when it holds such a relation ("Ysolde Marrow is a sibling of Tomas Marrow.");
- a question asking an attribute ("What is the status of the North Gate?") is answered by the card's last value
  of an attribute whose line holds every word asked besides the entity's name;
- a question only about an entity ("Who is Abbot Vell?") is answered by its card's description.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import (
    RELATION_WORDS,
    fold_words,
    has_word,
    key_words,
    sentences,
)

__all__ = ["RELATION_PHRASES", "graph_answer"]

#: How a relation reads in a sentence.
RELATION_PHRASES = {
    "SIBLING_OF": "is a sibling of",
    "PARENT_OF": "is a parent of",
    "SPOUSE_OF": "is married to",
    "RULES": "rules",
    "LEADS": "leads",
    "ALLY_OF": "is an ally of",
    "ENEMY_OF": "is an enemy of",
    "MEMBER_OF": "is a member of",
    "WORSHIPS": "worships",
    "POSSESSES": "holds",
    "KILLED": "killed",
}


def _relation_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return a sentence answering a relation question from the canon graph, and the card it comes from."""
    asked = [w for w in fold_words(question.replace("’", "'")) if w in RELATION_WORDS]
    if not asked:
        return None
    wanted = {p for w in asked for p in RELATION_WORDS[w]}
    for number, fact in enumerate(facts, 1):
        found = [r for r in fact.relations if r.predicate.upper() in wanted]
        if found:
            parts = [
                f"{r.subject} {RELATION_PHRASES.get(r.predicate.upper(), r.predicate.lower())} {r.object}"
                for r in found[:3]
            ]
            return "; ".join(parts) + f". [{number}]", number
    return None


def _about_entity_only(question: str, fact: CanonFact) -> bool:
    """Return whether a question asks only about an entity ("Who is X?", "Tell me about X")."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    return all(has_word(named, w) for w in key_words(question))


_ATTRIBUTE = re.compile(r"^(?P<subject>.+?): (?P<predicate>[^=]+?) = (?P<value>.+)$")


def _fact_sentence(fact: str) -> str:
    """Return a card's fact line as a sentence ("North Gate: status = collapsed" -> "North Gate's status is …")."""
    match = _ATTRIBUTE.match(fact)
    if match is None:
        return fact
    return f"{match['subject']}'s {match['predicate'].replace('_', ' ')} is {match['value']}"


def _latest(lines: Sequence[str]) -> list[str]:
    """Return a card's fact lines keeping, of an attribute stated more than once, its last value (story order)."""
    kept: dict[str, str] = {}
    for line in lines:
        match = _ATTRIBUTE.match(line)
        key = f"{match['subject']}:{match['predicate']}" if match else line
        kept.pop(key, None)
        kept[key] = line
    return list(kept.values())


def _fact_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the canon fact that holds every word the question asks besides the entity's name, or None."""
    for number, fact in enumerate(facts, 1):
        named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
        asked = [w for w in key_words(question) if not has_word(named, w)]
        if not asked:
            continue
        for line in _latest(fact.facts):
            if all(has_word(set(fold_words(line)), w) for w in asked):
                return f"{_fact_sentence(line)}. [{number}]", number
    return None


def graph_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return an answer from the canon graph (a relation, or the card of the entity asked about), or None."""
    relation = _relation_answer(question, facts)
    if relation is not None:
        return relation
    if any(w in RELATION_WORDS for w in fold_words(question)):
        return None  # a relation the graph does not hold: the passages may still say it
    attribute = _fact_answer(question, facts)
    if attribute is not None:
        return attribute
    for number, fact in enumerate(facts, 1):
        if not _about_entity_only(question, fact):
            continue
        said = [s for s in sentences(fact.description or "")[:2]] or fact.facts[:2]
        if said:
            body = " ".join(s if s.endswith((".", "!", "?", "…")) else s + "." for s in said)
            return f"{fact.entity_name}: {body} [{number}]", number
    return None
