"""The proposals table, read and written: storing a proposal, the open ones of a scene or batch, decisions.

Each decision is one conditional UPDATE (`decide`), so two GMs clicking at once, or a double click, make exactly
one decision.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import ChangesetKind, ChangesetRow
from canon.continuity import Finding
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate.drafts import Draft
from canon.models import Authority, Evidence
from canon.proposals import (
    Proposal,
    ProposalContent,
    ProposalStatus,
    ProposalWarning,
    fingerprint,
    needs_rationale,
    parse_content,
    repointed,
    warnings_of,
)
from canon.storage import utc_now
from canon.tables import ProposalRow


def proposal_from_row(row: ProposalRow) -> Proposal:
    """Return the domain view of a proposal row."""
    return Proposal(
        id=row.id,
        campaign_id=row.campaign_id,
        scene_id=row.scene_id,
        batch=row.batch,
        content=parse_content(row.content),
        evidence=tuple(Evidence.model_validate(e) for e in row.evidence or []),
        authority=Authority(row.authority),
        confidence=row.confidence,
        origin=row.origin,
        status=ProposalStatus(row.status),
        rationale=row.rationale,
        warnings=warnings_of(row.warnings),
        proposer_id=row.proposer_id,
        proposer_name=row.proposer_name,
        created_at=row.created_at,
        decided_by_name=row.decided_by_name,
        decided_at=row.decided_at,
        override_rationale=row.override_rationale,
        committed_changeset_id=row.committed_changeset_id,
        rationale_public=bool(row.rationale_public),
    )


async def store(
    session: AsyncSession,
    campaign_id: int,
    draft: Draft,
    content: ProposalContent,
    scene_id: int | None,
    batch: str | None,
) -> ProposalRow:
    """Store a proposal as pending and return its row (its id assigned)."""
    row = ProposalRow(
        campaign_id=campaign_id,
        scene_id=scene_id,
        batch=batch,
        type=content.type,
        content=content.model_dump(mode="json"),
        evidence=[e.model_dump(mode="json") for e in draft.evidence],
        authority=draft.authority.value,
        confidence=draft.confidence,
        origin=draft.origin,
        fingerprint=fingerprint(content),
        status=ProposalStatus.PENDING.value,
        rationale=draft.rationale,
        warnings=[],
        proposer_id=draft.proposer_id,
        proposer_name=draft.proposer_name,
    )
    session.add(row)
    await session.flush()
    return row


async def pending_entity_names(
    session: AsyncSession, campaign_id: int, scene_id: int | None, batch: str | None
) -> dict[str, int]:
    """Return the entity proposals waiting in a scene or batch, by folded name (for names that point at them)."""
    rows = await open_rows(session, campaign_id, scene_id, batch)
    return {
        " ".join(str(r.content["name"]).casefold().split()): r.id
        for r in rows
        if r.type == "entity" and r.status != ProposalStatus.REJECTED
    }


async def open_rows(
    session: AsyncSession,
    campaign_id: int,
    scene_id: int | None,
    batch: str | None,
    *,
    lock: bool = False,
) -> list[ProposalRow]:
    """Return the pending and accepted proposals of a scene or batch; `lock` row-locks them (commit).

    A commit locks them so that a decision racing it waits, then finds them no longer pending, instead
    of being overwritten (SQLite needs no lock: its writes are serialized).
    """
    query = select(ProposalRow).where(
        ProposalRow.campaign_id == campaign_id,
        ProposalRow.status.in_([ProposalStatus.PENDING, ProposalStatus.ACCEPTED]),
    )
    query = query.where(ProposalRow.scene_id == scene_id) if scene_id is not None else query
    query = query.where(ProposalRow.batch == batch) if batch is not None else query
    query = query.order_by(ProposalRow.id)
    return list((await session.execute(query.with_for_update() if lock else query)).scalars())


async def duplicate(
    session: AsyncSession,
    campaign_id: int,
    scene_id: int | None,
    batch: str | None,
    content: ProposalContent,
) -> ProposalRow | None:
    """Return the open proposal of a scene or batch with the same content, if any."""
    fp = fingerprint(content)
    for row in await open_rows(session, campaign_id, scene_id, batch):
        if row.fingerprint == fp:
            return row
    return None


async def proposals(
    session: AsyncSession,
    campaign_id: int,
    *,
    scene_id: int | None = None,
    batch: str | None = None,
    ids: Sequence[int] | None = None,
) -> list[Proposal]:
    """Return the proposals of a scene or batch (or by id), oldest first."""
    query = select(ProposalRow).where(ProposalRow.campaign_id == campaign_id)
    if scene_id is not None:
        query = query.where(ProposalRow.scene_id == scene_id)
    if batch is not None:
        query = query.where(ProposalRow.batch == batch)
    if ids is not None:
        query = query.where(ProposalRow.id.in_(list(ids)))
    rows = (await session.execute(query.order_by(ProposalRow.id))).scalars()
    return [proposal_from_row(r) for r in rows]


async def get(session: AsyncSession, proposal_id: int) -> Proposal:
    """Return one proposal or raise `NotFound`."""
    row = await session.get(ProposalRow, proposal_id)
    if row is None:
        raise NotFound(f"There is no proposal #{proposal_id}.")
    return proposal_from_row(row)


async def decide(
    session: AsyncSession,
    proposal_id: int,
    *,
    accept: bool,
    decider_id: int | None,
    decider_name: str,
    rationale: str | None = None,
    rationale_public: bool = False,
) -> Proposal:
    """Accept or reject a pending proposal exactly once; a warned proposal needs a rationale to accept.

    A rejection's rationale is shown to players only when `rationale_public` (the GM chose so).
    """
    row = await session.get(ProposalRow, proposal_id)
    if row is None:
        raise NotFound(f"There is no proposal #{proposal_id}.")
    if row.status != ProposalStatus.PENDING:
        who = f" by {row.decided_by_name}" if row.decided_by_name else ""
        raise Conflict(f"That proposal was already {row.status}{who}.")
    warned = needs_rationale(warnings_of(row.warnings))
    if accept and warned and not (rationale and rationale.strip()):
        raise InvalidInput("That proposal raises continuity warnings. To accept it anyway, give a rationale.")
    status = ProposalStatus.ACCEPTED if accept else ProposalStatus.REJECTED
    values: dict[str, Any] = {
        "status": status.value,
        "decided_by_id": decider_id,
        "decided_by_name": decider_name,
        "decided_at": utc_now(),
    }
    if accept and warned:
        values["override_rationale"] = rationale
    elif rationale:
        values["rationale"] = rationale
        values["rationale_public"] = rationale_public and not accept
    result = await session.execute(
        update(ProposalRow)
        .where(ProposalRow.id == proposal_id, ProposalRow.status == ProposalStatus.PENDING)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if getattr(result, "rowcount", 1) != 1:
        raise Conflict("That proposal was decided by someone else a moment ago.")
    await session.refresh(row)
    return proposal_from_row(row)


async def revise(session: AsyncSession, proposal_id: int, content: ProposalContent) -> ProposalRow:
    """Replace a pending proposal's content (the GM's correction before a decision); return its row."""
    result = await session.execute(
        update(ProposalRow)
        .where(ProposalRow.id == proposal_id, ProposalRow.status == ProposalStatus.PENDING)
        .values(type=content.type, content=content.model_dump(mode="json"), fingerprint=fingerprint(content))
        .execution_options(synchronize_session=False)
    )
    row = await session.get(ProposalRow, proposal_id)
    if row is None:
        raise NotFound("That proposal no longer exists.")
    if getattr(result, "rowcount", 1) != 1:
        who = f" by {row.decided_by_name}" if row.decided_by_name else ""
        raise Conflict(f"This proposal was already {row.status}{who}; it can no longer be edited.")
    await session.refresh(row)
    return row


async def repoint(
    session: AsyncSession, campaign_id: int, proposal_id: int, entity_id: int, name: str
) -> int:
    """Point every open proposal of the campaign that names an entity proposal at an entity of canon instead
    (the entity proposal named one canon already has); return how many changed."""
    changed = 0
    for row in await open_rows(session, campaign_id, None, None):
        content = proposal_from_row(row).content
        moved = repointed(content, proposal_id, entity_id, name)
        if moved != content:
            row.content, row.fingerprint = moved.model_dump(mode="json"), fingerprint(moved)
            changed += 1
    await session.flush()
    return changed


async def accept_all(
    session: AsyncSession,
    campaign_id: int,
    *,
    scene_id: int | None,
    batch: str | None,
    decider_id: int | None,
    decider_name: str,
    skip: Collection[int] = (),
) -> list[Proposal]:
    """Accept every pending proposal without continuity warnings but those in `skip`; warned ones stay for a
    decision."""
    query = (
        update(ProposalRow)
        .where(
            ProposalRow.campaign_id == campaign_id,
            ProposalRow.status == ProposalStatus.PENDING,
            ProposalRow.scene_id == scene_id if scene_id is not None else ProposalRow.batch == batch,
            ProposalRow.id.not_in(list(skip)),
        )
        .values(
            status=ProposalStatus.ACCEPTED.value,
            decided_by_id=decider_id,
            decided_by_name=decider_name,
            decided_at=utc_now(),
        )
        .returning(ProposalRow.id, ProposalRow.warnings)
        .execution_options(synchronize_session=False)
    )
    accepted = (await session.execute(query)).all()
    warned = [pid for pid, warnings in accepted if needs_rationale(warnings_of(warnings))]
    if warned:  # put warned proposals back: they need a decision with a rationale
        await session.execute(
            update(ProposalRow)
            .where(ProposalRow.id.in_(warned))
            .values(
                status=ProposalStatus.PENDING.value,
                decided_by_id=None,
                decided_by_name=None,
                decided_at=None,
            )
            .execution_options(synchronize_session=False)
        )
    return await proposals(session, campaign_id, ids=[pid for pid, w in accepted if not w])


async def set_warnings(
    session: AsyncSession,
    warnings: dict[int, list[Finding]],
    notes: Mapping[int, Sequence[ProposalWarning]] | None = None,
) -> None:
    """Replace the continuity warnings of pending proposals (decided ones keep what they were decided on);
    `notes` are warnings that are not continuity findings (an unknown attribute), kept first."""
    table = cast(Table, ProposalRow.__table__)
    kept = notes or {}
    rows = [
        {"target": pid, "new_warnings": [w.stored() for w in (*kept.get(pid, ()), *warnings_of(found))]}
        for pid, found in warnings.items()
    ]
    if rows:
        await session.execute(
            update(table)
            .where(table.c.id == bindparam("target"), table.c.status == ProposalStatus.PENDING.value)
            .values(warnings=bindparam("new_warnings")),
            rows,
        )


async def reject_batch(session: AsyncSession, campaign_id: int, batch: str, decider_name: str) -> int:
    """Reject every undecided proposal of a batch (a discarded import); return how many."""
    result = await session.execute(
        update(ProposalRow)
        .where(
            ProposalRow.campaign_id == campaign_id,
            ProposalRow.batch == batch,
            ProposalRow.status == ProposalStatus.PENDING,
        )
        .values(status=ProposalStatus.REJECTED.value, decided_by_name=decider_name, decided_at=utc_now())
    )
    return int(getattr(result, "rowcount", 0) or 0)


# -- changes to rows this module returned (`open_rows`, `store`, `revise`): every column a gate sets is set here --


def record_warnings(row: ProposalRow, warnings: Sequence[ProposalWarning]) -> None:
    """Store a proposal's warnings (typed, as JSON) on its row; flushed with the session."""
    row.warnings = [w.stored() for w in warnings]


