"""Canon statements as sentences: a relation, a fact or a state, with when it holds and what supports it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from canon.calendar import UNKNOWN
from canon.models import StatementKind, StatementView, Validity, Viewer
from canon.wording.context import Wording
from canon.wording.dead_ties import death_end, past_by_death
from canon.wording.relations import (
    attribute_words,
    fact_sentence,
    in_prose,
    names_many,
    relation_sentence,
    state_sentence,
)
from canon.wording.tense import in_past, is_over


def statement_sentence(view: StatementView, words: Wording, *, told: bool = False) -> str:
    """Return a statement as a sentence: "Corvan Marrow is Ysolde Marrow's father" (`told`: as an answer tells
    it, `fact_sentence`); on a card read in tense, one that is over in the past ("Saska Orme was an ally of Hale
    Brun", `canon.wording.tense`)."""
    text = _sentence(view, words, told=told)
    over = is_over(view, words, shown_validity(view, words)) or past_by_death(
        view, words
    )  # a tie to the dead
    return in_past(text, words.name(view.subject.name)) if over else text


def _sentence(view: StatementView, words: Wording, *, told: bool) -> str:
    s = view.statement
    subject = words.name(view.subject.name)
    if s.kind == StatementKind.RELATION and view.object is not None:
        past = PAST_WHEN_DEAD.get(s.predicate.upper()) if view.subject.id in words.dead else None
        if past is not None:
            return past.format(s=subject, o=in_prose(words.name(view.object.name), view.object.type))
        return relation_sentence(
            s.predicate,
            subject,
            words.name(view.object.name),
            subject_sex=words.sexes.get(view.subject.id),
            target_kind=view.object.type,
        )
    if s.kind == StatementKind.STATE:
        return state_sentence(subject, words.name(s.value or "unknown"), words.name(s.via) if s.via else None)
    dated = DATED_ATTRIBUTES.get(s.predicate)
    if dated is not None and s.value:
        if names_many(subject):  # "The Tolling Bells were made on 3 Bloom, year 12 …"
            dated = dated.replace("was ", "were ", 1)
        return f"{subject} {dated} {words.when(s.value)}"
    # The attribute in words before it is escaped: "secret_passage" reads "secret passage", never "secret\ passage".
    return fact_sentence(
        subject, words.name(attribute_words(s.predicate)), words.name(s.value or ""), told=told
    )


#: Relations a person holds while alive, as they read once the person is dead (`Wording.dead`, `for_a_card`).
PAST_WHEN_DEAD = {"LIVES_IN": "{s} lived in {o}", "INHABITS": "{s} lived in {o}"}


def for_a_card(words: Wording, state: StatementView | None) -> Wording:
    """Return the wording of a card whose shown state is `state`: a dead subject's home reads in the past ("Bastien
    Marrow lived in Saltcomb")."""
    if state is None or state.statement.kind != StatementKind.STATE:
        return words
    if (state.statement.value or "").strip().casefold() != "dead":
        return words
    v = state.statement.validity
    died = {state.subject.id: (v.world_from or UNKNOWN, v.world_from_key)}
    return dataclasses.replace(words, dead=words.dead | {state.subject.id}, deaths={**words.deaths, **died})


def said_above(view: StatementView, aliases: Sequence[str]) -> bool:
    """Tell whether a card's fact is its aliases, already said above its facts ("Also known as: …"): a card says
    each of its names once."""
    s = view.statement
    if s.kind != StatementKind.ATTRIBUTE or s.predicate != "aliases" or not aliases:
        return False
    shown = {a.strip().casefold() for a in aliases}
    return {a.strip().casefold() for a in (s.value or "").split(",") if a.strip()} <= shown


#: Attributes that are a date (a file writes it as the calendar does, canon keeps its key), with what they say.
DATED_ATTRIBUTES = {"made": "was made", "founded": "was founded", "first_appeared": "first appeared"}


#: Relations that last a whole life and beyond: a parent stays a parent after a death, so no end is said.
LIFELONG = frozenset({"PARENT_OF", "CHILD_OF", "SIBLING_OF"})


def shown_validity(view: StatementView, words: Wording | None = None) -> Validity:
    """Return when a statement holds, as said to people: a family tie's end (a death) is not its end; a tie that
    ends with a life and has no end of its own ends at the death `words` knows of (`dead_ties.death_end`)."""
    s = view.statement
    if s.kind == StatementKind.RELATION and s.predicate.upper() in LIFELONG and s.validity.world_until:
        return dataclasses.replace(s.validity, world_until=None, world_until_key=None)
    ended = death_end(view, words) if words is not None and not s.validity.world_until else None
    start = s.validity.world_from_key
    if ended is not None and ended[1] is not None and start is not None and ended[1] < start:
        ended = None  # a death before the tie began is no end of it ("from year 300 to 281" says nothing)
    if ended is not None:
        return dataclasses.replace(s.validity, world_until=ended[0], world_until_key=ended[1])
    return s.validity


def statement_words(view: StatementView, words: Wording, viewer: Viewer, *, evidence: bool = True) -> str:
    """Return a statement, when it holds and (unless `evidence` is off) its first evidence, in words; a life's
    start a timeline says as a birth (`Wording.births`) as one: "Mott Brae was born in year 300 of …"."""
    start = words.seen(view.statement.validity.world_from)
    if view.statement.id in words.births and start and start != UNKNOWN:
        text = f"{words.name(view.subject.name)} was born {words.when(start)}"
    else:
        text = statement_sentence(view, words)
        when = statement_span(view, words)
        text += f" ({when})" if when else ""
    if evidence and view.statement.evidence:
        text += " — " + "; ".join(words.evidence(e, viewer) for e in view.statement.evidence[:2])
    return text


#: Relations that happen on a day rather than hold from it: "took place at Gull Rock on 3 Sunmoon, …", "won the
#: Battle of Gull Rock on …".
HAPPENINGS = frozenset({"OCCURRED_AT", "OCCURRED_DURING", "PARTICIPATED_IN", "WITNESSED", "WON", "CAUSED"})


def statement_span(view: StatementView, words: Wording) -> str:
    """Return when a statement holds, in words: what happened on a day reads on it ("on 14 Eelrun, year 612 of
    …", "in year 612 of …"), never "since" it, which says a state that began then and holds."""
    validity = shown_validity(view, words)
    s = view.statement
    start = words.seen(validity.world_from)
    if (
        s.kind == StatementKind.RELATION
        and s.predicate.upper() in HAPPENINGS
        and start
        and start != UNKNOWN
        and not validity.world_until
    ):
        story = words.span(dataclasses.replace(validity, world_from=None, world_from_key=None))
        return ", ".join(filter(None, [words.when(start), story]))
    said = words.span(validity)
    if said.startswith("since ") and not validity.world_until and past_by_death(view, words):
        return "from " + said.removeprefix("since ")  # over at a death nobody dates: it held from then
    return said


#: The states a person's `status` may name beside a life the dates only say began ("missing", "imprisoned"; "dead"
#: with no date of death): the card says the status, never "alive".
STATUS_STATES = frozenset({"wounded", "missing", "imprisoned", "cursed", "undead", "dead"})


def status_over_life(state: StatementView | None, facts: Iterable[StatementView]) -> str | None:
    """Return the state a person's `status` fact names when the card's state is only a birth's "alive" (a missing
    man born in 631 is missing, not "alive since 631"), or None. `facts`: the card's facts the viewer sees, so a
    status kept for the GM changes only the GM's card."""
    fact = status_fact_over_life(state, facts)
    return None if fact is None else (fact.statement.value or "").strip().casefold()


def status_fact_over_life(
    state: StatementView | None, facts: Iterable[StatementView]
) -> StatementView | None:
    """Return the `status` fact a card's state line says in place of a birth's "alive" (`status_over_life`), or
    None: the line is as hidden as that fact, and marked so for the GM."""
    if state is None or state.statement.kind != StatementKind.STATE or state.statement.via:
        return None
    if state.statement.validity.story_from is not None:
        return None  # alive said in play (found again, freed): the story's word, over the file's status
    if (state.statement.value or "").strip().casefold() != "alive":
        return None
    said = [
        v for v in facts if v.statement.kind == StatementKind.ATTRIBUTE and v.statement.predicate == "status"
    ]
    if not said or (said[-1].statement.value or "").strip().casefold() not in STATUS_STATES:
        return None
    return said[-1]


def state_parts(view: StatementView, words: Wording, status: str | None = None) -> tuple[str, str]:
    """Return a card's state line as its sentence and when it holds: ("Idris Fenn is alive", "since year 830 of
    …"), or with a `status` (`status_over_life`) that status and the birth: ("Haskel Sarrane is missing", "born
    in year 631"; no birth date: "")."""
    if status:
        start = words.seen(view.statement.validity.world_from)  # one hidden from the reader is none
        born = f"born {words.when(start)}" if start and start != UNKNOWN else ""
        return state_sentence(words.name(view.subject.name), words.name(status)), born
    return statement_sentence(view, words), statement_span(view, words)


def state_words(view: StatementView, words: Wording, status: str | None = None) -> str:
    """Return a card's state line before its evidence: "Idris Fenn is alive (since year 830 of …)", "Haskel
    Sarrane is missing (born in year 631)" (`state_parts`)."""
    text, when = state_parts(view, words, status)
    return f"{text} ({when})" if when else text


#: What a life's state from a date nobody knows says of that date: "Osric Dray is dead; the date of death is not known".
UNKNOWN_DATES = {"dead": "the date of death is not known", "alive": "the date of birth is not known"}


def told_words(view: StatementView, words: Wording, viewer: Viewer, state: str | None = None) -> str:
    """Return a statement as a person tells it, for answers: a life's start and end as a birth and a death ("Orrin
    Vaske died on 3 Sunmoon, year 871 of the Age of Tides"; "Idris Fenn is alive, born in year 830 of …"), what
    happened on the day it happened ("… took place at Gull Rock on 3 Sunmoon, …"); anything else as
    `statement_words` says it, a title with its article. `state`: the state a life is in that its record of life does not say (a living
    person's status, "missing"): "Pip Marrowby is missing (born in year 856 of …)"."""
    s = view.statement
    start = words.seen(s.validity.world_from)  # a date hidden from the reader reads as one nobody knows
    if state and s.kind == StatementKind.STATE:
        born = f" (born {words.when(start)})" if start and start != UNKNOWN else ""
        return f"{words.name(view.subject.name)} is {words.name(state)}{born}"
    if start == UNKNOWN and s.kind == StatementKind.STATE and not s.validity.world_until:
        # "died: unknown" is canon: dead, on a day nobody knows (and "born: unknown" alive, born nobody knows when).
        value = (s.value or "").strip().casefold()
        if value in UNKNOWN_DATES:
            return f"{words.name(view.subject.name)} is {value}; {UNKNOWN_DATES[value]}"
    if start and not s.validity.world_until and s.validity.story_from is None and not s.via:
        subject = words.name(view.subject.name)
        state = (s.value or "").strip().casefold() if s.kind == StatementKind.STATE else None
        if state == "dead":
            return f"{subject} died {words.when(start)}"
        if state == "alive":
            return f"{subject} is alive, born {words.when(start)}"
        if s.kind == StatementKind.RELATION and s.predicate.upper() in HAPPENINGS and view.object is not None:
            when = words.when(start)
            era = words.name(view.object.name).casefold().removeprefix("the ")
            if s.predicate.upper() == "OCCURRED_DURING" and era and era in when.casefold():
                # The day names the era already: "… took place in year 721 of the Ashen Reckoning".
                return f"{words.name(view.subject.name)} took place {when}"
            return f"{statement_sentence(view, words)} {when}"
    text = statement_sentence(view, words, told=True)
    when = statement_span(view, words)
    return f"{text} ({when})" if when else text


def timeline_births(views: Sequence[StatementView]) -> frozenset[int]:
    """Return the states of being alive a timeline says as births: those begun on a date (never in play), where the
    timeline tells a death too (a `dead` state, a death in an event, or a `status` naming another state), so that it
    never reads "alive (since …)" beside it."""
    states = [v for v in views if v.statement.kind == StatementKind.STATE]
    died = any((v.statement.value or "").strip().casefold() == "dead" for v in states) or any(
        v.statement.kind == StatementKind.RELATION and v.statement.predicate.upper() == "DIED_IN"
        for v in views
    )
    status = [
        v for v in views if v.statement.kind == StatementKind.ATTRIBUTE and v.statement.predicate == "status"
    ]
    if status and (status[-1].statement.value or "").strip().casefold() in STATUS_STATES:
        died = True
    return frozenset(
        v.statement.id
        for v in states
        if died
        and (v.statement.value or "").strip().casefold() == "alive"
        and v.statement.validity.story_from is None
        and v.statement.validity.world_from
    )
