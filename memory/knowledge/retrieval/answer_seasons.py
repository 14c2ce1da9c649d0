"""Questions about the calendar's seasons, answered in its words.

- "which months are the wet season?", "when is the wet season?": its months;
- "how long is the wet season?": its months and their days;
- "what season is Scorch in?": the season a month falls in;
- "what season is it?": the season of today's month (or that canon holds no date for today).

A season is named as the calendar names it, with or without its article and the word "season" ("the Wet", "wet
season"). Pure: no I/O; `answer_eras` asks here first.
"""

from __future__ import annotations

import re

from canon.campaign_calendar import CampaignCalendar, SeasonDef, fold
from canon.date_reading import present

__all__ = ["IN_STORY", "WHAT", "asks_season", "season_answer"]

#: "what" as the table types it (the calendar's questions, its eras' here and in `answer_eras`, read it alike).
WHAT = r"(?:what|wat|wot|whats|wats|what's)"
#: Where the table says it means the story's time, not the real one: "now", "in game", "in the world".
IN_STORY = (
    r"(?:\s+(?:now|today|right\s+now|currently|in[\s-]?game"
    r"|in\s+(?:the\s+)?(?:game|world|story|campaign|setting)))?"
)
_WHAT = rf"(?:{WHAT}|which)"
_MONTHS_OF = re.compile(
    rf"^{_WHAT}\s+months?\s+(?:are|is|make\s+up|fall\s+in|belong\s+to)\s+(?:in\s+)?(?P<season>.+?)$"
    r"|^when\s+(?:is|does)\s+(?P<season2>.+?)(?:\s+(?:start|begin|come|fall))?$"
)
_HOW_LONG = re.compile(r"^how\s+long\s+(?:is|does|lasts?)\s+(?P<season>.+?)(?:\s+last)?$")
_MONTH_IN = re.compile(
    rf"^{_WHAT}\s+season\s+(?:is|does)\s+(?P<month>.+?)(?:\s+(?:in|fall\s+in|belong\s+to))?$"
    rf"|^(?:is|does)\s+(?P<month2>.+?)\s+(?:in|fall\s+in)\s+{_WHAT}\s+season$"
)
_NOW = re.compile(rf"^{_WHAT}\s+season\s+is\s+it{IN_STORY}$|^{_WHAT}(?:\s+is)?\s+the\s+season{IN_STORY}$")


def _bare(words: str) -> str:
    """Return a season's words without their article and the word "season"."""
    said = fold(words)
    said = re.sub(r"^the\s+", "", said)
    return re.sub(r"\s+season$", "", said).strip()


def _season(words: str | None, calendar: CampaignCalendar) -> SeasonDef | None:
    if not words:
        return None
    wanted = _bare(words)
    return next((s for s in calendar.seasons if wanted and _bare(s.name) == wanted), None)


def _month(words: str | None, calendar: CampaignCalendar) -> int | None:
    if not words or not calendar.months:
        return None
    wanted = fold(words)
    return next((i for i, m in enumerate(calendar.months, 1) if fold(m.name) == wanted), None)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _first(name: str) -> str:
    """Return a name that opens a sentence, its first letter capital ("the Burning" -> "The Burning")."""
    return name[:1].upper() + name[1:]


def _months(calendar: CampaignCalendar, season: SeasonDef) -> str:
    return _join([calendar.month_name(m) for m in season.months])


def _of_month(calendar: CampaignCalendar, month: int) -> SeasonDef | None:
    return next((s for s in calendar.seasons if month in s.months), None)


def asks_season(said: str) -> bool:
    """Tell whether a folded question may ask of a season."""
    return any(p.match(said) for p in (_MONTHS_OF, _HOW_LONG, _MONTH_IN, _NOW))


def season_answer(said: str, calendar: CampaignCalendar, no_today: str) -> str | None:
    """Return the answer to a folded question about the calendar's seasons, or None when it names none."""
    if not calendar.seasons:
        return None
    if _NOW.match(said):
        date = present(calendar)
        if date is None or date.month is None:
            return no_today
        season = _of_month(calendar, date.month)
        today = calendar.say(date)
        if season is None:
            return f"Today, {today}, falls in no season the calendar names."
        return f"It is {season.name}: today is {today}."
    found = _MONTHS_OF.match(said)
    if found and (season := _season(found["season"] or found["season2"], calendar)):
        return f"{_first(season.name)} is {_months(calendar, season)}."
    if (found := _HOW_LONG.match(said)) and (season := _season(found["season"], calendar)):
        days = sum(calendar.days_in(m) for m in season.months)
        count = "1 month" if len(season.months) == 1 else f"{len(season.months)} months"
        return f"{_first(season.name)} lasts {count} ({days} days): {_months(calendar, season)}."
    found = _MONTH_IN.match(said)
    if found and (month := _month(found["month"] or found["month2"], calendar)) is not None:
        season = _of_month(calendar, month)
        name = calendar.month_name(month)
        return (
            f"{name} falls in {season.name}." if season else f"{name} falls in no season the calendar names."
        )
    return None
