"""The calendar as a player may see it: without the GM-only eras, and without a today that falls in one.

A GM-only era stays the GM's even when the calendar block names it (to give it an abbreviation or a span): the
player's calendar leaves it out, with every name it has. A `today:` the GM set in such an era ("3 Emberly, year 60
of the Sunken Reign") is no date for a player: their calendar has no today at all, so ages are not counted for them
and nothing they are told says where the story stands, word for word as in a campaign whose GM set no today. A
today that reads on the player's calendar as another date than the GM's ("year 60", placed in another era without
the hidden one) is left out alike. The story's date (`story_date_seen`: the latest dated scene's, or the today
when later) is judged whole, as the GM has it, then hidden the same way when it falls in such an era: a player is
never told an earlier date instead. The player's calendar keeps the hidden eras' keys (`hidden_eras`, never shown):
its writer of dates (`CampaignCalendar.words()`) says every date in one as a date nobody knows, so a scene, a fact
or an event dated there reads with no date, never in the era's name or key; and its `hidden_names` (every name of those eras) let free text a GM or a model
wrote be read without them (`canon.visibility.era_text_seen`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection

from canon.calendar import DateError, parse_date
from canon.campaign_calendar import CampaignCalendar, fold
from canon.date_reading import present
from canon.visibility import date_hidden

__all__ = ["calendar_seen", "story_date_seen"]


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
    # The hidden eras' keys go with it: every date its writer says in one is no date (`CalendarWords.hidden`).
    gone = frozenset(hidden) | {e.key for e in seen.eras if e not in eras}
    # And their names: free text naming one reads without it (`CalendarWords.told`).
    told_names = frozenset(
        name
        for e in (*whole.eras, *seen.eras)
        if e.key in gone
        for name in (e.name, e.key, *e.abbreviations, *e.glossary)
    )
    shown = seen.model_copy(
        update={"eras": eras, "today": None, "hidden_eras": gone, "hidden_names": told_names}
    )
    today = present(whole)
    if today is None or date_hidden(today.era, hidden) or seen.today is None:
        return shown
    kept = shown.model_copy(update={"today": seen.today})
    return kept if present(kept) == today else shown


def story_date_seen(scene: str | None, whole: CampaignCalendar, hidden: Collection[str]) -> str | None:
    """Return the story's date a viewer reads, as canon stores dates: the latest dated scene's (`scene`), or the
    GM's today (`whole`'s) where no scene is dated or where it is later; None where there is neither, or where it
    falls in an era `hidden` from the viewer (`canon.visibility.date_hidden`)."""
    today = present(whole)
    stored = str(today) if today is not None else None
    now = stored if scene is None or (stored is not None and _later(stored, scene)) else scene
    if now is None or not hidden:
        return now
    try:
        era = parse_date(now).era
    except DateError:  # a date no era can be told of is no date a player may read
        return None
    return None if date_hidden(era, hidden) else now


def _later(one: str, other: str) -> bool:
    """Tell whether one stored date starts after another (one that cannot be placed is never later)."""
    try:
        first, second = parse_date(one), parse_date(other)
    except DateError:
        return False
    if first.year is None or second.year is None:
        return False
    # The calendar's own order (year, month, day), read without the continuity checks a question never needs.
    return (first.year, first.month or 0, first.day or 0) > (second.year, second.month or 0, second.day or 0)
