"""What happened at an event the question names ("What happened at the Siege of Fenwatch?"): its card's day
and place, what its description says it was, and its outcome.

"What happened at Fenwatch?" names a place: the events there are `answer_happenings`' to list. A question naming
an event by all the words of its name asks about that event, which a place's list does not answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import opening
from memory.fulltext import STOPWORDS
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences

__all__ = ["event_era", "event_told", "shared_event"]


def _named(question: str, name: str) -> bool:
    """Return whether the question holds every word of the name (stop words aside)."""
    asked = set(fold_words(question))
    words = [w for w in fold_words(name) if w not in STOPWORDS]
    return bool(words) and all(has_word(asked, w) for w in words)


def event_told(
    question: str, facts: Sequence[CanonFact], events: Sequence[tuple[int, CanonFact, str | None]]
) -> tuple[str, int] | None:
    """Return what happened at the first event card the question names by its whole name, or None.

    `events`: the event cards found (number, card, its sentence of where and when it took place)."""
    for number, fact, placed in events:
        aliases = [a.strip() for a in (attribute_value(fact, "aliases") or "").split(",") if a.strip()]
        if not any(_named(question, name) for name in (fact.entity_name, *aliases)):
            continue  # named whole, by its name or another it goes by ("the Plague Year")
        described = fact.description or attribute_value(fact, "description") or ""
        outcome = (attribute_value(fact, "outcome") or "").strip().rstrip(".")
        told = [opening(placed, fact.entity_name, "Event") + "."] if placed else []
        told += [s if s.endswith((".", "!", "?")) else s + "." for s in sentences(described)]
        told += [f"Its outcome: {outcome}."] if outcome else []
        if told and (described or outcome):
            return " ".join(told) + f" [{number}]", number
    return None


def shared_event(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the event one card found took part in and another card found is the place of, when the event's
    name holds a word of the question ("when did the wyrm come to Tallowmere": the Waking of the Wyrm, at
    Tallowmere): where and when it took place, and who of those found took part. None when no event or several
    events fit."""
    asked = set(fold_words(question))
    places = {
        r.subject: (number, fact)
        for number, fact in enumerate(facts, 1)
        for r in fact.relations
        if r.predicate.upper() == "OCCURRED_AT" and r.object == fact.entity_name
    }
    shared = {
        (r.object, number, fact.entity_name)
        for number, fact in enumerate(facts, 1)
        for r in fact.relations
        if r.predicate.upper() == "PARTICIPATED_IN" and r.subject == fact.entity_name and r.object in places
    }
    fit = [s for s in shared if any(has_word(asked, w) for w in fold_words(s[0]) if w not in STOPWORDS)]
    if len({event for event, _, _ in fit}) != 1:
        return None
    event, number, _ = sorted(fit, key=lambda s: s[1])[0]
    at, place = places[event]
    line = next((f for f in place.facts if f.startswith(event + " took place ")), None)
    took = next((f for f in facts[number - 1].facts if f.endswith(event) or f" {event} " in f), None)
    if line is None:
        return None
    said = f"{opening(line, event, 'Event')}. [{at}]"
    return (f"{said} {took}. [{number}]" if took else said), at


_ERA_ASKED = re.compile(r"\b(?:which|what)\s+(?:era|age)\b")
_OF_ERA = re.compile(r"\byear [\d,]+ of (?P<era>.+?)$")


def event_era(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the era an event the question names whole took place in ("which age was the Siege of Fenwatch
    in?"), as the calendar's words of its day say it, or None."""
    if not _ERA_ASKED.search(question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        if fact.entity_type != "Event" or not _named(question, fact.entity_name):
            continue
        head = fact.entity_name + " took place "
        for line in (f for f in fact.facts if f.startswith(head) and "during" not in f):
            era = _OF_ERA.search(line)
            if era is not None:
                told = opening(line, fact.entity_name, "Event")
                told = "the" + told[3:] if told.startswith("The ") else told
                return f"In {era['era']}: {told}. [{number}]", number
    return None
