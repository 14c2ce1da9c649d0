"""SQL of imported knowledge shared by the import service and retrieval: sources a campaign sees, chunks by id.

A branch sees the sources of its ancestors as well as its own; a source of a nearer campaign shadows one with the
same file name further up. Sources of any other campaign are never read. An ancestor's source is inherited
when it was imported at or before the fork (`LineageStep.up_to_time`): a world bible added to the parent later
stays out of the branch until a rebase.

A branch keeps an inherited source as it was at the fork. While the parent leaves it alone the branch reads the
parent's row (a hide or a disable there reaches the branch too: hidden stays hidden). Before the parent
re-imports it (its chunks are rebuilt in place) or deletes it, each branch that inherits it gets its own copy
(`pin_for_branches`): the row, its versions' metadata and its chunks (so their full-text rows), under the same
file name so that it shadows the parent's, recorded in the branch's fork settings. A rebase drops the copies
still as copied, and the parent's current version comes in (`canon.campaigns.PINNED_SOURCES`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import BigInteger, delete, func, insert, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import OPEN_END, LineageStep, children, fork_point_of, lineage, pin_source
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


def _cut(campaign_id: int, imported_at: dt.datetime, steps: Sequence[LineageStep]) -> bool:
    """Return whether an ancestor's source was imported after the fork that leads to it."""
    for step in steps:
        if step.campaign_id == campaign_id:
            return step.up_to_time is not None and imported_at > step.up_to_time
    return True


def kept_flags(
    source_id: int, campaign_id: int, hidden: bool, enabled: bool, steps: Sequence[LineageStep]
) -> tuple[bool, bool]:
    """Return a source's (hidden, enabled) as the campaign sees it: an inherited one hidden or disabled at a
    fork on the way stays so, whatever its row says now."""
    for step in steps:
        if step.campaign_id == campaign_id:
            return (
                hidden or source_id in step.hidden_sources,
                enabled and source_id not in step.disabled_sources,
            )
    return hidden, enabled


async def campaign_sources(session: AsyncSession, campaign_id: int) -> list[SourceInfo]:
    """Return every source the campaign sees (its own, then inherited ones not shadowed), in id order."""
    steps = await lineage(session, campaign_id)
    campaigns = [step.campaign_id for step in steps]
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
        if _cut(row.campaign_id, row.imported_at, steps):
            continue
        current = nearest.get(row.filename)
        if current is None or distance[row.campaign_id] < distance[current.campaign_id]:
            nearest[row.filename] = row
    chosen = sorted(nearest.values(), key=lambda r: r.id)
    found: list[SourceInfo] = []
    for row in chosen:
        info = source_info(row, inherited_from=None if row.campaign_id == campaign_id else row.campaign_id)
        hidden, enabled = kept_flags(row.id, row.campaign_id, info.hidden, info.enabled, steps)
        if (hidden, enabled) != (info.hidden, info.enabled):
            info = info.model_copy(update={"hidden": hidden, "enabled": enabled})
        found.append(info)
    return found


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
    return await lineage_sources(session, await lineage(session, campaign_id))


async def lineage_sources(
    session: AsyncSession, campaigns: Sequence[int] | Sequence[LineageStep]
) -> list[SourceLite]:
    """Return the sources seen through a lineage (steps or campaign ids, nearest first), cut and shadowed."""
    return (await split_lineage_sources(session, campaigns))[0]


