"""Whether a GM may set a calendar block: no name meaning two things, no years the timeline contradicts, and
room for every date canon already holds. Each refusal says what to do, and nothing changes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from canon.calendar_block import CalendarBlock
from canon.campaign_calendar import CampaignCalendar, CanonEras, calendar_from, era_key, fold
from canon.errors import InvalidInput


def checked(block: Mapping[str, Any] | None, canon_eras: CanonEras) -> CampaignCalendar:
    """Return the calendar a GM's block makes with canon's eras; raise `InvalidInput` when a name means two
    things (an abbreviation of two eras, a month named like an era)."""
    calendar = calendar_from(block, canon_eras)
    if (word := calendar.clash()) is not None:
        raise InvalidInput(
            f"“{word}” would name two things in the calendar; give each era, month and season its own."
        )
    if (said := other_years(block, canon_eras)) is not None:
        raise InvalidInput(
            f"{said} The timeline decides an era's years: give the calendar the same years, or leave start and "
            "end out of it (or import the timeline again with the new years). Nothing changed."
        )
    return calendar


def other_years(block: Mapping[str, Any] | None, canon_eras: CanonEras) -> str | None:
    """Return the sentence saying how the block's years for an era differ from the years canon (a timeline)
    gives it ("The timeline says the Crown Years ends in year 600; the calendar says it ends in year 700."), or
    None when they agree: the timeline decides an era's years."""
    by_name = {fold(str(v[0] or k)): k for k, v in canon_eras.items()}
    for item in CalendarBlock.model_validate(block or {}).eras:
        key = item.key or by_name.get(fold(item.name or "")) or era_key(item.name or "")
        if key not in canon_eras:
            continue
        name, start, end = canon_eras[key][:3]
        wrong = [
            (bound, mine, theirs)
            for bound, mine, theirs in (("start", item.start, start), ("end", item.end, end))
            if mine is not None and theirs is not None and mine != theirs
        ]
        if wrong:
            theirs_said = " and ".join(f"{bound}s in year {theirs}" for bound, _, theirs in wrong)
            mine_said = " and ".join(f"{bound}s in year {mine}" for bound, mine, _ in wrong)
            said = str(name or key)
            said = f"the {said[4:]}" if said.startswith("The ") else said  # "says the Crown Years ends …"
            return f"The timeline says {said} {theirs_said}; the calendar says it {mine_said}."
    return None


def check_canon_dates(calendar: CampaignCalendar, keys: Iterable[int]) -> None:
    """Refuse a calendar that has no room for a date canon already holds (world keys, `year * 10000 + month *
    100 + day`): a month past its last, a day past its month's (raise `InvalidInput`, saying what to do)."""
    dated = [(key // 100 % 100, key % 100) for key in keys]
    if months := sorted({m for m, _ in dated if m > calendar.month_count}):
        raise InvalidInput(
            f"Canon already has dates in month {months[-1]}, and this calendar's year has "
            f"{calendar.month_count} month{'s' if calendar.month_count != 1 else ''}: give it at least "
            f"{months[-1]} months (or retcon those dates first). Nothing changed."
        )
    for month, day in sorted(set(dated)):
        if month and day > calendar.days_in(month):
            raise InvalidInput(
                f"Canon already has a date on day {day} of {calendar.month_name(month)}, and this calendar "
                f"gives {calendar.month_name(month)} {calendar.days_in(month)} days: give it at least {day} "
                "(or retcon that date first). Nothing changed."
            )
