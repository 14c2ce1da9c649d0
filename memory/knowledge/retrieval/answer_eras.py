"""Questions about the campaign's calendar itself: its eras and today, answered in the calendar's words.

- "what is the Dawn Reckoning?", "what is DR?": the era, its years and the era that followed it, or the era it
  lies within (its `parent_era`, as its card ties it), with the first sentence of its card's description, when
  canon has an era card of that name the asker may see;
- "when did the Dawn Reckoning end?", "when did After the Crowning begin?", "how long did the Dawn Reckoning
  last?": its bounds as the calendar gives them; of the era still running, how long it has lasted up to today,
  when the asker has one ("After the Crowning has lasted 51 years so far, since year 10.");
- "what year is it?", "what's the date today?", "what era is it?": the calendar's today, or that canon holds none;
- its seasons (`answer_seasons`): "which months are the wet season?", "what season is it?";
- its months (`answer_months`): "how many months does the year have?", "how long is Thawmoon?";
- two such questions in one ("what's today's date, and what age are we in?"): each part answered, one after the
  other (the date and the era together in one sentence).

The calendar is the asker's (`canon.calendar_seen`): a GM-only era is no era of a player's, so a player asking of
it gets what any unknown name gets (these answers never speak of it), and a today in such an era is no today of
theirs. An abbreviation the campaign's glossary reads otherwise ("AC" for armor class, when the GM added it) is
the glossary's, not the era's. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from canon.campaign_calendar import CampaignCalendar, EraDef, fold
from canon.date_reading import present
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_months import asks_months, months_answer
from memory.knowledge.retrieval.answer_seasons import IN_STORY, WHAT, asks_season, season_answer
from memory.knowledge.retrieval.eras import Opening

__all__ = ["NO_TODAY", "asked_era", "asks_calendar", "bordering", "calendar_answer"]

#: The answer to a question about today where the asker's calendar has none.
NO_TODAY = "Canon holds no date for today."

_TODAY = re.compile(
    rf"^{WHAT}\s+(?:is\s+|was\s+)?(?:the\s+)?(?:current\s+|present\s+)?"
    r"(?P<asked>year|date|day|era|age)\s*"
    r"(?:is\s+it|is\s+today|is\s+it\s+today|are\s+we\s+in|is\s+it\s+now|is\s+today'?s\s+date|today|now)?"
    rf"(?:\s+(?:today|now))?{IN_STORY}$"
    rf"|^{WHAT}\s+(?:is\s+)?today'?s\s+(?P<asked2>date|year|era){IN_STORY}$"
    r"|^(?P<asked3>when)\s+is\s+(?:it\s+)?(?:today|now)$",
)
_WHAT_IS = re.compile(
    r"^what\s+does\s+(?P<era>.+?)\s+(?:mean|stand\s+for)$"
    rf"|^(?:{WHAT}|who)\s+(?:is|was|are|were)?\s*(?P<era2>.+?)$"
    r"|^(?:tell\s+me\s+about|describe)\s+(?P<era3>.+?)$",
)
_WHEN = re.compile(
    r"^(?:when|what\s+year)\s+did\s+(?P<era>.+?)\s+(?P<bound>begin|start|end|finish|stop|come\s+to\s+an\s+end)$"
    r"|^when\s+(?:was|is)\s+(?P<era2>.+?)$",
)
#: Two questions of the calendar in one: "what's today's date, and what age are we in".
_TWO = re.compile(rf"^(?P<a>.+?),?\s+and\s+(?P<b>(?:{WHAT}|which|how|when)\b.+)$")
_HOW_LONG = re.compile(
    r"^how\s+long\s+(?:did|was|is|has)\s+(?P<era>.+?)(?:\s+(?:last|lasted|go(?:ne)?\s+on))?$"
)


def _said(question: str) -> str:
    """Return the question folded for reading: lowercase, plain apostrophes, no closing mark, spaces collapsed."""
    text = question.casefold().replace("’", "'").strip()
    return " ".join(text.rstrip("?.! ").split())


def _era(words: str | None, calendar: CampaignCalendar, glossary: Collection[str]) -> EraDef | None:
    """Return the era the words name, by its name, its key or an abbreviation the glossary does not take."""
    if not words:
        return None
    folded = fold(words.removeprefix("an ").removeprefix("a "))
    for era in calendar.eras:
        if folded in (fold(era.name), fold(era.key)):
            return era
        if any(folded == fold(a) and fold(a) not in glossary for a in era.abbreviations):
            return era
    return None


def _ordered(calendar: CampaignCalendar) -> list[EraDef]:
    return sorted(calendar.eras, key=lambda e: (e.start is None, e.start or 0))


def _name(calendar: CampaignCalendar, era: EraDef, *, first: bool = False) -> str:
    """Return an era's name as a sentence says it ("the Dawn Reckoning"; "The Dawn Reckoning" to begin one)."""
    said = calendar.era_phrase(era.key)
    return said[:1].upper() + said[1:] if first else said


