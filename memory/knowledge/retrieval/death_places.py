"""Where someone died and what they died in, as a file says it: a person's `died_at` (DIED_AT) and an event's
`deaths` (DIED_IN). "Where did X die?" is answered from the first, else the event; "who died in the Battle of
X?" names those the event's `deaths` lists. Only what the card shows is read: a death kept for the GM is not on a
player's card."""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import relation_sentence
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["death_place", "died_here", "listed_dead"]


def death_place(fact: CanonFact) -> str | None:
    """Return where the card's person died ("Garrick Thorne died at Ember Ford"), else the event they died in,
    or None when the card says neither."""
    places = fact.tied("DIED_AT", to_me=False)
    if places:
        return relation_sentence("DIED_AT", fact.entity_name, in_prose(places[-1], "Location"))
    events = fact.tied("DIED_IN", to_me=False)
    if events:
        return relation_sentence("DIED_IN", fact.entity_name, in_prose(events[-1], "Event"))
    return None


def listed_dead(event: CanonFact) -> list[str]:
    """Return those an event's card says died in it (its `deaths`), in the card's order."""
    return event.tied("DIED_IN")


def died_here(question: str, facts: Sequence[CanonFact]) -> tuple[list[str], str, int] | None:
    """Return those a place named in the question saw die by their `died_at` (DIED_AT), the place's name and its
    card's number, or None when no such place is named or none died there."""
    asked = set(fold_words(question))
    for number, fact in enumerate(facts, 1):
        dead = fact.tied("DIED_AT")
        words = [w for w in fold_words(fact.entity_name) if w != "the"]
        if dead and words and all(w in asked for w in words):
            return dead, fact.entity_name, number
    return None
