"""Recovery after faults: semantic indexing that failed while the vector index was down resumes by itself."""

from __future__ import annotations

import logging

from sqlalchemy import select

from memory.knowledge.index_state import WAITING
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeSourceRow
from memory.vector_index import VectorIndexError

log = logging.getLogger(__name__)


async def campaigns_needing_vectors(knowledge: KnowledgeService) -> list[int]:
    """Return the campaigns with sources whose vectors failed or are missing."""
    async with knowledge.db.session() as session:
        query = (
            select(KnowledgeSourceRow.campaign_id)
            .where(KnowledgeSourceRow.vector_status.in_(WAITING))
            .distinct()
        )
        return sorted((await session.execute(query)).scalars())


async def resume_indexing(knowledge: KnowledgeService) -> dict[int, str]:
    """Re-embed each campaign whose vectors failed, once the vector index answers again.

    Returns what happened per campaign: "indexed", "failed" or "unreachable" (the index still does not
    answer: tried again next time). Lexical search works all along; only semantic recall was missing.
    """
    if not knowledge.semantic_enabled or knowledge.vectors is None:
        return {}
    outcome: dict[int, str] = {}
    for campaign_id in await campaigns_needing_vectors(knowledge):
        try:
            await knowledge.vectors.count(campaign_id)
        except VectorIndexError as error:
            log.info("vector index still unreachable; campaign %s waits (%s)", campaign_id, error)
            outcome[campaign_id] = "unreachable"
            continue
        report = await knowledge.reindex(campaign_id)
        outcome[campaign_id] = report.vector_status.value
        log.info("campaign %s re-embedded after a vector index fault: %s", campaign_id, report.vector_status)
    return outcome