def _span(era: EraDef) -> str | None:
    if era.start is not None and era.end is not None:
        return f"from year {era.start} to year {era.end}"
    if era.start is not None:
        return f"from year {era.start} on"
    if era.end is not None:
        return f"up to year {era.end}"
    return None


def _described(calendar: CampaignCalendar, era: EraDef, facts: Sequence[CanonFact]) -> str | None:
    """Return the first sentence of the description of the era's card, when one the asker may see was found."""
    for fact in facts:
        described = fact.description or _attribute(fact, "description")
        if fold(fact.entity_name) == fold(era.name) and described:
            first = re.split(r"(?<=[.!?])\s+", described.strip(), maxsplit=1)[0]
            return first if first.endswith((".", "!", "?")) else first + "."
    return None


def _attribute(fact: CanonFact, attribute: str) -> str | None:
    head = f"{fact.entity_name}'s {attribute}: "
    return next((line[len(head) :] for line in fact.facts if line.startswith(head)), None)


def _within(calendar: CampaignCalendar, facts: Sequence[CanonFact]) -> dict[str, EraDef]:
    """Return the era each era lies within (its `parent_era`, as the era cards the asker may see tie it), by key."""
    by_name = {fold(e.name): e for e in calendar.eras}
    found: dict[str, EraDef] = {}
    for relation in (r for f in facts for r in f.relations if r.predicate.upper() == "SUB_ERA_OF"):
        inner, outer = by_name.get(fold(relation.subject)), by_name.get(fold(relation.object))
        if inner is not None and outer is not None and inner.key != outer.key:
            found.setdefault(inner.key, outer)
    return found


def _what_is(calendar: CampaignCalendar, era: EraDef, facts: Sequence[CanonFact]) -> str:
    abbreviation = f" ({era.abbreviations[0]})" if era.abbreviations else ""
    span = _span(era)
    text = f"{_name(calendar, era, first=True)}{abbreviation} is an era of the calendar"
    text += f", {span}" if span else ""
    # An era within another (a sub-era) neither follows nor is followed by the eras around it: it lies within.
    within = _within(calendar, facts)
    if era.key in within:
        described = _described(calendar, era, facts)
        text += f", within {_name(calendar, within[era.key])}"
        return f"{text}.{' ' + described if described else ''}"
    order = [e for e in _ordered(calendar) if e.key not in within]
    at = order.index(era)
    after = [*order[at + 1 : at + 2]]
    before = [*order[max(at - 1, 0) : at]]
    if after:
        text += f"; {_name(calendar, after[0], first=True)} followed it"
    elif before:
        text += f"; it followed {_name(calendar, before[0])}"
    described = _described(calendar, era, facts)
    return f"{text}.{' ' + described if described else ''}"


def bordering(calendar: CampaignCalendar, era: EraDef) -> list[EraDef]:
    """Return the era and the one that followed it straight after its last year (whose opening ended it)."""
    order = _ordered(calendar)
    at = order.index(era)
    after = order[at + 1 : at + 2]
    if after and era.end is not None and after[0].start == era.end + 1:
        return [era, after[0]]
    return [era]


def _when(
    calendar: CampaignCalendar, era: EraDef, bound: str | None, opened: Mapping[str, Opening] = {}
) -> str:
    name = _name(calendar, era, first=True)
    if bound == "begin" and era.start is not None and era.key in opened:
        event, when = opened[era.key]
        return f"{name} began in year {era.start}, with {event} {when}."
    after = bordering(calendar, era)[1:]
    if bound == "end" and era.end is not None and after and after[0].key in opened:
        event, when = opened[after[0].key]
        return f"{name} ended in year {era.end}; {_name(calendar, after[0])} began with {event} {when}."
    if bound is None:
        span = _span(era)
        return f"{name} ran {span}." if span else f"The calendar gives {_name(calendar, era)} no years."
    if bound == "begin":
        if era.start is None:
            return f"The calendar does not say when {_name(calendar, era)} began."
        return f"{name} began in year {era.start}."
    if era.end is None:
        since = f": it runs from year {era.start} on" if era.start is not None else ""
        return f"The calendar gives {_name(calendar, era)} no end{since}."
    return f"{name} ended in year {era.end}."


def _years(count: int) -> str:
    return "1 year" if count == 1 else f"{count} years"


