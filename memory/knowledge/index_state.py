"""SQL of the vector-index bookkeeping: each source's vector status, each campaign's index state, chunks to embed.

The vectors themselves live in the campaign's collection of the vector index (`memory.vector_index`); these rows
say whether they are there and what they were made with, so stale or missing vectors are found and rebuilt.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import utc_now
from memory.embed_text import BASE_VIEWS_VERSION, VIEWS_VERSION
from memory.knowledge.fields import fields_to_rows, read_fields
from memory.knowledge.repository import source_info
from memory.knowledge.source_models import SourceInfo, VectorStatus
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


async def index_state_row(session: AsyncSession, campaign_id: int) -> KnowledgeIndexStateRow | None:
    """Return a campaign's index state row, or None when it has no vectors."""
    query = select(KnowledgeIndexStateRow).where(KnowledgeIndexStateRow.campaign_id == campaign_id)
    return (await session.execute(query)).scalar_one_or_none()


#: What vectors made now must share with a campaign's for the names view to be added beside them: the model. The
#: names view is made from each chunk's text as stored, whichever chunker cut it.
_SAME_MODEL = ("embedding_model", "embedding_model_version", "embedding_dimensions")


def adds_views(row: KnowledgeIndexStateRow, values: dict[str, str | int]) -> bool:
    """Return whether vectors made with `values` only add views to the campaign's (`BASE_VIEWS_VERSION`'s)."""
    return (
        row.embedding_views == BASE_VIEWS_VERSION
        and values.get("embedding_views") == VIEWS_VERSION
        and all(getattr(row, key) == values[key] for key in _SAME_MODEL if key in values)
    )


async def record_index_state(
    session: AsyncSession, campaign_id: int, values: dict[str, str | int], *, first_new: int | None = None
) -> None:
    """Record what a campaign's vectors are made with; a change marks the ones made before it stale.

    `values` are the columns of `KnowledgeIndexStateRow` (collection, model, its version and dimensions, the
    embedded views and the chunking version). `first_new` is the first chunk id of an import's vectors; None
    when every vector of the campaign is being made again (a reindex). An import into a campaign whose vectors
    lack only the names view changes nothing but this: the chunks before its own need the view
    (`memory.knowledge.view_builder` adds it).
    """
    row = await index_state_row(session, campaign_id)
    if row is None:
        session.add(KnowledgeIndexStateRow(campaign_id=campaign_id, **values))
    elif first_new is not None and adds_views(row, values):
        if row.building_until is None:
            row.building_until = first_new - 1
    elif any(getattr(row, key) != value for key, value in values.items()):
        # Vectors made another way are not comparable: flag the campaign's other sources stale.
        for key, value in values.items():
            setattr(row, key, value)
        row.building_until = row.building_through = None
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


#: The vector states of a source that search by meaning misses: vectors out of date, failed, or not made yet.
WAITING = (VectorStatus.STALE.value, VectorStatus.FAILED.value, VectorStatus.PENDING.value)


async def sources_waiting(session: AsyncSession) -> dict[int, dict[str, int]]:
    """Return, per campaign, how many of its own sources search by meaning misses (`WAITING`), by state."""
    t = KnowledgeSourceRow
    rows = await session.execute(
        select(t.campaign_id, t.vector_status, func.count())
        .where(t.vector_status.in_(WAITING))
        .group_by(t.campaign_id, t.vector_status)
    )
    found: dict[int, dict[str, int]] = {}
    for campaign_id, status, count in rows.all():
        found.setdefault(campaign_id, {})[status] = count
    return found


async def chunks_after(
    session: AsyncSession, campaign_id: int, *, after: int, until: int, limit: int
) -> list[EmbedItem]:
    """Return up to `limit` chunks of a campaign's own sources with ids in (after, until], in id order."""
    t = KnowledgeChunkRow
    query = (
        select(t.id, t.source_id, t.heading_path, t.text)
        .where(t.campaign_id == campaign_id, t.id > after, t.id <= until)
        .order_by(t.id)
        .limit(limit)
    )
    return [
        EmbedItem(chunk_id=cid, source_id=sid, heading_path=list(path or []), text=text)
        for cid, sid, path, text in (await session.execute(query)).all()
    ]


async def chunks_up_to(session: AsyncSession, campaign_id: int, until: int | None) -> tuple[int, int]:
    """Return how many chunks a campaign has with ids up to `until` (all when None), and its largest chunk id."""
    t = KnowledgeChunkRow
    query = select(func.count(), func.max(t.id)).where(t.campaign_id == campaign_id)
    if until is not None:
        query = query.where(t.id <= until)
    count, largest = (await session.execute(query)).one()
    return int(count or 0), int(largest or 0)


async def building_campaigns(session: AsyncSession) -> list[int]:
    """Return the campaigns whose vectors lack the names view (`BASE_VIEWS_VERSION`'s), in id order."""
    t = KnowledgeIndexStateRow
    query = select(t.campaign_id).where(t.embedding_views == BASE_VIEWS_VERSION).order_by(t.campaign_id)
    return list((await session.execute(query)).scalars())


async def set_building(
    session: AsyncSession, campaign_id: int, *, until: int | None = None, through: int | None = None
) -> None:
    """Record how far a campaign's names views are built (only while it is building; never backwards)."""
    row = await index_state_row(session, campaign_id)
    if row is None or row.embedding_views != BASE_VIEWS_VERSION:
        return
    if until is not None and row.building_until is None:
        row.building_until = until
    if through is not None and (row.building_through or 0) < through:
        row.building_through = through


async def finish_building(session: AsyncSession, campaign_id: int) -> bool:
    """Record that a campaign's vectors have every view now; return False when it was not building."""
    t = KnowledgeIndexStateRow
    done = await session.execute(
        update(t)
        .where(t.campaign_id == campaign_id, t.embedding_views == BASE_VIEWS_VERSION)
        .values(
            embedding_views=VIEWS_VERSION, building_until=None, building_through=None, updated_at=utc_now()
        )
    )
    return bool(getattr(done, "rowcount", 0))


async def keep_fields(session: AsyncSession, items: Sequence[EmbedItem]) -> None:
    """Keep the fields of chunks imported before fields were kept (`memory.knowledge.fields.read_fields`)."""
    t = KnowledgeChunkRow
    for item in items:
        rows = fields_to_rows(read_fields(item.heading_path, item.text))
        await session.execute(update(t).where(t.id == item.chunk_id, t.fields.is_(None)).values(fields=rows))
