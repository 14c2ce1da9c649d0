"""A bare year read on a calendar whose eras nest: "what happened in 452?" when year 452 lies in the Lantern Age
and in the Grey Truce, an era within it.

`canon.date_reading.read_date` refuses a year that lies in more than one era ("say which"). When the eras holding
it are one era and the eras canon sets within it (SUB_ERA_OF: a sub-era lies inside its parent's years, counted as
its parent counts them), the year reads one way: in the outermost era. Eras side by side that both hold the year
(two ages counting from 1) are still refused.
"""

from __future__ import annotations

import re

from canon.calendar import WorldDate
from canon.campaign_calendar import CampaignCalendar
from canon.date_reading import read_date
from canon.graph.reader import CanonReader

__all__ = ["year_read"]

_BARE_YEAR = re.compile(r"^(?:the\s+)?(?:year\s+)?(?P<year>\d{1,6})$", re.IGNORECASE)


async def year_read(reader: CanonReader, when: str, calendar: CampaignCalendar) -> WorldDate | None:
    """Return the date the words say on the calendar, a bare year in nested eras read in the outermost one (see
    the module docstring), or None when they are no date of it."""
    reading = read_date(when, calendar)
    if reading.date is not None:
        return reading.date
    bare = _BARE_YEAR.match(when.strip())
    if bare is None:
        return None
    year = int(bare["year"])
    holding = {e.key for e in calendar.eras if e.contains(year)}
    if len(holding) < 2:
        return None
    eras = await reader.all_entities(types=["Era"])
    key_of = {e.id: e.key for e in eras.values()}
    within = await reader.statements(predicates=["SUB_ERA_OF"], with_evidence=False)
    inner = {
        key_of.get(s.subject_id)
        for s in within
        if s.object_id is not None and key_of.get(s.object_id) in holding
    }
    outer = holding - inner
    if len(outer) != 1:
        return None
    return WorldDate(era=outer.pop(), year=year)
