"""SQL of stored answers: each answered lore question with exactly what it showed, for "Why these?"."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from memory.knowledge.models import Answer, CanonFact, LoreResult, RetrievalRecord, RetrievalTrace
from memory.knowledge.tables import KnowledgeRetrievalRow, KnowledgeSourceRow


async def add_retrieval(
    session: AsyncSession, answer: Answer, *, preset: str, asker_id: int | None, now: dt.datetime
) -> int:
    """Store an answer and count one more use of each of the campaign's own sources it used; return its id."""
    used = sorted({r.source_id for r in answer.results if r.source_id is not None})
    row = KnowledgeRetrievalRow(
        campaign_id=answer.campaign_id,
        viewer=answer.viewer,
        asker_id=asker_id,
        question=answer.question,
        preset=preset,
        results=[r.model_dump(mode="json") for r in answer.results],
        canon_facts=[f.model_dump(mode="json") for f in answer.canon_facts],
        trace=answer.trace.model_dump(mode="json"),
        created_at=now,
    )
    session.add(row)
    if used:
        # Only the campaign's own sources count a use: a branch asking never writes to its parent.
        await session.execute(
            update(KnowledgeSourceRow)
            .where(KnowledgeSourceRow.id.in_(used), KnowledgeSourceRow.campaign_id == answer.campaign_id)
            .values(times_used=KnowledgeSourceRow.times_used + 1, last_used_at=now)
        )
    await session.flush()
    return row.id


async def load_retrieval(
    session: AsyncSession, campaign_id: int, retrieval_id: int
) -> RetrievalRecord | None:
    """Return a stored answer of the campaign as it was stored (hidden parts included), or None."""
    row = await session.get(KnowledgeRetrievalRow, retrieval_id)
    if row is None or row.campaign_id != campaign_id:
        return None
    return RetrievalRecord(
        id=row.id,
        campaign_id=row.campaign_id,
        viewer=row.viewer,
        asker_id=row.asker_id,
        question=row.question,
        preset=row.preset,
        results=[LoreResult.model_validate(r) for r in row.results],
        canon_facts=[CanonFact.model_validate(f) for f in row.canon_facts],
        trace=RetrievalTrace.model_validate(row.trace),
        created_at=row.created_at,
    )