async def split_lineage_sources(
    session: AsyncSession, campaigns: Sequence[int] | Sequence[LineageStep]
) -> tuple[list[SourceLite], list[SourceLite]]:
    """Return the sources seen through a lineage, and the ancestors' sources cut off by a fork point.

    Given bare campaign ids, nothing is cut. The cut ones are what vector search must leave out of an
    ancestor's collection (they are there: a collection belongs to the campaign that imported the file).
    """
    steps = [
        c if isinstance(c, LineageStep) else LineageStep(campaign_id=c, up_to_changeset=OPEN_END)
        for c in campaigns
    ]
    ids = [step.campaign_id for step in steps]
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
                t.imported_at,
            )
            .where(t.campaign_id.in_(ids))
            .order_by(t.id)
        )
    ).all()
    distance = {cid: index for index, cid in enumerate(ids)}
    nearest: dict[str, SourceLite] = {}
    cut: list[SourceLite] = []
    for row in rows:
        hidden, enabled = kept_flags(
            row.id, row.campaign_id, row.visibility == SourceVisibility.HIDDEN, row.enabled, steps
        )
        lite = SourceLite(
            id=row.id,
            campaign_id=row.campaign_id,
            title=row.title,
            filename=row.filename,
            knowledge_class=KnowledgeClass(row.knowledge_class),
            enabled=enabled,
            hidden=hidden,
            always_include=row.always_include,
            version=row.version,
            chunk_count=row.chunk_count,
            vector_status=VectorStatus(row.vector_status),
        )
        if _cut(row.campaign_id, row.imported_at, steps):
            cut.append(lite)
            continue
        current = nearest.get(lite.filename)
        if current is None or distance[lite.campaign_id] < distance[current.campaign_id]:
            nearest[lite.filename] = lite
    return sorted(nearest.values(), key=lambda s: s.id), cut


def may_see(source: SourceInfo | SourceLite, viewer: Viewer) -> bool:
    """Return whether a viewer may ever see a source's text (hidden sources are for the GM only)."""
    return viewer == Viewer.GM or not source.hidden


def retrievable(sources: Iterable[SourceLite], viewer: Viewer) -> list[SourceLite]:
    """Return the sources retrieval may draw from for a viewer: enabled, and visible to them."""
    return [s for s in sources if s.enabled and may_see(s, viewer)]


class ChunkLite(NamedTuple):
    """What retrieval shows of a chunk."""

    id: int
    source_id: int
    heading_path: list[str]
    text: str
    token_count: int
    content_hash: str


async def chunks_by_id(session: AsyncSession, ids: Sequence[int]) -> dict[int, ChunkLite]:
    """Return chunks by id (missing ids are left out)."""
    found: dict[int, ChunkLite] = {}
    unique = list(dict.fromkeys(ids))
    t = KnowledgeChunkRow
    for start in range(0, len(unique), _BATCH):
        query = select(t.id, t.source_id, t.heading_path, t.text, t.token_count, t.content_hash).where(
            t.id.in_(unique[start : start + _BATCH])
        )
        for row in (await session.execute(query)).all():
            found[row.id] = ChunkLite(
                id=row.id,
                source_id=row.source_id,
                heading_path=list(row.heading_path or []),
                text=row.text,
                token_count=row.token_count,
                content_hash=row.content_hash,
            )
    return found


# --- what a branch keeps of its parent's sources -----------------------------------------------------------

#: The chunk columns a pinned copy takes over as they are (the campaign and the source are the copy's).
_CHUNK_COPIED = (
    "version",
    "chunk_index",
    "heading_path",
    "heading_text",
    "text",
    "display_text",
    "token_count",
    "content_hash",
    "tags",
    "char_start",
    "char_end",
)
#: The source columns a pinned copy takes over (its vector state is its own: they go in the branch's collection).
_SOURCE_COPIED = (
    "title",
    "filename",
    "knowledge_class",
    "enabled",
    "visibility",
    "tags",
    "always_include",
    "content_hash",
    "file_hash",
    "stored_path",
    "size_bytes",
    "mime_type",
    "parser_version",
    "chunking_version",
    "version",
    "chunk_count",
    "token_count",
    "imported_at",
    "updated_at",
    "notes",
)


class PinnedCopy(NamedTuple):
    """A branch's copy of an inherited source, made before its parent changed or deleted the source."""

    campaign_id: int
    source_id: int
    chunk_ids: list[int]
    #: The branch's own branches whose fork restrictions now name the copy too (their lineage changed).
    restricted_in: list[int]


