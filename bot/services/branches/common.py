"""What the branch use cases share: their dependencies, forgetting a campaign's cached lineage, and the rule
that a branch is retired (rebased past its scenes, abandoned, deleted) only with no scene open."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.canon_access import CanonAccess
from bot.services.proposal_service import ProposalService
from bot.services.review import ReviewService
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput
from canon.storage import Database


@dataclass
class BranchDeps:
    """The database, canon (its access, proposals and reviews) and, when wired, imported knowledge and the voice (for their indexes)."""

    db: Database
    access: CanonAccess
    proposals: ProposalService
    reviews: ReviewService
    knowledge: Any = None
    voice: Any = None

    def forget(self, campaign_id: int) -> None:
        """Forget what is cached of a campaign's lineage (it was rebased or deleted)."""
        self.access.forget_lineage(campaign_id)
        retriever = getattr(self.knowledge, "retriever", None)
        if retriever is not None:
            retriever.forget_campaign(campaign_id)


async def require_retirable(session: AsyncSession, branch: Campaign, what: str) -> None:
    """Refuse a campaign that is not a branch, or a branch with a scene still open."""
    if branch.parent_id is None:
        raise InvalidInput(f"“{branch.name}” is a campaign, not a branch; only branches can be {what}.")
    open_scene = await repo.open_scene_of(session, branch.id)
    if open_scene is not None:
        raise Conflict(
            f"The scene “{open_scene.title}” of “{branch.name}” is still open in <#{open_scene.channel_id}>; "
            "end and commit it first."
        )
