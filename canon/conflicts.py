"""The life of a recorded conflict: open until resolved (by a retcon, an accepted change, the GM's rationale)
or dismissed with a reason, and the pages `/canon conflicts` shows.

A dismissed conflict keeps its fingerprint in the table, so the same facts never raise it again
(`canon.checks.record_findings` records a fingerprint once). A retcon resolves every open conflict one of whose
sides is the retconned fact; a whole-graph check resolves the open ones it no longer finds (canon changed), and
reopens those it finds again.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.checks import RecordedConflict, conflict_from_row
from canon.continuity import ConflictKind
from canon.errors import Conflict, InvalidInput, NotFound
from canon.storage import utc_now
from canon.tables import ConflictRow
from canon.wording import PLAIN, Wording

OPEN = "open"
RESOLVED = "resolved"
DISMISSED = "dismissed"
ACCEPTED = "accepted"  # recorded at a commit that accepted a proposal despite it, with the GM's rationale
CLOSED = (RESOLVED, DISMISSED, ACCEPTED)
REASON_LIMIT = 1000


class Resolution(enum.StrEnum):
    """How a conflict was resolved."""

    RETCON = "retcon"
    CHANGE = "change"
    RATIONALE = "rationale"


class Show(enum.StrEnum):
    """Which conflicts a listing shows."""

    OPEN = "open"
    CLOSED = "closed"
    ALL = "all"


@dataclass(frozen=True)
class ConflictPage:
    """One page of a campaign's conflicts, newest first, and how many there are in all."""

    conflicts: list[RecordedConflict]
    total: int
    page: int
    pages: int
    show: Show
    #: The words its dates are said in: the campaign's calendar (`bot`'s query fills it in; plain without).
    words: Wording = PLAIN


def _shown(campaign_id: int, show: Show) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [ConflictRow.campaign_id == campaign_id]
    if show == Show.OPEN:
        where.append(ConflictRow.status == OPEN)
    elif show == Show.CLOSED:
        where.append(ConflictRow.status.in_(CLOSED))
    return where


async def conflict_page(
    session: AsyncSession, campaign_id: int, *, show: Show = Show.OPEN, page: int = 0, size: int = 5
) -> ConflictPage:
    """Return a page of the campaign's conflicts (a page past the end shows the last one)."""
    where = _shown(campaign_id, show)
    total = await session.scalar(select(func.count()).select_from(ConflictRow).where(*where)) or 0
    pages = max(1, -(-total // size))
    page = min(max(0, page), pages - 1)
    query = select(ConflictRow).where(*where).order_by(ConflictRow.id.desc()).offset(page * size).limit(size)
    rows = (await session.execute(query)).scalars()
    return ConflictPage([conflict_from_row(r) for r in rows], total, page, pages, show)


async def close(
    session: AsyncSession, campaign_id: int, conflict_id: int, *, dismiss: bool, reason: str, by: str
) -> RecordedConflict:
    """Resolve (with the GM's rationale) or dismiss one open conflict; raise for a closed or unknown one."""
    reason = reason.strip()
    if not reason:
        what = "dismissing" if dismiss else "resolving"
        raise InvalidInput(f"Say why you are {what} it: the reason is kept with the conflict.")
    if len(reason) > REASON_LIMIT:
        raise InvalidInput(f"A reason has at most {REASON_LIMIT} characters; this one has {len(reason)}.")
    row = await session.scalar(
        select(ConflictRow)
        .where(ConflictRow.id == conflict_id, ConflictRow.campaign_id == campaign_id)
        .with_for_update()
    )
    if row is None:
        raise NotFound(f"There is no conflict #{conflict_id} in this campaign.")
    if row.status != OPEN:
        raise Conflict(f"Conflict #{conflict_id} is already {_closed_words(row)}; nothing changed.")
    row.status = DISMISSED if dismiss else RESOLVED
    row.resolution = None if dismiss else Resolution.RATIONALE.value
    row.rationale = reason
    row.closed_at = utc_now()
    row.closed_by = by
    await session.flush()
    return conflict_from_row(row)


async def resolve_answered(
    session: AsyncSession,
    campaign_id: int,
    statement_ids: Collection[int],
    *,
    resolution: Resolution,
    reason: str,
    by: str,
) -> list[RecordedConflict]:
    """Resolve the open conflicts one of whose sides is one of these statements (a retcon answered them)."""
    wanted = set(statement_ids)
    rows = (
        await session.execute(
            select(ConflictRow).where(ConflictRow.campaign_id == campaign_id, ConflictRow.status == OPEN)
        )
    ).scalars()
    closed: list[RecordedConflict] = []
    now = utc_now()
    for row in rows:
        if wanted.isdisjoint((row.details or {}).get("statement_ids") or ()):
            continue
        row.status, row.resolution, row.rationale = RESOLVED, resolution.value, reason
        row.closed_at, row.closed_by = now, by
        closed.append(conflict_from_row(row))
    await session.flush()
    return closed


async def resolve_vanished(
    session: AsyncSession, campaign_id: int, found: Collection[str], *, by: str
) -> list[RecordedConflict]:
    """Resolve the open continuity conflicts a whole-graph check no longer finds (`found`: its fingerprints):
    canon changed so that they no longer hold. Notes that are not continuity findings stay open."""
    kinds = [k.value for k in ConflictKind]
    rows = (
        await session.execute(
            select(ConflictRow).where(
                ConflictRow.campaign_id == campaign_id,
                ConflictRow.status == OPEN,
                ConflictRow.kind.in_(kinds),
            )
        )
    ).scalars()
    present = set(found)
    closed: list[RecordedConflict] = []
    now = utc_now()
    for row in rows:
        if row.fingerprint in present:
            continue
        row.status, row.resolution = RESOLVED, Resolution.CHANGE.value
        row.rationale = "Canon changed: a check no longer finds it."
        row.closed_at, row.closed_by = now, by
        closed.append(conflict_from_row(row))
    await session.flush()
    return closed


async def reopen_found(
    session: AsyncSession, campaign_id: int, found: Collection[str]
) -> list[RecordedConflict]:
    """Reopen the conflicts a change of canon resolved that a check finds again (canon changed back)."""
    if not found:
        return []
    rows = (
        await session.execute(
            select(ConflictRow).where(
                ConflictRow.campaign_id == campaign_id,
                ConflictRow.status == RESOLVED,
                ConflictRow.resolution == Resolution.CHANGE.value,
            )
        )
    ).scalars()
    present = set(found)
    reopened: list[RecordedConflict] = []
    for row in rows:
        if row.fingerprint not in present:
            continue
        row.status, row.resolution, row.rationale, row.closed_at, row.closed_by = OPEN, None, None, None, None
        reopened.append(conflict_from_row(row))
    await session.flush()
    return reopened


async def dismissed_fingerprints(session: AsyncSession, campaign_id: int) -> set[str]:
    """Return the fingerprints of the campaign's dismissed conflicts."""
    query = select(ConflictRow.fingerprint).where(
        ConflictRow.campaign_id == campaign_id, ConflictRow.status == DISMISSED
    )
    return set((await session.execute(query)).scalars())


def _closed_words(row: ConflictRow) -> str:
    if row.status == DISMISSED:
        return "dismissed"
    if row.status == ACCEPTED:
        return "accepted with a rationale"
    return "resolved"
