"""The review card's "known only to those present": a scene's proposal that becomes GM-only canon its
participants' characters know.

`PresentMarks` is the one service the card's button calls (GM only); a player may also keep their own proposal
to those present when making it (`ProposalService.propose(present_only=True)`, marked by `mark_present`). Marking a
pending proposal makes it GM-only (players' cards no longer show it, a player's own included) and keeps a mark
beside it; pressing again takes the mark off (the proposal
stays GM-only: Edit or a new proposal makes it public). When the scene is committed, `reveal_marked` (called by
the commit, in its transaction) turns each mark of an accepted proposal into reveals of what it wrote, to the
active characters of the players who spoke in the scene, from that scene on: all or nothing with the commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from canon import campaigns
from canon.errors import Conflict, InvalidInput, NotAllowed
from canon.gate import CommitResult, proposal_rows
from canon.knowledge import characters as links
from canon.knowledge import learned
from canon.knowledge.characters import LinkStatus
from canon.models import Viewer
from canon.proposals import ProposalStatus
from canon.storage import Database
from canon.visibility import gm_only, visibility_of
from memory.scenes import Actor, Scene, SceneStatus, SpeakerKind, load_scene, scene_participants

REASON = "known only to those present in scene {order}"


@dataclass(frozen=True)
class PresentMark:
    """Where a proposal's mark stands after a click, and which characters would learn it now."""

    marked: bool
    characters: tuple[str, ...]


async def present_characters(session: AsyncSession, campaign_id: int, scene_id: int) -> list[int]:
    """Return the active characters of the players who spoke in a scene (those present), first speaker first."""
    speakers = [
        p.author_id
        for p in await scene_participants(session, scene_id)
        if p.speaker == SpeakerKind.PLAYER and p.author_id is not None
    ]
    active = {
        r.member_id: r.entity_id
        for r in await links.links(session, campaign_id, statuses=(LinkStatus.PLAYS,))
        if r.active
    }
    return list(dict.fromkeys(active[m] for m in speakers if m in active))


async def mark_present(
    session: AsyncSession, campaign_id: int, scene: Scene, proposal_id: int, by: str
) -> None:
    """Mark a scene's proposal "known only to those present" (a promise the commit turns into reveals)."""
    await learned.add_reveals(
        session,
        campaign_id,
        learned.PRESENT_MARK,
        proposal_id,
        [None],
        world_from=None,
        world_from_key=None,
        story_from=scene.story_order,
        scene_id=scene.id,
        reason=REASON.format(order=scene.story_order),
        revealed_by=by,
    )


async def reveal_marked(session: AsyncSession, scene: Scene, result: CommitResult, by: str) -> int:
    """Turn the marks of a commit's accepted proposals into reveals to those present; return how many."""
    marked = await learned.present_marks(session, scene.campaign_id, [p.id for p in result.accepted])
    if not marked:
        return 0
    characters = await present_characters(session, scene.campaign_id, scene.id)
    written = 0
    for proposal_id in sorted(marked):
        targets = [("statement", s) for s in result.written_by.get(proposal_id, [])]
        if not targets and proposal_id in result.entity_ids:
            targets = [("entity", result.entity_ids[proposal_id])]
        for kind, target_id in targets:
            rows = await learned.add_reveals(
                session,
                scene.campaign_id,
                kind,
                target_id,
                characters,
                world_from=None,
                world_from_key=None,
                story_from=scene.story_order,
                scene_id=scene.id,
                reason=REASON.format(order=scene.story_order),
                revealed_by=by,
            )
            written += len(rows)
    return written


class PresentMarks:
    """Mark (or unmark) a scene's proposal "known only to those present" (GM)."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def toggle(self, proposal_id: int, gm: Actor) -> PresentMark:
        """Mark a pending proposal of a running review, or take its mark off; say who would learn it."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM decides who learns a proposal.")

        async def work(session: AsyncSession) -> PresentMark:
            proposal = await proposal_rows.get(session, proposal_id)
            if proposal.scene_id is None:
                raise InvalidInput("Only a scene's proposal can be known to those present in it.")
            scene = await load_scene(session, proposal.scene_id)
            if scene.status == SceneStatus.COMPLETED or proposal.status != ProposalStatus.PENDING:
                raise Conflict("That proposal was decided already; nothing changed.")
            campaign = await campaigns.get_campaign(session, scene.campaign_id)
            if await learned.unmark_present(session, campaign.id, proposal_id, by=gm.name):
                marked = False
            else:
                marked = True
                await mark_present(session, campaign.id, scene, proposal_id, gm.name)
                if not gm_only(proposal.content.visibility):
                    reader = await self.access.reader(session, campaign, Viewer.GM)
                    hidden = proposal.content.model_copy(update={"visibility": visibility_of(True)})
                    gate = self.access.gate_for(campaign)
                    await gate.revise(session, reader, proposal_id, hidden, story_order=scene.story_order)
            ids = await present_characters(session, campaign.id, scene.id)
            reader = await self.access.reader(session, campaign, Viewer.GM)
            names = await reader.entities(set(ids), include_retconned=True, with_aliases=False)
            return PresentMark(marked, tuple(names[i].name for i in ids if i in names))

        return await self.db.run(work, attempts=1)
