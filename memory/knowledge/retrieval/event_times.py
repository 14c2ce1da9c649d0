"""The time an event a question names stands for: "who was Mayor of Redgulch *when the Lucky Strike Fire
happened*", "who led the Guild *during the Long Strike*", "… *at the time of the Siege*". The event is a card the
question names after such words, dated as the asker may read it (`CanonFact.when_key`), and its day is said in
the calendar's words as its card says it ("on 2 Highsun, year 102 of the Lode Years"). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canon.wording import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.offices import last_key

__all__ = ["EventTime", "event_time"]

#: Words before an event that ask the time it took place.
_AT_TIME = re.compile(
    r"\b(?:when|while|during|throughout|as|at\s+the\s+time\s+of|in\s+the\s+time\s+of|in\s+the\s+days\s+of|"
    r"in\s+the\s+year\s+of|by\s+the\s+time\s+of)\s+(?P<rest>.+)$"
)
_ON = re.compile(r" took place (?:at .+? )?(?P<when>(?:on|in) .+)$")


@dataclass(frozen=True, slots=True)
class EventTime:
    """An event a question asks the time of: its card's number, the first and last world keys of its day (or
    month, or year), and how it is said ("when the Lucky Strike Fire took place, on 2 Highsun, …")."""

    number: int
    lo: int
    hi: int
    said: str


def event_time(question: str, facts: Sequence[CanonFact]) -> EventTime | None:
    """Return the time of the event the question names after "when", "during" or "at the time of", or None."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    found = _AT_TIME.search(folded)
    if found is None:
        return None
    rest = set(fold_words(found["rest"]))
    named = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if f.entity_type == "Event" and f.when_key is not None and fold_words(f.matched)
        if set(fold_words(f.matched)) <= rest
    ]
    if not named:
        return None
    number, event = max(named, key=lambda nf: len(nf[1].matched))
    key = event.when_key or 0
    day = next((m["when"] for line in event.facts if (m := _ON.search(line))), None)
    said = f"when {in_prose(event.entity_name, 'Event')} took place" + (f", {day}" if day else "")
    return EventTime(number, key, last_key(key), said)
