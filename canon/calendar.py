"""Represent, parse, place and compare in-world dates on the campaign calendar.

An in-world date is an era plus an optional year, month and day (`WorldDate`). Precision is kept: a date
may name only an era (`3rd_age`), a year (`3rd_age.year_300`), a month or a day, or be entirely `unknown`.

Years are ABSOLUTE: every era's years sit on one common year axis. An era's `start` and `end` (from a
timeline) are years on that axis, and `3rd_age.year_340` means year 340 of that axis, which must fall inside
the 3rd age's range. So `2nd_age.year_87` and `3rd_age.year_87` are the same year (eras may overlap or share a
boundary year); the era says which era the date belongs to and places era-only dates. Negative years are
allowed (`3rd_age.year_-50`). An era's `start` and `end` are both inclusive; `end: null` means the era has not
ended. A sub-era without its own bounds inherits the missing bound from its parent era.

Text forms accepted by `parse_date` (the era is always the first segment; an era id is a lowercase slug with
at least one letter):

    unknown
    3rd_age                              era only
    3rd_age.year_300                     year
    3rd_age.year_300.month_3             month
    3rd_age.year_300.month_3.day_17      day
    3rd_age.300  3rd_age.300.3  3rd_age.300.3.17    the same without labels
    3rd_age.year_-50  3rd_age.-50        negative (absolute) years
    412  412.3  412.3.17  -50            a plain year, for a campaign whose calendar has no eras

`str(date)` gives the canonical labelled form (`3rd_age.year_300.month_3.day_17`; a plain year keeps its
number first: `412.month_3.day_17`).

A plain-year date has no era (`era` is None) and a year; it sits on the same absolute year axis, so it
compares with every other dated year. Only a date with neither era nor year is unknown.

Bounds: a year lies between `MIN_YEAR` and `MAX_YEAR` (a trillion years either way), so that its sortable key
(`year * 10000 + month * 100 + day`) fits the 64-bit columns it is stored in; a real time (`as believed at`, a
session's start) lies between `EARLIEST_REAL_TIME` and `LATEST_REAL_TIME` in UTC, so that it can be read in any
time zone. `YEAR_RANGE` and `REAL_TIME_RANGE` name them in messages; this module is the one place for both.

Ordering: dates form a partial order, because coarse dates are intervals. `compare(a, b, calendar)` answers
explicitly:
    before   a ends before b begins (certain)
    after    a begins after b ends (certain)
    same     a and b cover exactly the same span at their recorded precision; two dates both given as
             `3rd_age.300` are "same" even though they may be different days
    overlap  their spans intersect but differ, so their order is undetermined (e.g. `3rd_age.300` vs
             `3rd_age.300.3.17`, or an era-only date vs a year inside that era)
    unknown  at least one date cannot be placed: it is `unknown`, or it names only an era whose bounds the
             calendar does not know
`sort_key(date, calendar)` gives a total order that agrees with every certain answer (`before`/`after`),
puts coarse dates before finer dates that start at the same point, and puts unplaceable dates last.

This module is pure: no I/O, no database, no imports from the rest of Lorekeeper.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

Precision = Literal["unknown", "era", "year", "month", "day"]
Comparison = Literal["before", "after", "same", "overlap", "unknown"]

UNKNOWN = "unknown"
DATE_FORMS = (
    "3rd_age.300 (an era and a year), 3rd_age.300.3.17 (and a month and a day), 3rd_age (an era), "
    "412 or 412.3.17 (a plain year, without eras) or unknown"
)

ERA_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_ERA_ID = re.compile(r"(?=[0-9_-]*[a-z])[a-z0-9][a-z0-9_-]*")
_YEAR_SEGMENT = re.compile(r"^(?:year_)?([+-]?[0-9]+)$")
_MONTH_SEGMENT = re.compile(r"^(?:month_)?([0-9]+)$")
_DAY_SEGMENT = re.compile(r"^(?:day_)?([0-9]+)$")
_LABELS = ("year", "month", "day")
_PLAIN_YEAR = re.compile(r"[+-]?[0-9]+")

#: The first and last year a date may name: a world key (`year * 10000 + month * 100 + day`) of any of them
#: fits a signed 64-bit column with room to spare.
MAX_YEAR = 10**12 - 1
MIN_YEAR = -MAX_YEAR
YEAR_RANGE = f"years {MIN_YEAR:,} to {MAX_YEAR:,}"
#: The first and last real (UTC) time a command takes: a day inside Python's own range, so that the time can be
#: shown in any time zone (the offsets run up to 14 hours either way).
EARLIEST_REAL_TIME = dt.datetime(1, 1, 2, tzinfo=dt.UTC)
LATEST_REAL_TIME = dt.datetime(9999, 12, 30, 23, 59, tzinfo=dt.UTC)
REAL_TIME_RANGE = "from 0001-01-02 to 9999-12-30 (UTC)"

# Open interval ends; Python ints are unbounded, so these sit beyond any real year.
_FAR = 10**18
DatePoint = tuple[int, int, int]


def is_era_id(text: str) -> bool:
    """Tell whether `text` can name an era: a lowercase slug with at least one letter, not `unknown`."""
    return _ERA_ID.fullmatch(text) is not None and text != UNKNOWN


def year_problem(year: int) -> str | None:
    """Return why a year cannot be stored (outside `YEAR_RANGE`), or None when it can."""
    if MIN_YEAR <= year <= MAX_YEAR:
        return None
    return f"year {year:,} is outside the calendar, which runs over {YEAR_RANGE}"


def real_time_problem(moment: dt.datetime) -> str | None:
    """Return why an aware real time cannot be used (outside `REAL_TIME_RANGE`), or None when it can."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        return "it names no time zone"
    if EARLIEST_REAL_TIME <= moment <= LATEST_REAL_TIME:
        return None
    return f"real times run {REAL_TIME_RANGE}"


