"""Who founded something: "who founded the Lantern Circle", "who started the Ember Wardens", "the Lantern Circle
was founded by whom", "who is the founder of Hallowforge".

Canon may hold the founder three ways, read in this order on the cards the question found:
1. an attribute of the thing founded kept under a founder's name (`founder`, `founders`, `founded_by`, `started
   by`, `established by`; a family tree's `founding_ancestor`): "The Lantern Circle's founder is Wenlow
   Harrowgate.";
2. a tie the campaign's ontology gives a founder (FOUNDED, FOUNDER_OF from the founder; FOUNDED_BY from what was
   founded): "Wenlow Harrowgate founded the Lantern Circle.";
3. an event named for the founding ("Founding of the Ember Wardens", "The Foundation of Hallowforge") with those
   who took part: "Wenlow Harrowgate founded the Ember Wardens, at the Founding of the Ember Wardens in year 310
   of the Hollow Crown."
A card holds only what the asker may see, so a GM-only founder, tie or participant is never named to a player;
when canon holds the founding's date only, the question is left to the forms that say the date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, relation_sentence
from canon.wording.relations import is_or_are, possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["asks_founder", "founder_answer"]

_FOUNDING = r"(?:found|founded|founds|start|started|starts|establish|established|set\s+up|form|formed)"
_ASKS = re.compile(
    rf"^\s*(?:who|whom|which\s+\w+)\b.*\b{_FOUNDING}\b"
    r"|\b(?:founded|started|established|formed|set\s+up)\s+by\s+(?:whom|who)\b"
    r"|^\s*who\b.*\bfounders?\b"
)
#: The attributes a table keeps a founder under ("founder", "founded_by": read as "founded by").
_ATTRIBUTE = re.compile(
    r"founders?|founded[ _]by|started[ _]by|established[ _]by|founding[ _](?:father|mother|ancestor)"
)
#: Ties from the founder to what was founded, and from what was founded to its founder.
_FROM_FOUNDER = ("FOUNDED", "FOUNDER_OF")
_TO_FOUNDER = ("FOUNDED_BY",)
#: An event's name that says it was a founding.
_FOUNDING_EVENT = re.compile(r"\b(?:founding|foundation|establishment|founded|raising)\b", re.IGNORECASE)


def asks_founder(question: str) -> bool:
    """Return whether a question asks who founded something ("who started the Ember Wardens")."""
    return bool(_ASKS.search(question.casefold()))


def _by_attribute(fact: CanonFact) -> str | None:
    typed = fact.typed(_ATTRIBUTE)
    if typed is None:
        return None
    attribute, value = typed
    return f"{possessive(fact.entity_name)} {attribute} {is_or_are(attribute)} {value}"


def _by_tie(fact: CanonFact) -> str | None:
    for predicate in _FROM_FOUNDER:
        founders = fact.tied(predicate)
        if founders:
            return relation_sentence(predicate, names_list(founders, opens=True), fact.entity_name)
    for predicate in _TO_FOUNDER:
        founders = fact.tied(predicate, to_me=False)
        if founders:
            return relation_sentence(predicate, fact.entity_name, names_list(founders))
    return None


def _when(event: CanonFact) -> str:
    """Return the words saying when an event took place ("in year 310 of the Hollow Crown"), or nothing."""
    said = re.compile(rf"^{re.escape(event.entity_name)} took place ((?:on|in) .+)$")
    return next((f" {m[1]}" for line in event.facts if (m := said.match(line))), "")


def _founded_in(event: CanonFact, founded: CanonFact | None) -> str | None:
    """Return who founded a thing as a founding event's card says it, or None."""
    if not _FOUNDING_EVENT.search(event.entity_name):
        return None
    name = founded.entity_name if founded is not None else None
    if name is not None:
        own = [w for w in fold_words(name) if w != "the"]
        if not own or not set(own) <= set(fold_words(event.entity_name)):
            return None  # the founding of something else
    founders = event.tied("PARTICIPATED_IN")
    if not founders:
        return None
    what = in_prose(name) if name is not None else None
    at = (
        f"the {event.entity_name}"
        if not event.entity_name.startswith("The ")
        else in_prose(event.entity_name)
    )
    if what is None:
        return f"{names_list(founders, opens=True)} took part in {at}{_when(event)}"
    return f"{names_list(founders, opens=True)} founded {what}, at {at}{_when(event)}"


def founder_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who founded the thing the question names (see the module docstring), or None."""
    if not asks_founder(question):
        return None
    things = [(n, f) for n, f in enumerate(facts, 1) if not is_event(f) and not f.step_span]
    for number, fact in things:
        said = _by_attribute(fact) or _by_tie(fact)
        if said is not None:
            return f"{said[0].upper()}{said[1:]}. [{number}]", number
    founded = things[0][1] if things else None
    for number, fact in enumerate(facts, 1):
        said = _founded_in(fact, founded) if is_event(fact) else None
        if said is not None:
            return f"{said}. [{number}]", number
    return None
