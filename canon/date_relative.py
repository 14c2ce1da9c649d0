"""Dates typed relative to the scene's date: "three days later", "+3 days", "the next day", "next spring".

`read_relative` answers None when a text is not relative (the absolute reader takes it), the date it names
(with a note), or a refusal: a relative date needs the scene's date, as fine as its step (days need a day).
Months keep the calendar's own lengths. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from canon.calendar import MAX_YEAR, WorldDate
from canon.campaign_calendar import CampaignCalendar, fold
from canon.date_words import calendar_names, number_word

_UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "fortnight": "fortnight", "fortnights": "fortnight",
          "month": "month", "months": "month", "year": "year", "years": "year"}  # fmt: skip
_FORWARD = {"later", "after", "afterwards", "afterward", "on", "hence", "onwards"}
_BACKWARD = {"earlier", "before", "ago", "previously", "prior", "back"}
_NEXT = {"next", "following"}
_LAST = {"last", "previous", "preceding"}
SHIFT_FORMS = "+3 days, +2 weeks, +1 month, +10 years, three days later or next spring"
_VAGUE_AMOUNTS = {"few", "several", "some", "many", "couple"}


@dataclass(frozen=True)
class Refused:
    """A relative date that cannot be placed: why, and the readings to choose from."""

    problem: str
    choices: tuple[str, ...] = ()


def read_relative(
    words: list[str], raw: str, calendar: CampaignCalendar, anchor: WorldDate | None, example: str
) -> tuple[WorldDate, str] | Refused | None:
    """Return the date a relative text names from `anchor`, a refusal, or None when the text is not relative."""
    step = _step(words, calendar)
    if step is None:
        return None
    if isinstance(step, Refused):
        return step
    if anchor is None or anchor.year is None:
        return Refused(
            f"“{raw}” counts from the scene's date, and there is none here yet; give a date like “{example}”."
        )
    amount, unit = step
    if unit.startswith("season:"):
        return _season(int(unit.split(":")[1]), amount, anchor, calendar)
    try:
        return shift(anchor, amount, unit, calendar), ""
    except ValueError as error:
        return Refused(str(error))


def _step(words: list[str], calendar: CampaignCalendar) -> tuple[int, str] | Refused | None:
    """Return (signed amount, unit) a relative text says, or None when it says none."""
    ws = [w for w in words if w != "the"]
    if not ws:
        return None
    if ws == ["tomorrow"]:
        return 1, "day"
    if ws == ["yesterday"]:
        return -1, "day"
    if ws in (["today"], ["same", "day"], ["that", "day"]):
        return 0, "day"
    seasons = {fold(s.name): i for i, s in enumerate(calendar.seasons)}
    if len(ws) >= 2 and ws[0] in _NEXT | _LAST | {"this"} and " ".join(ws[1:]) in seasons:
        direction = 1 if ws[0] in _NEXT else (-1 if ws[0] in _LAST else 0)
        return direction, f"season:{seasons[' '.join(ws[1:])]}"
    if len(ws) == 2 and ws[0] in _NEXT | _LAST and ws[1] in _UNITS:
        return (1 if ws[0] in _NEXT else -1), _UNITS[ws[1]]
    if len(ws) == 2 and ws[0] in _UNITS and ws[1] in {"after", "before"}:
        return (1 if ws[1] == "after" else -1), _UNITS[ws[0]]
    signed = ws[0][:1] in "+-" and ws[0][1:].isdigit()
    if signed and len(ws) == 2 and ws[1] in _UNITS:
        return _scaled(int(ws[0]), _UNITS[ws[1]])
    known = {w for n in calendar_names(calendar) for w in n.words}
    if signed and len(ws) == 2 and ws[1].isalpha() and ws[1] not in known:
        return Refused(f"That is not a step of time; write one like {SHIFT_FORMS}.")
    direction = 0
    if ws[0] in {"after", "in"}:
        direction, ws = 1, ws[1:]
    elif ws[-1] in _FORWARD:
        direction, ws = 1, ws[:-1]
    elif ws[-1] in _BACKWARD:
        direction, ws = -1, ws[:-1]
    if not direction or not ws or ws[-1] not in _UNITS:
        return None
    amount_words = ws[:-1]
    if set(amount_words) & _VAGUE_AMOUNTS:
        return Refused("That is approximate; canon keeps a date exactly, so say how many.")
    amount = _amount(amount_words)
    if amount is None:
        return None
    return _scaled(direction * amount, _UNITS[ws[-1]])


def _amount(words: list[str]) -> int | None:
    if not words:
        return None
    if len(words) == 1 and words[0].isdigit() and len(words[0]) <= 6:
        return int(words[0])
    found = number_word(words, 0)
    if found is not None and found[1] == len(words):
        return found[0]
    return None


def _scaled(amount: int, unit: str) -> tuple[int, str]:
    if unit == "week":
        return amount * 7, "day"
    if unit == "fortnight":
        return amount * 14, "day"
    return amount, unit


def shift(date: WorldDate, amount: int, unit: str, calendar: CampaignCalendar) -> WorldDate:
    """Return `date` moved by `amount` days, months or years (months keep their own lengths); raise
    `ValueError` with a sentence when the date is too coarse or the result leaves the calendar's eras."""
    needed = {"day": date.day, "month": date.month, "year": date.year}[unit]
    if needed is None:
        raise ValueError(
            f"The scene's date, {calendar.say(date)}, names no {unit}, so it cannot move by {unit}s; "
            "give the new date instead."
        )
    assert date.year is not None
    year, month, day = date.year, date.month, date.day
    if unit == "year":
        year += amount
    elif unit == "month":
        assert month is not None
        index = (month - 1) + amount
        year, month = year + index // calendar.month_count, index % calendar.month_count + 1
        if day is not None:
            day = min(day, calendar.days_in(month))
    else:
        assert month is not None and day is not None
        year, month, day = _add_days(year, month, day, amount, calendar)
    if abs(year) > MAX_YEAR:
        raise ValueError("That moves the date outside the calendar.")
    return WorldDate(era=_era_for(date.era, year, calendar), year=year, month=month, day=day)


