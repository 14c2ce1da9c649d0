"""The review of proposals: what a review card shows (`Review`), the GM's decisions, and where cards were posted.

Each use case owns its transaction. What a player may read of a review is decided here (`Review.secret`, through
`canon.visibility`); the continuity warnings come from the gate (`CanonizationGate`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema import review_cards
from bot.services.canon_access import CanonAccess
from bot.services.wording import wording_for
from canon import campaigns
from canon.campaigns import Campaign
from canon.continuity import Finding
from canon.date_reading import scene_anchor
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate import DEFAULT_POLICY, authority_policy, proposal_rows
from canon.knowledge import learned
from canon.models import Viewer
from canon.proposals import Proposal, ProposalStatus, citations, references, revised
from canon.storage import Database
from canon.visibility import HiddenCanon, proposal_hidden, proposal_seen, warnings_hidden
from canon.wording import PLAIN, CalendarWords, Wording
from memory.scene_service import SceneService
from memory.scenes import (
    Actor,
    Scene,
    SceneStatus,
    SpeakerKind,
    load_scene,
    scene_participants,
    scene_turns,
)

#: A click or command on a review of another server's campaign is refused with this.
ANOTHER_SERVER = "This review belongs to another server's campaign."


@dataclass(frozen=True)
class Review:
    """What a review card shows: the scene, its proposals, and the Discord message of each turn cited.

    `secret` holds the ids of proposals a player must not read (`canon.visibility.proposal_hidden`: GM-only
    ones, a player's kept to those present included, and those naming GM-only entities); `secret_warnings`
    those whose continuity warnings rest on GM-only canon, shown to players without them. A card players see
    follows both.
    """

    scene: Scene | None
    batch: str | None
    proposals: list[Proposal]
    turn_messages: dict[int, int]
    secret: frozenset[int] = frozenset()
    secret_warnings: frozenset[int] = frozenset()
    #: The words the card speaks in: the calendar's, and the scene's turns with their speakers and links.
    words: Wording = PLAIN
    #: The GM's calendar words, for the GM's private card (`words` are the players': a GM-only era's date is none).
    gm_calendar: CalendarWords | None = None
    #: The campaign's authority policy: what a commit does with proposals nobody decided.
    policy: dict[str, str] = dataclasses.field(default_factory=lambda: dict(DEFAULT_POLICY))
    #: Each proposal's number on the card, counted over the whole scene, so a checkpoint renumbers nothing
    #: (players' first, then the GM-only ones; empty: numbered in the card's order).
    numbers: dict[int, int] = dataclasses.field(default_factory=dict)
    #: The proposals the GM marked "known only to those present" (`bot.services.present_marks`).
    present: frozenset[int] = frozenset()
    #: Those of them a player reading the review took part in (`ReviewService.as_read_by`): theirs to read.
    read_present: frozenset[int] = frozenset()

    def hidden_undecided(self) -> list[Proposal]:
        """Return the GM-only proposals still waiting for a decision: a commit waits for them, since only the
        GM's private card shows them and nothing may be decided without the GM seeing it."""
        return [p for p in self.proposals if p.id in self.secret and p.status == ProposalStatus.PENDING]


class ReviewService:
    """The review of proposals, for the cogs, the command line, branches and imports: what a card shows, the GM's
    decisions (one, all, an edit), and the cards posted."""

    def __init__(self, db: Database, scenes: SceneService, *, access: CanonAccess) -> None:
        self.db = db
        self.scenes = scenes
        self.access = access

    async def review(
        self,
        scene_id: int | None,
        *,
        campaign_id: int | None = None,
        batch: str | None = None,
        committed_in: int | None = None,
        whole_scene: bool = False,
    ) -> Review:
        """Return what the review card of a scene (or an import batch) shows.

        Proposals a checkpoint committed while the scene ran are done: they leave the scene's card, except on
        the card of that very commit (`committed_in`, its changeset); `whole_scene` keeps them all (a recap).
        """
        async with self.db.session() as session:
            scene = await load_scene(session, scene_id) if scene_id is not None else None
            owner = scene.campaign_id if scene else campaign_id
            if owner is None:
                raise InvalidInput("A review needs a scene or a campaign and batch.")
            campaign = await campaigns.get_campaign(session, owner)
            proposals = await self.access.gate_for(campaign).proposals(
                session, owner, scene_id=scene_id, batch=batch
            )
            messages: dict[int, int] = {}
            if scene is not None:
                messages = {
                    t.number: t.discord_message_id
                    for t in await scene_turns(session, scene.id)
                    if t.discord_message_id is not None
                }
            everyone = proposals  # numbered among the checkpointed ones too, as they were then
            if scene is not None and not whole_scene:
                proposals = await proposal_rows.without_checkpointed(session, proposals, committed_in)
            hidden, warned = await self._secret_proposals(session, campaign, everyone)
            secret, secret_warnings = hidden & {p.id for p in proposals}, warned & {p.id for p in proposals}
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
                words=await _review_words(self.access, session, campaign, proposals),
                gm_calendar=(
                    await (await self.access.reader(session, campaign, Viewer.GM)).calendar()
                ).words(),
                policy=authority_policy(campaign.settings),
                numbers=_numbered(everyone, hidden),
                present=frozenset(await learned.present_marks(session, owner, [p.id for p in proposals])),
            )

    async def read_in_channel(self, channel_id: int, reader: Actor) -> Review | None:
        """Return the review of the scene waiting for its commit in a channel as one person reads it
        (`as_read_by`), or None where no scene there is under review (an import's card is the GM's alone)."""
        try:
            scene = await self.scenes.current_scene(channel_id)
        except NotFound:
            return None
        if scene.status != SceneStatus.REVIEW:
            return None
        return await self.as_read_by(await self.review(scene.id), reader)

    async def as_read_by(self, review: Review, reader: Actor) -> Review:
        """Return a review as one person reads it: the GM everything; a player what players read, and the
        proposals kept to those present when they took part in its scene, by the scene's own record of who spoke
        (`canon.visibility.proposal_seen`). Their warnings resting on GM-only canon stay the GM's."""
        if reader.is_gm:
            return review
        took_part = False
        if review.scene is not None and reader.id is not None:
            async with self.db.session() as session:
                spoke = await scene_participants(session, review.scene.id)
            took_part = any(p.author_id == reader.id and p.speaker == SpeakerKind.PLAYER for p in spoke)
        readable = {
            i
            for i in review.secret
            if proposal_seen(Viewer.PLAYER, True, kept_to_present=i in review.present, took_part=took_part)
        }
        return dataclasses.replace(review, secret=review.secret - readable, read_present=frozenset(readable))

    async def review_in_channel(self, channel_id: int) -> Review:
        """Return the review waiting in a channel: its scene's, else the newest open import batch shown there."""
        try:
            scene: Scene | None = await self.scenes.current_scene(channel_id)
        except NotFound:
            scene = None
        if scene is not None and scene.status != SceneStatus.ACTIVE:
            return await self.review(scene.id)
        async with self.db.session() as session:
            cards = await review_cards.batch_cards_in_channel(session, channel_id)
        for card in cards:
            review = await self.review(None, campaign_id=card.campaign_id, batch=card.batch)
            if any(p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED} for p in review.proposals):
                return review
        if scene is not None:
            raise Conflict("The scene in this channel is still running; end it with /endscene first.")
        raise NotFound("There is no scene in this channel. A GM can start one with `/scene start`.")

    async def proposal(self, proposal_id: int) -> Proposal:
        """Return one proposal or raise `NotFound`."""
        async with self.db.session() as session:
            return await proposal_rows.get(session, proposal_id)

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
                entity_ids |= set(warning.entity_ids)
                statement_ids |= set(warning.statement_ids)
        hidden = await self._hidden(session, campaign, entity_ids, statement_ids)
        secret = {p.id for p in proposals if proposal_hidden(p, hidden)}
        # A proposal naming a hidden entity proposal is hidden too.
        secret |= {p.id for p in proposals if proposal_hidden(p, hidden, secret)}
        # A hidden proposal's own too: its proposer reads it back (`/propose`), never the warnings' hidden canon.
        warned = {p.id for p in proposals if warnings_hidden(p.warnings, hidden)}
        return frozenset(secret), frozenset(warned)

    async def _hidden(
        self, session: AsyncSession, campaign: Campaign, entity_ids: set[int], statement_ids: set[int]
    ) -> HiddenCanon:
        """Return which of these entities and statements a player must not see (`canon.visibility`)."""
        gm = await self.access.reader(session, campaign, Viewer.GM)
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
        self,
        proposal_id: int,
        *,
        accept: bool,
        actor: Actor,
        rationale: str | None = None,
        rationale_public: bool = False,
    ) -> Proposal:
        """Record the GM's decision on one proposal (exactly once); a rejection's rationale is shown to players
        only when `rationale_public`."""

        async def work(session: AsyncSession) -> Proposal:
            row = await proposal_rows.get(session, proposal_id)
            campaign = await campaigns.get_campaign(session, row.campaign_id)
            return await self.access.gate_for(campaign).decide(
                session,
                proposal_id,
                accept=accept,
                decider_id=actor.id,
                decider_name=actor.name,
                rationale=rationale,
                rationale_public=rationale_public,
            )

        return await self.db.run(work, attempts=1)

    async def revise(
        self, proposal_id: int, changes: dict[str, str | None], *, accept_as: Actor | None = None
    ) -> Proposal:
        """Correct a pending proposal (value, attribute, date ...); its warnings are recomputed. `accept_as` (a
        GM's Edit) accepts it too, unless it now needs a rationale. A decided or committed one is refused."""

        async def work(session: AsyncSession) -> Proposal:
            try:
                row = await proposal_rows.get(session, proposal_id)
            except NotFound:
                raise NotFound("That proposal no longer exists.") from None
            campaign = await campaigns.get_campaign(session, row.campaign_id)
            gate = self.access.gate_for(campaign)
            content = revised(row.content, changes)
            scene = await load_scene(session, row.scene_id) if row.scene_id is not None else None
            if scene is not None and scene.status == SceneStatus.COMPLETED:
                raise Conflict(f"The scene “{scene.title}” is already committed; nothing changed.")
            reader = await self.access.reader(session, campaign, Viewer.GM)
            story_order = scene.story_order if scene is not None else None
            anchor = scene_anchor(scene.world_date if scene is not None else None)  # "a day later" in an Edit
            proposal = await gate.revise(
                session,
                reader,
                proposal_id,
                content,
                story_order=story_order,
                anchor=anchor,
                decider_id=accept_as.id if accept_as else None,
                decider_name=accept_as.name if accept_as else "the GM",
            )
            # A new entity renamed to one canon has is decided already: its namers now point at that entity.
            # An attribute close to a declared one is asked about, never accepted for the GM ("birthplace": born?).
            if (
                accept_as is None
                or proposal.needs_rationale
                or proposal.status != ProposalStatus.PENDING
                or asks_attribute(proposal)
            ):
                return proposal
            return await gate.decide(
                session, proposal_id, accept=True, decider_id=accept_as.id, decider_name=accept_as.name
            )

        return await self.db.run(work, attempts=1)

    async def accept_all(
        self,
        scene_id: int | None,
        actor: Actor,
        *,
        campaign_id: int | None = None,
        batch: str | None = None,
        skip: Collection[int] = (),
    ) -> list[Proposal]:
        """Accept every pending proposal without warnings, but those in `skip` (the ones a card did not show)."""

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
            return await self.access.gate_for(campaign).accept_all(
                session,
                owner,
                scene_id=scene_id,
                batch=batch,
                decider_id=actor.id,
                decider_name=actor.name,
                skip=skip,
            )

        return await self.db.run(work, attempts=1)

    async def record_card(self, review: Review, *, channel_id: int, message_id: int) -> None:
        """Remember where a review card was posted: the commit brings a scene's cards to their final state, and
        `/canon review` finds an import batch's card again in its channel."""
        if review.scene is not None:
            campaign_id, scene_id = review.scene.campaign_id, review.scene.id
        elif review.batch is not None and review.proposals:
            campaign_id, scene_id = review.proposals[0].campaign_id, None
        else:
            return
        await self.db.run(
            lambda s: review_cards.record_card(
                s,
                campaign_id=campaign_id,
                scene_id=scene_id,
                batch=review.batch,
                channel_id=channel_id,
                message_id=message_id,
            )
        )

    async def cards(self, scene_id: int) -> list[review_cards.ReviewCard]:
        """Return the review cards posted for a scene."""
        async with self.db.session() as session:
            return await review_cards.cards_of_scene(session, scene_id)


