"""Questions about the months of the campaign's year, answered in its calendar's words.

- "how many months does the year have?", "what are the months?", "list the months": the months, in order
  ("The year has three months: Frostmoot, Hearthmoon and Thawmoon, each of 30 days."; each with its days where
  their lengths differ);
- "how many days are in Hearthmoon?", "how long is Hearthmoon?": the month's days;
- "how many days are in a year?": the days of the months together.

A calendar with unnamed months says how many and how long; a campaign with no calendar of months says so
(`NO_MONTHS`). Pure: no I/O; `answer_eras` asks here after the seasons.
"""

from __future__ import annotations

import re

from canon.campaign_calendar import CampaignCalendar, fold
from canon.wording.counts import in_words, listed
from memory.knowledge.retrieval.answer_seasons import IN_STORY, WHAT

__all__ = ["NO_MONTHS", "asks_months", "months_answer"]

#: The answer to a question about the months where the campaign's calendar has none.
NO_MONTHS = "Canon holds no calendar of months."

_YEAR = r"(?:(?:a|the|one|each|every|our|this)\s+)?(?:\w+\s+)?year"
_LIST = re.compile(
    rf"^how\s+many\s+months\s+(?:does|do|has|have|is|are|in|make\s+up)\s+(?:there\s+)?(?:in\s+)?{_YEAR}"
    rf"(?:\s+(?:have|has|hold|holds))?{IN_STORY}$"
    rf"|^how\s+many\s+months\s+are\s+there(?:\s+in\s+{_YEAR})?{IN_STORY}$"
    rf"|^(?:{WHAT}|which)\s+(?:are\s+)?(?:the\s+)?(?:names\s+of\s+the\s+)?months(?:\s+are\s+there)?"
    rf"(?:\s+(?:of|in)\s+{_YEAR})?(?:\s+called)?{IN_STORY}$"
    rf"|^(?:list|name|tell\s+me)\s+(?:all\s+)?(?:of\s+)?the\s+months(?:\s+(?:of|in)\s+{_YEAR})?{IN_STORY}$"
)
_DAYS_OF = re.compile(
    r"^how\s+many\s+days\s+(?:are\s+|is\s+)?(?:there\s+)?(?:in|does|has)\s+(?P<month>.+?)(?:\s+(?:have|has))?$"
    r"|^how\s+long\s+is\s+(?:the\s+month\s+(?:of\s+)?)?(?P<month2>.+?)$"
)


def _named(calendar: CampaignCalendar) -> bool:
    """Tell whether the campaign's calendar says anything of its months (named, or counted by its GM)."""
    return bool(calendar.months) or "months_per_year" in calendar.model_fields_set


def _days(count: int) -> str:
    return "1 day" if count == 1 else f"{count:,} days"


def _year(calendar: CampaignCalendar) -> str:
    count = calendar.month_count
    if not calendar.months:
        return f"The year has {in_words(count)} months, which have no names, each of {_days(calendar.days_per_month)}."
    lengths = {m.days for m in calendar.months}
    if len(lengths) == 1:
        names = listed([m.name for m in calendar.months])
        each = f", each of {_days(lengths.pop())}" if count > 1 else f", of {_days(lengths.pop())}"
    else:
        names, each = listed([f"{m.name} ({_days(m.days)})" for m in calendar.months]), ""
    month = "month" if count == 1 else "months"
    return f"The year has {in_words(count)} {month}: {names}{each}."


def asks_months(said: str) -> bool:
    """Tell whether a folded question may ask of the months of the year."""
    return _LIST.match(said) is not None or _DAYS_OF.match(said) is not None


def months_answer(said: str, calendar: CampaignCalendar) -> str | None:
    """Return the answer to a folded question about the months of the year, or None when it asks none."""
    if _LIST.match(said):
        return _year(calendar) if _named(calendar) else NO_MONTHS
    found = _DAYS_OF.match(said)
    if found is None:
        return None
    words = re.sub(r"^the\s+(?:month\s+(?:of\s+)?)?", "", found["month"] or found["month2"])
    if re.fullmatch(_YEAR, words):
        if not _named(calendar):
            return NO_MONTHS
        days = sum(calendar.days_in(m) for m in range(1, calendar.month_count + 1))
        return f"The year has {_days(days)}, in {in_words(calendar.month_count)} months."
    month = next((m for m in calendar.months if fold(m.name) == fold(words)), None)
    return None if month is None else f"{month.name} has {_days(month.days)}."
