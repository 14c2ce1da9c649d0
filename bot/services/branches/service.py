"""The branch use cases behind one service for the cogs and the command line; every method owns its transaction.

Each use case lives in its own module of this package (`fork`, `bindings`, `tree`, `rebase`, `promote`,
`retire`); their SQL is in `repository`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.services.branches import bindings as _bindings
from bot.services.branches import fork as _fork
from bot.services.branches import promote as _promote
from bot.services.branches import rebase as _rebase
from bot.services.branches import retire as _retire
from bot.services.branches import tree as _tree
from bot.services.branches.common import BranchDeps
from bot.services.branches.models import Binding, BranchInfo, BranchNode, DeleteReport, Promotion, RebasePlan
from bot.services.canon_access import CanonAccess
from bot.services.proposal_service import ProposalService
from bot.services.review import ReviewService
from canon.campaigns import Campaign
from canon.gate import CommitResult
from canon.models import Viewer
from canon.storage import Database
from memory.scenes import Actor


class BranchService:
    """Fork, bind, list, rebase, promote, abandon and delete branches.

    `knowledge` and `voice` (optional) give the vector collections to drop when a branch is deleted and the
    lineage caches to forget when one is rebased.
    """

    def __init__(
        self,
        db: Database,
        access: CanonAccess,
        proposals: ProposalService,
        reviews: ReviewService,
        *,
        knowledge: Any = None,
        voice: Any = None,
    ) -> None:
        self.deps = BranchDeps(
            db=db, access=access, proposals=proposals, reviews=reviews, knowledge=knowledge, voice=voice
        )

    async def fork(
        self,
        parent: Campaign,
        name: str,
        *,
        at_scene: int | None = None,
        at_date: str | None = None,
        actor: Actor | None = None,
    ) -> Campaign:
        """Fork a branch of `parent` (now, after scene `at_scene`, or at the in-world date `at_date`)."""
        return await _fork.fork(self.deps, parent, name, at_scene=at_scene, at_date=at_date, actor=actor)

    async def bind(
        self,
        guild_id: int,
        place_id: int,
        kind: str,
        campaign: Campaign,
        actor: Actor,
        *,
        channels: Sequence[int] = (),
    ) -> Binding:
        """Bind a channel (or category) to a campaign of the server; refuse while a scene there is open."""
        return await _bindings.bind(self.deps, guild_id, place_id, kind, campaign, actor, channels=channels)

    async def unbind(self, guild_id: int, place_id: int, *, channels: Sequence[int] = ()) -> Binding | None:
        """Remove a channel's (or category's) binding; it then plays in what it would inherit."""
        return await _bindings.unbind(self.deps, guild_id, place_id, channels=channels)

    async def bindings(self, campaign_id: int) -> list[Binding]:
        """Return the channels and categories bound to a campaign."""
        return await _bindings.bindings(self.deps, campaign_id)

    async def tree(self, *, guild_id: int | None = None) -> list[BranchNode]:
        """Return every campaign (of one server) as a tree: each root, then its branches, depth first."""
        return await _tree.tree(self.deps, guild_id=guild_id)

    async def info(self, campaign: Campaign, *, viewer: Viewer = Viewer.GM) -> BranchInfo:
        """Return a campaign's parent, fork point, branches, bindings and the rows it wrote itself."""
        return await _tree.info(self.deps, campaign, viewer=viewer)

    async def plan_rebase(self, branch: Campaign) -> RebasePlan:
        """Return what a rebase would bring in and the conflicts it would make; change nothing."""
        return await _rebase.plan_rebase(self.deps, branch)

    async def rebase(self, branch: Campaign, actor: Actor, *, expect: str | None = None) -> RebasePlan:
        """Move the fork point to the parent's latest changeset, recording the new conflicts for the branch."""
        return await _rebase.rebase(self.deps, branch, actor, expect=expect)

    async def promote(self, branch: Campaign, statement_id: int, actor: Actor) -> Promotion:
        """Propose one of the branch's own facts to its parent, through the parent's normal review."""
        return await _promote.promote(self.deps, branch, statement_id, actor)

    async def commit_promotion(self, proposal_id: int, actor: Actor) -> CommitResult:
        """Write a promotion's accepted proposals into the parent, once the GM decided every one of them."""
        return await _promote.commit_promotion(self.deps, proposal_id, actor)

    async def abandon(self, branch: Campaign, actor: Actor) -> Campaign:
        """Stop a branch: its channels go quiet, its waiting proposals and promotions are rejected, no fork."""
        return await _retire.abandon(self.deps, branch, actor)

    async def delete(self, branch: Campaign) -> DeleteReport:
        """Delete a branch and everything it wrote (rows, vector collections, bindings); never an ancestor's."""
        return await _retire.delete(self.deps, branch)
