"""A life asked at a year: "how old was Linnet in 352 LR?", "was Tobias alive in 345?", "was Agnes dead by 360?".

A card's life (`CanonFact.life`) dates its birth and death on the world's clock, whose years run on across eras
("year 352 of the Long Reckoning" is year 352), so the year a question names ("in 352 LR", "in the year 352", "by
352") is compared with them as it is typed, and said back as it was typed: an age then (about, as a year has no
day), not yet born, alive, dead since a date, or died that very year. A life canon does not date says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import DateError, WorldDate, parse_date
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import AGE_ASKING, fold_words
from memory.knowledge.retrieval.years import BORN_OR_DIED_IN

__all__ = ["lived_answer", "year_answer"]

#: The year asked and the words saying it as typed ("in 352 LR", "in the year 352 of the long reckoning").
_AT_YEAR = re.compile(
    r"\b(?P<by>in|by|during)\s+(?P<said>(?:the\s+)?(?:year\s+)?(?P<year>\d{1,6})"
    r"(?:\s+(?:of\s+the\s+)?(?!and\b|or\b|when\b|while\b)[a-z][a-z.'’]*){0,4})\s*\??\s*$",
    re.IGNORECASE,
)
#: The words asking an age or a life: a card found by them alone ("Old Agnes" by "how old") is not asked of.
_ASKING = (AGE_ASKING - {"older", "elder", "younger"}) | {"was", "were", "alive", "dead", "living"}
_HOW_OLD = re.compile(r"^\s*(?:how old|what age)\s+(?:was|were|is|will)\b", re.IGNORECASE)
_ALIVE = re.compile(
    r"^\s*(?:was|were|is)\b.*\b(?:(?P<alive>alive|living|still\s+alive)|(?P<dead>dead|deceased))\b",
    re.IGNORECASE,
)


def _year(text: str | None) -> int | None:
    try:
        date: WorldDate | None = parse_date(text) if text else None
    except DateError:
        return None
    return None if date is None else date.year


def _asked(question: str) -> tuple[int, str, str] | None:
    """Return the year asked, the words saying it as typed, and the word before them ("in", "by"), or None."""
    found = _AT_YEAR.search(" ".join(question.replace("’", "'").split()))
    if found is None:
        return None
    said = found["said"].rstrip("?").strip()
    return int(found["year"]), f"year {said}" if said.isdigit() else said, found["by"].casefold()


def _person(question: str, facts: Sequence[CanonFact]) -> tuple[int, CanonFact] | None:
    """Return the first card with a dated life the question names by its own words (not the year's)."""
    folded = question.casefold()
    lived = [(n, f) for n, f in enumerate(facts, 1) if f.life is not None and (f.life.born or f.life.died)]
    # "old" of "how old" found Old Agnes: a card found by the asking words alone is not the one asked of.
    named = [(n, f) for n, f in lived if not set(fold_words(f.matched)) <= _ASKING] or lived
    named.sort(key=lambda nf: (folded.find(nf[1].matched.casefold()) < 0, nf[0]))
    return named[0] if named else None


def year_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return an age at a year, or whether someone lived then, from their card's life; None when the question
    asks neither or names no year."""
    how_old, alive = _HOW_OLD.search(question), _ALIVE.search(question)
    if how_old is None and alive is None:
        return None
    asked = _asked(question)
    found = _person(question, facts)
    if asked is None or found is None:
        return None
    year, said, by = asked
    number, fact = found
    life = fact.life
    assert life is not None
    name = fact.entity_name
    born, died = _year(life.born), _year(life.died)
    if born is not None and year < born:
        text = (
            f"No: {name} was not yet born in {said}; born {life.born_words}"
            if alive
            else (f"{name} was not yet born in {said}: born {life.born_words}")
        )
        return f"{text}. [{number}]", number
    if died is not None and (year > died or (year == died and by == "by")):
        verdict = "No: " if alive and alive["alive"] else "Yes: " if alive else ""
        before = f", before {said}" if year > died else ""
        return f"{verdict}{name} died {life.died_words}{before}. [{number}]", number
    if died is not None and year == died:
        return f"{name} died {life.died_words}, in that very year. [{number}]", number
    if how_old is not None:
        if born is None:
            return f"Nothing the table knows says when {name} was born. [{number}]", number
        return (
            f"{name} was about {year - born} years old in {said}: born {life.born_words}. [{number}]",
            number,
        )
    assert alive is not None
    if died is None and fact.state_terminal:
        return (
            f"Nothing the table knows says when {name} died; {name} is {fact.state} now. [{number}]",
            number,
        )
    verdict = "Yes" if alive["alive"] else "No"
    lived = [f"born {life.born_words}"] if life.born_words else []
    lived += [f"died {life.died_words}"] if life.died_words else []
    return f"{verdict}: {name} was alive in {said}: {', '.join(lived)}. [{number}]", number


def lived_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who was born (or died) in the year asked, each with the day canon gives, or that nobody the
    table knows was; None when the question asks no such thing."""
    who = BORN_OR_DIED_IN.match(" ".join(question.casefold().replace("’", "'").split()))
    asked = _asked(question) if who is not None else None
    if who is None or asked is None:
        return None
    year = asked[0]
    born = who["born"] is not None
    found = [
        (n, f, f.life.born_words if born else f.life.died_words)
        for n, f in enumerate(facts, 1)
        if f.life is not None and _year(f.life.born if born else f.life.died) == year
    ]
    verb = "was born" if born else "died"
    if not found:
        return None
    said_each = "; ".join(f"{f.entity_name} {verb} {words}" for _, f, words in found)
    return f"{said_each}. [{found[0][0]}]", found[0][0]
