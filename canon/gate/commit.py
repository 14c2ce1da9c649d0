"""Committing proposals: every accepted one of a scene or batch written under one changeset, with its evidence,
the continuity findings of what was written, and their record; and the same writing rehearsed in a savepoint
(`simulate`) to tell what proposals would raise.

The campaign's authority policy says which authorities need review: by default imported sources and the GM
are accepted automatically, players and the system (an LLM) go through the GM.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import ChangesetKind, get_campaign, open_changeset
from canon.checks import findings_around, record_findings
from canon.continuity import Finding
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate.proposal_rows import mark_committed, mark_rejected, open_rows, proposal_from_row
from canon.gate.writing import ProposalWriter, StateHistory
from canon.graph import CanonReader, CanonWriter
from canon.models import Authority, Viewer
from canon.ontology import Ontology
from canon.proposals import Proposal, ProposalStatus, needs_rationale, parse_content, references, warnings_of
from canon.storage import utc_now
from canon.tables import ProposalRow

log = logging.getLogger(__name__)

DEFAULT_POLICY: dict[str, str] = {
    Authority.SOURCE: "auto",
    Authority.GM: "auto",
    Authority.PLAYER: "review",
    Authority.SYSTEM: "review",
}
UNDECIDED_AT_COMMIT = "Left undecided when the scene was committed."
# The policy accepts an authority's proposals without review only when they are certain: facts extracted from
# prose (confidence 0.6, the seed's default) wait for the GM even though their authority is `source`.
AUTO_ACCEPT_MIN_CONFIDENCE = 0.9


def authority_policy(settings: dict[str, Any]) -> dict[str, str]:
    """Return a campaign's authority policy (which authorities are accepted without review)."""
    return {**DEFAULT_POLICY, **(settings.get("authority_policy") or {})}


@dataclass(frozen=True)
class CommitTarget:
    """What a commit writes: the accepted proposals of one scene (at its place in the story), or of one batch
    (an import, a promotion, a direct addition), and the kind of changeset that records it."""

    campaign_id: int
    scene_id: int | None = None
    batch: str | None = None
    story_order: int | None = None
    kind: ChangesetKind = ChangesetKind.SCENE_COMMIT
    # A checkpoint of a running scene: the accepted proposals so far are written; undecided ones wait.
    checkpoint: bool = False

    @classmethod
    def of_scene(
        cls, campaign_id: int, scene_id: int, story_order: int | None, *, checkpoint: bool = False
    ) -> CommitTarget:
        """Return the target of a scene's commit (a checkpoint: while it runs, leaving undecided ones open)."""
        kind = ChangesetKind.SCENE_CHECKPOINT if checkpoint else ChangesetKind.SCENE_COMMIT
        return cls(campaign_id, scene_id=scene_id, story_order=story_order, kind=kind, checkpoint=checkpoint)

    @classmethod
    def of_batch(cls, campaign_id: int, batch: str, kind: ChangesetKind) -> CommitTarget:
        """Return the target of a batch's commit (no scene, so no place in the story)."""
        return cls(campaign_id, batch=batch, kind=kind)


@dataclass(frozen=True)
class CommitResult:
    """What a commit wrote; `written_by` maps each accepted proposal's id to the statements it wrote."""

    changeset_id: int
    accepted: list[Proposal]
    rejected: list[Proposal]
    entity_ids: dict[int, int]
    statement_ids: list[int]
    findings: list[Finding]
    written_by: dict[int, list[int]] = field(default_factory=dict)

    def overridden(self) -> dict[str, str]:
        """Return the rationale of each finding the GM accepted anyway, keyed by the finding's fingerprint.

        A finding is accepted when it involves a statement of a proposal accepted despite its warnings, with
        that proposal's own rationale; every other finding of the commit stays open.
        """
        rationale_of: dict[int, str] = {}
        for proposal in self.accepted:
            if proposal.override_rationale:
                for statement_id in self.written_by.get(proposal.id, ()):
                    rationale_of[statement_id] = proposal.override_rationale
        accepted: dict[str, str] = {}
        for finding in self.findings:
            reasons = dict.fromkeys(rationale_of[i] for i in finding.statement_ids if i in rationale_of)
            if reasons:
                accepted[finding.fingerprint] = "; ".join(reasons)
        return accepted


def _with_entity_dependencies(accepted: list[ProposalRow], rejected: list[ProposalRow]) -> list[ProposalRow]:
    """Drop accepted proposals whose unknown entity's proposal was rejected (they cannot be written)."""
    rejected_entities = {r.id for r in rejected if r.type == "entity"}
    if not rejected_entities:
        return accepted
    kept: list[ProposalRow] = []
    for row in accepted:
        content = parse_content(row.content)
        if any(ref.proposal_id in rejected_entities for _, ref in references(content)):
            log.info("proposal #%s dropped: it names an entity whose proposal was rejected", row.id)
            rejected.append(row)
            mark_rejected(row, "It names an entity whose own proposal was rejected.")
        else:
            kept.append(row)
    return kept


def kept_when_undecided(proposal: Proposal | ProposalRow, policy: dict[str, str]) -> bool:
    """Return whether a commit writes a proposal nobody decided: the policy accepts its authority without
    review, it is certain enough and never warned. A fact promoted from a branch always waits for the GM's own
    accept, whatever its authority."""
    return (
        proposal.origin != "promotion"
        and policy.get(proposal.authority) == "auto"
        and proposal.confidence >= AUTO_ACCEPT_MIN_CONFIDENCE
        and not needs_rationale(warnings_of(proposal.warnings))
    )


