"""What the game-master's voice needs of canon, as a port: the services hand it their proposals desk.

The voice reads canon (as a viewer, through a campaign's lineage), knows a campaign's ontology, and submits what
it extracts as proposals for the GM's review. It never writes canon and never reviews; the commits call the
voice through the hooks they are given (`before_review`, `after_complete`), never the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign
from canon.gate import Draft
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology
from canon.proposals import Proposal
from canon.visibility import Knowing
from memory.scenes import Actor


class CanonProposals(Protocol):
    """Read canon and submit proposals for review (`bot.services.proposal_service.ProposalService`)."""

    def ontology_for(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology: the base one plus the campaign's extension, if any."""
        ...

    async def reader(
        self, session: AsyncSession, campaign: Campaign, viewer: Viewer, knowing: Knowing | None = None
    ) -> CanonReader:
        """Return a canon reader for a campaign and viewer (a player's through a lens, `knowing`)."""
        ...

    async def submit(
        self, campaign: Campaign, drafts: Sequence[Draft], *, scene_id: int | None, batch: str | None
    ) -> list[Proposal]:
        """Store drafts as proposals for review (one transaction); drop those that do not fit canon."""
        ...


@dataclass(frozen=True)
class Hearing:
    """Who hears an NPC's reply in a channel: what all their characters know, and those characters' names."""

    knowing: Knowing | None
    characters: tuple[str, ...] = ()


class Listeners(Protocol):
    """What the characters who hear an NPC know, and the reveal of what the GM lets it tell them
    (`bot.services.knowledge.KnowledgeDesk`)."""

    async def hearing(self, campaign: Campaign, channel_id: int, asker: Actor) -> Hearing:
        """Return what every character hearing a reply in the channel knows: the asker's and those present's."""
        ...

    async def reveal(
        self,
        campaign: Campaign,
        gm: Actor,
        *,
        to: str,
        reason: str,
        fact: int | None = None,
        channel_id: int | None = None,
    ) -> list[Any]:
        """Record that characters learn a hidden fact (the GM's reveal); return the reveals, in words."""
        ...
