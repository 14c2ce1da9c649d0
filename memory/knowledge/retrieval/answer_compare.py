"""Which of two is larger, came first or is older, when canon keeps a value for each: "is Belgarun Deep bigger
than Hallowforge", "which is larger, Hallowforge or Cinderholt", "which came first, the Sundering of the Gate or
the Fall of Cinderholt", "who is older, Old Grimmick or Dagna" (one told by an age, the other by a birth).

Both values are said, and which wins: "Belgarun Deep is bigger: Belgarun Deep's population is about 12,000
dwarves; Hallowforge's population is 2400." A place is measured by its population (typed, or counted in its
description) or else by a size it keeps under one name on both cards (`area`, `size`, in one unit); amounts said
in words are ranges (`amounts`), and ranges that overlap decide nothing, which the answer says with both values.
Events are ordered by the day canon places them on, said in the calendar's words. Only what the asker may see is
on a card: a value the GM keeps is read for a player as no value at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import UNKNOWN, DateError, WorldDate, parse_date
from canon.wording import in_prose
from canon.wording.relations import is_or_are, possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.amounts import amount, unit
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_sizes import counts_people
from memory.knowledge.retrieval.answer_words import sentences

__all__ = ["compare_answer", "older_by_age"]

_BIGGER = re.compile(
    r"\b(?P<more>bigger|larger|greater|more\s+populous|more\s+people|biggest|largest|most\s+populous)\b"
    r"|\b(?P<less>smaller|less\s+populous|fewer\s+people|tinier|smallest|least\s+populous)\b"
)
_FIRST = re.compile(
    r"\b(?:came|come|comes|happened|happen|was|were|took\s+place|occurred)\s+(?P<first>first|earlier|sooner)\b"
    r"|\b(?:came|come|comes|happened|happen|was|were|took\s+place|occurred)\s+(?P<last>last|later|second)\b"
    r"|\bwhich\s+(?:is|was)\s+(?P<older>older|earlier)\b"
    r"|^\s*(?:did|was|were)\b.*\b(?:happen|come|take\s+place|occur)?\s*(?P<before>before|after)\b"
)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|did|does|do|has)\b")
#: What is measured: places, and groups by a size they keep.
_MEASURED = frozenset({"Location", "Region", "Plane", "Faction"})
#: What a place or a group keeps its size under, besides its people.
_SIZE = re.compile(r"area|size|extent|length|width|acreage|strength|numbers|headcount|troops|soldiers")
#: A size said in a unit: two are compared only in the same one ("40 square miles", "3 leagues").
_MEASURE = re.compile(r"area|size|extent|length|width|acreage")
_AGE = re.compile(r"age")


def _in_order(question: str, found: Sequence[tuple[int, CanonFact]]) -> list[tuple[int, CanonFact]]:
    """Return the first two cards in the order the question names them."""
    folded = question.casefold()
    at = {n: folded.find(f.matched.casefold()) for n, f in found}
    return sorted(found, key=lambda nf: (at[nf[0]] < 0, at[nf[0]]))[:2]


def _verdict(question: str, first_named: CanonFact, winner: CanonFact) -> str:
    if not _YES_NO.match(question.casefold()):
        return ""
    return "Yes: " if first_named is winner else "No: "


def _people(place: CanonFact) -> tuple[str, str] | None:
    """Return a place's people as its card says them, and the amount's words: typed, else its description."""
    typed = place.typed(re.compile(r"population|inhabitants"))
    if typed is not None:
        return (
            f"{possessive(place.entity_name)} {typed[0]} {is_or_are(typed[0])} {typed[1].rstrip('.')}",
            typed[1],
        )
    told = sentences(place.description or attribute_value(place, "description") or "")
    counted = next((s for s in told if counts_people(s)), None)
    return (told_of(place, counted), counted) if counted else None


def told_of(place: CanonFact, sentence: str) -> str:
    """Return a description's sentence said of its place ("In Cinderholt, a few hundred souls …")."""
    text = sentence.strip().rstrip(".")
    if place.entity_name.casefold() in text.casefold():
        return text
    return f"In {in_prose(place.entity_name)}, {text[0].lower()}{text[1:]}"


