"""Proposals: a player's or GM's `/propose` in a running scene, and the system's drafts (extraction, promotions).

Each use case owns its transaction; the canonization gate (`CanonizationGate`) resolves names, validates and
warns. Their review is `bot.services.review`'s.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.present_marks import mark_present
from canon.campaigns import Campaign
from canon.date_reading import scene_anchor
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate import Draft, proposal_rows
from canon.graph import CanonReader
from canon.models import Authority, Evidence, EvidenceKind, Viewer
from canon.ontology import Ontology
from canon.proposals import Proposal, ProposalContent, dated_by_scene
from canon.storage import Database
from canon.visibility import Knowing, gm_only, visibility_of
from memory.scene_service import SceneService
from memory.scenes import Actor, Scene, SceneStatus, SpeakerKind, Turn, load_scene, scene_turns

log = logging.getLogger(__name__)


class ProposalService:
    """Propose canon changes for review: from a command in a running scene, or the system's drafts."""

    def __init__(self, db: Database, scenes: SceneService, *, access: CanonAccess) -> None:
        self.db = db
        self.scenes = scenes
        self.access = access

    def ontology_for(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology (`CanonAccess.ontology_for`)."""
        return self.access.ontology_for(campaign)

    async def reader(
        self, session: AsyncSession, campaign: Campaign, viewer: Viewer, knowing: Knowing | None = None
    ) -> CanonReader:
        """Return a canon reader for a campaign and viewer, through a character's lens if given
        (`CanonAccess.reader`)."""
        return await self.access.reader(session, campaign, viewer, knowing)

    async def propose(
        self,
        campaign: Campaign,
        channel_id: int,
        content: ProposalContent,
        actor: Actor,
        *,
        turns: tuple[int, int] | None = None,
        resolution: int | None = None,
        present_only: bool = False,
    ) -> list[Proposal]:
        """Propose a canon change in the channel's running scene, citing turns (by default the proposer's own
        latest, `_cited_span`) and the roll that decided it (`resolution`: a roll turn's number).

        `present_only`: the proposer keeps it to those present, as the review card's "Only those present" does:
        it is GM-only (no public card shows it, nor the names it proposes), marked, and once accepted and
        committed the characters present in the scene know it."""
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; proposals are closed while its review is open.")

        async def work(session: AsyncSession) -> list[Proposal]:
            all_turns = await scene_turns(session, scene.id, include_deleted=False)
            span = _cited_span(all_turns, turns, actor.id)
            evidence = [
                Evidence(kind=EvidenceKind.TURNS, scene_id=scene.id, turn_from=span[0], turn_to=span[1])
            ]
            if resolution is not None:
                evidence.append(_roll_evidence(scene.id, all_turns, resolution))
            loaded = await load_scene(session, scene.id)
            draft = Draft(
                # Facts of play are dated by the scene's in-world date unless they say one of their own.
                content=dated_by_scene(content, loaded.world_date),
                authority=Authority.GM if actor.is_gm else Authority.PLAYER,
                evidence=evidence,
                origin="command",
                proposer_id=actor.id,
                proposer_name=actor.name,
            )
            # Names resolve as the proposer sees canon: a player naming a GM-only entity gets a new-entity
            # proposal (the GM sorts it out), never a hint that the hidden entity exists.
            reader = await self.access.reader(session, campaign, Viewer.GM if actor.is_gm else Viewer.PLAYER)
            gate, order, anchor = (
                self.access.gate_for(campaign),
                loaded.story_order,
                scene_anchor(loaded.world_date),
            )
            if present_only:
                draft = dataclasses.replace(draft, content=_gm_only(draft.content))
            stored = await gate.propose(
                session, reader, draft, scene_id=scene.id, story_order=order, warn=True, anchor=anchor
            )
            if present_only:
                stored = [await _keep_to_present(session, campaign, loaded, p, actor) for p in stored]
            return stored

        return await self.db.run(work)

    async def submit(
        self, campaign: Campaign, drafts: Sequence[Draft], *, scene_id: int | None, batch: str | None
    ) -> list[Proposal]:
        """Store proposals made by the system (LLM extraction, promotions) for review; one transaction."""

        async def work(session: AsyncSession) -> list[Proposal]:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            scene = await load_scene(session, scene_id) if scene_id is not None else None
            story_order = scene.story_order if scene is not None else None
            stored: list[Proposal] = []
            gate = self.access.gate_for(campaign)
            for draft in drafts:
                if scene is not None:
                    draft = dataclasses.replace(
                        draft, content=dated_by_scene(draft.content, scene.world_date)
                    )
                try:
                    nested = await session.begin_nested()
                    stored += await gate.propose(
                        session,
                        reader,
                        draft,
                        scene_id=scene_id,
                        batch=batch,
                        story_order=story_order,
                        warn=True,
                    )
                    await nested.commit()
                except (InvalidInput, NotFound, Conflict) as error:
                    await nested.rollback()
                    log.info("dropped a proposal that does not fit canon: %s", error)
            return stored

        return await self.db.run(work)


def _gm_only(content: ProposalContent) -> ProposalContent:
    return content.model_copy(update={"visibility": visibility_of(True)})


async def _keep_to_present(
    session: AsyncSession, campaign: Campaign, scene: Scene, proposal: Proposal, actor: Actor
) -> Proposal:
    """Make a just-stored proposal GM-only (the entity proposals made for its unknown names too) and mark it."""
    if not gm_only(proposal.content.visibility):
        row = await proposal_rows.revise(session, proposal.id, _gm_only(proposal.content))
        proposal = proposal_rows.proposal_from_row(row)
    await mark_present(session, campaign.id, scene, proposal.id, actor.name)
    return proposal


def _cited_span(
    turns: Sequence[Turn], asked: tuple[int, int] | None, proposer_id: int | None
) -> tuple[int | None, int | None]:
    """Return the turns a proposal cites: the range asked for (checked against the scene's turns), else the
    proposer's own latest turn in the scene, else the scene's latest turn by anyone (none in an empty scene)."""
    if asked is None:
        own = [t for t in turns if proposer_id is not None and t.author_id == proposer_id]
        latest = (own or list(turns))[-1].number if turns else None
        return latest, latest
    first, last = asked
    numbers = {t.number for t in turns}
    if first > last or first not in numbers or last not in numbers:
        raise InvalidInput(
            f"This scene has turns {min(numbers, default=0)} to {max(numbers, default=0)}; "
            f"“{first}-{last}” is not a range of them."
        )
    return first, last


def _roll_evidence(scene_id: int, turns: Sequence[Turn], number: int) -> Evidence:
    """Return the evidence of the roll that resolved a proposal, or raise `InvalidInput` for a turn that is none."""
    rolls = [t for t in turns if t.speaker == SpeakerKind.ROLL]
    turn = next((t for t in turns if t.number == number), None)
    if turn is None or turn.speaker != SpeakerKind.ROLL:
        listed = ", ".join(f"turn {t.number} ({t.author_name})" for t in rolls[-5:])
        hint = f" The rolls of this scene: {listed}." if listed else " This scene has no roll yet."
        raise InvalidInput(
            f"Turn {number} is not a dice roll of this scene, so it cannot resolve a proposal.{hint}"
        )
    said = " ".join(turn.text.split())
    said = said if len(said) <= 200 else said[:199] + "…"
    return Evidence(
        kind=EvidenceKind.TURNS,
        scene_id=scene_id,
        turn_from=number,
        turn_to=number,
        note=f"resolved by {turn.author_name}'s roll: {said}",
    )