async def _review_words(
    access: CanonAccess, session: AsyncSession, campaign: Campaign, proposals: Sequence[Proposal]
) -> Wording:
    """Return the words a review card speaks in (as players may read them: the public card's), with what the
    facts the proposals cite say (as the GM reads them: only the GM's lines name them)."""
    reader = await access.reader(session, campaign, Viewer.PLAYER)
    words = await wording_for(session, reader, [e for p in proposals for e in p.evidence])
    cited = [i for p in proposals for i in citations(p.content)]
    if not cited:
        return words
    named = await wording_for(session, await access.reader(session, campaign, Viewer.GM), facts=cited)
    return dataclasses.replace(words, facts=named.facts, hidden_facts=named.hidden_facts)


def asks_attribute(proposal: Proposal) -> bool:
    """Return whether a proposal's attribute is new to the campaign but close to declared ones: the GM is asked
    which they meant (its note says them) before it is accepted."""
    return any(w.new_attribute and w.suggestions for w in proposal.warnings)


def _numbered(proposals: list[Proposal], secret: frozenset[int]) -> dict[int, int]:
    """Return each proposal's card number: players' first, then the GM-only ones, each in the order made."""
    ordered = sorted(proposals, key=lambda p: (p.id in secret, p.id))
    return {p.id: n for n, p in enumerate(ordered, 1)}
