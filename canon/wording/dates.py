"""In-world dates in the campaign calendar's words: "year 327 of the Third Age", never `3rd_age.year_327`.

`CalendarWords` knows the names the calendar gives: each era's display name (an Era entity's name, by its
key), and the months' names where the campaign defines them. A date it cannot read (typed by a person in a
form of their own) is shown as written. `in_words` rewrites the date keys inside a sentence written elsewhere
(a continuity finding stored with its dates as keys).

A writer is made for one reader: `hidden` holds the keys of the eras hidden from them (a player's GM-only eras,
`canon.visibility.date_hidden`; none for the GM). A date in one reads to them exactly as a date nobody knows
(`unknown`): "an unknown date", "at an unknown time", "the date is not known", never the era's name, its key or
any hint that something is hidden. A player's calendar carries its hidden eras (`CampaignCalendar.words()`), so
every date written from it is written so, whatever the caller. It carries their names too (`hidden_names`):
`told` says free text a GM or a model wrote without them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from canon.calendar import UNKNOWN, DateError, WorldDate, parse_date
from canon.era_mentions import era_mentions
from canon.models import Validity
from canon.visibility import date_hidden, era_text_seen

# A date key inside a sentence: an era id, then a year, and optionally a month and a day; labelled
# (`3rd_age.year_300.month_3`) or, for an era the calendar knows, as written (`3rd_age.300.3`).
DATE_KEY = re.compile(
    r"\b(?P<era>(?=[0-9_-]*[a-z])[a-z0-9][a-z0-9_-]*)\.(?P<label>year_)?(?P<year>-?[0-9]+)"
    r"(?:\.(?:month_)?(?P<month>[0-9]+)(?:\.(?:day_)?(?P<day>[0-9]+))?)?\b"
)

# The same, after an "in" a sentence written elsewhere put before it ("died in 3rd_age.year_363.month_5.day_3"):
# a day reads "on 3 Frostmoot, …", anything coarser "in year 363 …".
_DATE_KEY_AFTER = re.compile(r"(?:\b(?P<prep>in) )?" + DATE_KEY.pattern)
# A date of a campaign whose years have no eras, stored with its month (`71.month_2.day_7`): the month's label
# tells it from a number with a decimal point.
_PLAIN_KEY_AFTER = re.compile(
    r"(?:\b(?P<prep>in) )?(?<![\w.])(?P<year>-?[0-9]+)\.month_(?P<month>[0-9]+)(?:\.day_(?P<day>[0-9]+))?\b"
)


def _era_phrase(name: str) -> str:
    """Return an era's name as it reads inside a sentence: "The Third Age" reads "the Third Age"."""
    return "the " + name[4:] if name.startswith("The ") else name