def _decided(
    rows: Sequence[ProposalRow], policy: dict[str, str]
) -> tuple[list[ProposalRow], list[ProposalRow]]:
    """Split the open proposals of a commit into those it writes and those it rejects.

    The GM's accepted ones are written, and pending ones the policy accepts on its own (certain enough, never
    warned); a proposal naming an entity whose own proposal is rejected cannot be written and is rejected too.
    """
    accepted: list[ProposalRow] = []
    rejected: list[ProposalRow] = []
    for row in rows:
        auto = row.status == ProposalStatus.PENDING and kept_when_undecided(row, policy)
        if row.status == ProposalStatus.ACCEPTED or auto:
            accepted.append(row)
        else:
            rejected.append(row)
    return _with_entity_dependencies(accepted, rejected), rejected


async def commit(
    session: AsyncSession,
    ontology: Ontology,
    target: CommitTarget,
    *,
    actor_id: int | None,
    actor_name: str,
) -> CommitResult:
    """Write every accepted proposal of a scene or batch (and policy-accepted pending ones) under one changeset.

    Pending proposals that the policy does not accept are rejected with a rationale. The continuity findings of
    the new statements are recorded: a finding that involves a proposal accepted despite its warnings as
    accepted, with that proposal's rationale (`CommitResult.overridden`), every other new one as open.
    """
    if target.scene_id is None and target.batch is None:
        raise InvalidInput("A commit needs a scene or a batch.")
    rows = await open_rows(session, target.campaign_id, target.scene_id, target.batch, lock=True)
    campaign = await get_campaign(session, target.campaign_id)
    accepted, rejected = _decided(rows, authority_policy(campaign.settings))
    changeset = await open_changeset(
        session,
        target.campaign_id,
        target.kind,
        actor_id=actor_id,
        actor_name=actor_name,
        scene_id=target.scene_id,
    )
    reader = await CanonReader.open(session, target.campaign_id, ontology, viewer=Viewer.GM)
    writer = CanonWriter(session, changeset, ontology, deferred=True)
    writing = ProposalWriter(ontology, writer, reader, story_order=target.story_order)
    written_by = await _write(writing, [proposal_from_row(r) for r in accepted])
    statement_ids = [i for ids in written_by.values() for i in ids]
    now = utc_now()
    mark_committed(accepted, changeset.id, now)
    if target.checkpoint:
        rejected = []  # undecided proposals (and those naming them) wait for the scene's end
    for row in rejected:
        if row.status == ProposalStatus.PENDING:
            mark_rejected(row, row.rationale or UNDECIDED_AT_COMMIT, at=now)
    await session.flush()
    result = CommitResult(
        changeset_id=changeset.id,
        accepted=[proposal_from_row(r) for r in accepted],
        rejected=[proposal_from_row(r) for r in rejected],
        entity_ids=writing.entity_ids,
        statement_ids=statement_ids,
        findings=await findings_around(reader, statement_ids),
        written_by=written_by,
    )
    await record_findings(session, target.campaign_id, result.findings, accepted=result.overridden())
    return result


async def _write(writing: ProposalWriter, accepted: Sequence[Proposal]) -> dict[int, list[int]]:
    """Write accepted proposals, entities first (in bulk: others may point at them); return the statements each
    proposal wrote."""
    proposals = sorted(accepted, key=lambda p: (p.type != "entity", p.id))
    reader = writing.reader
    named = {
        ref.entity_id for p in proposals for _, ref in references(p.content) if ref.entity_id is not None
    }
    writing.types.update({e.id: e.type for e in (await reader.entities(named)).values()})
    writing.history = await StateHistory.of(reader, proposals)
    await writing.create_entities(proposals)
    placeholders: dict[int, list[int]] = {p.id: [] for p in proposals if p.type == "entity"}
    for proposal in proposals:
        if proposal.type != "entity":
            placeholders[proposal.id] = await writing.apply(proposal)
    written = await writing.writer.flush()
    return {pid: [written.get(p, p) for p in ids] for pid, ids in placeholders.items()}


async def simulate(
    session: AsyncSession,
    ontology: Ontology,
    reader: CanonReader,
    proposals: Sequence[Proposal],
    *,
    story_order: int | None,
) -> dict[int, list[Finding]]:
    """Return the findings each proposal would raise with all of them written together, writing nothing.

    The proposals are written as a commit would write them, in a savepoint that is rolled back, and the
    findings around the new statements go to every proposal whose statements they involve. A proposal that
    cannot be written (its entity was rejected, a relation's ends do not fit) is left out and raises nothing.
    """
    nested = await session.begin_nested()
    try:
        changeset = await open_changeset(session, reader.campaign_id, ChangesetKind.SCENE_COMMIT)
        writer = CanonWriter(session, changeset, ontology, deferred=True)
        history = await StateHistory.of(reader, proposals)
        writing = ProposalWriter(ontology, writer, reader, story_order=story_order, history=history)
        placeholders: dict[int, list[int]] = {}
        for proposal in sorted(proposals, key=lambda p: (p.type != "entity", p.id)):
            try:
                placeholders[proposal.id] = await writing.apply(proposal)
            except (InvalidInput, Conflict, NotFound) as error:
                log.info("proposal #%s cannot be simulated: %s", proposal.id, error)
        written = await writer.flush()
        owner = {written.get(p, p): pid for pid, ids in placeholders.items() for p in ids}
        found: dict[int, list[Finding]] = {pid: [] for pid in placeholders}
        for finding in await findings_around(reader, list(owner)) if owner else []:
            for pid in dict.fromkeys(owner[i] for i in finding.statement_ids if i in owner):
                found[pid].append(finding)
        return found
    finally:
        await nested.rollback()
