"""Whether something held for a span is over as a reader reads it, and its sentence said in the past.

One rule for cards and answers alike: a span is over when its end, as the reader may read it (a date in an era
hidden from them is no date), falls on or before the point read at ("now": the story's date, or the date a card is
asked as of); when no such point is known, a span that has an end at all is over. A card read that way says a tie
or title that is over in the past ("Saska Orme was an ally of Hale Brun (from year 605 to 618 of …)").
"""

from __future__ import annotations

import re

from canon.models import StatementKind, StatementView, Validity
from canon.wording.context import Wording

__all__ = ["dated_span", "in_past", "is_over"]

#: The present forms of a sentence's first verb, and their past ("is" a rival, "has" the Bell).
_PAST = {" is ": " was ", " are ": " were ", " has ": " had ", " have ": " had "}


def _key(words: Wording, text: str | None, key: int | None) -> int | None:
    return key if text and words.dated(text) else None


def dated_span(words: Wording, v: Validity, now: int | None) -> tuple[int | None, int | None, bool, bool]:
    """Return a span's start and end keys as the reader may read them (a date in an era hidden from them is no
    date), whether it is over (ended by `now`, or ended at all when there is no `now`) and whether it holds at
    `now`."""
    start = _key(words, v.world_from, v.world_from_key)
    end = _key(words, v.world_until, v.world_until_key)
    ended = (end is not None and (now is None or end <= now)) or (now is None and v.world_until is not None)
    begun = start is None or now is None or start <= now
    return start, end, ended, begun and not ended


def is_over(view: StatementView, words: Wording, validity: Validity) -> bool:
    """Tell whether a card read in tense (`Wording.tensed`) says a statement in the past: a tie or a fact held
    for a span (`validity`, as the card shows it) that is over at the card's point (`Wording.now_key`)."""
    if not words.tensed or view.statement.kind == StatementKind.STATE or not validity.world_until:
        return False
    return dated_span(words, validity, words.now_key)[2]


#: Verbs whose past is not made by "-ed" ("leads" → "led").
_IRREGULAR = {
    "leads": "led",
    "holds": "held",
    "keeps": "kept",
    "knows": "knew",
    "teaches": "taught",
    "wears": "wore",
    "bears": "bore",
    "rides": "rode",
    "sits": "sat",
    "stands": "stood",
    "does": "did",
    "goes": "went",
}


def in_past(sentence: str, subject: str) -> str:
    """Return a sentence led by its subject with its first verb in the past ("Saska Orme is an ally of …" → "…
    was an ally of …", "Idra Venn leads the Lamplighters" → "… led …"); a sentence of another form is returned
    as it is (its span still says when)."""
    if not sentence.startswith(subject + " "):
        return sentence
    rest = sentence[len(subject) :]
    for present, past in _PAST.items():
        if rest.startswith(present):
            return subject + past + rest[len(present) :]
    verb, space, tail = rest[1:].partition(" ")
    if not space or not re.fullmatch(r"[a-z]{3,}s", verb) or verb.endswith("ss"):
        return sentence
    said = _IRREGULAR.get(verb) or (
        verb[:-3] + "ied" if verb.endswith("ies") else verb[:-1] + ("d" if verb.endswith("es") else "ed")
    )
    return f"{subject} {said} {tail}"
