"""A typed date's numbers read as its year, month and day, and the date placed on the campaign's calendar.

Labels ("year 340", "day 3"), ordinals ("the 3rd", "third") and positions ("17 Hearthmoon 340") say which
number is which; a year with no era is placed in the one era that holds it, a day must lie in its month. What
could mean two things, or names what the calendar lacks, is refused (`DateRefusal`) with the readings to
choose from. `canon.date_reading` reads the rest of a date's words. Pure: no I/O.
"""

from __future__ import annotations

import re

from canon.calendar import MAX_YEAR, WorldDate
from canon.campaign_calendar import CampaignCalendar
from canon.date_words import ORDINAL, ordinal_word
from canon.wording.counts import listed


class DateRefusal(Exception):
    """A typed text that is not exactly one date: why, in the calendar's words, and the readings to choose from."""

    def __init__(self, problem: str, choices: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.choices = choices


def read_numbers(
    raw: str, rest: list[str | None], months: list[int], calendar: CampaignCalendar, month_at: int = -1
) -> tuple[int | None, int | None, int | None]:
    """Return the year, month and day the numbers of the text say (labels, ordinals and positions)."""
    year = day = None
    month = months[0] if months else None
    bare: list[tuple[int, int]] = []  # (position, value)
    items = [(i, w) for i, w in enumerate(rest) if w is not None]
    labels = ("year", "day", "month")
    for index, (at, word) in enumerate(items):
        value = number_in(word)
        if value is None:
            continue
        ordinal = ORDINAL.fullmatch(word) is not None or ordinal_word(word) is not None
        before = items[index - 1][1] if index and items[index - 1][0] == at - 1 else None
        after = items[index + 1][1] if index + 1 < len(items) and items[index + 1][0] == at + 1 else None
        label = before if before in labels else (after if after in labels else None)
        if label == "year":
            year = _set(raw, year, value, "year")
        elif label == "day":
            day = _set(raw, day, value, "day")
        elif label == "month":
            if months:
                raise DateRefusal(f"“{raw}” names its month twice.")
            month = _set(raw, month, value, "month")
        elif ordinal and month is not None:
            day = _set(raw, day, value, "day")
        elif ordinal_word(word) is not None:
            continue  # "first" without a month is not a number of this date
        else:
            bare.append((at, value))
    if len(bare) == 2 and month is not None and day is None and year is None:
        (first_at, first), (_, second) = bare
        if first_at < month_at or first <= calendar.days_in(month):
            day, year = first, second
        else:
            day, year = second, first
        bare = []
    if len(bare) == 1 and month is not None and day is None and year is not None:
        day, bare = bare[0][1], []
    if len(bare) > 1 or (bare and year is not None):
        years = [v for _, v in bare] + ([year] if year is not None else [])
        raise DateRefusal(
            f"“{raw}” names more than one year ({listed([str(y) for y in years])}); a date has one."
        )
    if bare:
        value = bare[0][1]
        after_of = bare[0][0] > month_at >= 0 and rest[bare[0][0] - 1] == "of"
        if month is not None and day is None and 1 <= value <= calendar.days_in(month) and not after_of:
            name = calendar.month_name(month)
            raise DateRefusal(
                f"“{raw}” could be the {as_ordinal(value)} of {name} or {name} of year {value}; "
                "say which, with its year.",
                (f"{name} of year {value}",),
            )
        year = value
    return year, month, day


def placed(
    raw: str, year: int, month: int | None, day: int | None, era: str | None, calendar: CampaignCalendar
) -> WorldDate:
    """Return the date of these parts, its year placed in the one era that holds it and its day in its month."""
    if month is not None and not 1 <= month <= calendar.month_count:
        raise DateRefusal(f"This calendar has {calendar.month_count} months, so there is no month {month}.")
    if day is not None and month is None:
        raise DateRefusal(f"“{raw}” gives a day but not its month.")
    if era is None and calendar.eras:
        holding = [e for e in calendar.eras if e.contains(year)]
        if len(holding) == 1:
            era = holding[0].key
        elif holding:
            raise DateRefusal(
                f"Year {year} is in more than one era; say which.",
                tuple(calendar.say(WorldDate(era=e.key, year=year, month=month, day=day)) for e in holding),
            )
        else:
            raise DateRefusal(f"Year {year} is in none of this campaign's eras. {calendar.describe_eras()}")
    if month is not None and day is not None and not 1 <= day <= calendar.days_in(month):
        name = calendar.month_name(month)
        last = calendar.days_in(month)
        fixed = calendar.say(WorldDate(era=era, year=year, month=month, day=last))
        raise DateRefusal(
            f"{name.capitalize()} has {last} days, so there is no {as_ordinal(day)} of {name}.", (fixed,)
        )
    return WorldDate(era=era, year=year, month=month, day=day)


def settle(date: WorldDate, calendar: CampaignCalendar, raw: str) -> WorldDate:
    """Return the date when its year lies in its era (or, without eras, from the calendar's first year)."""
    if date.year is None:
        return date
    if abs(date.year) > MAX_YEAR:
        raise DateRefusal(f"Year {date.year} is outside the calendar.")
    if date.era is None:
        if calendar.eras:
            return placed(raw, date.year, date.month, date.day, None, calendar)
        if date.year < calendar.first_year:
            raise DateRefusal(
                f"This campaign's years count from {calendar.first_year}, so there is no year {date.year}; "
                f"a GM can give the calendar an era that reaches back further."
            )
        return date
    era = calendar.era(date.era)
    if era is not None and not era.contains(date.year):
        others = [e for e in calendar.eras if e.contains(date.year)]
        choices = tuple(
            calendar.say(WorldDate(era=e.key, year=date.year, month=date.month, day=date.day)) for e in others
        )
        raise DateRefusal(
            f"Year {date.year} is not in {calendar.era_phrase(era.key)} ({era.span_words()}).", choices
        )
    return date


def number_in(word: str) -> int | None:
    """Return the number a word is (\"340\", \"3rd\", \"third\"), or None."""
    match = ORDINAL.fullmatch(word)
    if match:
        return int(match[1])
    if re.fullmatch(r"[+-]?\d{1,13}", word):
        return int(word)
    return ordinal_word(word)


def _set(raw: str, current: int | None, value: int, what: str) -> int:
    if current is not None and current != value:
        raise DateRefusal(f"“{raw}” names two {what}s ({current} and {value}); a date has one.")
    return value


def as_ordinal(n: int) -> str:
    """Return a number as an ordinal (\"3rd\")."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
