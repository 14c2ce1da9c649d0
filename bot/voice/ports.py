"""What the game-master's voice needs of canon, as a port: the services hand it their proposals desk.

The voice reads canon (as a viewer, through a campaign's lineage), knows a campaign's ontology, and submits what
it extracts as proposals for the GM's review. It never writes canon and never reviews; the commits call the
voice through the hooks they are given (`before_review`, `after_complete`), never the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign
from canon.gate import Draft
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology
from canon.proposals import Proposal


class CanonProposals(Protocol):
    """Read canon and submit proposals for review (`bot.services.proposal_service.ProposalService`)."""

    def ontology_for(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology: the base one plus the campaign's extension, if any."""
        ...

    async def reader(self, session: AsyncSession, campaign: Campaign, viewer: Viewer) -> CanonReader:
        """Return a canon reader for a campaign and viewer."""
        ...

    async def submit(
        self, campaign: Campaign, drafts: Sequence[Draft], *, scene_id: int | None, batch: str | None
    ) -> list[Proposal]:
        """Store drafts as proposals for review (one transaction); drop those that do not fit canon."""
        ...
