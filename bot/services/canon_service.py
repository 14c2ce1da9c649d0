"""Canon written from reviewed proposals: end a scene, checkpoint it, commit a scene or a batch, add directly.

Each use case owns its transaction. This is where the narrative store (scenes, turns) and the truth layer (the
canon graph) meet: a scene commit writes the accepted proposals and completes the scene in ONE transaction. The
game-master's voice takes part through two hooks given at construction: `before_review(scene)` runs at /endscene
before the review is decided (proposal extraction), `after_complete(scene_id)` once a scene is complete (summary,
NPC memories). Both log their own failures and never raise.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema import review_cards
from bot.services.canon_access import CanonAccess
from bot.services.present_marks import reveal_marked
from bot.services.review import ANOTHER_SERVER, Review, ReviewService
from canon import campaigns
from canon.campaigns import Campaign, ChangesetKind
from canon.continuity import Finding
from canon.errors import Conflict, InvalidInput, NotAllowed
from canon.gate import CommitResult, CommitTarget, Draft
from canon.models import Authority, Evidence, EvidenceKind, Viewer
from canon.proposals import ProposalContent, ProposalStatus
from canon.storage import Database
from canon.wording import describe
from memory.scene_service import SceneService
from memory.scenes import Actor, Scene, SceneReport, SceneStatus, load_scene

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CommitOutcome:
    """What a commit's card shows: what was written, the review as it now stands, and the cards to close.

    `result.findings` holds every continuity finding, for the GM; `heard` only those a player may hear of (none
    that touches GM-only canon). `cards` are the review cards posted for the scene (none for a batch).
    """

    result: CommitResult
    review: Review
    heard: list[Finding]
    cards: list[review_cards.ReviewCard]


class CanonService:
    """Write canon: end and checkpoint scenes, commit a scene's or a batch's accepted proposals, add directly."""

    def __init__(
        self,
        db: Database,
        scenes: SceneService,
        reviews: ReviewService,
        *,
        access: CanonAccess,
        before_review: Callable[..., Awaitable[object]] | None = None,
        after_complete: Callable[[int], Awaitable[object]] | None = None,
    ) -> None:
        self.db = db
        self.scenes = scenes
        self.reviews = reviews
        self.access = access
        self.before_review = before_review
        self.after_complete = after_complete
        #: Channels whose scene is being ended now (its transcript read): a second /endscene waits its turn.
        self._ending: set[int] = set()

    async def endable_scene(self, channel_id: int) -> Scene:
        """Return the channel's scene that `end_scene` would end now, or raise what it would."""
        if channel_id in self._ending:
            raise Conflict("This scene is already being ended: its summary will be posted in this channel.")
        return await self.scenes.endable_scene(channel_id)

    async def end_scene(
        self, channel_id: int, *, progress: Callable[[int, int], Awaitable[None]] | None = None
    ) -> tuple[SceneReport, Review]:
        """End the channel's scene: complete it, or put it under review when proposals wait.

        Reading the transcript into proposals may take many model calls; `progress(read, total)` hears of
        each piece, and a second call for the same channel meanwhile is refused.
        """
        await self.endable_scene(channel_id)
        self._ending.add(channel_id)
        try:
            return await self._end_scene(channel_id, progress)
        finally:
            self._ending.discard(channel_id)

    async def _end_scene(
        self, channel_id: int, progress: Callable[[int, int], Awaitable[None]] | None
    ) -> tuple[SceneReport, Review]:
        scene = await self.scenes.current_scene(channel_id)
        if self.before_review is not None and scene.status == SceneStatus.ACTIVE:
            await self.before_review(scene, progress=progress)
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, scene.campaign_id)
            proposals = await self.access.gate_for(campaign).proposals(
                session, scene.campaign_id, scene_id=scene.id
            )
        # Proposals a checkpoint committed (or rejected) are done: a scene with nothing open completes at once.
        waiting = [p for p in proposals if p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}]
        report = await self.scenes.end_scene(channel_id, complete=not waiting)
        if waiting:
            await self.db.run(lambda session: self._rewarn(session, report.scene))
        elif self.after_complete is not None:
            await self.after_complete(scene.id)
        return report, await self.reviews.review(scene.id)

    async def checkpoint(self, channel_id: int) -> Review:
        """Return the review card of a running scene's proposals so far (their warnings recomputed together),
        to accept or reject and commit now without ending the scene (`commit_scene` writes the accepted)."""
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; its review card is the one to use (/canon review).")
        await self.db.run(lambda session: self._rewarn(session, scene))
        review = await self.reviews.review(scene.id)
        if not review.proposals:
            raise InvalidInput("Nothing has been proposed in this scene since its last checkpoint.")
        return review

    async def _rewarn(self, session: AsyncSession, scene: Scene) -> None:
        """Recompute the warnings of the scene's pending proposals against all its open proposals at once."""
        campaign = await campaigns.get_campaign(session, scene.campaign_id)
        reader = await self.access.reader(session, campaign, Viewer.GM)
        await self.access.gate_for(campaign).rewarn(
            session, reader, scene_id=scene.id, story_order=scene.story_order
        )

    async def commit_scene(
        self, scene_id: int, actor: Actor, *, guild_id: int | None = None
    ) -> CommitOutcome:
        """Write the scene's accepted proposals, their evidence and the decision, and complete the scene: one
        transaction. Asked from a server (`guild_id`), a scene of another server's campaign is refused."""

        async def work(session: AsyncSession) -> CommitResult:
            scene = await load_scene(session, scene_id)
            if guild_id is not None and scene.guild_id not in (None, guild_id):
                raise NotAllowed(ANOTHER_SERVER)
            if scene.status == SceneStatus.COMPLETED:
                raise Conflict(f"The scene “{scene.title}” is already committed; nothing changed.")
            # A running scene's card comes from /canon checkpoint: its accepted proposals are written now and
            # the scene goes on; an ended one is completed first, which claims it (a concurrent commit waits on
            # its row, then is refused).
            checkpoint = scene.status == SceneStatus.ACTIVE
            if not checkpoint:
                await self.scenes.complete_scene(session, scene.id)
            campaign = await campaigns.get_campaign(session, scene.campaign_id)
            target = CommitTarget.of_scene(campaign.id, scene.id, scene.story_order, checkpoint=checkpoint)
            result = await self.access.gate_for(campaign).commit(
                session, target, actor_id=actor.id, actor_name=actor.name
            )
            # What the GM marked "known only to those present" is theirs from this scene on: one transaction.
            await reveal_marked(session, scene, result, actor.name)
            return result

        review = await self.reviews.review(scene_id)
        waiting = review.hidden_undecided()
        if waiting:
            raise Conflict(
                "Nothing was committed: decide the GM-only proposals first (they are on your private card): "
                + "; ".join(f"“{describe(p.content, review.words)}”" for p in waiting[:5])
                + (f" and {len(waiting) - 5} more." if len(waiting) > 5 else ".")
            )
        committed = await self.db.run(work, attempts=1)
        review = await self.reviews.review(scene_id, committed_in=committed.changeset_id)
        if self.after_complete is not None and review.scene and review.scene.status == SceneStatus.COMPLETED:
            await self.after_complete(scene_id)
        assert review.scene is not None  # a scene's review
        cards = await self.reviews.cards(scene_id)
        return CommitOutcome(committed, review, await self._heard(review.scene.campaign_id, committed), cards)

    async def commit_batch(self, campaign: Campaign, batch: str, actor: Actor) -> CommitOutcome:
        """Write the accepted proposals of an import batch (prose extraction, promotions); refuse a batch with
        nothing left to commit."""
        # Promotions from a branch (`bot.services.branches`) are batches too.
        kind = ChangesetKind.PROMOTION if batch.startswith("promote:") else ChangesetKind.SOURCE_IMPORT

        async def work(session: AsyncSession) -> CommitResult:
            gate = self.access.gate_for(campaign)
            open_ = [
                p
                for p in await gate.proposals(session, campaign.id, batch=batch)
                if p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}
            ]
            if not open_:
                raise InvalidInput(
                    "This batch has nothing left to commit: it was committed already, or every proposal in it "
                    "was rejected. Nothing changed."
                )
            target = CommitTarget.of_batch(campaign.id, batch, kind)
            return await gate.commit(session, target, actor_id=actor.id, actor_name=actor.name)

        committed = await self.db.run(work, attempts=1)
        review = await self.reviews.review(None, campaign_id=campaign.id, batch=batch)
        return CommitOutcome(committed, review, await self._heard(campaign.id, committed), [])

    async def _heard(self, campaign_id: int, result: CommitResult) -> list[Finding]:
        """Return the findings of a commit that a player may hear of."""
        return await self.reviews.public_findings(campaign_id, result.findings)

    async def add_direct(
        self,
        campaign: Campaign,
        content: ProposalContent,
        actor: Actor,
        *,
        command: str,
        new_detail: bool = False,
    ) -> CommitResult:
        """Write canon directly (the GM's `/canon add`): authority gm, the command as evidence, one changeset.

        A fact's attribute the subject's type does not declare, close to one it does ("birthplace": born?), is
        asked about (`AskedAttribute`, nothing written) unless `new_detail` says it is a new kind of detail.
        """

        async def work(session: AsyncSession) -> CommitResult:
            gate = self.access.gate_for(campaign)
            reader = await self.access.reader(session, campaign, Viewer.GM)
            batch = f"direct:{actor.id}:{dt.datetime.now(dt.UTC).timestamp()}"
            draft = Draft(
                content=content,
                authority=Authority.GM,
                evidence=[Evidence(kind=EvidenceKind.COMMAND, note=f"{command} by {actor.name}")],
                origin="gm_direct",
                proposer_id=actor.id,
                proposer_name=actor.name,
            )
            proposals = await gate.propose(
                session, reader, draft, scene_id=None, batch=batch, ask_attribute=not new_detail
            )
            for proposal in proposals:
                await gate.decide(
                    session, proposal.id, accept=True, decider_id=actor.id, decider_name=actor.name
                )
            target = CommitTarget.of_batch(campaign.id, batch, ChangesetKind.GM_DIRECT)
            return await gate.commit(session, target, actor_id=actor.id, actor_name=actor.name)

        return await self.db.run(work, attempts=1)
