"""SQL of shared libraries: their holders, their sources, and which campaigns read which of them.

A library's sources belong to its holder campaign (`KnowledgeLibraryRow.campaign_id`); a campaign reads those
attached to it or to a campaign of its lineage (a branch reads what its story had attached). Retrieval reads
the attached ones through `memory.knowledge.repository.split_lineage_sources`; the rest of the holder's sources
are what vector search must leave out of the shared collection for that campaign.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import CampaignRow, CampaignStatus
from canon.errors import Conflict
from canon.storage import utc_now
from memory.knowledge.tables import (
    KnowledgeLibraryAttachmentRow,
    KnowledgeLibraryRow,
    KnowledgeSourceRow,
)

__all__ = [
    "Library",
    "all_libraries",
    "attach",
    "attached_ids",
    "attachment_counts",
    "attachments_of",
    "detach",
    "holder_name",
    "libraries_for",
    "library_of",
    "open_library",
]


class Library(NamedTuple):
    """A shared library: its holder campaign and the server it serves (None: the whole installation)."""

    id: int
    campaign_id: int
    guild_id: int | None


def holder_name(guild_id: int | None) -> str:
    """Return a holder campaign's name: a colon no campaign name may hold, so it never meets a story's."""
    return "library:installation" if guild_id is None else f"library:server:{guild_id}"


def _library(row: KnowledgeLibraryRow) -> Library:
    return Library(id=row.id, campaign_id=row.campaign_id, guild_id=row.guild_id)


async def library_of(session: AsyncSession, guild_id: int | None) -> Library | None:
    """Return the library of a server (None: the installation's), if it was made."""
    condition = (
        KnowledgeLibraryRow.guild_id.is_(None)
        if guild_id is None
        else KnowledgeLibraryRow.guild_id == guild_id
    )
    row = (await session.execute(select(KnowledgeLibraryRow).where(condition))).scalar_one_or_none()
    return None if row is None else _library(row)


async def open_library(session: AsyncSession, guild_id: int | None) -> Library:
    """Return the library of a server (None: the installation's), making it and its holder on first use."""
    found = await library_of(session, guild_id)
    if found is not None:
        return found
    holder = CampaignRow(name=holder_name(guild_id), guild_id=None, status=CampaignStatus.LIBRARY.value)
    session.add(holder)
    await session.flush()
    row = KnowledgeLibraryRow(campaign_id=holder.id, guild_id=guild_id)
    session.add(row)
    await session.flush()
    return _library(row)


async def libraries_for(session: AsyncSession, guild_id: int | None) -> list[Library]:
    """Return the libraries a campaign of this server may read: the installation's, then the server's."""
    rows = (await session.execute(select(KnowledgeLibraryRow).order_by(KnowledgeLibraryRow.id))).scalars()
    found = [
        _library(r) for r in rows if r.guild_id is None or (guild_id is not None and r.guild_id == guild_id)
    ]
    return sorted(found, key=lambda lib: lib.guild_id is not None)


async def all_libraries(session: AsyncSession) -> list[Library]:
    """Return every library of the installation: the installation's first, then the servers'."""
    rows = (await session.execute(select(KnowledgeLibraryRow).order_by(KnowledgeLibraryRow.id))).scalars()
    return sorted((_library(r) for r in rows), key=lambda lib: lib.guild_id is not None)


async def attachment_counts(session: AsyncSession, holder_id: int) -> dict[int, int]:
    """Return how many campaigns attach each of a library's sources."""
    a, t = KnowledgeLibraryAttachmentRow, KnowledgeSourceRow
    rows = await session.execute(
        select(a.source_id, func.count())
        .join(t, t.id == a.source_id)
        .where(t.campaign_id == holder_id)
        .group_by(a.source_id)
    )
    return {source_id: count for source_id, count in rows.all()}


async def attached_ids(session: AsyncSession, campaign_ids: Sequence[int]) -> tuple[set[int], list[int]]:
    """Return the library sources attached to these campaigns, and the holders those sources belong to."""
    a = KnowledgeLibraryAttachmentRow
    ids = set((await session.execute(select(a.source_id).where(a.campaign_id.in_(campaign_ids)))).scalars())
    if not ids:
        return set(), []
    holders = (
        await session.execute(
            select(KnowledgeSourceRow.campaign_id).where(KnowledgeSourceRow.id.in_(ids)).distinct()
        )
    ).scalars()
    return ids, sorted(holders)


async def attachments_of(session: AsyncSession, campaign_id: int) -> list[int]:
    """Return the ids of the library sources attached to one campaign (its own attachments), oldest first."""
    a = KnowledgeLibraryAttachmentRow
    rows = await session.execute(select(a.source_id).where(a.campaign_id == campaign_id).order_by(a.id))
    return list(rows.scalars())


async def attach(session: AsyncSession, campaign_id: int, source_id: int, by: str | None) -> None:
    """Attach a library source to a campaign (`Conflict` when it already is)."""
    a = KnowledgeLibraryAttachmentRow
    found = await session.scalar(select(a.id).where(a.campaign_id == campaign_id, a.source_id == source_id))
    if found is not None:
        raise Conflict("That library source is already attached to this campaign.")
    session.add(a(campaign_id=campaign_id, source_id=source_id, attached_at=utc_now(), attached_by=by))
    await session.flush()


async def detach(session: AsyncSession, campaign_id: int, source_id: int) -> bool:
    """Detach a library source from a campaign; return whether it was attached."""
    a = KnowledgeLibraryAttachmentRow
    done = await session.execute(delete(a).where(a.campaign_id == campaign_id, a.source_id == source_id))
    return bool(getattr(done, "rowcount", 0))
