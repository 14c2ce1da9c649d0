"""The event that opened an era: the first one canon dates in the era's first year, in that era, as the asker
may see it ("After the Crowning began in year 10, with the Crowning of Edric on 1 Emberly, …";
`answer_eras` says it). An era whose first year canon dates no event of has none.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.campaign_calendar import CampaignCalendar, EraDef
from canon.errors import GameError
from canon.graph.reader import CanonReader, happened_in_year
from canon.wording.clauses import is_clause
from canon.wording.relations import in_prose

__all__ = ["Opening", "openings"]

#: An era's opening event: its name as it reads inside a sentence ("the Crowning of Edric"; a name that is a
#: clause quoted, "“The king is crowned”") and when it took place in the calendar's words ("on 1 Emberly, year 10 …").
Opening = tuple[str, str]


async def openings(
    reader: CanonReader, calendar: CampaignCalendar, eras: Sequence[EraDef]
) -> dict[str, Opening]:
    """Return, by era key, the first event the reader's viewer sees dated in each era's first year and era."""
    found: dict[str, Opening] = {}
    for era in eras:
        if era.start is None or era.key in found:
            continue
        placed = [
            s
            for s in await happened_in_year(reader, era.start)
            if (s.validity.world_from or "").startswith(f"{era.key}.")
            and s.validity.world_from_key is not None
        ]
        for statement in sorted(placed, key=lambda s: (s.validity.world_from_key or 0, s.subject_id)):
            try:
                event = await reader.entity(statement.subject_id)
            except GameError:  # hidden from this asker, or retconned
                continue
            name = f"“{event.name}”" if is_clause(event.name) else in_prose(event.name, event.type)
            found[era.key] = (name, calendar.words().when(statement.validity.world_from))
            break
    return found