def _measure(place: CanonFact, other: CanonFact) -> tuple[str, str, bool] | None:
    """Return a place's (or a group's) size as its card says it, its amount's words, and whether the other's is
    said alike: both by people, or both by one size (an area in one unit)."""
    people = _people(place)
    if people is not None and _people(other) is not None:
        return (*people, True)
    mine, theirs = place.typed(_SIZE), other.typed(_SIZE)
    if mine is None:
        return None if people is None else (*people, False)
    alike = theirs is not None and mine[0] == theirs[0]
    if alike and _MEASURE.fullmatch(mine[0]):
        alike = unit(mine[1]) == unit(theirs[1])  # type: ignore[index]
    return (
        f"{possessive(place.entity_name)} {mine[0]} {is_or_are(mine[0])} {mine[1].rstrip('.')}",
        mine[1],
        alike,
    )


def _inside(said: str) -> str:
    """Return a sentence's words as they read after a semicolon ("the Gravel Guild's strength is …")."""
    return f"the {said[4:]}" if said.startswith("The ") else said


def _bigger(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    asked = _BIGGER.search(question.casefold())
    places = [(n, f) for n, f in enumerate(facts, 1) if f.entity_type in _MEASURED and not is_event(f)]
    if asked is None or len(places) < 2:
        return None
    (n_a, a), (n_b, b) = _in_order(question, places)
    said_a, said_b = _measure(a, b), _measure(b, a)
    if said_a is None and said_b is None:
        return None
    if said_a is None or said_b is None:
        unknown, known, number = (a, said_b, n_a) if said_a is None else (b, said_a, n_b)
        text = f"Nothing the table knows says how big {in_prose(unknown.entity_name)} is; {_inside(known[0])}"  # type: ignore[index]
        return f"{text}. [{number}]", number
    range_a, range_b = amount(said_a[1]), amount(said_b[1])
    apart = (
        range_a is not None and range_b is not None and (range_a[0] > range_b[1] or range_b[0] > range_a[1])
    )
    if not (apart and said_a[2] and said_b[2]) or range_a is None or range_b is None:
        text = f"Nothing the table knows says which is bigger: {_inside(said_a[0])}; {_inside(said_b[0])}"
        return f"{text}. [{n_a}]", n_a
    more = asked["more"] is not None
    word = re.sub(r"\s+", " ", asked["more"] or asked["less"]).replace("biggest", "bigger")
    word = word.replace("largest", "larger").replace("smallest", "smaller").replace("most ", "more ")
    word = word.replace("least ", "less ")
    verb = "has" if word.endswith("people") else "is"  # "Hallowforge has more people"
    a_more = range_a[0] > range_b[1]
    winner, loser = (a, b) if a_more == more else (b, a)
    said = {a.entity_id: said_a[0], b.entity_id: said_b[0]}
    number = n_a if winner is a else n_b
    own = said[winner.entity_id].removeprefix(f"{possessive(winner.entity_name)} ")
    text = f"{winner.entity_name} {verb} {word}: its {own}; {_inside(said[loser.entity_id])}"
    if own == said[winner.entity_id]:  # a description's sentence, said of the place
        text = f"{winner.entity_name} {verb} {word}: {own}; {_inside(said[loser.entity_id])}"
    return f"{_verdict(question, a, winner)}{text}. [{number}]", number


def _day(event: CanonFact) -> WorldDate | None:
    """Return the day canon places an event on (its ties placing it), or None."""
    me = event.entity_name.casefold()
    for r in event.relations:
        placing = r.predicate.upper() in ("OCCURRED_DURING", "OCCURRED_AT")
        if placing and r.since and r.since != UNKNOWN and r.subject.casefold() == me:
            try:
                day = parse_date(r.since)
            except DateError:
                continue
            if day.year is not None:
                return day
    return None


def _when(event: CanonFact) -> str | None:
    said = re.compile(rf"^{re.escape(event.entity_name)} took place ((?:on|in) .+)$")
    return next((m[1] for line in event.facts if (m := said.match(line))), None)


def _first(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    asked = _FIRST.search(question.casefold())
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f) and not f.step_span]
    if asked is None or len(events) < 2:
        return None
    (n_a, a), (n_b, b) = _in_order(question, events)
    day_a, day_b, when_a, when_b = _day(a), _day(b), _when(a), _when(b)
    name_a, name_b = in_prose(a.entity_name, "Event"), in_prose(b.entity_name, "Event")
    name_a = name_a[0].upper() + name_a[1:]
    if day_a is None or day_b is None or when_a is None or when_b is None:
        unknown, known, number = (a, b, n_a) if day_a is None or when_a is None else (b, a, n_b)
        said = f"; {known.entity_name} took place {_when(known)}" if _day(known) and _when(known) else ""
        return (
            f"Nothing the table knows says when {in_prose(unknown.entity_name, 'Event')} took place{said}. [{number}]",
            number,
        )
    key_a = (day_a.year, day_a.month or 0, day_a.day or 0)
    key_b = (day_b.year, day_b.month or 0, day_b.day or 0)
    vague = day_a.year == day_b.year and (
        (day_a.month is None or day_b.month is None)
        or (day_a.month == day_b.month and (day_a.day is None or day_b.day is None))
    )
    if key_a == key_b or vague:
        text = f"Nothing the table knows says which came first: {name_a} took place {when_a}; {name_b} took place {when_b}"
        return f"{text}. [{n_a}]", n_a
    earlier, later = (a, b) if key_a < key_b else (b, a)
    late = asked["last"] is not None or asked["before"] == "after"
    winner = later if late else earlier
    number = n_a if winner is a else n_b
    loser = b if winner is a else a
    word = "came later" if late else "came first"
    text = (
        f"{in_prose(winner.entity_name, 'Event')} {word}, {_when(winner)}; "
        f"{in_prose(loser.entity_name, 'Event')} took place {_when(loser)}"
    )
    verdict = ""
    if asked["before"] is not None:
        verdict = "Yes: " if winner is a else "No: "
    text = text[0].upper() + text[1:]
    return f"{verdict}{text}. [{number}]", number


