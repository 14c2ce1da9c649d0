"""The canon use cases: end and commit a scene, commit a batch, add directly, retcon, look up, check. Each owns
its transaction; proposals and their review are `bot.services.proposal_service`'s, which this service extends.

This is where the narrative store (scenes, turns) and the truth layer (the canon graph) meet: a scene commit
writes the accepted proposals and completes the scene in ONE transaction. The game-master's voice takes part
through two hooks given at construction: `before_review(scene)` runs at /endscene before the review is decided
(proposal extraction), `after_complete(scene_id)` once a scene is complete (summary, NPC memories). Both log
their own failures and never raise.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import limits
from bot.schema import review_cards
from bot.services.canon_access import CanonAccess
from bot.services.proposal_service import ProposalService, Review
from bot.services.wording import wording_for
from canon import campaigns
from canon import conflicts as lifecycle
from canon.calendar import DateError, check_era, parse_date, real_time_problem
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, ChangesetKind, open_changeset
from canon.checks import RecordedConflict, record_findings, recorded_conflicts, whole_graph_findings
from canon.continuity import Finding, world_key
from canon.date_reading import read_date
from canon.errors import Conflict, GameError, InvalidInput, NotAllowed, NotFound
from canon.gate import CommitResult, CommitTarget, Draft
from canon.graph import CanonReader, CanonWriter
from canon.models import (
    NOW,
    AsOf,
    Authority,
    EntityCard,
    EntityRef,
    Evidence,
    EvidenceKind,
    Statement,
    StatementView,
    Viewer,
)
from canon.ontology import Ontology
from canon.proposals import ProposalContent, ProposalStatus
from canon.storage import Database
from canon.visibility import Knowing
from canon.wording import Wording, describe
from memory.scenes import Actor, Scene, SceneReport, SceneService, SceneStatus, load_scene

__all__ = [
    "ANOTHER_SERVER",
    "CanonService",
    "CommitOutcome",
    "RetconResult",
    "Review",
    "parse_as_of",
]

log = logging.getLogger(__name__)

#: A player's lens on canon: what their character knows (None: public canon only, or the GM).
Lens = Knowing | None

ANOTHER_SERVER = "This review belongs to another server's campaign."


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


@dataclass(frozen=True)
class RetconResult:
    """A retcon's outcome: the replacement (if any) and the facts to review because they relied on the old one."""

    retconned_id: int
    replacement_id: int | None
    dependents: list[StatementView]
    retconned: StatementView | None = None
    replacement: StatementView | None = None
    closed: list[RecordedConflict] = field(default_factory=list)


def parse_as_of(
    *,
    at_date: str | None = None,
    at_scene: int | None = None,
    believed_at: str | None = None,
    eras: Mapping[str, str] | None = None,
    calendar: CampaignCalendar | None = None,
) -> AsOf:
    """Return an as-of point from command arguments, or raise `InvalidInput` showing the expected forms (a
    date is read on the campaign's `calendar` as the table types it, when given; else its era must be one of
    the campaign's `eras`, names by key)."""
    world = world_k = None
    if at_date and calendar is not None:
        reading = read_date(at_date, calendar)
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        world, world_k = str(reading.date), world_key(reading.date)
    elif at_date:
        try:
            date = check_era(parse_date(at_date.strip()), at_date.strip(), eras or {})
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


