"""What a question reads of a campaign's canon besides its search: the campaign and its lineage, its calendar and
the story's date as the viewer may see them, the events that opened its eras (`Retriever` reads them so)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaign_calendar import CampaignCalendar, EraDef
from canon.campaigns import Campaign, get_campaign, lineage
from canon.forks import LineageStep
from canon.graph import CanonReader
from canon.models import Viewer
from canon.storage import Database
from canon.visibility import Knowing
from memory.knowledge.retrieval.entities import EntityFinder
from memory.knowledge.retrieval.eras import Opening, openings
from memory.knowledge.retrieval.lives import story_date
from memory.knowledge.retrieval.question_reads import Reads

# A campaign's settings (its ontology) and lineage are re-read after this many seconds (a rebase in another
# process moves a lineage; in this one, `forget_campaign` drops it at once).
_CAMPAIGN_TTL = 30.0

_T = TypeVar("_T")


class CampaignReads:
    """A campaign's canon as a question reads it besides its search (a part of `Retriever`)."""

    db: Database
    entities: EntityFinder
    _campaigns: dict[int, tuple[float, Campaign, list[LineageStep]]]

    async def calendar(
        self,
        campaign_id: int,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> CampaignCalendar:
        """Return the campaign's calendar as the viewer may see it: a GM-only era is no player's (`reads`: read
        once a question, kept while nothing shown changes)."""
        reads = reads if reads is not None else Reads()
        if (campaign_id, viewer) not in reads.calendars:
            read = self._canon(campaign_id, viewer, knowing, lambda _, __, reader: reader.calendar())
            reads.calendars[campaign_id, viewer] = await reads.once(
                ("calendar", campaign_id, viewer, knowing), read
            )
        return reads.calendars[campaign_id, viewer]  # type: ignore[no-any-return]

    async def story_date(
        self,
        campaign_id: int,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> str | None:
        """Return the story's date as the viewer reads it, as canon stores dates, or None (`lives.story_date`:
        none is held, or it falls in an era hidden from the viewer; `reads`: kept while nothing shown changes)."""
        read = self._canon(campaign_id, viewer, knowing, story_date)
        return await (reads if reads is not None else Reads()).once(
            ("story_date", campaign_id, viewer, knowing), read
        )

    async def era_openings(
        self, campaign_id: int, eras: Sequence[EraDef], *, viewer: Viewer, knowing: Knowing | None = None
    ) -> dict[str, Opening]:
        """Return the event that opened each era, by era key, as the viewer may see it (`eras.openings`)."""

        async def opened(_: AsyncSession, __: list[LineageStep], reader: CanonReader) -> dict[str, Opening]:
            return await openings(reader, await reader.calendar(), eras)

        return await self._canon(campaign_id, viewer, knowing, opened)()

    def _canon(
        self,
        campaign_id: int,
        viewer: Viewer,
        knowing: Knowing | None,
        work: Callable[[AsyncSession, list[LineageStep], CanonReader], Awaitable[_T]],
    ) -> Callable[[], Awaitable[_T]]:
        """Return a read of the campaign's canon as the viewer may see it, in a session of its own."""

        async def read() -> _T:
            async with self.db.session() as session:
                campaign, steps = await self._campaign(session, campaign_id)
                ontology = self.entities.ontology(campaign)
                return await work(
                    session, steps, CanonReader(session, steps, ontology, viewer=viewer, knowing=knowing)
                )

        return read

    def forget_campaign(self, campaign_id: int) -> None:
        """Drop a campaign's cached lineage (a rebase moved its fork point)."""
        self._campaigns.pop(campaign_id, None)

    async def _campaign(self, session: AsyncSession, campaign_id: int) -> tuple[Campaign, list[LineageStep]]:
        """Return a campaign and its lineage (a lineage never changes; the campaign is re-read after a while)."""
        cached = self._campaigns.get(campaign_id)
        if cached is not None and time.monotonic() - cached[0] < _CAMPAIGN_TTL:
            return cached[1], cached[2]
        campaign = await get_campaign(session, campaign_id)
        steps = await lineage(session, campaign_id)
        self._campaigns[campaign_id] = (time.monotonic(), campaign, steps)
        return campaign, steps
