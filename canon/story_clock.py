"""Move a scene's in-world date: a shift such as `+3 days` or `+1 year` from the date it has, or a new date.

Months and days follow the calendar's rules (`CalendarRules`): a year of `months_per_year` months, each of
`days_per_month` days, so `+3 days` from day 30 of a 31-day month is day 2 of the next month. A shift needs a date
as fine as its unit (days need a day) and never changes the era (years are absolute). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from canon.calendar import (
    DEFAULT_RULES,
    YEAR_RANGE,
    CalendarRules,
    DateError,
    WorldDate,
    check_era,
    parse_date,
    year_problem,
)
from canon.campaign_calendar import CampaignCalendar
from canon.continuity import world_key
from canon.date_reading import read_date
from canon.errors import InvalidInput
from canon.wording.dates import CalendarWords

_SHIFT = re.compile(r"^\+\s*([0-9]{1,6})\s*(day|days|week|weeks|month|months|year|years)$")
SHIFT_FORMS = "+3 days, +2 weeks, +1 month, +10 years"


def scene_time(
    text: str,
    current: WorldDate | None,
    rules: CalendarRules = DEFAULT_RULES,
    eras: Mapping[str, str] | None = None,
    calendar: CampaignCalendar | None = None,
) -> WorldDate:
    """Return the date a scene moves to: `current` shifted (`+3 days`), or the date `text` names, whose era
    must be one of the campaign's `eras` (their names by key) when it defines any. With the campaign's
    `calendar`, the text is read as the table types it (`canon.date_reading`), relative dates from `current`."""
    if calendar is not None:
        reading = read_date(
            text, calendar, anchor=current if current is not None and not current.is_unknown else None
        )
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        if reading.date.is_unknown:
            raise InvalidInput("A scene's date cannot be “unknown”; leave the date out instead.")
        return reading.date
    clean = " ".join(text.strip().lower().split())
    shift = _SHIFT.fullmatch(clean)
    if shift is None:
        if clean.startswith("+"):
            raise InvalidInput(f"“{text}” is not a shift of time; write one like {SHIFT_FORMS}.")
        try:
            shown = CalendarWords(eras=eras or {}).example()  # a date in the campaign's own words
            date = check_era(parse_date(clean, rules), text.strip(), eras or {}, shown)
        except DateError as error:
            if error.sentence:
                raise InvalidInput(error.sentence) from None
            reason = f" ({error.reason})" if error.reason else ""
            raise InvalidInput(
                f"“{text.strip()}” is not a date or a shift of time{reason}. Write a date on the campaign's "
                f"calendar, like “{shown}”, or a shift like {SHIFT_FORMS}."
            ) from None
        if date.is_unknown:
            raise InvalidInput("A scene's date cannot be “unknown”; leave the date out instead.")
        return date
    if current is None or current.is_unknown:
        raise InvalidInput("This scene has no date yet, so it cannot move by a shift; give it a date first.")
    amount, unit = int(shift[1]), shift[2].rstrip("s")
    if unit == "week":
        amount, unit = amount * 7, "day"
    return advance(current, amount, unit, rules)


def date_and_key(date: WorldDate) -> tuple[str, int | None]:
    """Return a date as a scene stores it: its canonical text and its world key."""
    return str(date), world_key(date)


def advance(date: WorldDate, amount: int, unit: str, rules: CalendarRules = DEFAULT_RULES) -> WorldDate:
    """Return a date moved forward by `amount` days, months or years; raise `InvalidInput` when it is too coarse."""
    needed = {"day": date.day, "month": date.month, "year": date.year}[unit]
    if needed is None:
        raise InvalidInput(
            f"The scene's date ({date}) does not name a {unit}, so it cannot move by {unit}s; give the new date."
        )
    assert date.year is not None
    year, month, day = date.year, date.month, date.day
    if unit == "year":
        year += amount
    elif unit == "month":
        assert month is not None
        months = (month - 1) + amount
        year, month = year + months // rules.months_per_year, months % rules.months_per_year + 1
    else:
        assert month is not None and day is not None
        per_year = rules.months_per_year * rules.days_per_month
        index = (month - 1) * rules.days_per_month + (day - 1) + amount
        year += index // per_year
        month = (index % per_year) // rules.days_per_month + 1
        day = index % rules.days_per_month + 1
    if year_problem(year) is not None:
        raise InvalidInput(f"That moves the scene outside the calendar, which runs over {YEAR_RANGE}.")
    return WorldDate(era=date.era, year=year, month=month, day=day)