async def pin_for_branches(session: AsyncSession, row: KnowledgeSourceRow) -> list[PinnedCopy]:
    """Give every branch that inherits `row` its own copy of it as it stands, before the caller changes it.

    The branches that inherit it are the source campaign's direct branches forked after it was imported that
    have no file of that name of their own; a branch of one of them inherits the copy (imported at the same
    time as the original), so it needs none. The copy's vectors are the caller's to add (after the commit).
    """
    copies: list[PinnedCopy] = []
    for branch in await children(session, row.campaign_id):
        point = fork_point_of(branch)
        if point is not None and point.up_to_time is not None and row.imported_at > point.up_to_time:
            continue  # imported after that fork: the branch never saw it
        shadowed = await session.scalar(
            select(func.count()).where(
                KnowledgeSourceRow.campaign_id == branch.id, KnowledgeSourceRow.filename == row.filename
            )
        )
        if shadowed:
            continue
        copy = KnowledgeSourceRow(
            campaign_id=branch.id,
            **{name: getattr(row, name) for name in _SOURCE_COPIED},
            vector_status="pending",
            times_used=0,
        )
        if point is not None:  # as the branch sees it: hidden or disabled at its fork stays so
            if row.id in point.hidden_sources:
                copy.visibility = SourceVisibility.HIDDEN.value
            if row.id in point.disabled_sources:
                copy.enabled = False
        session.add(copy)
        await session.flush()
        versions = (
            await session.execute(
                select(KnowledgeSourceVersionRow).where(KnowledgeSourceVersionRow.source_id == row.id)
            )
        ).scalars()
        for version in versions:
            session.add(
                KnowledgeSourceVersionRow(
                    source_id=copy.id,
                    **{
                        c.key: getattr(version, c.key)
                        for c in KnowledgeSourceVersionRow.__table__.columns
                        if c.key not in {"id", "source_id"}
                    },
                )
            )
        t = KnowledgeChunkRow
        await session.execute(
            insert(t).from_select(
                ["campaign_id", "source_id", *_CHUNK_COPIED],
                select(
                    literal(branch.id, type_=BigInteger),
                    literal(copy.id, type_=BigInteger),
                    *(getattr(t, name) for name in _CHUNK_COPIED),
                )
                .where(t.source_id == row.id)
                .order_by(t.chunk_index),
            )
        )
        touched = await pin_source(session, branch.id, copy.id, row.content_hash, replaces=row.id)
        ids = (
            await session.execute(select(t.id).where(t.source_id == copy.id).order_by(t.chunk_index))
        ).scalars()
        copies.append(
            PinnedCopy(campaign_id=branch.id, source_id=copy.id, chunk_ids=list(ids), restricted_in=touched)
        )
    await session.flush()
    return copies


async def kept_restrictions(session: AsyncSession, steps: Sequence[LineageStep]) -> tuple[set[int], set[int]]:
    """Return the ids of the sources seen through inherited `steps` that are hidden, and that are disabled.

    What a fork (or a rebase) records, so that only a more restrictive change of an ancestor reaches a branch.
    """
    sources = await lineage_sources(session, steps)
    return {s.id for s in sources if s.hidden}, {s.id for s in sources if not s.enabled}


async def delete_source_rows(session: AsyncSession, source_id: int) -> tuple[list[int], str | None]:
    """Delete a source, its versions and chunks (their full-text rows follow); return chunk ids and file hash."""
    chunk_ids = list(
        (
            await session.execute(
                select(KnowledgeChunkRow.id).where(KnowledgeChunkRow.source_id == source_id)
            )
        ).scalars()
    )
    file_hash = await session.scalar(
        select(KnowledgeSourceRow.file_hash).where(KnowledgeSourceRow.id == source_id)
    )
    await session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source_id))
    await session.execute(
        delete(KnowledgeSourceVersionRow).where(KnowledgeSourceVersionRow.source_id == source_id)
    )
    await session.execute(delete(KnowledgeSourceRow).where(KnowledgeSourceRow.id == source_id))
    return chunk_ids, file_hash
