"""How old a place or a group is, from its founding: "how old is Saltgate?", "how old are the Saltwrights?".

A card's `founded` (a gazetteer's place, a region, a faction: a date the file writes in the calendar's words) is
read as the asker may see it (`card_founding`: one kept for the GM, or in an era hidden from the asker, is no
founding here). The age counts whole years from it to the story's date (its latest dated scene, else the
calendar's `today`), as a person's age counts from the birth (`answer_ages`), and says both dates; without a
story's date the answer says when it was founded. "When was Saltgate founded?" reads the card's own line ("Saltgate
was founded on 3 Bloom, year 601 of …").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import UNKNOWN, DateError, WorldDate, parse_date
from canon.models import EntityCard, StatementKind
from canon.wording import PLAIN, Wording
from canon.wording.relations import names_many
from memory.knowledge.answer_models import Founding
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import AGE_ASKING, fold_words

__all__ = ["card_founding", "date_or_none", "founded_age", "years_between"]

_HOW_OLD = re.compile(r"\bhow old\b|\bwhat age\b")
#: The attribute a founding date is kept under (a faction's, a place's `founded`).
FOUNDED = "founded"


def card_founding(card: EntityCard, words: Wording = PLAIN, now: str | None = None) -> Founding | None:
    """Return when a card's entity was founded as the reader may see it (a date in an era hidden from them, or
    written `unknown`, is none), with the story's date `now`; None when its card says no founding."""
    said = next(
        (
            v.statement.value
            for v in card.facts
            if v.statement.kind == StatementKind.ATTRIBUTE and v.statement.predicate == FOUNDED
        ),
        None,
    )
    seen = words.seen(said) if said else None
    if not seen or seen == UNKNOWN:
        return None
    return Founding(
        founded=seen,
        founded_words=words.when(seen),
        now=now,
        now_words=words.date(now) if now else None,
    )


def date_or_none(text: str | None) -> WorldDate | None:
    """Return the date a text says, or None when it says none or cannot be read."""
    try:
        return parse_date(text) if text else None
    except DateError:
        return None


def years_between(start: WorldDate, end: WorldDate) -> tuple[int, bool] | None:
    """Return the whole years from one date to a later one (years are absolute: of any eras), and whether that
    count is exact (both give the month)."""
    if start.year is None or end.year is None:
        return None
    years = end.year - start.year
    exact = start.month is not None and end.month is not None
    if exact and ((end.month or 0), (end.day or 0)) < ((start.month or 0), (start.day or 0)):
        years -= 1
    return years, exact


def founded_age(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how old the place or group the question names is, counted from its founding, or None when the
    question asks no age or names nothing founded the asker may see."""
    if not _HOW_OLD.search(question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        founding = fact.founding
        if founding is None or set(fold_words(fact.matched)) <= AGE_ASKING:
            continue  # found by the asking words alone ("Old Quay" of "how old") is not the one asked of
        name = fact.entity_name
        is_, was = ("are", "were") if names_many(name) else ("is", "was")
        founded, now = date_or_none(founding.founded), date_or_none(founding.now)
        counted = years_between(founded, now) if founded and now else None
        if counted is None or counted[0] < 0:
            return (
                f"{name} {was} founded {founding.founded_words}; canon holds no date for today to count "
                f"{'their' if is_ == 'are' else 'its'} age from. [{number}]",
                number,
            )
        years, exact = counted
        age = f"{years} year{'' if years == 1 else 's'}" if exact else f"about {years} years"
        return (
            f"{name} {is_} {age} old: founded {founding.founded_words}, and the story stands at "
            f"{founding.now_words}. [{number}]",
            number,
        )
    return None
