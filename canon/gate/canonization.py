"""`CanonizationGate`: proposals are drafted, reviewed one by one, and committed together with evidence.

Every method works inside the caller's transaction. The gate owns a proposal from its draft to its commit: the
continuity warnings a proposal raises (`propose(warn=True)`, `rewarn`), each decision, and the commit with the
findings of what it wrote and their record.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar import WorldDate
from canon.continuity import Finding
from canon.errors import Conflict
from canon.gate import commit as commits
from canon.gate import drafts, proposal_rows
from canon.gate.commit import CommitResult, CommitTarget
from canon.gate.drafts import Draft
from canon.graph import CanonReader, naming
from canon.models import Viewer
from canon.ontology import Ontology
from canon.proposals import (
    EntityContent,
    FactContent,
    Proposal,
    ProposalContent,
    ProposalStatus,
    ProposalWarning,
    references,
    warnings_of,
)
from canon.tables import ProposalRow
from canon.visibility import entity_hidden
from canon.wording.proposals import type_words

log = logging.getLogger(__name__)


class CanonizationGate:
    """Drafts, decisions and commits under one campaign's ontology, inside the caller's transaction."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology

    # -- drafting -------------------------------------------------------------------------------------

    async def propose(
        self,
        session: AsyncSession,
        reader: CanonReader,
        draft: Draft,
        *,
        scene_id: int | None,
        batch: str | None = None,
        story_order: int | None = None,
        warn: bool = False,
        anchor: WorldDate | None = None,
        ask_attribute: bool = False,
    ) -> list[Proposal]:
        """Store a proposal (and an entity proposal for each unknown name); merge a duplicate into the original.
        `ask_attribute`: an attribute close to declared ones raises `AskedAttribute` (`drafts.settle_attribute`).

        Names resolve as `reader`'s viewer sees canon. Returns the stored proposals, the requested one last.
        With `warn`, each gets the continuity warnings its review card shows: the findings it would raise,
        written at `story_order` (its scene's place in the story) with the entity proposals it names.
        """
        calendar = await reader.calendar()
        content = drafts.normalise(self.ontology, draft.content, calendar, anchor)
        campaign_id = reader.campaign_id
        pending = await proposal_rows.pending_entity_names(session, campaign_id, scene_id, batch)
        content, missing = await drafts.resolve(self.ontology, reader, content, pending)
        await drafts.check_types(self.ontology, reader, content)
        await drafts.check_life_told_again(reader, content, calendar)
        await drafts.check_citations(reader, content)
        note: ProposalWarning | None = None
        if isinstance(content, FactContent):
            subject_type = await self._subject_type(session, reader, content)
            content, note = drafts.settle_attribute(
                self.ontology, content, subject_type, calendar, ask=ask_attribute
            )
        created: list[ProposalRow] = []
        for role, ref, entity_type in missing:
            entity_draft = Draft(
                content=EntityContent(name=ref.name, entity_type=entity_type),
                authority=draft.authority,
                evidence=draft.evidence,
                confidence=draft.confidence,
                origin=draft.origin,
                proposer_id=draft.proposer_id,
                proposer_name=draft.proposer_name,
                rationale=f"Named as the {role} of another proposal, and unknown to canon.",
            )
            row = await proposal_rows.store(
                session, campaign_id, entity_draft, entity_draft.content, scene_id, batch
            )
            created.append(row)
            content = drafts.point_at(content, ref, row.id)
        existing = await proposal_rows.duplicate(session, campaign_id, scene_id, batch, content)
        if existing is not None:
            log.info("merged a duplicate proposal into #%s", existing.id)
            merged = list(existing.evidence or []) + [e.model_dump(mode="json") for e in draft.evidence]
            existing.evidence = [
                dict(t) for t in {tuple(sorted(e.items())) for e in map(drafts.freeze, merged)}
            ]
            created.append(existing)
        else:
            created.append(await proposal_rows.store(session, campaign_id, draft, content, scene_id, batch))
        if warn:
            gm = CanonReader(session, reader.steps, self.ontology, viewer=Viewer.GM)
            for row in created:
                found = await self._warnings(session, gm, row, story_order)
                noted = note is not None and row is created[-1] and drafts.noted(note, draft.authority)
                notes = [note] if noted and note is not None else []
                made = proposal_rows.proposal_from_row(row).content
                if isinstance(made, EntityContent):
                    axiom = drafts.axiom_note(self.ontology, made, draft.authority)
                    notes += [axiom] if axiom is not None else []
                proposal_rows.record_warnings(row, [*notes, *warnings_of(found)])
        await session.flush()
        return [proposal_rows.proposal_from_row(r) for r in created]

    async def _subject_type(self, session: AsyncSession, reader: CanonReader, content: FactContent) -> str:
        """Return the type of a fact's subject: its entity's, its entity proposal's, or a new entity's."""
        subject = content.subject
        if subject.entity_id is not None:
            entity = (await reader.entities([subject.entity_id])).get(subject.entity_id)
            if entity is not None:
                return entity.type
        if subject.proposal_id is not None:
            (named,) = await proposal_rows.proposals(session, reader.campaign_id, ids=[subject.proposal_id])
            if isinstance(named.content, EntityContent):
                return named.content.entity_type
        return drafts.default_entity_type("subject", self.ontology, content)

    async def _warnings(
        self, session: AsyncSession, gm: CanonReader, row: ProposalRow, story_order: int | None
    ) -> list[Finding]:
        """Return the findings a proposal would raise, by writing it in a savepoint and rolling back."""
        if row.type == "entity":  # a new entity writes no statement to check
            return []
        proposal = (await proposal_rows.proposals(session, gm.campaign_id, ids=[row.id]))[0]
        # Only the entity proposals this one names are needed: the others cannot be in its neighbourhood,
        # and writing every pending entity of the scene made each proposal slower than the last.
        named = sorted({r.proposal_id for _, r in references(proposal.content) if r.proposal_id is not None})
        entities = [
            p
            for p in (await proposal_rows.proposals(session, gm.campaign_id, ids=named) if named else [])
            if p.type == "entity" and p.id != row.id and p.status in {"pending", "accepted"}
        ]
        found = await self.simulate(session, gm, [*entities, proposal], story_order=story_order)
        return found.get(proposal.id, [])

    async def simulate(
        self,
        session: AsyncSession,
        reader: CanonReader,
        proposals: Sequence[Proposal],
        *,
        story_order: int | None,
    ) -> dict[int, list[Finding]]:
        """Return the findings each proposal would raise with all of them written together, writing nothing
        (see `canon.gate.commit.simulate`)."""
        return await commits.simulate(session, self.ontology, reader, proposals, story_order=story_order)

    async def rewarn(
        self, session: AsyncSession, reader: CanonReader, *, scene_id: int, story_order: int | None
    ) -> None:
        """Recompute the warnings of a scene's pending proposals against all its open proposals at once.

        Each proposal was checked alone when it was made; two of them may contradict each other (or canon
        committed since), which only shows with every proposal of the scene written together. `reader` reads
        as the GM.
        """
        open_ = [
            p
            for p in await self.proposals(session, reader.campaign_id, scene_id=scene_id)
            if p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}
        ]
        found = await self.simulate(session, reader, open_, story_order=story_order)
        # A proposal that cannot be written keeps the warnings it had: the commit will drop or refuse it.
        pending = [p.id for p in open_ if p.status == ProposalStatus.PENDING and p.id in found]
        notes = {p.id: [w for w in p.warnings if w.note] for p in open_}  # not continuity findings
        await proposal_rows.set_warnings(session, {pid: found[pid] for pid in pending}, notes)

    # -- review ---------------------------------------------------------------------------------------

    async def proposals(
        self,
        session: AsyncSession,
        campaign_id: int,
        *,
        scene_id: int | None = None,
        batch: str | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[Proposal]:
        """Return the proposals of a scene or batch (or by id), oldest first."""
        return await proposal_rows.proposals(session, campaign_id, scene_id=scene_id, batch=batch, ids=ids)

    async def get(self, session: AsyncSession, proposal_id: int) -> Proposal:
        """Return one proposal or raise `NotFound`."""
        return await proposal_rows.get(session, proposal_id)

    async def decide(
        self,
        session: AsyncSession,
        proposal_id: int,
        *,
        accept: bool,
        decider_id: int | None,
        decider_name: str,
        rationale: str | None = None,
        rationale_public: bool = False,
    ) -> Proposal:
        """Accept or reject a pending proposal exactly once; a warned proposal needs a rationale to accept."""
        return await proposal_rows.decide(
            session,
            proposal_id,
            accept=accept,
            decider_id=decider_id,
            decider_name=decider_name,
            rationale=rationale,
            rationale_public=rationale_public,
        )

    async def accept_all(
        self,
        session: AsyncSession,
        campaign_id: int,
        *,
        scene_id: int | None,
        batch: str | None,
        decider_id: int | None,
        decider_name: str,
        skip: Collection[int] = (),
    ) -> list[Proposal]:
        """Accept every pending proposal without continuity warnings but those in `skip` (the GM has not seen
        them); warned ones stay for a decision."""
        return await proposal_rows.accept_all(
            session,
            campaign_id,
            scene_id=scene_id,
            batch=batch,
            decider_id=decider_id,
            decider_name=decider_name,
            skip=skip,
        )

    async def revise(
        self,
        session: AsyncSession,
        reader: CanonReader,
        proposal_id: int,
        content: ProposalContent,
        *,
        story_order: int | None,
        anchor: WorldDate | None = None,
        decider_id: int | None = None,
        decider_name: str = "the GM",
    ) -> Proposal:
        """Replace a pending proposal's content with the GM's correction, checked as a new one would be, and
        recompute its continuity warnings. Its entity references stay as they were resolved.

        A new entity renamed to a name canon already has (`reader`'s viewer sees) is that entity: the proposals
        naming it point at it instead, and the entity proposal is rejected, saying so, as
        `decider_name`'s decision; no second entity of the same name is made.
        """
        if isinstance(content, EntityContent):
            merged = await self._merge_known(session, reader, proposal_id, content, decider_id, decider_name)
            if merged is not None:
                return merged
        calendar = await reader.calendar()
        content = drafts.normalise(self.ontology, content, calendar, anchor)
        await drafts.check_types(self.ontology, reader, content)
        await drafts.check_citations(reader, content)
        note: ProposalWarning | None = None
        if isinstance(content, FactContent):  # under its declared name; an unknown one is noted again
            subject_type = await self._subject_type(session, reader, content)
            content, note = drafts.settle_attribute(self.ontology, content, subject_type, calendar)
        row = await proposal_rows.revise(session, proposal_id, content)
        gm = CanonReader(session, reader.steps, self.ontology, viewer=Viewer.GM)
        found = await self._warnings(session, gm, row, story_order)
        proposal_rows.record_warnings(row, [*([note] if note else []), *warnings_of(found)])
        await session.flush()
        return proposal_rows.proposal_from_row(row)

    async def _merge_known(
        self,
        session: AsyncSession,
        reader: CanonReader,
        proposal_id: int,
        content: EntityContent,
        decider_id: int | None,
        decider_name: str,
    ) -> Proposal | None:
        """Point an entity proposal's namers at the entity of canon its new name means and reject it; return
        it, or None when canon has no entity of that name (several of that name: ask which, in words)."""
        entity, found = await naming.settle(reader, content.name, exact=True)
        if entity is None and len(found) > 1:
            raise await naming.ambiguity(reader, content.name, found)
        if entity is None:
            return None
        before = await proposal_rows.get(session, proposal_id)
        if before.status != ProposalStatus.PENDING:
            raise Conflict(f"This proposal was already {before.status}; it can no longer be edited.")
        typed = before.content.name if isinstance(before.content, EntityContent) else content.name
        await proposal_rows.repoint(session, reader.campaign_id, proposal_id, entity.id, entity.name)
        said = type_words(entity.type)
        why = (
            f"{entity.name} ({said}) is already in canon: what named “{typed}” now means that {said}, "
            "so no second one is made."
        )
        return await proposal_rows.decide(
            session,
            proposal_id,
            accept=False,
            decider_id=decider_id,
            decider_name=decider_name,
            rationale=why,
            # The card says so to everyone, unless the entity meant is one players may not see.
            rationale_public=not entity_hidden(entity),
        )

    async def reject_batch(
        self, session: AsyncSession, campaign_id: int, batch: str, decider_name: str
    ) -> int:
        """Reject every undecided proposal of a batch (a discarded import); return how many."""
        return await proposal_rows.reject_batch(session, campaign_id, batch, decider_name)

    # -- commit ---------------------------------------------------------------------------------------

    async def commit(
        self, session: AsyncSession, target: CommitTarget, *, actor_id: int | None, actor_name: str
    ) -> CommitResult:
        """Write a scene's or batch's accepted proposals under one changeset, with the continuity findings of
        what was written, recorded (see `canon.gate.commit.commit`)."""
        return await commits.commit(session, self.ontology, target, actor_id=actor_id, actor_name=actor_name)
