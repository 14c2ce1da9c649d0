"""When someone took an office, and how long they held it, from the spans on their card (`retrieval.offices`):
"when did Wynna Brack become High Steward?", "since when has she been High Steward?", "how long has Wynna Brack
been High Steward?", "how long was Aldous Brack High Steward?".

The span is said as the card says it ("since year 731 of the Lantern Age"); a length counts whole years from its
start to its end, or to the story's date (the card's `life.now`) for one held today ("about": a key gives no
more than the year asked of it). A span kept for the GM is on no player's card: the question reads as of one
canon gives no such office. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import title_phrase
from memory.knowledge.answer_models import Office
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.offices import bare_title, last_key, title_meant, today_key

__all__ = ["office_since_answer"]

_BECAME = re.compile(
    r"^\s*(?:when|what\s+year|in\s+what\s+year|since\s+when)\s+(?:did|has|have|was|were)\s+(?P<rest>.+?)\s*\??$",
    re.IGNORECASE,
)
_HOW_LONG = re.compile(
    r"^\s*(?:for\s+)?how\s+(?:long|many\s+years)\s+(?:has|have|had|was|were|did)\s+(?P<rest>.+?)\s*"
    r"(?:\bfor)?\s*\??$",
    re.IGNORECASE,
)
#: The words between the one named and the office: "… become (the) High Steward", "… served as High Steward".
_TOOK = re.compile(
    r"^(?:(?:become|became|been|made|named|elected|serve\s+as|served\s+as|take\s+office\s+as|took\s+office\s+as|"
    r"(?:hold|held)\s+the\s+(?:office|title|post)\s+of)\s+)?(?:the\s+)?(?P<title>.+)$",
    re.IGNORECASE,
)


def _held(fact: CanonFact, title: str) -> Office | None:
    """Return the span of the office a question's title names on a card (the latest, held twice), or None."""
    bare = bare_title(title)
    meant = title_meant(bare, [o.title for o in fact.offices])
    spans = [o for o in fact.offices if meant is not None and bare_title(o.title) == meant]
    return spans[-1] if spans else None


def _card(facts: Sequence[CanonFact], who: str) -> tuple[int, CanonFact] | None:
    """Return the card of the one named (every word of theirs typed), of those who held an office."""
    words = set(fold_words(who))
    found = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if f.offices and words and words <= set(fold_words(f.entity_name)) | set(fold_words(f.matched))
    ]
    return found[0] if found else None


def _split(rest: str, facts: Sequence[CanonFact]) -> tuple[int, CanonFact, Office] | None:
    """Return the one a question names and the span of the office it asks, the words after "when did" split
    where a holder's name ends and a title they held begins ("Wynna Brack | become High Steward")."""
    words = rest.split()
    for at in range(1, len(words)):
        card = _card(facts, " ".join(words[:at]))
        took = _TOOK.match(" ".join(words[at:]))
        if card is None or took is None:
            continue
        office = _held(card[1], took["title"])
        if office is not None and office.span:
            return card[0], card[1], office
    return None


def _years(office: Office, now: str | None) -> str | None:
    """Return how long a span lasted, or has lasted to the story's date, in words; None when not known."""
    end = office.end_key if office.ended else today_key(now)
    if office.start_key is None or end is None:
        return None
    years = (last_key(end) // 10000) - (office.start_key // 10000)
    if years < 1:
        return "less than a year"
    return f"about {years} year{'' if years == 1 else 's'}"


def office_since_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when someone took the office a question names, or how long they held it (see the module
    docstring), or None when it asks neither or their card holds no such span."""
    how_long = _HOW_LONG.match(question)
    asked = how_long or _BECAME.match(question)
    if asked is None or not any(f.offices for f in facts):
        return None
    found = _split(asked["rest"], facts)
    if found is None:
        return None
    number, fact, office = found
    name, title = fact.entity_name, title_phrase(office.title)
    said = f"{name} {'has been' if office.current else 'was'} {title} {office.span}"
    if how_long is not None:
        length = _years(office, fact.life.now if fact.life else None)
        if length is not None:
            said = f"{name} {'has been' if office.current else 'was'} {title} for {length}, {office.span}"
    return f"{said}. [{number}]", number
