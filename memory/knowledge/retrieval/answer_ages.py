"""Ages from the canon graph: "How old was Corran when he died?", "Who is older, Tamsin or Idris?", "How old
is Tamsin?", "How old was Ansel at the Battle of Otter Ford?".

A card's life (`CanonFact.life`: when it was born and died, as the asker may see them) is all these read. An
age at death counts whole years between the two dates (of one era; months and days when both give them, else
"about"); who is older compares the births' sortable keys; an age now counts to the story's date (its latest
dated scene), and without one the answer says when the person was born. An age at an event named counts from the
birth to the event's day (the day its ties place it on), and says both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import UNKNOWN, WorldDate
from canon.wording import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_compare import older_by_age
from memory.knowledge.retrieval.answer_founded import date_or_none, founded_age, years_between
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_words import AGE_ASKING, fold_words

__all__ = ["age_answer"]

_OLDER = re.compile(r"\b(older|elder|younger)\b")
_HOW_OLD = re.compile(r"\bhow old\b|\bwhat age\b|\bage\b")
_AT_DEATH = re.compile(r"\b(?:die|died|death|dies|killed|fell)\b")


def _years(born: WorldDate, died: WorldDate) -> tuple[int, bool] | None:
    """Return the whole years between two dates (`years_between`), exact only when both give the day."""
    counted = years_between(born, died)
    if counted is None:
        return None
    return counted[0], counted[1] and born.day is not None and died.day is not None


def _lived(fact: CanonFact) -> bool:
    return fact.life is not None and (fact.life.born_key is not None or fact.life.died_key is not None)


def _at_death(fact: CanonFact, number: int) -> tuple[str, int] | None:
    life = fact.life
    if life is None or not life.died_words:
        return None
    born, died = date_or_none(life.born), date_or_none(life.died)
    counted = _years(born, died) if born and died else None
    if counted is None:
        return None
    years, exact = counted
    age = f"{years}" if exact else f"about {years}"
    return (
        f"{fact.entity_name} was {age} years old: born {life.born_words}, died {life.died_words}. [{number}]",
        number,
    )


#: The ties that place an event on its day.
_PLACING = ("OCCURRED_DURING", "OCCURRED_AT")


def _event_day(event: CanonFact) -> str | None:
    """Return the day an event took place, as canon stores it (its ties placing it), or None."""
    me = event.entity_name.casefold()
    days = [
        r.since
        for r in event.relations
        if r.since and r.since != UNKNOWN and r.subject.casefold() == me and r.predicate.upper() in _PLACING
    ]
    return days[0] if days else None


#: An age asked at a past moment ("how old was X at / when …"), not now ("how old is Tamsin").
_WAS = re.compile(r"\b(?:how old|what age)\s+(?:was|were)\b")


def _at_event(fact: CanonFact, number: int, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return someone's age at an event the question names: its day less their birth, with both said ("Ansel
    Crowe was about 38 years old at the Battle of Otter Ford: born in year 612 …; the Battle of Otter Ford took
    place …"); not yet born, or dead by then, as canon dates it. None when no event named is dated."""
    life = fact.life
    mine = set(fold_words(fact.matched))
    for event in facts:
        if event is fact or not is_event(event) or life is None or not life.born_words:
            continue
        if set(fold_words(event.matched)) <= mine:
            continue  # found by the person's own name ("the Investiture of Tamsin" of "how old was Tamsin")
        day = date_or_none(_event_day(event))
        born = date_or_none(life.born)
        counted = _years(born, day) if born and day else None
        said = next((x for x in event.facts if x.startswith(f"{event.entity_name} took place ")), None)
        if counted is None or said is None:
            continue
        years, exact = counted
        named = in_prose(event.entity_name, "Event")
        died = date_or_none(life.died)
        if years < 0:
            text = f"{fact.entity_name} was not yet born at {named}: born {life.born_words}"
        elif died and day and (_years(died, day) or (0, False))[0] > 0:
            text = f"{fact.entity_name} had died before {named}: died {life.died_words}"
        else:
            age = f"{years}" if exact else f"about {years}"
            text = f"{fact.entity_name} was {age} years old at {named}: born {life.born_words}"
        return f"{text}; {named}{said[len(event.entity_name) :]}. [{number}]", number
    return None


_WHEN_LIFE = re.compile(
    r"\bwhen\s+(?P<who>.+?)\s+(?:(?P<died>died|perished|fell|passed\s+away|was\s+(?:killed|slain))|"
    r"was\s+born)\b"
)


def _at_life(
    question: str, fact: CanonFact, number: int, people: Sequence[tuple[int, CanonFact]]
) -> tuple[str, int] | None:
    """Return someone's age when another was born or died ("how old was Wenna when Oswin died"), both dates
    said; None when the question asks no such moment or canon dates it not."""
    asked = _WHEN_LIFE.search(question.casefold())
    life = fact.life
    if asked is None or life is None or not life.born_words:
        return None
    who = set(fold_words(asked["who"]))
    for _, other in people:
        if other is fact or other.life is None or not set(fold_words(other.matched)) <= who:
            continue
        when, words = (
            (other.life.died, other.life.died_words)
            if asked["died"]
            else (other.life.born, other.life.born_words)
        )
        born, then = date_or_none(life.born), date_or_none(when)
        counted = _years(born, then) if born and then else None
        if counted is None or words is None:
            return None
        years, exact = counted
        moment = f"{other.entity_name} {'died' if asked['died'] else 'was born'}"
        if years < 0:
            text = f"{fact.entity_name} was not yet born when {moment}: born {life.born_words}"
        else:
            text = f"{fact.entity_name} was {years if exact else f'about {years}'} years old when {moment}: born {life.born_words}"
        return f"{text}; {moment} {words}. [{number}]", number
    return None


