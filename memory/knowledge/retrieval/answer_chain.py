"""Whom a two-part question's second part asks about: its pronoun read as the one it agrees with.

"Who was Maren's mother and what was her trade": "her" is the mother, the answer of the first part, not Maren; "who
leads the Ember Wardens and where was he born": "he" is the leader. A personal pronoun (he, she, his, her, him) of
a second part after a "who" part that asks of someone or something else ("who leads X", "who was X's mother", not
"who is X") is the first part's answer when it agrees: a person tied to the card the first part names (its
relation, its kin), named by the first part's answer, of the sex the pronoun says or of none canon says. Else it is
what the first part names, when that agrees ("who is Ebba Skell and what does she do"); "it" never stands for a
person, "he" never for a woman, a place or a group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.ontology import base_ontology
from canon.wording import in_prose
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["PERSONAL", "PRONOUN", "agrees", "asks_of_another", "chained", "said_of", "sex"]

#: The types a personal pronoun ("he", "she") may stand for.
_PEOPLE = frozenset({"Person", "NPC", "PC", "Deity"})
_RELATIONS = base_ontology().relation_types
_MALE = frozenset({"he", "him", "his"})
_FEMALE = frozenset({"she", "her", "hers"})
#: A pronoun of the second part: the first one stands for whom it asks about.
PRONOUN = re.compile(r"\b(?:it|its|there|they|them|their|he|she|him|his|her|that)\b", re.IGNORECASE)
PERSONAL = re.compile(r"\b(?:he|she|him|his|her)\b", re.IGNORECASE)
#: Words after which "her" is no possessive ("what happened to her after", "did they find her at all").
_NOT_OWNED = frozenset(
    {
        "after",
        "at",
        "before",
        "by",
        "for",
        "from",
        "in",
        "on",
        "to",
        "with",
        "and",
        "or",
        "then",
        "now",
        "again",
    }
)
#: "who was the Thane before Ebba Thane", "who was Reeve in 430": who held it then, another than the one named.
_IN_TIME = re.compile(r"\b(?:before|after|in\s+(?:the\s+)?(?:year\s+)?-?\d+)\b", re.IGNORECASE)
_IDENTITY = re.compile(r"^\s*(?:who|what)\s+(?:is|was|are|were)\s+(?!the\s+\w+\s+of\b)", re.IGNORECASE)


def sex(fact: CanonFact) -> str | None:
    """Return the sex a card says ("male", "female"), or None."""
    for line in fact.facts:
        found = re.search(r"\bsex: (male|female)\s*$", line)
        if found:
            return found[1]
    return None


def agrees(pronoun: str, kind: str | None, sexed: str | None) -> bool:
    """Return whether a pronoun may stand for an entity of a type (None: not known) and sex."""
    word = pronoun.casefold()
    if word in _MALE | _FEMALE:
        person = kind is None or kind in _PEOPLE
        return person and sexed != ("female" if word in _MALE else "male")
    if word in ("it", "its"):
        return kind not in _PEOPLE
    return True


def said_of(second: str, name: str) -> str:
    """Return the second part with its first pronoun made the name: "what was her trade" → "what was Brisca
    Tarrow's trade"; "who forged it" → "who forged the Sword of Tamsk"."""
    found = PRONOUN.search(second)
    if found is None:
        return second
    word = found[0].casefold()
    after = second[found.end() :].split()
    owned = word in ("its", "their", "his") or (
        word == "her" and bool(after) and after[0].casefold().strip("?.!,") not in _NOT_OWNED
    )
    said = possessive(name) if owned else name
    return second[: found.start()] + said + second[found.end() :]


def asks_of_another(first: str) -> bool:
    """Return whether a first part asks "who" of someone or something else: its answer is another ("who leads
    the Wardens", "who was Maren's mother", "who was Thane before Ebba"), not "who is Maren"."""
    if re.match(r"^\s*who\b", first, re.IGNORECASE) is None:
        return False
    return not _IDENTITY.match(first) or _IN_TIME.search(first) is not None


def _tied(named: CanonFact) -> dict[str, str | None]:
    """Return the names tied to a card, its relations' other ends and its kin, each with its type where no other
    than a person may stand there ("Person"), or a place or a thing only (None: not a person), or "" (either)."""
    names: dict[str, str | None] = {}
    for relation in named.relations:
        rule = _RELATIONS.get(relation.predicate.upper())
        mine = relation.subject == named.entity_name
        ends: Sequence[str] = (rule.to_types if mine else rule.from_types) if rule else ()
        people = [t for t in ends if t in _PEOPLE]
        kind = "" if not ends else (None if not people else "Person" if len(people) == len(ends) else "")
        names.setdefault(relation.object if mine else relation.subject, kind)
    for kin in named.kin.ties.values() if named.kin else ():
        names.update((n, "Person") for n in kin if n not in names)
    names.pop(named.entity_name, None)
    return names


def chained(first: str, second: str, said: str, facts: Sequence[CanonFact], named: CanonFact | None) -> str:
    """Return the second part said of the first part's answer when its personal pronoun agrees with it, else of
    what the first part names (`named`), else as asked (see the module docstring); `said`: the first part's
    answer."""
    found = PERSONAL.search(second)
    if found is None or named is None or not asks_of_another(first):
        return second
    pronoun = found[0]
    if named.step is not None and agrees(pronoun, named.entity_type, sex(named)):
        return said_of(second, named.entity_name)  # "Maren's mother": the card the step found is the answer
    cards = {f.entity_name: f for f in facts}
    sexes = named.kin.sexes if named.kin else {}
    words = set(fold_words(first))
    told = said.casefold()
    answers = []
    ends = {**_tied(named), **{name: card.entity_type for name, card in cards.items()}}
    for name, end in ends.items():
        card = cards.get(name)
        sexed = (sex(card) if card else None) or sexes.get(name)
        at = told.find(name.casefold())
        kind = "Thing" if end is None else end or None
        if at >= 0 and not set(fold_words(name)) & words and agrees(pronoun, kind, sexed):
            answers.append((at, name))
    if answers:
        return said_of(second, min(answers)[1])
    if agrees(pronoun, named.entity_type, sex(named)):
        return said_of(second, in_prose(named.entity_name, named.entity_type if is_event(named) else None))
    return second
