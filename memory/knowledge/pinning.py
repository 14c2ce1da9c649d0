"""SQL of a branch's own copies of inherited sources, made before the parent changes or deletes them.

A branch keeps an inherited source as it was at the fork. While the parent leaves it alone the branch reads the
parent's row (a hide or a disable there reaches the branch too: hidden stays hidden). Before the parent
re-imports it (its chunks are rebuilt in place) or deletes it, each branch that inherits it gets its own copy
(`pin_for_branches`): the row, its versions' metadata and its chunks (so their full-text rows), under the same
file name so that it shadows the parent's, recorded in the branch's fork settings. A rebase drops the copies
still as copied, and the parent's current version comes in (`canon.campaigns.PINNED_SOURCES`).
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import BigInteger, func, insert, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import children, pin_source
from canon.forks import fork_point_of
from canon.visibility import source_visibility_of
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow

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
    "fields",
    "section_hidden",
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
    "hidden_chunks",
    "section_choices",
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
                copy.visibility = source_visibility_of(True).value
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
