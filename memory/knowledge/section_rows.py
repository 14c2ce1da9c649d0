"""SQL of GM-only sections: a source's sections, the hidden chunks retrieval leaves out, a section hidden or shown.

Runs inside the caller's transaction; rows never leave this module (see `memory.knowledge.sections`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from memory.knowledge.sections import Section, choose, chunk_hidden, sections_of
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow

_BATCH = 500

__all__ = ["hidden_section_chunks", "set_section_hidden", "source_sections"]


async def hidden_section_chunks(session: AsyncSession, source_ids: Sequence[int]) -> dict[int, int]:
    """Return {chunk id: source id} of the chunks in GM-only sections of these sources."""
    found: dict[int, int] = {}
    t = KnowledgeChunkRow
    for start in range(0, len(source_ids), _BATCH):
        rows = await session.execute(
            select(t.id, t.source_id).where(
                t.source_id.in_(source_ids[start : start + _BATCH]), t.section_hidden
            )
        )
        found.update({row.id: row.source_id for row in rows.all()})
    return found


async def source_sections(session: AsyncSession, source_id: int) -> list[Section]:
    """Return a source's sections in document order, each hidden when all its chunks are."""
    t = KnowledgeChunkRow
    rows = await session.execute(
        select(t.heading_path, t.heading_text, t.section_hidden)
        .where(t.source_id == source_id)
        .order_by(t.chunk_index)
    )
    return sections_of(
        (list(r.heading_path or []), r.heading_text or "", bool(r.section_hidden)) for r in rows
    )


async def set_section_hidden(
    session: AsyncSession, source_id: int, path: Sequence[str], hidden: bool
) -> tuple[int, list[int]]:
    """Hide or reveal a section of a source (and what lies under it); return its chunk count and changed ids.

    The choice is kept with the source, so a new version of the file keeps it.
    """
    source = await session.get(KnowledgeSourceRow, source_id)
    if source is None:
        raise NotFound("That source is gone.")
    source.section_choices = choose(list(source.section_choices or []), path, hidden)
    t = KnowledgeChunkRow
    rows = (
        await session.execute(
            select(t.id, t.heading_path, t.heading_text, t.section_hidden).where(t.source_id == source_id)
        )
    ).all()
    choice = [{"path": list(path), "hidden": hidden}]
    covered, changed = 0, []
    for row in rows:
        was = bool(row.section_hidden)
        now = chunk_hidden(list(row.heading_path or []), row.heading_text or "", was, choice)
        if chunk_hidden(list(row.heading_path or []), row.heading_text or "", not hidden, choice) == hidden:
            covered += 1
        if now != was:
            changed.append(row.id)
    for start in range(0, len(changed), _BATCH):
        await session.execute(
            update(t).where(t.id.in_(changed[start : start + _BATCH])).values(section_hidden=hidden)
        )
    total = sum(1 for row in rows if row.section_hidden) + (len(changed) if hidden else -len(changed))
    source.hidden_chunks = total
    await session.flush()
    return covered, changed
