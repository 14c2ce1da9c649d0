"""How long ago something happened, counted to the story's date: "how long ago was the Siege of X?", "how many
years ago did Y die?", "how long since Z was founded?".

An event counts from its day (its card's date, as the asker may see it: one in an era hidden from them is none),
a death from the card's death, a founding from `founded`; the story's date is its latest dated scene, else the
calendar's `today`. The answer says both dates, and "about" where either gives only a year. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import UNKNOWN
from canon.models import EntityCard
from canon.wording import PLAIN, Wording
from canon.wording.relations import opening
from memory.knowledge.answer_models import Founding
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_founded import date_or_none, years_between
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["ago_answer", "card_happened"]

_AGO = re.compile(
    r"\bhow\s+(?:long|many\s+years)\s+ago\b|\bhow\s+(?:long|many\s+years)\s+(?:has\s+it\s+been\s+|is\s+it\s+)?since\b"
)
_DIED = re.compile(r"\b(?:die|died|death|killed|slain|fell)\b")
_FOUNDED = re.compile(r"\b(?:found|founded|founding|built|established)\b")
#: Words of the asking, which find no card by themselves ("Long Ago Hill" is not what "how long ago" asks).
_ASKING = frozenset(
    {"how", "long", "many", "years", "year", "ago", "since", "was", "did", "it", "been", "has"}
)


def card_happened(card: EntityCard, words: Wording = PLAIN, now: str | None = None) -> Founding | None:
    """Return when an event took place as the reader may see it, with the story's date `now` (the shape of a
    founding: the day, then today), or None for an undated event or anything else."""
    entity = card.entity
    if entity.type != "Event":
        return None
    seen = words.seen(entity.validity.world_from)
    if not seen or seen == UNKNOWN:
        return None
    return Founding(
        founded=seen, founded_words=words.when(seen), now=now, now_words=words.date(now) if now else None
    )


def _since(question: str, fact: CanonFact) -> tuple[str, str, str, str | None, str | None] | None:
    """Return what the question counts from on this card: (the deed said, its date, in words, today, in words)."""
    folded = question.casefold()
    life = fact.life
    if _DIED.search(folded) and life is not None and life.died and life.died_words:
        return f"{fact.entity_name} died", life.died, life.died_words, life.now, life.now_words
    if _FOUNDED.search(folded) and fact.founding is not None:
        f = fact.founding
        return f"{fact.entity_name} was founded", f.founded, f.founded_words, f.now, f.now_words
    if fact.happened is not None:
        h = fact.happened
        return f"{fact.entity_name} took place", h.founded, h.founded_words, h.now, h.now_words
    return None


def ago_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how long ago the event, death or founding a question asks about was (see the module docstring),
    or None when it asks no such thing or the cards date nothing it asks."""
    if not _AGO.search(question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        if set(fold_words(fact.matched)) <= _ASKING:
            continue
        since = _since(question, fact)
        if since is None:
            continue
        deed, then, then_words, now, now_words = since
        start, end = date_or_none(then), date_or_none(now)
        counted = years_between(start, end) if start and end else None
        if counted is None or counted[0] < 0 or not now_words:
            said = opening(f"{deed} {then_words}", fact.entity_name, "Event")
            return f"{said}; canon holds no date for today to count from. [{number}]", number
        years, exact = counted
        span = f"{years} year{'' if years == 1 else 's'}" if exact else f"about {years} years"
        if years == 0:
            span = "less than a year" if exact else "this very year"
        ago = span if years == 0 and not exact else f"{span} ago"
        said = opening(
            f"{deed} {ago}: {then_words}; the story stands at {now_words}", fact.entity_name, "Event"
        )
        return f"{said}. [{number}]", number
    return None
