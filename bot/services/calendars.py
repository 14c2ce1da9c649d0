"""The campaign's calendar as a use case: see it, set it (GM), read a typed date on it.

The calendar block a GM sets is stored with the campaign's settings (`canon.campaign_calendar`); the eras
themselves come from canon (a timeline's Era entities), which the block names further. Dates typed anywhere are
read on the result (`canon.date_reading.read_date`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from canon import campaigns
from canon.calendar import WorldDate
from canon.calendar_block import block_yaml
from canon.calendar_checks import check_canon_dates, checked
from canon.calendar_typed import parse_block
from canon.campaign_calendar import CALENDAR_SETTINGS, CampaignCalendar
from canon.campaigns import Campaign
from canon.date_reading import DateReading, check_today, read_date
from canon.errors import InvalidInput
from canon.graph.reads import dated_keys
from canon.models import Viewer
from canon.storage import Database


@dataclass(frozen=True)
class CalendarView:
    """The calendar as a GM reads it: sentences, and the block as YAML to edit and set again."""

    calendar: CampaignCalendar
    sentences: str
    block: str


class CalendarService:
    """See, set and read on a campaign's calendar."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def calendar(self, campaign: Campaign, viewer: Viewer = Viewer.PLAYER) -> CampaignCalendar:
        """Return the campaign's calendar as the viewer may see it (a GM-only era stays the GM's). A player's, unless
        the GM's is asked for: its dates in a GM-only era are written as no date (`CalendarWords.hidden`), so a
        caller that forgets who reads never writes one; read a GM's typed date, or write for the GM, with the
        GM's."""
        async with self.db.session() as session:
            return await (await self.access.reader(session, campaign, viewer)).calendar()

    async def view(self, campaign: Campaign) -> CalendarView:
        """Return the calendar in sentences, its GM-only eras marked, and its block (the GM's view)."""
        async with self.db.session() as session:
            calendar = await (await self.access.reader(session, campaign, Viewer.GM)).calendar()
            gm_only = await self._gm_only(session, campaign)
            row = await campaigns.get_campaign(session, campaign.id)
        block = (row.settings or {}).get(CALENDAR_SETTINGS) or {}
        return CalendarView(calendar, calendar.describe(gm_only), block_yaml(block) if block else "")

    async def _gm_only(self, session: AsyncSession, campaign: Campaign) -> frozenset[str]:
        """Return the keys of the eras only the GM may see: those a player's calendar hides."""
        return (await (await self.access.reader(session, campaign, Viewer.PLAYER)).calendar()).hidden_eras

    async def set_block(
        self, campaign: Campaign, text: str, *, restated: Collection[str] = ()
    ) -> CalendarView:
        """Set the calendar a GM typed (YAML, or sentences as /calendar show writes them), checked against canon's
        eras; an empty text clears it. `restated`: the keys of canon's eras that a calendar file imported again
        defines anew (its own eras of an earlier import), which its block is not checked against."""

        async def work(session: AsyncSession) -> tuple[CampaignCalendar, dict[str, Any]]:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            block = parse_block(text, await reader.calendar()) if text.strip() else {}
            eras = {key: era for key, era in (await reader.canon_eras()).items() if key not in restated}
            calendar = checked(block, eras)
            check_today(calendar)
            check_canon_dates(calendar, await dated_keys(reader))  # "month 11" on a calendar of 3: never
            await campaigns.update_campaign_settings(session, campaign.id, {CALENDAR_SETTINGS: block})
            return calendar, block

        calendar, block = await self.db.run(work)
        async with self.db.session() as session:
            gm_only = await self._gm_only(session, campaign)
        return CalendarView(calendar, calendar.describe(gm_only), block_yaml(block) if block else "")

    async def read(
        self, campaign: Campaign, text: str, *, anchor: WorldDate | None = None, viewer: Viewer = Viewer.GM
    ) -> DateReading:
        """Return what a typed date says on the campaign's calendar."""
        return read_date(text, await self.calendar(campaign, viewer), anchor=anchor)

    async def stored(self, campaign: Campaign, text: str, *, viewer: Viewer = Viewer.GM) -> WorldDate:
        """Return a typed date, or raise `InvalidInput` with the refusal in the calendar's words."""
        reading = await self.read(campaign, text, viewer=viewer)
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        return reading.date