def _how_long(calendar: CampaignCalendar, era: EraDef) -> str:
    name = _name(calendar, era, first=True)
    if era.start is not None and era.end is not None:
        return f"{name} lasted {_years(era.end - era.start + 1)}, from year {era.start} to year {era.end}."
    today = present(calendar)  # the story's date, as the asker reads it
    if (
        era.start is not None
        and today is not None
        and today.year is not None
        and today.era in (None, era.key)
        and today.year >= era.start
    ):
        return f"{name} has lasted {_years(today.year - era.start + 1)} so far, since year {era.start}."
    return _when(calendar, era, "end" if era.start is not None else "begin")


def _today(calendar: CampaignCalendar, asked: str) -> str:
    date = present(calendar)
    if date is None:
        return NO_TODAY
    said = calendar.say(date)
    era = calendar.era(date.era) if date.era else None
    if asked in ("era", "age") and era is not None:
        abbreviation = f" ({era.abbreviations[0]})" if era.abbreviations else ""
        return f"The era is {_name(calendar, era)}{abbreviation}: today is {said}."
    return f"Today is {said}."


def asks_calendar(question: str) -> bool:
    """Tell whether a question may ask of the calendar (today, or something of a name that may be an era)."""
    said = _said(question)
    if (two := _TWO.match(said)) is not None and all(_asks(p) for p in (two["a"], two["b"])):
        return True
    return _asks(said)


def _asks(said: str) -> bool:
    return (
        any(p.match(said) for p in (_TODAY, _HOW_LONG, _WHEN, _WHAT_IS))
        or asks_season(said)
        or asks_months(said)
    )


def _both(
    said: str, calendar: CampaignCalendar, glossary: Collection[str], facts: Sequence[CanonFact]
) -> str | None:
    """Return the answers to a question of two calendar questions, one after the other, or None (a part that is
    not one of the calendar's)."""
    two = _TWO.match(said)
    if two is None:
        return None
    asked = [_TODAY.match(p) for p in (two["a"], two["b"])]
    if all(asked):  # the date and the era: one sentence says both
        words = {t["asked"] or t["asked2"] or "date" for t in asked if t is not None}
        return _today(calendar, "era" if words & {"era", "age"} else "date")
    answers = [calendar_answer(p, calendar, glossary=glossary, facts=facts) for p in (two["a"], two["b"])]
    if any(a is None for a in answers):
        return None
    return " ".join(dict.fromkeys(a for a in answers if a is not None))


def asked_era(question: str, calendar: CampaignCalendar, glossary: Collection[str] = ()) -> EraDef | None:
    """Return the era of the calendar a question asks of (what it is, when it began or ended, how long it
    lasted), or None; an abbreviation among the `glossary`'s terms is the glossary's, not the era's."""
    said = _said(question)
    if _TODAY.match(said):
        return None
    terms = {fold(t) for t in glossary}
    for pattern in (_HOW_LONG, _WHEN, _WHAT_IS):
        if (found := pattern.match(said)) is not None:
            words = next((w for k, w in found.groupdict().items() if k.startswith("era") and w), None)
            if (era := _era(words, calendar, terms)) is not None:
                return era
    return None


def calendar_answer(
    question: str,
    calendar: CampaignCalendar,
    *,
    glossary: Collection[str] = (),
    facts: Sequence[CanonFact] = (),
    opened: Mapping[str, Opening] = {},
) -> str | None:
    """Return the answer to a question about the asker's calendar (an era, today), or None when it asks none.

    `glossary` holds the terms the question is read through: an abbreviation among them is not the era's.
    `opened` the event that opened each era, by key (`eras.openings`): said when it began, or the one before
    it ended.
    """
    said = _said(question)
    today = _TODAY.match(said)
    if today is not None:
        return _today(calendar, today["asked"] or today["asked2"] or "date")
    if (season := season_answer(said, calendar, NO_TODAY)) is not None:
        return season
    if (months := months_answer(said, calendar)) is not None:
        return months
    terms = {fold(t) for t in glossary}
    if (found := _HOW_LONG.match(said)) and (era := _era(found["era"], calendar, terms)):
        return _how_long(calendar, era)
    if (found := _WHEN.match(said)) and (era := _era(found["era"] or found["era2"], calendar, terms)):
        bound = found["bound"]
        return _when(
            calendar,
            era,
            None if bound is None else "begin" if bound in ("begin", "start") else "end",
            opened,
        )
    found = _WHAT_IS.match(said)
    if found and (era := _era(found["era"] or found["era2"] or found["era3"], calendar, terms)):
        return _what_is(calendar, era, facts)
    return _both(said, calendar, glossary, facts)
