"""SQL of imported knowledge shared by the import service and retrieval: sources a campaign sees, chunks by id.

A branch sees the sources of its ancestors as well as its own (imported files are campaign-level material, not
story history, so the fork point does not cut them); a source of a nearer campaign shadows one with the same
file name further up. Sources of any other campaign are never read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import lineage
from canon.domain import Viewer
from memory.knowledge_domain import (
    ChunkInfo,
    KnowledgeClass,
    SourceInfo,
    SourceVersionInfo,
    SourceVisibility,
    VectorStatus,
)
from memory.knowledge_models import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow

_BATCH = 500


def source_info(row: KnowledgeSourceRow, *, inherited_from: int | None = None) -> SourceInfo:
    """Return the domain view of a source row."""
    return SourceInfo(
        id=row.id,
        campaign_id=row.campaign_id,
        title=row.title,
        filename=row.filename,
        knowledge_class=KnowledgeClass(row.knowledge_class),
        enabled=row.enabled,
        hidden=row.visibility == SourceVisibility.HIDDEN,
        tags=list(row.tags or []),
        always_include=row.always_include,
        content_hash=row.content_hash,
        file_hash=row.file_hash,
        size_bytes=row.size_bytes,
        mime_type=row.mime_type,
        parser_version=row.parser_version,
        chunking_version=row.chunking_version,
        version=row.version,
        chunk_count=row.chunk_count,
        token_count=row.token_count,
        vector_status=VectorStatus(row.vector_status),
        vector_error=row.vector_error,
        imported_at=row.imported_at,
        updated_at=row.updated_at,
        times_used=row.times_used,
        last_used_at=row.last_used_at,
        notes=row.notes,
        inherited_from=inherited_from,
    )


def version_info(row: KnowledgeSourceVersionRow) -> SourceVersionInfo:
    """Return the domain view of a source version row."""
    return SourceVersionInfo(
        version=row.version,
        title=row.title,
        filename=row.filename,
        content_hash=row.content_hash,
        file_hash=row.file_hash,
        size_bytes=row.size_bytes,
        parser_version=row.parser_version,
        chunking_version=row.chunking_version,
        chunk_count=row.chunk_count,
        imported_at=row.imported_at,
        replaced_at=row.replaced_at,
    )


def chunk_info(row: KnowledgeChunkRow) -> ChunkInfo:
    """Return the domain view of a chunk row."""
    return ChunkInfo(
        id=row.id,
        index=row.chunk_index,
        heading_path=list(row.heading_path or []),
        text=row.text,
        display_text=row.display_text,
        token_count=row.token_count,
        content_hash=row.content_hash,
    )


async def lineage_ids(session: AsyncSession, campaign_id: int) -> list[int]:
    """Return the campaign and its ancestors, nearest first (raises `NotFound` for an unknown campaign)."""
    return [step.campaign_id for step in await lineage(session, campaign_id)]


async def campaign_sources(session: AsyncSession, campaign_id: int) -> list[SourceInfo]:
    """Return every source the campaign sees (its own, then inherited ones not shadowed), in id order."""
    campaigns = await lineage_ids(session, campaign_id)
    rows = (
        await session.execute(
            select(KnowledgeSourceRow)
            .where(KnowledgeSourceRow.campaign_id.in_(campaigns))
            .order_by(KnowledgeSourceRow.id)
        )
    ).scalars()
    distance = {cid: index for index, cid in enumerate(campaigns)}
    nearest: dict[str, KnowledgeSourceRow] = {}
    for row in rows:
        current = nearest.get(row.filename)
        if current is None or distance[row.campaign_id] < distance[current.campaign_id]:
            nearest[row.filename] = row
    chosen = sorted(nearest.values(), key=lambda r: r.id)
    return [
        source_info(row, inherited_from=None if row.campaign_id == campaign_id else row.campaign_id)
        for row in chosen
    ]


class SourceLite(NamedTuple):
    """What retrieval needs of a source (cheap to load for campaigns with thousands of files)."""

    id: int
    campaign_id: int
    title: str
    filename: str
    knowledge_class: KnowledgeClass
    enabled: bool
    hidden: bool
    always_include: bool
    version: int
    chunk_count: int
    vector_status: VectorStatus


async def retrieval_sources(session: AsyncSession, campaign_id: int) -> list[SourceLite]:
    """Return the sources a campaign sees (as `campaign_sources`), with only what retrieval needs."""
    campaigns = await lineage_ids(session, campaign_id)
    t = KnowledgeSourceRow
    rows = (
        await session.execute(
            select(
                t.id,
                t.campaign_id,
                t.title,
                t.filename,
                t.knowledge_class,
                t.enabled,
                t.visibility,
                t.always_include,
                t.version,
                t.chunk_count,
                t.vector_status,
            )
            .where(t.campaign_id.in_(campaigns))
            .order_by(t.id)
        )
    ).all()
    distance = {cid: index for index, cid in enumerate(campaigns)}
    nearest: dict[str, SourceLite] = {}
    for row in rows:
        lite = SourceLite(
            id=row.id,
            campaign_id=row.campaign_id,
            title=row.title,
            filename=row.filename,
            knowledge_class=KnowledgeClass(row.knowledge_class),
            enabled=row.enabled,
            hidden=row.visibility == SourceVisibility.HIDDEN,
            always_include=row.always_include,
            version=row.version,
            chunk_count=row.chunk_count,
            vector_status=VectorStatus(row.vector_status),
        )
        current = nearest.get(lite.filename)
        if current is None or distance[lite.campaign_id] < distance[current.campaign_id]:
            nearest[lite.filename] = lite
    return sorted(nearest.values(), key=lambda s: s.id)


def may_see(source: SourceInfo | SourceLite, viewer: Viewer) -> bool:
    """Return whether a viewer may ever see a source's text (hidden sources are for the GM only)."""
    return viewer == Viewer.GM or not source.hidden


def retrievable(sources: Iterable[SourceLite], viewer: Viewer) -> list[SourceLite]:
    """Return the sources retrieval may draw from for a viewer: enabled, and visible to them."""
    return [s for s in sources if s.enabled and may_see(s, viewer)]


async def chunks_by_id(session: AsyncSession, ids: Sequence[int]) -> dict[int, KnowledgeChunkRow]:
    """Return chunk rows by id (missing ids are left out)."""
    found: dict[int, KnowledgeChunkRow] = {}
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), _BATCH):
        query = select(KnowledgeChunkRow).where(KnowledgeChunkRow.id.in_(unique[start : start + _BATCH]))
        for row in (await session.execute(query)).scalars():
            found[row.id] = row
    return found
