"""The calendar as a player may see it: without the GM-only eras, and without a today that falls in one.

A GM-only era stays the GM's even when the calendar block names it (to give it an abbreviation or a span): the
player's calendar leaves it out, with every name it has. A `today:` the GM set in such an era ("3 Emberly, year 60
of the Sunken Reign") is no date for a player: their calendar has no today at all, so ages are not counted for them
and nothing they are told says where the story stands, word for word as in a campaign whose GM set no today. A
today that reads on the player's calendar as another date than the GM's ("year 60", placed in another era without
the hidden one) is left out alike. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection

from canon.campaign_calendar import CampaignCalendar, fold
from canon.date_reading import present

__all__ = ["calendar_seen"]


def calendar_seen(
    seen: CampaignCalendar, whole: CampaignCalendar, hidden: Collection[str]
) -> CampaignCalendar:
    """Return the calendar a player reads: `seen` (built from the eras they may see and the GM's block) without
    the eras `hidden` from them (their keys, as in `whole`, the GM's calendar) and with its today only when it is
    the GM's today in an era the player may see."""
    if not hidden:
        return seen
    names = {fold(e.name) for e in whole.eras if e.key in hidden} | {fold(key) for key in hidden}
    eras = tuple(e for e in seen.eras if e.key not in hidden and fold(e.name) not in names)
    shown = seen.model_copy(update={"eras": eras, "today": None})
    today = present(whole)
    if today is None or today.era in hidden or seen.today is None:
        return shown
    kept = shown.model_copy(update={"today": seen.today})
    return kept if present(kept) == today else shown
