"""SQL of the kept book glossaries (`retrieval.book_terms`): read one, keep one, drop a campaign's older ones."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import utc_now
from memory.knowledge.tables import KnowledgeBookGlossaryRow

__all__ = ["drop_other_glossaries", "keep_glossary", "kept_glossary"]


async def kept_glossary(session: AsyncSession, readable: str) -> dict[str, str] | None:
    """Return the glossary kept under a digest of readable sources, or None when none is."""
    query = select(KnowledgeBookGlossaryRow.terms).where(KnowledgeBookGlossaryRow.readable == readable)
    found = (await session.execute(query)).scalar_one_or_none()
    return None if found is None else {str(k): str(v) for k, v in found.items()}


async def keep_glossary(
    session: AsyncSession, readable: str, asked_in: int, terms: dict[str, str], *, replace: bool = False
) -> None:
    """Keep a glossary under its digest; one kept already is left, unless `replace` (its sources were chunked
    again: the same versions, other passages)."""
    row = await session.get(KnowledgeBookGlossaryRow, readable)
    if row is not None:
        if replace:
            row.terms, row.asked_in, row.made_at = terms, asked_in, utc_now()
            await session.flush()
        return
    session.add(
        KnowledgeBookGlossaryRow(readable=readable, asked_in=asked_in, terms=terms, made_at=utc_now())
    )
    await session.flush()


async def drop_other_glossaries(session: AsyncSession, asked_in: int, kept: Collection[str]) -> None:
    """Drop the glossaries a campaign made but those kept (its sources' older versions made the others)."""
    t = KnowledgeBookGlossaryRow
    query = delete(t).where(t.asked_in == asked_in)
    if kept:
        query = query.where(t.readable.not_in(list(kept)))
    await session.execute(query)