def _add_days(
    year: int, month: int, day: int, amount: int, calendar: CampaignCalendar
) -> tuple[int, int, int]:
    per_year = sum(calendar.days_in(m) for m in range(1, calendar.month_count + 1))
    years, amount = divmod(amount + (day - 1) + sum(calendar.days_in(m) for m in range(1, month)), per_year)
    year += years
    month = 1
    while amount >= calendar.days_in(month):
        amount -= calendar.days_in(month)
        month += 1
    return year, month, amount + 1


def _era_for(era: str | None, year: int, calendar: CampaignCalendar) -> str | None:
    """Return the era a moved date belongs to: its own while it lasts, else the one era that holds the year."""
    if era is None:
        return None
    own = calendar.era(era)
    if own is None or own.contains(year):
        return era
    holding = [e for e in calendar.eras if e.contains(year)]
    if len(holding) == 1:
        return holding[0].key
    raise ValueError(f"That is year {year}, outside {calendar.era_phrase(era)} ({own.span_words()}).")


def _season(
    index: int, direction: int, anchor: WorldDate, calendar: CampaignCalendar
) -> tuple[WorldDate, str] | Refused:
    season = calendar.seasons[index]
    assert anchor.year is not None
    year = anchor.year
    if direction and anchor.month is None:
        choices = tuple(
            f"{season.name} of {calendar.say(WorldDate(era=anchor.era, year=y))}"
            for y in (year, year + direction)
        )
        return Refused(
            f"The scene's date, {calendar.say(anchor)}, names no month, so “{'next' if direction > 0 else 'last'} "
            f"{season.name}” could be in year {year} or {year + direction}.",
            choices,
        )
    if direction > 0 and anchor.month is not None and anchor.month >= season.months[0]:
        year += 1
    elif direction < 0 and anchor.month is not None and anchor.month <= season.months[-1]:
        year -= 1
    month = season.months[0] if len(season.months) == 1 else None
    try:
        era = _era_for(anchor.era, year, calendar)
    except ValueError as error:
        return Refused(str(error))
    note = (
        ""
        if month
        else f"{season.name.capitalize()} is kept as its year: a date holds a year, a month or a day."
    )
    return WorldDate(era=era, year=year, month=month), note