def compare_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return which of two places is bigger or which of two events came first (see the module docstring)."""
    return _bigger(question, facts) or _first(question, facts)


def _lived_for(person: CanonFact, now: WorldDate | None) -> tuple[float, float, str] | None:
    """Return how many years a person has lived (least, most) and its words: by an age kept, else a birth."""
    typed = person.typed(_AGE)
    if typed is not None:
        years = amount(typed[1])
        if years is not None:
            return years[0], years[1], f"{typed[1].rstrip('.')} years old".replace(" years years", " years")
    life = person.life
    if life is None or life.born is None or life.born_words is None or now is None or now.year is None:
        return None
    try:
        born = parse_date(life.born)
    except DateError:
        return None
    if born.year is None:
        return None
    return now.year - born.year - 1, now.year - born.year, f"born {life.born_words}"


def older_by_age(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return which of two people named is older (or younger, as asked) when one or both are told by an age
    (`age: 140`), the other's birth counted to the story's date; None when canon cannot tell."""
    people = [
        (n, f) for n, f in enumerate(facts, 1) if f.entity_type in ("Person", "NPC", "PC") and not f.step_span
    ]
    if len(people) < 2:
        return None
    (n_a, a), (n_b, b) = _in_order(question, people)
    if a.typed(_AGE) is None and b.typed(_AGE) is None:
        return None
    stamp = next((f.life.now for _, f in ((n_a, a), (n_b, b)) if f.life and f.life.now), None)
    try:
        now = parse_date(stamp) if stamp else None
    except DateError:
        now = None
    lived_a, lived_b = _lived_for(a, now), _lived_for(b, now)
    if lived_a is None or lived_b is None or not (lived_a[0] > lived_b[1] or lived_b[0] > lived_a[1]):
        return _undecided(a, b, lived_a, lived_b, n_a)
    younger = re.search(r"\byounger\b", question.casefold()) is not None
    a_older = lived_a[0] > lived_b[1]
    winner = a if a_older != younger else b
    said = {a.entity_id: lived_a[2], b.entity_id: lived_b[2]}
    loser = b if winner is a else a
    number = n_a if winner is a else n_b
    word = "younger" if younger else "older"
    other = said[loser.entity_id]
    other = f"{loser.entity_name} {'was' if other.startswith('born') else 'is'} {other}"
    text = f"{winner.entity_name} is {word}, {said[winner.entity_id]}; {other}"
    return f"{_verdict(question, a, winner)}{text}. [{number}]", number


def _undecided(
    a: CanonFact,
    b: CanonFact,
    lived_a: tuple[float, float, str] | None,
    lived_b: tuple[float, float, str] | None,
    number: int,
) -> tuple[str, int] | None:
    """Return that canon cannot tell which of two is older, with what it says of each: an age and a birth with no
    date for today to count from, or two that come out alike; None when one of them has neither."""
    said = []
    for person, lived in ((a, lived_a), (b, lived_b)):
        if lived is not None:
            told = lived[2]
        elif person.life is not None and person.life.born_words:
            told = f"born {person.life.born_words}"
        else:
            return None
        said.append(f"{person.entity_name} {'was' if told.startswith('born') else 'is'} {told}")
    today = (
        ""
        if lived_a is not None and lived_b is not None
        else ", and canon holds no date for today to count from"
    )
    return f"Nothing the table knows says which is older: {said[0]}; {said[1]}{today}. [{number}]", number
