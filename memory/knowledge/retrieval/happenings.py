"""Events a question asks about without naming them: by a year in the calendar's words, by a place, by a deed.

Players ask of events as they speak, not by the names canon gives them:
- "What happened in 212 RL?", "… in year 305 of the Long Dusk?": the year is read on the campaign's calendar
  (`canon.date_reading`, the same words the answers write), and the events that took place in it are found,
  with a place or without one;
- "Who fought at Fenwatch?", "Who was at the battle of Saltcombe?": the events that took place at the place
  named (`at_place`), so that those who took part in them can be named;
- "When were the harbour lights burned?", "When was the queen crowned?": an event named for a deed ("The
  Burning of the Harbour Lights", "The Coronation of Queen Maelis") is found by the deed's verb and the other
  words of its name (`by_deed`).
Only what the reader's viewer may see is read, so a GM-only event is never found for a player.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.date_reading import read_date
from canon.graph.reader import CanonReader, happened_in_year
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["EVENT_NOUNS", "asked_when", "asks_who_was_there", "at_place", "in_year"]

_IN_WHEN = re.compile(
    r"^\s*what\s+(?:happened|took place|went on|occurred|events?\s+(?:were there|took place|happened))\s+"
    r"(?:in|during)\s+(?P<when>.+?)\s*[?.!]*\s*$"
)
_YEAR_SCORE = 80.0
#: Found by the place they took place at: below the place itself, named.
_PLACE_SCORE = 84.0

#: "Who fought at Fenwatch?", "Who was at the battle of Saltcombe?", "Who took part in …": who was there (not
#: who died there: taking part is no death).
_WHO_WAS_THERE = re.compile(
    r"^\s*who\s+(?:(?:was|were)\s+(?:at|in|on|there|present|involved)|fought|battled|took\s+part|"
    r"participated|marched|sailed|attended|joined\s+in)\b"
)
#: Words naming an event by its kind, not its name ("the *battle* of Saltcombe" of the Rout at Saltcombe).
EVENT_NOUNS = frozenset(
    {
        *("battle", "battles", "fight", "fighting", "siege", "war", "skirmish", "raid", "clash", "attack"),
        *("event", "events", "happening", "fray", "assault", "sack", "uprising", "revolt", "rebellion"),
    }
)


def asked_when(question: str) -> str | None:
    """Return the words of a "What happened in …?" after "in" ("212 rl", "year 212 of the reign of lamps"), or
    None: the events found by them are answered each on its day (`answer_happenings`)."""
    asked = _IN_WHEN.match(" ".join(question.casefold().replace("’", "'").split()))
    return asked["when"] if asked else None


async def in_year(reader: CanonReader, question: str) -> list[EntityMatch]:
    """Return the events that took place in the year a question asks about ("What happened in 212 RL?"), read
    on the campaign's calendar, as matches found by the words that say the year; none when those words are no
    year of the calendar."""
    when = asked_when(question)
    if when is None:
        return []
    reading = read_date(when, await reader.calendar())
    if reading.date is None or reading.date.year is None:
        return []
    found: dict[int, EntityMatch] = {}
    for statement in await happened_in_year(reader, reading.date.year):
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=when, window=when, score=_YEAR_SCORE),
        )
    return list(found.values())


def asks_who_was_there(question: str) -> bool:
    """Tell whether a question asks who was at an event or a place ("Who fought at Fenwatch?")."""
    return bool(_WHO_WAS_THERE.match(" ".join(question.casefold().replace("’", "'").split())))


async def at_place(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the events that took place at a place the question names, when it asks who was there ("Who fought
    at Fenwatch?": the Siege of Fenwatch), as matches found by the place's words; none otherwise."""
    if not named or not asks_who_was_there(question):
        return []
    have = {m.entity_id for m in named}
    windows = {m.entity_id: m.window for m in named}
    found: dict[int, EntityMatch] = {}
    for statement in await reader.statements(
        predicates=["OCCURRED_AT"], object_ids=list(have), with_evidence=False
    ):
        if statement.subject_id in have or statement.object_id is None:
            continue
        window = windows[statement.object_id]
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=window, window=window, score=_PLACE_SCORE),
        )
    return list(found.values())
