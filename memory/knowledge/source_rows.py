"""SQL that changes a campaign's own sources: class, visibility, tags, flags, title, notes; enable; delete.

Every function runs inside the caller's transaction (the services own them). A source is changed in the
campaign it belongs to: a branch refers its inherited sources to its parent. A delete first gives the branches
that inherit the source their own copy (`memory.knowledge.pinning`).
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import get_campaign, lineage
from canon.errors import Conflict, InvalidInput, NotFound
from canon.forks import pinned_sources
from canon.storage import utc_now
from canon.visibility import source_visibility_of
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.pinning import PinnedCopy, pin_for_branches
from memory.knowledge.repository import campaign_sources, lineage_sources, source_info
from memory.knowledge.source_models import SourceInfo
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow


class DeletedSource(NamedTuple):
    """What deleting a source's rows left for the caller to clean up after the commit."""

    title: str
    file_hash: str
    chunk_ids: list[int]
    #: The branches' copies made before the delete (their vectors come after).
    pinned: list[PinnedCopy]


async def own_row(session: AsyncSession, campaign_id: int, source_id: int) -> KnowledgeSourceRow:
    """Return a source of the campaign itself; an inherited one is changed in the campaign it belongs to."""
    row = await session.get(KnowledgeSourceRow, source_id)
    if row is None or row.campaign_id != campaign_id:
        inherited = row is not None and row.campaign_id in {
            s.campaign_id for s in await campaign_sources(session, campaign_id) if s.id == source_id
        }
        if inherited:
            raise InvalidInput(
                f"Source #{source_id} belongs to the campaign this branch was forked from; change it there."
            )
        raise NotFound(f"There is no knowledge source #{source_id} in this campaign.")
    return row


async def change_source(
    session: AsyncSession,
    campaign_id: int,
    source_id: int,
    *,
    knowledge_class: KnowledgeClass | None,
    hidden: bool | None,
    tags: list[str] | None,
    always_include: bool | None,
    title: str | None,
    notes: str | None,
) -> SourceInfo:
    """Change a source's class, visibility, tags (cleaned), always-include flag, title or notes (None: unchanged)."""
    row = await own_row(session, campaign_id, source_id)
    if knowledge_class is not None:
        row.knowledge_class = knowledge_class.value
    if hidden is not None:
        row.visibility = source_visibility_of(hidden).value
    if always_include is not None:
        row.always_include = always_include
    if row.always_include and row.knowledge_class != KnowledgeClass.CANON:
        if always_include:
            raise InvalidInput("Only Canon sources can be always included; set its class to canon first.")
        row.always_include = False  # a source moved out of Canon stops being always included
    if tags is not None:
        row.tags = tags
        await session.execute(
            update(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source_id).values(tags=tags)
        )
    if title is not None and title.strip():
        row.title = " ".join(title.split())[:200]
    if notes is not None:
        row.notes = notes.strip() or None
    row.updated_at = utc_now()
    await session.flush()
    return source_info(row)


async def set_source_enabled(
    session: AsyncSession, campaign_id: int, source_id: int, enabled: bool
) -> SourceInfo:
    """Enable or disable one of the campaign's own sources."""
    row = await own_row(session, campaign_id, source_id)
    row.enabled = enabled
    row.updated_at = utc_now()
    await session.flush()
    return source_info(row)


async def delete_own_source(session: AsyncSession, campaign_id: int, source_id: int) -> DeletedSource:
    """Delete one of the campaign's own sources, after giving the branches that inherit it their copy."""
    row = await own_row(session, campaign_id, source_id)
    await _refuse_unpinning(session, campaign_id, row)
    # A branch that inherits it keeps it: its own copy, as it stands, before the rows go.
    pinned = await pin_for_branches(session, row)
    title, file_hash = row.title, row.file_hash
    session.expunge(row)
    chunk_ids, _ = await delete_source_rows(session, source_id)
    await session.flush()
    return DeletedSource(title=title, file_hash=file_hash, chunk_ids=chunk_ids, pinned=pinned)


async def _refuse_unpinning(session: AsyncSession, campaign_id: int, row: KnowledgeSourceRow) -> None:
    """Refuse deleting a branch's copy of an inherited source that would bring the parent's newer one in.

    The copy is the source as the branch had it at its fork; without it the branch would read the version
    its parent has now, which the branch's story never saw. Disabling the copy, or a rebase, says which.
    """
    campaign = await get_campaign(session, campaign_id)
    if pinned_sources(campaign).get(row.id) != row.content_hash:
        return
    steps = await lineage(session, campaign_id)
    if any(s.filename == row.filename for s in await lineage_sources(session, steps[1:])):
        raise Conflict(
            f"“{row.filename}” is this branch's copy of the source as it was at the fork; its parent has "
            "changed it since, and deleting the copy would bring the parent's version in. Disable it "
            "instead, or rebase the branch to take the parent's version."
        )


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