class CalendarRules(BaseModel):
    """Hold the shape of the campaign's year: how many months, and at most how many days in a month."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    months_per_year: int = Field(default=12, ge=1)
    days_per_month: int = Field(default=31, ge=1)


DEFAULT_RULES = CalendarRules()
#: Months and days above 99 do not fit a date's sortable key (`year * 10000 + month * 100 + day`).
MAX_MONTHS = 99
MAX_DAYS = 99
#: The widest year any campaign's calendar may have: a stored date is read with it unless the caller gives the
#: campaign's own shape, so that a day past the 31st of a long month reads back as the day it was stored as.
STORED_RULES = CalendarRules(months_per_year=MAX_MONTHS, days_per_month=MAX_DAYS)


class DateError(ValueError):
    """Say why a text is not a date; `describe(subject)` phrases it for a world-builder."""

    def __init__(self, text: str, reason: str | None = None, *, sentence: str | None = None) -> None:
        self.text = text
        self.reason = reason
        self.sentence = sentence
        super().__init__(self.describe("the date"))

    def describe(self, subject: str) -> str:
        """Phrase the problem as a sentence about `subject` (for example `"born"`). A problem with a whole
        sentence of its own (an era the campaign lacks) says just that, without its closing stop."""
        if self.sentence:
            return self.sentence.rstrip(".")
        message = f'{subject} must be a date like {DATE_FORMS}; got "{self.text}"'
        if self.reason:
            message += f" ({self.reason})"
        return message


class WorldDate(BaseModel):
    """Hold an in-world date: an era and/or a year, then optionally month and day; all None means unknown.

    A year without an era is a plain year (a campaign whose calendar has no eras)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    era: str | None = None
    year: int | None = None
    month: int | None = None
    day: int | None = None

    @model_validator(mode="after")
    def _check_shape(self) -> WorldDate:
        if self.era is not None and not is_era_id(self.era):
            raise ValueError(
                f'era "{self.era}" must be a lowercase id with at least one letter, like 3rd_age'
            )
        if self.month is not None and self.year is None:
            raise ValueError("a date with a month needs a year")
        if self.day is not None and self.month is None:
            raise ValueError("a date with a day needs a month")
        if self.month is not None and self.month < 1:
            raise ValueError(f"month must be 1 or more; got {self.month}")
        if self.day is not None and self.day < 1:
            raise ValueError(f"day must be 1 or more; got {self.day}")
        return self

    @classmethod
    def unknown(cls) -> WorldDate:
        """Return the date that is not known at all."""
        return cls()

    @property
    def precision(self) -> Precision:
        """Say how finely the date is known."""
        if self.year is None:
            return "unknown" if self.era is None else "era"
        if self.month is None:
            return "year"
        if self.day is None:
            return "month"
        return "day"

    @property
    def is_unknown(self) -> bool:
        """Tell whether nothing at all is known about the date."""
        return self.era is None and self.year is None

    def __str__(self) -> str:
        if self.era is None:
            if self.year is None:
                return UNKNOWN
            # A plain year: its number first, never labelled (`year_412` would read as an era id).
            parts = [str(self.year)]
            labelled = zip(_LABELS[1:], (self.month, self.day), strict=True)
        else:
            parts = [self.era]
            labelled = zip(_LABELS, (self.year, self.month, self.day), strict=True)
        for label, value in labelled:
            if value is None:
                break
            parts.append(f"{label}_{value}")
        return ".".join(parts)


