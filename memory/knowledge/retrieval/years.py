"""The people born or dead in a year a question names: "who was born in 335 LR?", "who died in the year 351?".

The year is read on the campaign's calendar as "what happened in …" reads it (`happenings.in_year`); the people
are those whose life state (alive from a birth, dead from a death) starts in it, as the asker may see them, found
as matches by the words saying the year. Their cards answer (`answer_years.lived_answer`).
"""

from __future__ import annotations

import re

from canon.graph.reader import CanonReader, states_begun_in_year
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.era_years import year_read
from memory.knowledge.retrieval.happenings import in_year, seen_dated

__all__ = ["BORN_OR_DIED_IN", "in_a_year", "lives_in_year"]

#: "who was born in …", "who died during …", "who was killed in …": the words after "in" say the year.
BORN_OR_DIED_IN = re.compile(
    r"^\s*(?:who|which\s+(?:people|persons|characters|ones))\s+(?:(?:was|were)\s+(?P<born>born)|"
    r"(?:died|perished|passed\s+away|fell|(?:was|were)\s+(?:killed|slain)))\s+(?:in|during)\s+"
    r"(?P<when>.+?)\s*[?.!]*\s*$"
)
_SCORE = 80.0


async def in_a_year(reader: CanonReader, question: str) -> list[EntityMatch]:
    """Return what a question asks of a year: the events of it ("what happened in 212 RL", `happenings.in_year`)
    or the lives begun or ended in it ("who was born in 335 LR"); none when it asks no year."""
    return await in_year(reader, question) or await lives_in_year(reader, question)


async def lives_in_year(reader: CanonReader, question: str) -> list[EntityMatch]:
    """Return the people born (or dead) in the year a question asks about, as matches; none when the question
    asks no such thing or its words are no year of the calendar."""
    asked = BORN_OR_DIED_IN.match(" ".join(question.casefold().replace("’", "'").split()))
    if asked is None:
        return []
    when = asked["when"]
    calendar = await reader.calendar()
    date = await year_read(reader, when, calendar)
    if date is None or date.year is None:
        return []
    started = await states_begun_in_year(reader, date.year, "alive" if asked["born"] else "dead")
    started = seen_dated(started, calendar.words())  # a birth in a GM-only era is in no year for a player
    found: dict[int, EntityMatch] = {}
    for statement in sorted(started, key=lambda s: s.validity.world_from_key or 0):
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=when, window=when, score=_SCORE),
        )
    return list(found.values())
