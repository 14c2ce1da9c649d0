"""SQL of what a campaign sees of imported knowledge: sources (its own and inherited), chunks, versions.

A branch sees the sources of its ancestors as well as its own; a source of a nearer campaign shadows one with the
same file name further up. Sources of any other campaign are never read. An ancestor's source is inherited
when it was imported at or before the fork (`LineageStep.up_to_time`): a world bible added to the parent later
stays out of the branch until a rebase. A branch keeps an inherited source as it was at the fork: see
`memory.knowledge.pinning`.

Shared by the knowledge services and retrieval. Rows never leave this module: it returns the values of
`memory.knowledge.models` (or the light tuples retrieval needs).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon import visibility
from canon.campaigns import lineage
from canon.forks import OPEN_END, LineageStep
from canon.models import NOW, Viewer
from canon.visibility import source_stored_hidden
from memory.knowledge.library_rows import attached_ids
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ChunkInfo, SourceInfo, SourceVersionInfo, VectorStatus
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow

_BATCH = 500
#: How many ids `chunks_by_id` reads a query (its chunks come back batch by batch, each batch's by id).
CHUNK_BATCH = _BATCH


def source_info(row: KnowledgeSourceRow, *, inherited_from: int | None = None) -> SourceInfo:
    """Return the domain view of a source row."""
    return SourceInfo(
        id=row.id,
        campaign_id=row.campaign_id,
        title=row.title,
        filename=row.filename,
        knowledge_class=KnowledgeClass(row.knowledge_class),
        enabled=row.enabled,
        hidden=source_stored_hidden(row.visibility),
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
        hidden_chunks=row.hidden_chunks or 0,
        section_choices=list(row.section_choices or []),
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
        section_hidden=bool(row.section_hidden),
        place=row.place,
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
    #: Chunks in GM-only sections (0: none to leave out for players).
    hidden_chunks: int = 0


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
    # Shared library sources attached to the lineage: read from their holder's rows, never copied (one query
    # when nothing is attached). The holder's other sources are cut: kept out of its shared vector collection.
    shared, holders = await attached_ids(session, ids)
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
                t.hidden_chunks,
            )
            .where(t.campaign_id.in_([*ids, *holders]))
            .order_by(t.id)
        )
    ).all()
    distance = {cid: index for index, cid in enumerate(ids)}
    nearest: dict[str, SourceLite] = {}
    cut: list[SourceLite] = []
    library: list[SourceLite] = []
    for row in rows:
        hidden, enabled = kept_flags(
            row.id, row.campaign_id, source_stored_hidden(row.visibility), row.enabled, steps
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
            hidden_chunks=row.hidden_chunks or 0,
        )
        if row.campaign_id not in distance:  # a shared library's source
            (library if row.id in shared else cut).append(lite)
            continue
        if _cut(row.campaign_id, row.imported_at, steps):
            cut.append(lite)
            continue
        current = nearest.get(lite.filename)
        if current is None or distance[lite.campaign_id] < distance[current.campaign_id]:
            nearest[lite.filename] = lite
    return sorted([*nearest.values(), *library], key=lambda s: s.id), cut


def may_see(source: SourceInfo | SourceLite, viewer: Viewer) -> bool:
    """Return whether a viewer may ever see a source's text (hidden sources are for the GM only)."""
    return visibility.may_see(viewer, source.hidden)


def retrievable(
    sources: Iterable[SourceLite], viewer: Viewer, knowing: visibility.Knowing | None = None
) -> list[SourceLite]:
    """Return the sources retrieval may draw from for a viewer: enabled, and visible to them (a hidden one a
    player's character was shown, through their lens)."""
    return [s for s in sources if s.enabled and visibility.source_seen(viewer, s.hidden, s.id, knowing, NOW)]


class ChunkLite(NamedTuple):
    """What retrieval shows of a chunk."""

    id: int
    source_id: int
    heading_path: list[str]
    text: str
    token_count: int
    content_hash: str
    #: The fields kept at import ([subject, label, value] each), or None for a chunk imported before.
    fields: list[list[str]] | None = None
    #: Where the text is in its book ("p. 112"), or None.
    place: str | None = None


async def chunks_by_id(session: AsyncSession, ids: Sequence[int]) -> dict[int, ChunkLite]:
    """Return chunks by id (missing ids are left out), batch by batch of the ids asked, each batch's by id."""
    found: dict[int, ChunkLite] = {}
    unique = list(dict.fromkeys(ids))
    t = KnowledgeChunkRow
    for start in range(0, len(unique), _BATCH):
        query = select(
            t.id, t.source_id, t.heading_path, t.text, t.token_count, t.content_hash, t.fields, t.place
        ).where(t.id.in_(unique[start : start + _BATCH]))
        for row in (await session.execute(query.order_by(t.id))).all():
            found[row.id] = ChunkLite(
                id=row.id,
                source_id=row.source_id,
                heading_path=list(row.heading_path or []),
                text=row.text,
                token_count=row.token_count,
                content_hash=row.content_hash,
                fields=row.fields,
                place=row.place,
            )
    return found