def parse_date(text: str, rules: CalendarRules = STORED_RULES) -> WorldDate:
    """Parse one of the date forms listed in the module docstring; raise `DateError` otherwise. Without `rules`
    any month and day a calendar may have is taken (`STORED_RULES`); give the campaign's to check against it."""
    if text == UNKNOWN:
        return WorldDate.unknown()
    segments = text.split(".")
    first = segments[0]
    era: str | None = first
    if _PLAIN_YEAR.fullmatch(first):
        era, segments = None, ["", *segments]  # a plain year: what follows an era that is not there
    elif not is_era_id(first):
        if first.lower() != first and is_era_id(first.lower()):
            raise DateError(text, "era ids are lowercase")
        raise DateError(text)
    if len(segments) > 4:
        raise DateError(text, "too many parts: an era, then at most year, month and day")
    values: list[int] = []
    for label, pattern, segment in zip(
        _LABELS, (_YEAR_SEGMENT, _MONTH_SEGMENT, _DAY_SEGMENT), segments[1:], strict=False
    ):
        match = pattern.fullmatch(segment)
        if match is None:
            raise DateError(text, f'"{segment}" is not a {label}')
        digits = match.group(1).lstrip("+-").lstrip("0")
        if len(digits) > len(str(MAX_YEAR)):  # a huge run of digits is never turned into an int
            if label == "year":
                raise DateError(text, f"the year is outside the calendar, which runs over {YEAR_RANGE}")
            top = rules.months_per_year if label == "month" else rules.days_per_month
            raise DateError(text, f"that {label} is not one of the calendar's (1 to {top})")
        values.append(int(match.group(1)))
    year, month, day = [*values, None, None, None][:3]
    if year is not None and (problem := year_problem(year)) is not None:
        raise DateError(text, problem)
    if month is not None and not 1 <= month <= rules.months_per_year:
        raise DateError(text, f"month {month} is not a month of the calendar (1 to {rules.months_per_year})")
    if day is not None and not 1 <= day <= rules.days_per_month:
        raise DateError(text, f"day {day} is not a day of a month (1 to {rules.days_per_month})")
    return WorldDate(era=era, year=year, month=month, day=day)


def check_era(date: WorldDate, text: str, eras: Mapping[str, str], example: str | None = None) -> WorldDate:
    """Return the date when the campaign's calendar defines its era (`eras`: the eras' names by key); raise
    `DateError` naming the eras it does define otherwise, with `example`, a date in the calendar's words
    (`canon.date_reading.example`, `CalendarWords.example`). A campaign without eras takes any date."""
    if date.era is None or not eras or date.era in eras:
        return date
    listed = ", ".join(f"{name} ({key})" for key, name in eras.items())
    shown = f", like “{example}”" if example else ""
    raise DateError(
        text,
        sentence=f"There is no era “{date.era}” in this campaign's calendar. Its eras: {listed}{shown}.",
    )