def mark_rejected(row: ProposalRow, rationale: str, *, at: dt.datetime | None = None) -> None:
    """Reject a proposal with the reason shown on its card (`at`: when, for one rejected at a commit)."""
    row.status = ProposalStatus.REJECTED.value
    row.rationale = rationale
    if at is not None:
        row.decided_at = at


def mark_committed(rows: Sequence[ProposalRow], changeset_id: int, at: dt.datetime) -> None:
    """Mark proposals written by a changeset; one nobody decided was accepted by the authority policy."""
    for row in rows:
        row.status = ProposalStatus.COMMITTED.value
        row.committed_changeset_id = changeset_id
        if row.decided_at is None:
            row.decided_by_name = "authority policy"
            row.decided_at = at


async def without_checkpointed(
    session: AsyncSession, proposals: list[Proposal], committed_in: int | None
) -> list[Proposal]:
    """Return the proposals without those committed at a checkpoint (other than the changeset `committed_in`)."""
    done = {
        p.committed_changeset_id
        for p in proposals
        if p.committed_changeset_id is not None and p.committed_changeset_id != committed_in
    }
    if not done:
        return proposals
    query = select(ChangesetRow.id).where(
        ChangesetRow.id.in_(done), ChangesetRow.kind == ChangesetKind.SCENE_CHECKPOINT.value
    )
    checkpoints = set((await session.execute(query)).scalars())
    return [p for p in proposals if p.committed_changeset_id not in checkpoints]
