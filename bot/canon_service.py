"""The canon use cases: propose, review, commit, add directly, retcon, look up, check. Each owns its transaction.

This is where the narrative store (scenes, turns) and the truth layer (the canon graph) meet: a scene commit
writes the accepted proposals and completes the scene in ONE transaction.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns, review_cards
from canon.calendar import DateError, parse_date, real_time_problem
from canon.campaigns import Campaign, ChangesetKind, LineageStep, fork_point_of, lineage, open_changeset
from canon.checks import (
    RecordedConflict,
    findings_around,
    record_findings,
    recorded_conflicts,
    whole_graph_findings,
)
from canon.continuity import Finding, world_key
from canon.domain import (
    NOW,
    AsOf,
    Authority,
    EntityCard,
    EntityRef,
    Evidence,
    EvidenceKind,
    StatementView,
    Viewer,
)
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate import CanonizationGate, CommitResult, Draft, authority_policy
from canon.graph import CanonReader, CanonWriter
from canon.models import ProposalRow
from canon.ontology import Ontology, base_ontology
from canon.proposals import Proposal, ProposalContent, ProposalStatus, references
from canon.storage import Database
from canon.visibility import HiddenCanon, proposal_hidden, warnings_hidden
from memory.scenes import Actor, Scene, SceneReport, SceneService, SceneStatus, load_scene, scene_turns

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Review:
    """What a review card shows: the scene, its proposals, and the Discord message of each turn cited.

    `secret` holds the ids of proposals a player must not read (`canon.visibility.proposal_hidden`: GM-only
    ones and those naming GM-only entities, never a player's own); `secret_warnings` those shown to players
    without their continuity warnings, which rest on GM-only canon. A card players see follows both.
    """

    scene: Scene | None
    batch: str | None
    proposals: list[Proposal]
    turn_messages: dict[int, int]
    secret: frozenset[int] = frozenset()
    secret_warnings: frozenset[int] = frozenset()


@dataclass(frozen=True)
class RetconResult:
    """A retcon's outcome: the replacement (if any) and the facts to review because they relied on the old one."""

    retconned_id: int
    replacement_id: int | None
    dependents: list[StatementView]
    retconned: StatementView | None = None
    replacement: StatementView | None = None


def parse_as_of(
    *, at_date: str | None = None, at_scene: int | None = None, believed_at: str | None = None
) -> AsOf:
    """Return an as-of point from command arguments, or raise `InvalidInput` showing the expected forms."""
    world = world_k = None
    if at_date:
        try:
            date = parse_date(at_date.strip())
        except DateError as error:
            raise InvalidInput(error.describe("The date") + ".") from None
        world, world_k = str(date), world_key(date)
    believed = None
    if believed_at:
        try:
            believed = dt.datetime.fromisoformat(believed_at.strip())
        except ValueError:
            raise InvalidInput(
                f"“{believed_at}” is not a real date and time; use ISO form like 2026-11-30T18:00Z."
            ) from None
        believed = believed if believed.tzinfo else believed.replace(tzinfo=dt.UTC)
        if (problem := real_time_problem(believed)) is not None:
            raise InvalidInput(f"“{believed_at.strip()}” cannot be used: {problem}.")
        believed = believed.astimezone(dt.UTC)
    if at_scene is not None and at_scene < 0:
        raise InvalidInput("A scene number is 0 or more (0 means before the first scene).")
    return AsOf(world=world, world_key=world_k, scene=at_scene, believed_at=believed)


class CanonService:
    """Canon use cases for the cogs and the command line."""

    def __init__(self, db: Database, scenes: SceneService, ontology: Ontology | None = None) -> None:
        self.db = db
        self.scenes = scenes
        self.base_ontology = ontology or base_ontology()
        self._lineages: dict[tuple[int, int | None, int | None, str], list[LineageStep]] = {}
        self._ontologies: dict[str, Ontology] = {}
        # Set by the composition root (the game-master's voice): `before_review(scene)` runs at /endscene
        # before the review is decided (proposal extraction); `after_complete(scene_id)` once a scene is
        # complete (summary, NPC memories). Both log their own failures and never raise.
        self.before_review: Callable[[Scene], Awaitable[object]] | None = None
        self.after_complete: Callable[[int], Awaitable[object]] | None = None

    def ontology_for(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology: the base one plus the campaign's extension, if any."""
        extension = campaign.settings.get("ontology")
        if not extension:
            return self.base_ontology
        # Validating an extension costs more than the queries of a lookup: each distinct one is built once.
        key = json.dumps(extension, sort_keys=True)
        found = self._ontologies.get(key)
        if found is None:
            found = self._ontologies[key] = self.base_ontology.extended(extension)
        return found

    async def set_ontology(self, campaign: Campaign, extension: dict[str, Any] | None) -> Ontology:
        """Replace the campaign's ontology extension (None clears it); return the campaign's new ontology.

        The extension is validated against the base ontology; one that leaves out a type, relation, state
        or event kind the campaign's canon uses is refused, since canon is never deleted.
        """
        new = self.base_ontology.extended(extension) if extension else self.base_ontology

        async def work(session: AsyncSession) -> Ontology:
            current = await campaigns.get_campaign(session, campaign.id)
            old = self.ontology_for(current)
            reader = await self.reader(session, current, Viewer.GM)
            used = await reader.names_in_use(
                entity_types=set(old.entity_types) - set(new.entity_types),
                relations=set(old.relation_types) - set(new.relation_types),
                states=set(old.states.tags) - set(new.states.tags),
                via=set(old.states.via) - set(new.states.via),
            )
            if used:
                raise Conflict(
                    f"The campaign's canon uses {', '.join(sorted(used))}, which the new extension leaves "
                    "out; keep them in it (canon is never deleted, only retconned)."
                )
            await campaigns.update_campaign_settings(session, campaign.id, {"ontology": extension or None})
            return new

        return await self.db.run(work)

    def gate_for(self, campaign: Campaign) -> CanonizationGate:
        """Return the canonization gate with the campaign's ontology."""
        return CanonizationGate(self.ontology_for(campaign))

    async def reader(self, session: AsyncSession, campaign: Campaign, viewer: Viewer) -> CanonReader:
        """Return a canon reader for a campaign and viewer.

        Lineages are cached: only a rebase moves one, and it moves the branch's own fork point (a branch with
        branches of its own is never rebased), so the campaign's fork point is part of the key.
        """
        key = (
            campaign.id,
            campaign.fork_changeset_id,
            campaign.fork_scene_order,
            repr(fork_point_of(campaign)),
        )
        steps = self._lineages.get(key)
        if steps is None:
            steps = self._lineages[key] = await lineage(session, campaign.id)
        return CanonReader(session, steps, self.ontology_for(campaign), viewer=viewer)

    def forget_lineage(self, campaign_id: int) -> None:
        """Drop the cached lineage of a campaign (after a rebase or a delete)."""
        for key in [k for k in self._lineages if k[0] == campaign_id]:
            del self._lineages[key]

    # -- proposals ------------------------------------------------------------------------------------

    async def _warnings(self, session: AsyncSession, campaign: Campaign, row: ProposalRow) -> list[Finding]:
        """Return the findings a proposal would raise, by writing it in a savepoint and rolling back."""
        if row.type == "entity":  # a new entity writes no statement to check
            return []
        gate = self.gate_for(campaign)
        proposal = (await gate.proposals(session, campaign.id, ids=[row.id]))[0]
        # Only the entity proposals this one names are needed: the others cannot be in its neighbourhood,
        # and writing every pending entity of the scene made each proposal slower than the last.
        named = sorted({r.proposal_id for _, r in references(proposal.content) if r.proposal_id is not None})
        entities = [
            p
            for p in (await gate.proposals(session, campaign.id, ids=named) if named else [])
            if p.type == "entity" and p.id != row.id and p.status in {"pending", "accepted"}
        ]
        reader = await self.reader(session, campaign, Viewer.GM)
        found = await gate.simulate(
            session,
            reader,
            [*entities, proposal],
            story_order=await self._story_order(session, row.scene_id),
            check=findings_around,
        )
        return found.get(proposal.id, [])

    async def _story_order(self, session: AsyncSession, scene_id: int | None) -> int | None:
        return (await load_scene(session, scene_id)).story_order if scene_id is not None else None

    async def propose(
        self,
        campaign: Campaign,
        channel_id: int,
        content: ProposalContent,
        actor: Actor,
        *,
        turns: tuple[int, int] | None = None,
    ) -> list[Proposal]:
        """Propose a canon change in the channel's running scene, citing turns (by default the latest one)."""
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; proposals are closed while its review is open.")

        async def work(session: AsyncSession) -> list[Proposal]:
            all_turns = await scene_turns(session, scene.id, include_deleted=False)
            if turns is not None:
                first, last = turns
                numbers = {t.number for t in all_turns}
                if first > last or first not in numbers or last not in numbers:
                    raise InvalidInput(
                        f"This scene has turns {min(numbers, default=0)} to {max(numbers, default=0)}; "
                        f"“{first}-{last}” is not a range of them."
                    )
                span: tuple[int | None, int | None] = (first, last)
            else:
                latest = all_turns[-1].number if all_turns else None
                span = (latest, latest)
            evidence = Evidence(
                kind=EvidenceKind.TURNS, scene_id=scene.id, turn_from=span[0], turn_to=span[1]
            )
            draft = Draft(
                content=content,
                authority=Authority.GM if actor.is_gm else Authority.PLAYER,
                evidence=[evidence],
                origin="command",
                proposer_id=actor.id,
                proposer_name=actor.name,
            )
            # Names resolve as the proposer sees canon: a player naming a GM-only entity gets a new-entity
            # proposal (the GM sorts it out), never a hint that the hidden entity exists.
            reader = await self.reader(session, campaign, Viewer.GM if actor.is_gm else Viewer.PLAYER)
            return await self.gate_for(campaign).propose(
                session,
                reader,
                draft,
                scene_id=scene.id,
                warnings_for=lambda s, row: self._warnings(s, campaign, row),
            )

        return await self.db.run(work)

    async def submit(
        self, campaign: Campaign, drafts: Sequence[Draft], *, scene_id: int | None, batch: str | None
    ) -> list[Proposal]:
        """Store proposals made by the system (LLM extraction, promotions) for review; one transaction."""

        async def work(session: AsyncSession) -> list[Proposal]:
            reader = await self.reader(session, campaign, Viewer.GM)
            stored: list[Proposal] = []
            gate = self.gate_for(campaign)
            for draft in drafts:
                try:
                    nested = await session.begin_nested()
                    stored += await gate.propose(
                        session,
                        reader,
                        draft,
                        scene_id=scene_id,
                        batch=batch,
                        warnings_for=lambda s, row: self._warnings(s, campaign, row),
                    )
                    await nested.commit()
                except (InvalidInput, NotFound, Conflict) as error:
                    await nested.rollback()
                    log.info("dropped a proposal that does not fit canon: %s", error)
            return stored

        return await self.db.run(work)

    async def end_scene(self, channel_id: int) -> tuple[SceneReport, Review]:
        """End the channel's scene: complete it, or put it under review when proposals wait."""
        scene = await self.scenes.current_scene(channel_id)
        if self.before_review is not None and scene.status == SceneStatus.ACTIVE:
            await self.before_review(scene)
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, scene.campaign_id)
            waiting = await self.gate_for(campaign).proposals(session, scene.campaign_id, scene_id=scene.id)
        report = await self.scenes.end_scene(channel_id, complete=not waiting)
        if waiting:
            await self.db.run(lambda session: self._rewarn(session, report.scene))
        elif self.after_complete is not None:
            await self.after_complete(scene.id)
        return report, await self.review(scene.id)

    async def _rewarn(self, session: AsyncSession, scene: Scene) -> None:
        """Recompute the warnings of the scene's pending proposals against all its open proposals at once.

        Each proposal was checked alone when it was made; two of them may contradict each other (or canon
        committed since), which only shows with every proposal of the scene written together.
        """
        campaign = await campaigns.get_campaign(session, scene.campaign_id)
        gate = self.gate_for(campaign)
        open_ = [
            p
            for p in await gate.proposals(session, campaign.id, scene_id=scene.id)
            if p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}
        ]
        reader = await self.reader(session, campaign, Viewer.GM)
        found = await gate.simulate(
            session, reader, open_, story_order=scene.story_order, check=findings_around
        )
        # A proposal that cannot be written keeps the warnings it had: the commit will drop or refuse it.
        pending = [p.id for p in open_ if p.status == ProposalStatus.PENDING and p.id in found]
        await gate.set_warnings(session, {pid: found[pid] for pid in pending})

    async def review(
        self, scene_id: int | None, *, campaign_id: int | None = None, batch: str | None = None
    ) -> Review:
        """Return what the review card of a scene (or an import batch) shows."""
        async with self.db.session() as session:
            scene = await load_scene(session, scene_id) if scene_id is not None else None
            owner = scene.campaign_id if scene else campaign_id
            if owner is None:
                raise InvalidInput("A review needs a scene or a campaign and batch.")
            campaign = await campaigns.get_campaign(session, owner)
            proposals = await self.gate_for(campaign).proposals(
                session, owner, scene_id=scene_id, batch=batch
            )
            messages: dict[int, int] = {}
            if scene is not None:
                messages = {
                    t.number: t.discord_message_id
                    for t in await scene_turns(session, scene.id)
                    if t.discord_message_id is not None
                }
            secret, secret_warnings = await self._secret_proposals(session, campaign, proposals)
            # The card's order: what players may read first, so a public card and the GM's private one
            # number those alike (1, 2, 3 ...), and the GM-only ones follow on the private card alone.
            proposals = sorted(proposals, key=lambda p: (p.id in secret, p.id))
            return Review(
                scene=scene,
                batch=batch,
                proposals=proposals,
                turn_messages=messages,
                secret=secret,
                secret_warnings=secret_warnings,
            )

    async def review_in_channel(self, channel_id: int) -> Review:
        """Return the review of the channel's scene that waits for its commit."""
        scene = await self.scenes.current_scene(channel_id)
        if scene.status == SceneStatus.ACTIVE:
            raise Conflict("The scene in this channel is still running; end it with /endscene first.")
        return await self.review(scene.id)

    async def proposal(self, proposal_id: int) -> Proposal:
        """Return one proposal or raise `NotFound`."""
        async with self.db.session() as session:
            row = await session.get(ProposalRow, proposal_id)
            if row is None:
                raise NotFound(f"There is no proposal #{proposal_id}.")
            campaign = await campaigns.get_campaign(session, row.campaign_id)
            return await self.gate_for(campaign).get(session, proposal_id)

    async def secret_proposals(
        self, campaign: Campaign, proposals: Sequence[Proposal]
    ) -> tuple[frozenset[int], frozenset[int]]:
        """Return the proposals a player must not read, and those whose warnings they must not read."""
        async with self.db.session() as session:
            return await self._secret_proposals(session, campaign, proposals)

    async def _secret_proposals(
        self, session: AsyncSession, campaign: Campaign, proposals: Sequence[Proposal]
    ) -> tuple[frozenset[int], frozenset[int]]:
        """Return the proposals a player must not read, and those whose warnings they must not read."""
        if not proposals:
            return frozenset(), frozenset()
        entity_ids: set[int] = set()
        statement_ids: set[int] = set()
        for p in proposals:
            entity_ids |= {r.entity_id for _, r in references(p.content) if r.entity_id is not None}
            for warning in p.warnings:
                entity_ids |= set(warning.get("entity_ids") or ())
                statement_ids |= set(warning.get("statement_ids") or ())
        hidden = await self._hidden(session, campaign, entity_ids, statement_ids)
        secret = {p.id for p in proposals if proposal_hidden(p, hidden)}
        # A proposal naming a hidden entity proposal is hidden too.
        secret |= {p.id for p in proposals if proposal_hidden(p, hidden, secret)}
        warned = {p.id for p in proposals if p.id not in secret and warnings_hidden(p.warnings, hidden)}
        return frozenset(secret), frozenset(warned)

    async def _hidden(
        self, session: AsyncSession, campaign: Campaign, entity_ids: set[int], statement_ids: set[int]
    ) -> HiddenCanon:
        """Return which of these entities and statements a player must not see (`canon.visibility`)."""
        gm = await self.reader(session, campaign, Viewer.GM)
        statements = await gm.statements(
            statement_ids=statement_ids, include_retconned=True, with_evidence=False
        )
        about = entity_ids | {s.subject_id for s in statements}
        about |= {s.object_id for s in statements if s.object_id is not None}
        entities = await gm.entities(about, include_retconned=True)
        return HiddenCanon.of(entities, statements)

    async def public_findings(self, campaign_id: int, findings: Sequence[Finding]) -> list[Finding]:
        """Return the continuity findings a player may hear of: none that touches GM-only canon."""
        if not findings:
            return []
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, campaign_id)
            hidden = await self._hidden(
                session,
                campaign,
                {i for f in findings for i in f.entity_ids},
                {i for f in findings for i in f.statement_ids},
            )
        return [f for f in findings if not hidden.touches(f.entity_ids, f.statement_ids)]

    async def decide(
        self, proposal_id: int, *, accept: bool, actor: Actor, rationale: str | None = None
    ) -> Proposal:
        """Record the GM's decision on one proposal (exactly once)."""

        async def work(session: AsyncSession) -> Proposal:
            row = await session.get(ProposalRow, proposal_id)
            if row is None:
                raise NotFound(f"There is no proposal #{proposal_id}.")
            campaign = await campaigns.get_campaign(session, row.campaign_id)
            return await self.gate_for(campaign).decide(
                session,
                proposal_id,
                accept=accept,
                decider_id=actor.id,
                decider_name=actor.name,
                rationale=rationale,
            )

        return await self.db.run(work, attempts=1)

    async def accept_all(
        self, scene_id: int | None, actor: Actor, *, campaign_id: int | None = None, batch: str | None = None
    ) -> list[Proposal]:
        """Accept every pending proposal without warnings."""

        async def work(session: AsyncSession) -> list[Proposal]:
            owner = campaign_id
            if scene_id is not None:
                scene = await load_scene(session, scene_id)
                if scene.status == SceneStatus.COMPLETED:
                    raise Conflict(f"The scene “{scene.title}” is already committed; nothing changed.")
                owner = scene.campaign_id
            if owner is None:
                raise InvalidInput("Accepting all needs a scene or a campaign and batch.")
            campaign = await campaigns.get_campaign(session, owner)
            return await self.gate_for(campaign).accept_all(
                session, owner, scene_id=scene_id, batch=batch, decider_id=actor.id, decider_name=actor.name
            )

        return await self.db.run(work, attempts=1)

    async def commit_scene(self, scene_id: int, actor: Actor) -> CommitResult:
        """Write the scene's accepted proposals, their evidence and the decision, and complete the scene: one transaction."""

        async def work(session: AsyncSession) -> CommitResult:
            scene = await load_scene(session, scene_id)
            if scene.status == SceneStatus.COMPLETED:
                raise Conflict(f"The scene “{scene.title}” is already committed; nothing changed.")
            if scene.status == SceneStatus.ACTIVE:
                raise Conflict("End the scene with /endscene before committing it.")
            # Completing first claims the scene: a concurrent commit waits on its row, then is refused.
            await self.scenes.complete_scene(session, scene.id)
            campaign = await campaigns.get_campaign(session, scene.campaign_id)
            result = await self.gate_for(campaign).commit(
                session,
                campaign_id=campaign.id,
                scene_id=scene.id,
                story_order=scene.story_order,
                actor_id=actor.id,
                actor_name=actor.name,
                check=lambda s, reader, ids: findings_around(reader, ids),
            )
            await record_findings(session, campaign.id, result.findings, accepted=result.overridden())
            return result

        committed = await self.db.run(work, attempts=1)
        if self.after_complete is not None:
            await self.after_complete(scene_id)
        return committed

    async def commit_batch(self, campaign: Campaign, batch: str, actor: Actor) -> CommitResult:
        """Write the accepted proposals of an import batch (prose extraction, promotions)."""

        async def work(session: AsyncSession) -> CommitResult:
            result = await self.gate_for(campaign).commit(
                session,
                campaign_id=campaign.id,
                scene_id=None,
                batch=batch,
                story_order=None,
                actor_id=actor.id,
                actor_name=actor.name,
                # Promotions from a branch (`bot.branches`) are batches too.
                kind=ChangesetKind.PROMOTION if batch.startswith("promote:") else ChangesetKind.SOURCE_IMPORT,
                check=lambda s, reader, ids: findings_around(reader, ids),
            )
            await record_findings(session, campaign.id, result.findings, accepted=result.overridden())
            return result

        return await self.db.run(work, attempts=1)

    async def add_direct(
        self, campaign: Campaign, content: ProposalContent, actor: Actor, *, command: str
    ) -> CommitResult:
        """Write canon directly (the GM's `/canon add`): authority gm, the command as evidence, one changeset."""

        async def work(session: AsyncSession) -> CommitResult:
            gate = self.gate_for(campaign)
            reader = await self.reader(session, campaign, Viewer.GM)
            batch = f"direct:{actor.id}:{dt.datetime.now(dt.UTC).timestamp()}"
            draft = Draft(
                content=content,
                authority=Authority.GM,
                evidence=[Evidence(kind=EvidenceKind.COMMAND, note=f"{command} by {actor.name}")],
                origin="gm_direct",
                proposer_id=actor.id,
                proposer_name=actor.name,
            )
            proposals = await gate.propose(session, reader, draft, scene_id=None, batch=batch)
            for proposal in proposals:
                await gate.decide(
                    session, proposal.id, accept=True, decider_id=actor.id, decider_name=actor.name
                )
            result = await gate.commit(
                session,
                campaign_id=campaign.id,
                scene_id=None,
                batch=batch,
                story_order=None,
                actor_id=actor.id,
                actor_name=actor.name,
                kind=ChangesetKind.GM_DIRECT,
                check=lambda s, r, ids: findings_around(r, ids),
            )
            await record_findings(session, campaign.id, result.findings)
            return result

        return await self.db.run(work, attempts=1)

    # -- retcon ---------------------------------------------------------------------------------------

    async def retcon(
        self,
        campaign: Campaign,
        statement_id: int,
        actor: Actor,
        *,
        rationale: str,
        new_value: str | None = None,
    ) -> RetconResult:
        """Mark a fact retconned (optionally replacing its value) and list the facts that relied on it."""
        if not rationale.strip():
            raise InvalidInput("A retcon needs a rationale: why the old fact no longer holds.")

        async def work(session: AsyncSession) -> RetconResult:
            reader = await self.reader(session, campaign, Viewer.GM)
            found = await reader.statements(statement_ids=[statement_id], include_retconned=True)
            if not found:
                raise NotFound(f"There is no fact #{statement_id} in this campaign's canon.")
            old = found[0]
            changeset = await open_changeset(
                session,
                campaign.id,
                ChangesetKind.RETCON,
                actor_id=actor.id,
                actor_name=actor.name,
                rationale=rationale,
            )
            writer = CanonWriter(session, changeset, reader.ontology)
            replacement = None
            if new_value is not None:
                if old.kind.value == "relation":
                    target = await reader.resolve(new_value)
                    obj, value = target.id, None
                else:
                    obj, value = None, new_value
                replacement = await writer.add_statement(
                    kind=old.kind,
                    subject_id=old.subject_id,
                    predicate=old.predicate,
                    object_id=obj,
                    value=value,
                    via=old.via,
                    validity=old.validity,
                    authority=Authority.GM,
                    visibility=old.visibility,
                    replaces_id=old.id,
                    evidence=[
                        Evidence(kind=EvidenceKind.COMMAND, note=f"/retcon by {actor.name}: {rationale}")
                    ],
                )
            await writer.retcon(reader, "statement", old.id, replacement_id=replacement, rationale=rationale)
            dependents = [
                d for d in await reader.dependents("statement", old.id) if d.statement.id != replacement
            ]
            shown = {
                v.statement.id: v
                for v in await reader.views(
                    await reader.statements(
                        statement_ids=[old.id] + ([replacement] if replacement else []),
                        include_retconned=True,
                    )
                )
            }
            return RetconResult(
                retconned_id=old.id,
                replacement_id=replacement,
                dependents=dependents,
                retconned=shown.get(old.id),
                replacement=shown.get(replacement) if replacement else None,
            )

        return await self.db.run(work, attempts=1)

    # -- questions ------------------------------------------------------------------------------------

    async def card(self, campaign: Campaign, name: str, *, viewer: Viewer, as_of: AsOf = NOW) -> EntityCard:
        """Return an entity's card as of a point, for a viewer."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return await reader.card(entity, as_of)

    async def timeline(
        self, campaign: Campaign, name: str, *, viewer: Viewer
    ) -> tuple[str, list[StatementView]]:
        """Return an entity's name and its timeline."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            entity = await reader.resolve(name)
            return entity.name, await reader.timeline(entity.id)

    async def neighbours(
        self, campaign: Campaign, name: str, *, viewer: Viewer, hops: int = 1, as_of: AsOf = NOW
    ) -> tuple[EntityRef, list[tuple[int, StatementView]]]:
        """Return an entity and the relations within `hops` steps of it, each with its step."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return reader.ref(entity), await reader.neighbourhood(entity.id, hops, as_of)

    async def autocomplete(self, campaign: Campaign, prefix: str, *, viewer: Viewer) -> list[tuple[str, str]]:
        """Return (label, value) pairs of entity names for an autocomplete box."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            refs = await reader.autocomplete(prefix)
        return [(f"{r.name} ({r.type})"[:100], r.name[:100]) for r in refs]

    async def check(self, campaign: Campaign) -> tuple[list[Finding], list[Finding]]:
        """Run every continuity rule over the whole graph; return all findings and the ones never seen before."""

        async def work(session: AsyncSession) -> tuple[list[Finding], list[Finding]]:
            reader = await self.reader(session, campaign, Viewer.GM)
            findings = await whole_graph_findings(reader)
            return findings, await record_findings(session, campaign.id, findings)

        return await self.db.run(work)

    async def set_policy(self, campaign: Campaign, authority: str, mode: str) -> dict[str, str]:
        """Set whether an authority's proposals are accepted without review; return the whole policy."""
        try:
            who = Authority(authority.strip().lower())
        except ValueError:
            raise InvalidInput(
                f"“{authority}” is not an authority. Allowed: {', '.join(a.value for a in Authority)}."
            ) from None
        how = mode.strip().lower()
        if how not in {"auto", "review"}:
            raise InvalidInput(f"“{mode}” is not a policy. Allowed: auto, review.")

        async def work(session: AsyncSession) -> dict[str, str]:
            current = await campaigns.get_campaign(session, campaign.id)
            policy = {**(current.settings.get("authority_policy") or {}), who.value: how}
            updated = await campaigns.update_campaign_settings(
                session, campaign.id, {"authority_policy": policy}
            )
            return authority_policy(updated.settings)

        return await self.db.run(work)

    async def record_card(self, review: Review, *, channel_id: int, message_id: int) -> None:
        """Remember where a review card was posted, so that the commit can bring it to its final state."""
        if review.scene is None:
            return
        scene = review.scene
        await self.db.run(
            lambda s: review_cards.record_card(
                s,
                campaign_id=scene.campaign_id,
                scene_id=scene.id,
                batch=review.batch,
                channel_id=channel_id,
                message_id=message_id,
            )
        )

    async def cards(self, scene_id: int) -> list[review_cards.ReviewCard]:
        """Return the review cards posted for a scene."""
        async with self.db.session() as session:
            return await review_cards.cards_of_scene(session, scene_id)

    async def conflicts(self, campaign: Campaign) -> list[RecordedConflict]:
        """Return the conflicts recorded for the campaign, newest first."""
        async with self.db.session() as session:
            return await recorded_conflicts(session, campaign.id)