class EraSpan(BaseModel):
    """Hold one era's bounds on the absolute year axis (both inclusive; None where not known or open)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    start: int | None = None
    end: int | None = None
    parent: str | None = None


class DateInterval(NamedTuple):
    """Hold the span a date may occupy, as (year, month, day) points; month/day 0 and _FAR pad coarse dates."""

    lo: DatePoint
    hi: DatePoint


class EraCalendar:
    """Place dates on the absolute year axis using known era bounds; compare and sort them."""

    def __init__(self, eras: Iterable[EraSpan] = ()) -> None:
        spans: dict[str, EraSpan] = {}
        for span in eras:
            if span.id in spans:
                raise ValueError(f'era "{span.id}" is defined twice')
            spans[span.id] = span
        self._eras = spans

    @property
    def eras(self) -> Mapping[str, EraSpan]:
        """Return the eras this calendar knows, by id."""
        return self._eras

    def knows(self, era: str) -> bool:
        """Tell whether the era is defined in this calendar."""
        return era in self._eras

    def bounds(self, era: str) -> tuple[int | None, int | None] | None:
        """Return (start, end) of the era, inheriting missing bounds from parent eras; None if unknown era."""
        if era not in self._eras:
            return None
        start: int | None = None
        end: int | None = None
        seen: set[str] = set()
        current: str | None = era
        while current is not None and current in self._eras and current not in seen:
            seen.add(current)
            span = self._eras[current]
            if start is None:
                start = span.start
            if end is None:
                end = span.end
            current = span.parent
        return start, end

    def interval(self, date: WorldDate) -> DateInterval | None:
        """Return the span the date may occupy, or None when it cannot be placed."""
        if date.year is None:
            if date.era is None:
                return None
            bounds = self.bounds(date.era)
            if bounds is None or bounds == (None, None):
                return None
            start, end = bounds
            return DateInterval(
                (start if start is not None else -_FAR, 0, 0),
                (end if end is not None else _FAR, _FAR, _FAR),
            )
        return _fixed_interval(date)

    def compare(self, a: WorldDate, b: WorldDate) -> Comparison:
        """Say whether `a` is certainly before or after `b`, the same span, overlapping, or unknown."""
        ia = self.interval(a)
        ib = self.interval(b)
        if ia is None or ib is None:
            return "unknown"
        if ia.hi < ib.lo:
            return "before"
        if ia.lo > ib.hi:
            return "after"
        if ia == ib:
            return "same"
        return "overlap"

    def sort_key(self, date: WorldDate) -> tuple[int, DatePoint, DatePoint]:
        """Return a key giving a total order consistent with `compare`; unplaceable dates sort last."""
        span = self.interval(date)
        if span is None:
            return (1, (0, 0, 0), (0, 0, 0))
        # Inverting hi puts the coarser of two dates that start together first.
        lo, hi = span
        return (0, lo, (-hi[0], -hi[1], -hi[2]))

    def check(self, date: WorldDate) -> str | None:
        """Return why the date's year lies outside its era's bounds, or None if it fits or cannot tell."""
        if date.era is None or date.year is None:
            return None
        bounds = self.bounds(date.era)
        if bounds is None:
            return None
        start, end = bounds
        if (start is not None and date.year < start) or (end is not None and date.year > end):
            return f"year {date.year} is outside {date.era} ({_describe_bounds(start, end)})"
        return None


def _fixed_interval(date: WorldDate) -> DateInterval:
    assert date.year is not None
    year = date.year
    if date.month is None:
        return DateInterval((year, 0, 0), (year, _FAR, _FAR))
    if date.day is None:
        return DateInterval((year, date.month, 0), (year, date.month, _FAR))
    point = (year, date.month, date.day)
    return DateInterval(point, point)


def _describe_bounds(start: int | None, end: int | None) -> str:
    if start is not None and end is not None:
        return f"years {start} to {end}"
    if start is not None:
        return f"from year {start}"
    return f"up to year {end}"


_NO_ERAS = EraCalendar()


def compare(a: WorldDate, b: WorldDate, calendar: EraCalendar | None = None) -> Comparison:
    """Compare two dates; without a calendar, era-only dates cannot be placed and compare `unknown`."""
    return (calendar or _NO_ERAS).compare(a, b)


def sort_key(date: WorldDate, calendar: EraCalendar | None = None) -> tuple[int, DatePoint, DatePoint]:
    """Return the total-order key of `EraCalendar.sort_key` (without a calendar, era-only dates go last)."""
    return (calendar or _NO_ERAS).sort_key(date)