@dataclass(frozen=True)
class CalendarWords:
    """Say dates in the campaign calendar's words (era names by key; month names where defined), for one reader:
    a date in an era `hidden` from them is no date (written as `unknown` is)."""

    eras: Mapping[str, str] = field(default_factory=dict)
    months: Sequence[str] = ()
    #: The keys of the eras hidden from the reader (a player's GM-only eras); empty for the GM.
    hidden: frozenset[str] = frozenset()
    #: Every name of those eras (names, keys, abbreviations, glossary terms): free text naming one (`told`).
    hidden_names: frozenset[str] = frozenset()

    def told(self, text: str) -> str:
        """Return free text a GM or a model wrote (a fact typed as text, a description, a summary) as this reader
        may read it: its date keys in words, and the eras hidden from them never named
        (`canon.visibility.era_text_seen`: their dates read "at an unknown time"; "" when nothing is left)."""
        if not text:
            return text
        said = self.in_words(text)
        return (
            era_text_seen(said, era_mentions(self.hidden_names, self.months)) if self.hidden_names else said
        )

    def seen(self, text: str | None) -> str | None:
        """Return a stored date as this reader may have it: `unknown` for one in a hidden era, else as stored."""
        if not text or not self.hidden or text == UNKNOWN:
            return text
        try:
            era = parse_date(text).era
        except DateError:
            return text
        return UNKNOWN if date_hidden(era, self.hidden) else text

    def dated(self, text: str | None) -> bool:
        """Tell whether a stored date reads as a date to this reader: set, not `unknown`, not in a hidden era."""
        return bool(text) and self.seen(text) != UNKNOWN

    def era(self, era_id: str) -> str:
        """Return an era's name in a sentence; an era without a name reads from its id ("the 3rd age")."""
        name = self.eras.get(era_id)
        if name:
            return _era_phrase(name)
        return "the " + era_id.replace("_", " ").replace("-", " ")

    def month(self, number: int) -> str:
        """Return a month's name, or "month 3" where the calendar names no months."""
        if 1 <= number <= len(self.months) and self.months[number - 1]:
            return self.months[number - 1]
        return f"month {number}"

    def example(self, year: int = 300) -> str:
        """Return a date in these words to show how one is written: a year of the first era (a plain year
        without eras). With the whole calendar at hand, `canon.date_reading.example` picks a year inside it."""
        return self.world_date(WorldDate(era=next(iter(self.eras), None), year=year))

    def world_date(self, date: WorldDate) -> str:
        """Return a date in words at its precision: an era, a year, a month or a day of it (one in a hidden era,
        or of neither era nor year: "an unknown date")."""
        if (date.era is None and date.year is None) or date_hidden(date.era, self.hidden):
            return "an unknown date"
        if date.year is None:
            return self.era(date.era or "")
        year = f"year {date.year}" + (f" of {self.era(date.era)}" if date.era else "")  # a plain year: no era
        if date.month is None:
            return year
        if date.day is None:
            return f"{self.month(date.month)} of {year}"
        if self.months:
            return f"{date.day} {self.month(date.month)}, {year}"
        return f"day {date.day} of month {date.month}, {year}"

    def date(self, text: str | None) -> str:
        """Return a stored date (a key like `3rd_age.year_327`) in words; other text stays as written."""
        text = self.seen(text)
        if not text:
            return ""
        if text == UNKNOWN:
            return "an unknown date"
        try:
            return self.world_date(parse_date(text))
        except DateError:
            return text

    def when(self, text: str | None) -> str:
        """Return a stored date after its preposition: "on 3 Frostmoot, year 363 of the Third Age" for a day,
        "in year 330" for anything coarser (a date it cannot read: "in" and the text as written; a date not known,
        or hidden from the reader: "at an unknown time")."""
        text = self.seen(text)
        if not text:
            return ""
        if text == UNKNOWN:
            return "at an unknown time"
        try:
            date = parse_date(text)
        except DateError:
            return f"in {text}"
        return ("on " if date.precision == "day" else "in ") + self.world_date(date)

    def span(self, validity: Validity) -> str:
        """Return when something holds, in words: "since year 300 of the Third Age", "from scene 2"."""
        parts: list[str] = []
        start, end = self.seen(validity.world_from), self.seen(validity.world_until)
        if start == UNKNOWN and not end:
            parts.append("the date is not known")  # "Osric Dray is dead (the date is not known)"
        elif start and end:
            parts.append(self._between(start, end))
        elif start:
            parts.append(f"since {self.date(start)}")
        elif end:
            parts.append(f"until {self.date(end)}")
        if validity.story_from is not None:
            if validity.story_until is not None:
                parts.append(f"scenes {validity.story_from} to {validity.story_until}")
            else:
                parts.append(f"from scene {validity.story_from}")
        elif validity.story_until is not None:
            parts.append(f"until scene {validity.story_until}")
        return ", ".join(parts)

    def _between(self, start: str, end: str) -> str:
        try:
            a, b = parse_date(start), parse_date(end)
        except DateError:
            return f"from {self.date(start)} to {self.date(end)}"
        if a.era == b.era and a.era is not None and a.precision == b.precision == "year":
            return f"from year {a.year} to {b.year} of {self.era(a.era)}"
        return f"from {self.world_date(a)} to {self.world_date(b)}"

    def in_words(self, text: str) -> str:
        """Return a sentence with every date key in it said in words."""
        return _PLAIN_KEY_AFTER.sub(self._plain_words, _DATE_KEY_AFTER.sub(self._key_words, text))

    def _plain_words(self, match: re.Match[str]) -> str:
        day = int(match["day"]) if match["day"] else None
        date = WorldDate(era=None, year=int(match["year"]), month=int(match["month"]), day=day)
        return (
            "on " if match["prep"] and day is not None else "in " if match["prep"] else ""
        ) + self.world_date(date)

    def _key_words(self, match: re.Match[str]) -> str:
        if date_hidden(match["era"], self.hidden):
            return "at an unknown time" if match["prep"] else "an unknown date"
        if not match["label"] and match["era"] not in self.eras:
            return match[0]
        try:
            date = WorldDate(
                era=match["era"],
                year=int(match["year"]),
                month=int(match["month"]) if match["month"] else None,
                day=int(match["day"]) if match["day"] else None,
            )
        except ValueError:
            return match[0]
        if match["prep"]:
            return ("on " if date.precision == "day" else "in ") + self.world_date(date)
        return self.world_date(date)


PLAIN_CALENDAR = CalendarWords()
