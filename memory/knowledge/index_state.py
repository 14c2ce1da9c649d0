"""SQL of the vector-index bookkeeping: each source's vector status, each campaign's index state, chunks to embed.

The vectors themselves live in the campaign's collection of the vector index (`memory.vector_index`); these rows
say whether they are there and what they were made with, so stale or missing vectors are found and rebuilt.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import utc_now
from memory.knowledge.models import SourceInfo, VectorStatus
from memory.knowledge.repository import source_info
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeIndexStateRow, KnowledgeSourceRow


class EmbedItem(NamedTuple):
    """A chunk to embed: its ids, heading path and text."""

    chunk_id: int
    source_id: int
    heading_path: list[str]
    text: str


async def chunks_to_embed(
    session: AsyncSession, *, campaign_id: int | None = None, source_id: int | None = None
) -> list[EmbedItem]:
    """Return the chunks of one campaign's own sources (in id order), or of one source (in order)."""
    t = KnowledgeChunkRow
    query = select(t.id, t.source_id, t.heading_path, t.text)
    if source_id is not None:
        query = query.where(t.source_id == source_id).order_by(t.chunk_index)
    else:
        query = query.where(t.campaign_id == campaign_id).order_by(t.id)
    return [
        EmbedItem(chunk_id=cid, source_id=sid, heading_path=list(path or []), text=text)
        for cid, sid, path, text in (await session.execute(query)).all()
    ]


async def set_vector_status(
    session: AsyncSession, source: SourceInfo, status: VectorStatus, error: str | None
) -> SourceInfo:
    """Record whether a source's vectors are in the index; a newer version imported meanwhile keeps its own."""
    row = await session.get(KnowledgeSourceRow, source.id)
    if row is None:  # deleted meanwhile
        return source.model_copy(update={"vector_status": status, "vector_error": error})
    if row.version == source.version:
        row.vector_status = status.value
        row.vector_error = error
    await session.flush()
    return source_info(row)


async def set_campaign_vector_status(
    session: AsyncSession, campaign_id: int, status: VectorStatus, error: str | None
) -> None:
    """Record the same vector status for every source of a campaign's own (after a rebuild)."""
    await session.execute(
        update(KnowledgeSourceRow)
        .where(KnowledgeSourceRow.campaign_id == campaign_id)
        .values(vector_status=status.value, vector_error=error)
    )


async def record_index_state(session: AsyncSession, campaign_id: int, values: dict[str, str | int]) -> None:
    """Record what a campaign's vectors are made with; a change marks the ones made before it stale.

    `values` are the columns of `KnowledgeIndexStateRow` (collection, model, its version and dimensions, the
    embedded views and the chunking version).
    """
    row = (
        await session.execute(
            select(KnowledgeIndexStateRow).where(KnowledgeIndexStateRow.campaign_id == campaign_id)
        )
    ).scalar_one_or_none()
    if row is None:
        session.add(KnowledgeIndexStateRow(campaign_id=campaign_id, **values))
    elif any(getattr(row, key) != value for key, value in values.items()):
        # Vectors made another way are not comparable: flag the campaign's other sources stale.
        for key, value in values.items():
            setattr(row, key, value)
        row.updated_at = utc_now()
        await session.execute(
            update(KnowledgeSourceRow)
            .where(
                KnowledgeSourceRow.campaign_id == campaign_id,
                KnowledgeSourceRow.vector_status == VectorStatus.INDEXED.value,
            )
            .values(vector_status=VectorStatus.STALE.value)
        )


async def index_versions(session: AsyncSession, campaigns: Collection[int]) -> dict[int, tuple[str, str]]:
    """Return, per campaign that has vectors, the model version and the views version they were made with."""
    t = KnowledgeIndexStateRow
    rows = await session.execute(
        select(t.campaign_id, t.embedding_model_version, t.embedding_views).where(
            t.campaign_id.in_(campaigns)
        )
    )
    return {cid: (version, views) for cid, version, views in rows.all()}


async def index_counts(session: AsyncSession, campaign_id: int) -> tuple[dict[str, int], int]:
    """Return a campaign's own sources counted by vector status, and its number of chunks."""
    rows = await session.execute(
        select(KnowledgeSourceRow.vector_status, func.count())
        .where(KnowledgeSourceRow.campaign_id == campaign_id)
        .group_by(KnowledgeSourceRow.vector_status)
    )
    counts = {status: count for status, count in rows.all()}
    chunks = await session.scalar(
        select(func.count())
        .select_from(KnowledgeChunkRow)
        .where(KnowledgeChunkRow.campaign_id == campaign_id)
    )
    return counts, chunks or 0
