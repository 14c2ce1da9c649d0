"""Move a scene's in-world date: a shift such as `+3 days` or `next spring` from the date it has, or a new date.

The text is read as the table types it, on the campaign's calendar (`canon.date_reading`): its eras by name, its
months with their own lengths, relative dates counted from the scene's date. Pure: no I/O.
"""

from __future__ import annotations

from canon.calendar import WorldDate
from canon.campaign_calendar import CampaignCalendar
from canon.continuity import world_key
from canon.date_reading import read_date
from canon.errors import InvalidInput


def scene_time(text: str, current: WorldDate | None, calendar: CampaignCalendar) -> WorldDate:
    """Return the date a scene moves to: `current` shifted (`+3 days`), or the date `text` names on the campaign's
    `calendar`; raise `InvalidInput` with a sentence the GM can act on."""
    anchor = current if current is not None and not current.is_unknown else None
    reading = read_date(text, calendar, anchor=anchor)
    if reading.date is None:
        raise InvalidInput(reading.sentence())
    if reading.date.is_unknown:
        raise InvalidInput("A scene's date cannot be “unknown”; leave the date out instead.")
    return reading.date


def date_and_key(date: WorldDate) -> tuple[str, int | None]:
    """Return a date as a scene stores it: its canonical text and its world key."""
    return str(date), world_key(date)