async def heading_texts(
    session: AsyncSession, source_ids: Sequence[int], *, without: frozenset[int] = frozenset()
) -> list[str]:
    """Return the heading text (path and inner headings) of every chunk of these sources but `without`'s."""
    texts: list[str] = []
    for start in range(0, len(source_ids), _BATCH):
        rows = await session.execute(
            select(KnowledgeChunkRow.id, KnowledgeChunkRow.heading_text).where(
                KnowledgeChunkRow.source_id.in_(source_ids[start : start + _BATCH])
            )
        )
        texts += [text for (cid, text) in rows.all() if cid not in without]
    return texts


async def chunk_words_texts(
    session: AsyncSession, source_ids: Sequence[int], *, without: frozenset[int] = frozenset()
) -> list[str]:
    """Return the heading text and text of every chunk of these sources but `without`'s, one string each."""
    texts: list[str] = []
    t = KnowledgeChunkRow
    for start in range(0, len(source_ids), _BATCH):
        rows = await session.execute(
            select(t.id, t.heading_text, t.text).where(t.source_id.in_(source_ids[start : start + _BATCH]))
        )
        texts += [f"{heading}\n{text}" for (cid, heading, text) in rows.all() if cid not in without]
    return texts


async def chunk_ids_of(session: AsyncSession, source_ids: Sequence[int]) -> list[int]:
    """Return the ids of these sources' chunks, source by source, each in order."""
    rows = await session.execute(
        select(KnowledgeChunkRow.id)
        .where(KnowledgeChunkRow.source_id.in_(source_ids))
        .order_by(KnowledgeChunkRow.source_id, KnowledgeChunkRow.chunk_index)
    )
    return list(rows.scalars())


async def kept_restrictions(session: AsyncSession, steps: Sequence[LineageStep]) -> tuple[set[int], set[int]]:
    """Return the ids of the sources seen through inherited `steps` that are hidden, and that are disabled.

    What a fork (or a rebase) records, so that only a more restrictive change of an ancestor reaches a branch.
    """
    sources = await lineage_sources(session, steps)
    return {s.id for s in sources if s.hidden}, {s.id for s in sources if not s.enabled}


# --- one campaign's own sources ----------------------------------------------------------------------------


async def own_sources(session: AsyncSession, campaign_id: int) -> list[SourceInfo]:
    """Return the campaign's own sources (not inherited ones), in id order."""
    rows = await session.execute(
        select(KnowledgeSourceRow)
        .where(KnowledgeSourceRow.campaign_id == campaign_id)
        .order_by(KnowledgeSourceRow.id)
    )
    return [source_info(row) for row in rows.scalars()]


async def source_info_by_id(session: AsyncSession, source_id: int) -> SourceInfo | None:
    """Return a source by id whatever its campaign (the caller checks the campaign), or None."""
    row = await session.get(KnowledgeSourceRow, source_id)
    return None if row is None else source_info(row)


async def same_text_or_name(
    session: AsyncSession, campaign_id: int, content_hash: str, filename: str
) -> tuple[KnowledgeSourceRow | None, KnowledgeSourceRow | None]:
    """Return the campaign's first own source with this text (NFC content hash: a duplicate) and its own source
    imported under this file name (an update), in one query: an import reads both, once before its transaction
    and again inside it."""
    rows = (
        await session.execute(
            select(KnowledgeSourceRow)
            .where(
                KnowledgeSourceRow.campaign_id == campaign_id,
                or_(KnowledgeSourceRow.content_hash == content_hash, KnowledgeSourceRow.filename == filename),
            )
            .order_by(KnowledgeSourceRow.id)
        )
    ).scalars()
    same = named = None
    for row in rows:
        if same is None and row.content_hash == content_hash:
            same = row
        if row.filename == filename:
            named = row
    return same, named


async def source_versions(session: AsyncSession, source_id: int) -> list[SourceVersionInfo]:
    """Return the metadata of every version of a source, oldest first."""
    rows = await session.execute(
        select(KnowledgeSourceVersionRow)
        .where(KnowledgeSourceVersionRow.source_id == source_id)
        .order_by(KnowledgeSourceVersionRow.version)
    )
    return [version_info(row) for row in rows.scalars()]


async def source_chunks(
    session: AsyncSession, source_id: int, *, limit: int | None = None
) -> list[ChunkInfo]:
    """Return a source's chunks in order (the first `limit` of them, when given)."""
    query = (
        select(KnowledgeChunkRow)
        .where(KnowledgeChunkRow.source_id == source_id)
        .order_by(KnowledgeChunkRow.chunk_index)
    )
    if limit is not None:
        query = query.limit(limit)
    return [chunk_info(row) for row in (await session.execute(query)).scalars()]


async def file_in_use(session: AsyncSession, file_hash: str) -> bool:
    """Return whether a source or a version of any campaign refers to a stored copy."""
    used = await session.scalar(
        select(func.count())
        .select_from(KnowledgeSourceVersionRow)
        .where(KnowledgeSourceVersionRow.file_hash == file_hash)
    )
    used = (used or 0) + (
        await session.scalar(
            select(func.count())
            .select_from(KnowledgeSourceRow)
            .where(KnowledgeSourceRow.file_hash == file_hash)
        )
        or 0
    )
    return bool(used)