def _older(question: str, people: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    """Return which of the first two people named is older (or younger, as asked), by their births."""
    if len(people) < 2:
        return None
    (n_a, a), (n_b, b) = people[:2]
    if a.life is None or b.life is None or a.life.born_key is None or b.life.born_key is None:
        return None
    if a.life.born_key == b.life.born_key:
        return (
            f"{a.entity_name} and {b.entity_name} were born the same day, {a.life.born_words}. [{n_a}]",
            n_a,
        )
    first, second = (a, b) if a.life.born_key < b.life.born_key else (b, a)
    younger = _OLDER.search(question.casefold())
    word = younger.group(1) if younger else "older"
    chosen, other = (second, first) if word == "younger" else (first, second)
    number = n_a if chosen is a else n_b
    text = (
        f"{chosen.entity_name} is {word}, born {chosen.life.born_words}; "  # type: ignore[union-attr]
        f"{other.entity_name} was born {other.life.born_words}"  # type: ignore[union-attr]
    )
    if question.casefold().lstrip().startswith(("is ", "was ", "are ")):
        asked_first = fold_first(question, a, b)
        yes = "Yes" if asked_first is chosen else "No"
        text = f"{yes}: {text}"
    return f"{text}. [{number}]", number


_PEOPLE = frozenset({"Person", "NPC", "PC"})


def _unborn(facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return that canon does not say when one of the two people compared was born, with the other's birth."""
    people = [(n, f) for n, f in enumerate(facts, 1) if f.entity_type in _PEOPLE and not f.step_span][:2]
    if len(people) < 2:
        return None
    unknown = [(n, f) for n, f in people if f.life is None or f.life.born_key is None]
    if not unknown:
        return None
    number, first = unknown[0]
    text = f"Nothing the table knows says when {first.entity_name} was born"
    known = [f for _, f in people if f.life is not None and f.life.born_key is not None]
    if known:
        text += f"; {known[0].entity_name} was born {known[0].life.born_words}"  # type: ignore[union-attr]
    return f"{text}. [{number}]", number


def _named_unborn(facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return that canon does not say how old the person the question names is (by the name asked), when the
    asker may see no birth of theirs (as for a birth hidden from them); None when it names no such person."""
    for number, fact in enumerate(facts, 1):
        if fact.entity_type in _PEOPLE and not _by_asking(fact) and not _lived(fact):
            return f"Nothing the table knows says how old {fact.matched} is. [{number}]", number
    return None


def fold_first(question: str, a: CanonFact, b: CanonFact) -> CanonFact:
    """Return the one of two people the question names first ("Is Idris older than Nell?": Idris)."""
    folded = question.casefold()
    at_a, at_b = folded.find(a.matched.casefold()), folded.find(b.matched.casefold())
    return a if at_b < 0 or (0 <= at_a < at_b) else b


def _by_asking(fact: CanonFact) -> bool:
    words = set(fold_words(fact.matched))
    return bool(words) and words <= AGE_ASKING


def age_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return an age, an age at death or who is older, from the lives of the people named, or None."""
    folded = question.casefold()
    lived = [(n, f) for n, f in enumerate(facts, 1) if _lived(f)]
    named = [(n, f) for n, f in lived if not _by_asking(f)]
    people = named or lived
    founded = None if named or _OLDER.search(folded) else founded_age(question, facts)
    if founded is not None:
        return founded  # a place or a group, from its founding ("how old is Saltgate")
    if not named and not _OLDER.search(folded) and _HOW_OLD.search(folded):
        unborn = _named_unborn(facts)
        if unborn is not None:
            return unborn  # the one named has no birth a reader may see: never the age of one "old" found
    if _OLDER.search(folded):
        return _older(question, people) or older_by_age(question, facts) or _unborn(facts)
    if not people:
        return None
    if not _HOW_OLD.search(folded):
        return None
    if _WAS.search(folded):
        # Of the one named first ("how old was Wenna when Oswin died": Wenna), at an event or another's life.
        at = {n: folded.find(f.matched.casefold()) for n, f in people}
        people.sort(key=lambda nf: (at[nf[0]] < 0, at[nf[0]], nf[0]))  # not found in the question: last
        number, fact = people[0]
        then = _at_event(fact, number, facts) or _at_life(question, fact, number, people)
        if then is not None:
            return then
    number, fact = people[0]
    life = fact.life
    assert life is not None
    if _AT_DEATH.search(folded) or (life.died_words and not re.search(r"\bis\b", folded)):
        return _at_death(fact, number)
    if life.died_words:
        return _at_death(fact, number)
    born, now = date_or_none(life.born), date_or_none(life.now)
    counted = _years(born, now) if born and now and life.born_key is not None else None
    if counted is not None and counted[0] >= 0:
        years, exact = counted
        age = f"{years}" if exact else f"about {years}"
        return (
            f"{fact.entity_name} is {age} years old, born {life.born_words}; the story stands at "
            f"{life.now_words}. [{number}]",
            number,
        )
    if life.born_words:
        return (
            f"{fact.entity_name} was born {life.born_words}; canon holds no date for today to count an age "
            f"from. [{number}]",
            number,
        )
    return None