class CanonService(ProposalService):
    """Canon use cases for the cogs and the command line (proposals and their review included)."""

    def __init__(
        self,
        db: Database,
        scenes: SceneService,
        *,
        access: CanonAccess,
        before_review: Callable[..., Awaitable[object]] | None = None,
        after_complete: Callable[[int], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(db, scenes, access=access)
        self.before_review = before_review
        self.after_complete = after_complete
        #: Channels whose scene is being ended now (its transcript read): a second /endscene waits its turn.
        self._ending: set[int] = set()

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
            proposals = await self.gate_for(campaign).proposals(session, scene.campaign_id, scene_id=scene.id)
        # Proposals a checkpoint committed (or rejected) are done: a scene with nothing open completes at once.
        waiting = [p for p in proposals if p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}]
        report = await self.scenes.end_scene(channel_id, complete=not waiting)
        if waiting:
            await self.db.run(lambda session: self._rewarn(session, report.scene))
        elif self.after_complete is not None:
            await self.after_complete(scene.id)
        return report, await self.review(scene.id)

    async def checkpoint(self, channel_id: int) -> Review:
        """Return the review card of a running scene's proposals so far (their warnings recomputed together),
        to accept or reject and commit now without ending the scene (`commit_scene` writes the accepted)."""
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; its review card is the one to use (/canon review).")
        await self.db.run(lambda session: self._rewarn(session, scene))
        review = await self.review(scene.id)
        if not review.proposals:
            raise InvalidInput("Nothing has been proposed in this scene since its last checkpoint.")
        return review

    async def _rewarn(self, session: AsyncSession, scene: Scene) -> None:
        """Recompute the warnings of the scene's pending proposals against all its open proposals at once."""
        campaign = await campaigns.get_campaign(session, scene.campaign_id)
        reader = await self.reader(session, campaign, Viewer.GM)
        await self.gate_for(campaign).rewarn(
            session, reader, scene_id=scene.id, story_order=scene.story_order
        )

    # -- commits --------------------------------------------------------------------------------------

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
            return await self.gate_for(campaign).commit(
                session, target, actor_id=actor.id, actor_name=actor.name
            )

        waiting = (await self.review(scene_id)).hidden_undecided()
        if waiting:
            raise Conflict(
                "Nothing was committed: decide the GM-only proposals first (they are on your private card): "
                + "; ".join(f"“{describe(p.content)}”" for p in waiting[:5])
                + (f" and {len(waiting) - 5} more." if len(waiting) > 5 else ".")
            )
        committed = await self.db.run(work, attempts=1)
        review = await self.review(scene_id, committed_in=committed.changeset_id)
        if self.after_complete is not None and review.scene and review.scene.status == SceneStatus.COMPLETED:
            await self.after_complete(scene_id)
        assert review.scene is not None  # a scene's review
        cards = await self.cards(scene_id)
        return CommitOutcome(committed, review, await self._heard(review.scene.campaign_id, committed), cards)

    async def commit_batch(self, campaign: Campaign, batch: str, actor: Actor) -> CommitOutcome:
        """Write the accepted proposals of an import batch (prose extraction, promotions); refuse a batch with
        nothing left to commit."""
        # Promotions from a branch (`bot.services.branches`) are batches too.
        kind = ChangesetKind.PROMOTION if batch.startswith("promote:") else ChangesetKind.SOURCE_IMPORT

        async def work(session: AsyncSession) -> CommitResult:
            gate = self.gate_for(campaign)
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
        review = await self.review(None, campaign_id=campaign.id, batch=batch)
        return CommitOutcome(committed, review, await self._heard(campaign.id, committed), [])

    async def _heard(self, campaign_id: int, result: CommitResult) -> list[Finding]:
        """Return the findings of a commit that a player may hear of."""
        return await self.public_findings(campaign_id, result.findings)

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
            target = CommitTarget.of_batch(campaign.id, batch, ChangesetKind.GM_DIRECT)
            return await gate.commit(session, target, actor_id=actor.id, actor_name=actor.name)

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
                note = f"/retcon by {actor.name}: {rationale}"
                replacement = await _replace(reader, writer, old, new_value, note)
            await writer.retcon(reader, "statement", old.id, replacement_id=replacement, rationale=rationale)
            closed = await lifecycle.resolve_answered(
                session,
                campaign.id,
                [old.id],
                resolution=lifecycle.Resolution.RETCON,
                reason=rationale,
                by=actor.name,
            )
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
                closed=closed,
            )

        return await self.db.run(work, attempts=1)

    # -- questions ------------------------------------------------------------------------------------

    async def card(self, campaign: Campaign, name: str, *, viewer: Viewer, as_of: AsOf = NOW) -> EntityCard:
        """Return an entity's card as of a point, for a viewer."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return await reader.card(entity, as_of)

    async def worded_card(
        self, campaign: Campaign, name: str, *, viewer: Viewer, as_of: AsOf = NOW, knowing: Lens = None
    ) -> tuple[EntityCard, Wording]:
        """Return an entity's card as of a point, for a viewer, with the words to show it in."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer, knowing)
            entity = await reader.resolve(name, as_of)
            card = await reader.card(entity, as_of)
            cited = [e for v in (card.state, *card.relations, *card.facts) if v for e in v.statement.evidence]
            parents = [v.subject.id for v in card.relations if v.statement.predicate == "PARENT_OF"]
            return card, await wording_for(session, reader, [*cited, *card.evidence], people=parents)

    async def timeline(
        self, campaign: Campaign, name: str, *, viewer: Viewer
    ) -> tuple[str, list[StatementView]]:
        """Return an entity's name and its timeline."""
        name, views, _ = await self.worded_timeline(campaign, name, viewer=viewer)
        return name, views

    async def worded_timeline(
        self, campaign: Campaign, name: str, *, viewer: Viewer, knowing: Lens = None
    ) -> tuple[str, list[StatementView], Wording]:
        """Return an entity's name, its timeline and the words to show it in."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer, knowing)
            entity = await reader.resolve(name)
            views = await reader.timeline(entity.id)
            words = await wording_for(session, reader, [e for v in views for e in v.statement.evidence])
            return entity.name, views, words

    async def neighbours(
        self, campaign: Campaign, name: str, *, viewer: Viewer, hops: int = 1, as_of: AsOf = NOW
    ) -> tuple[EntityRef, list[tuple[int, StatementView]]]:
        """Return an entity and the relations within `hops` steps of it, each with its step."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return reader.ref(entity), await reader.neighbourhood(entity.id, hops, as_of)

    async def era_names(self, campaign: Campaign, viewer: Viewer = Viewer.GM) -> dict[str, str]:
        """Return the names of the eras the campaign's calendar defines (that the viewer may see), by key."""
        async with self.db.session() as session:
            return await (await self.reader(session, campaign, viewer)).era_names()

    async def place_named(self, campaign: Campaign, name: str | None) -> int | None:
        """Return the place a scene's location names: the one Location of canon so named, else None."""
        if not name or not name.strip():
            return None
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, Viewer.GM)
            found = [e for e in await reader.find_exact(name) if reader.ontology.is_a(e.type, ["Location"])]
        return found[0].id if len(found) == 1 else None

    async def words(self, campaign: Campaign, *, viewer: Viewer) -> Wording:
        """Return the campaign's words for a viewer: its calendar's names, for dates."""
        async with self.db.session() as session:
            return await wording_for(session, await self.reader(session, campaign, viewer))

    async def entity_type_named(self, campaign: Campaign, name: str, *, viewer: Viewer) -> str | None:
        """Return the type of the entity `name` names as the viewer sees canon, or None when there is none."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer)
            with contextlib.suppress(GameError):
                return (await reader.resolve(name.strip())).type if name.strip() else None
        return None

    async def autocomplete(
        self, campaign: Campaign, prefix: str, *, viewer: Viewer, speaking: bool = False, knowing: Lens = None
    ) -> list[tuple[str, str]]:
        """Return (label, value) pairs of entity names for an autocomplete box (`speaking`: only beings that can
        speak). A name past a value's 100 characters is sent as `#id`, which `CanonReader.resolve` resolves."""
        async with self.db.session() as session:
            reader = await self.reader(session, campaign, viewer, knowing)
            refs = await reader.autocomplete(prefix, limit=100 if speaking else 25)
        return [_choice(r) for r in refs if not speaking or reader.ontology.can_speak(r.type)][:25]

    async def check(self, campaign: Campaign) -> tuple[list[Finding], list[Finding]]:
        """Run every continuity rule over the whole graph; return all findings and the ones never seen before."""

        async def work(session: AsyncSession) -> tuple[list[Finding], list[Finding]]:
            reader = await self.reader(session, campaign, Viewer.GM)
            found = await whole_graph_findings(reader)
            prints = [f.fingerprint for f in found]
            await lifecycle.resolve_vanished(session, campaign.id, prints, by="a check")
            await lifecycle.reopen_found(session, campaign.id, prints)
            dismissed = await lifecycle.dismissed_fingerprints(session, campaign.id)
            findings = [f for f in found if f.fingerprint not in dismissed]
            return findings, await record_findings(session, campaign.id, findings)

        return await self.db.run(work)

    async def conflicts(self, campaign: Campaign) -> list[RecordedConflict]:
        """Return the conflicts recorded for the campaign, newest first."""
        async with self.db.session() as session:
            return await recorded_conflicts(session, campaign.id)

    async def conflict_page(
        self, campaign: Campaign, *, show: lifecycle.Show = lifecycle.Show.OPEN, page: int = 0
    ) -> lifecycle.ConflictPage:
        """Return a page of the campaign's conflicts (open ones by default), newest first."""
        async with self.db.session() as session:
            return await lifecycle.conflict_page(session, campaign.id, show=show, page=page)

    async def close_conflict(
        self, campaign: Campaign, conflict_id: int, actor: Actor, *, dismiss: bool, reason: str
    ) -> RecordedConflict:
        """Resolve an open conflict with the GM's rationale, or dismiss it for good with a reason."""
        return await self.db.run(
            lambda s: lifecycle.close(
                s, campaign.id, conflict_id, dismiss=dismiss, reason=reason, by=actor.name
            ),
            attempts=1,
        )


async def _replace(
    reader: CanonReader, writer: CanonWriter, old: Statement, new_value: str, note: str
) -> int:
    """Write the statement that replaces a retconned one: the same, with a new value (a relation: a new other
    end, named) as the GM's, with the retcon as evidence; return its id."""
    if old.kind.value == "relation":
        target = await reader.resolve(new_value)
        obj, value = target.id, None
    else:
        obj, value = None, new_value
    return await writer.add_statement(
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
        evidence=[Evidence(kind=EvidenceKind.COMMAND, note=note)],
    )


def _choice(ref: EntityRef) -> tuple[str, str]:
    """Return an entity as an autocomplete choice: its name and type, and the name (or `#id` when too long)."""
    value = ref.name if len(ref.name) <= limits.CHOICE_VALUE else f"#{ref.id}"
    return limits.clip(f"{ref.name} ({ref.type})", limits.CHOICE_NAME), value
