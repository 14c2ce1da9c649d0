"""NPC memory: what each NPC lived through, in its own words, and the links between its memories.

A memory record (`memory.npc_memory_records`, with the SQL that keeps them) has content, importance, a scope
and its times; relationships between memories are memories too, in the same table and the same per-campaign
collection, so they are searched together with memories or filtered apart.

The SQL rows are the source of truth; `NpcMemoryStore.rebuild` recreates a campaign's collection from them.
Recall scores each candidate by similarity to the question, importance and recency, and records the access.
A memory is a belief, not canon: callers present it as what the NPC remembers, below the canon it may
contradict.

In a branch an NPC also remembers what it lived through in the ancestors' scenes up to the fork
(`memory.lineage`), never a later scene of theirs; the branch only ever writes (and forgets, and marks as
recalled) its own memories.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from canon.storage import utc_now
from memory.doc_index import DocIndexError
from memory.lineage import Reach, narrative_lineage
from memory.memory_ops import MemoryOperations
from memory.npc_memory_records import (
    COMMON,
    DocType,
    MemoryRecord,
    NewMemory,
    Recalled,
    ScopeKind,
    add_memories,
    forget,
    forgotten_after_fork,
    lineage_memories,
    memories_of,
    recall_score,
    record_of,
    scope_path,
    touch,
)
from memory.voice_tables import NpcMemoryRow

__all__ = [
    "DocType",
    "MemoryRecord",
    "NewMemory",
    "NpcMemoryStore",
    "Recalled",
    "ScopeKind",
    "recall_score",
    "scope_path",
]

log = logging.getLogger(__name__)

CANDIDATES = 24


def _where(reach: Reach, npc_id: int, doc_types: Sequence[DocType]) -> dict[str, Any]:
    """Return the vector-index filter of one campaign of a lineage: this NPC (or common) within reach."""
    parts: list[dict[str, Any]] = [{"$or": [{"npc_id": npc_id}, {"npc_id": COMMON}]}]
    if len(doc_types) == 1:
        parts.append({"doc_type": doc_types[0].value})
    if reach.inherited:
        scene_less: dict[str, Any] = {"scene_id": 0}
        if reach.up_to_time is not None:
            scene_less = {"$and": [scene_less, {"created_at": {"$lte": int(reach.up_to_time.timestamp())}}]}
        if reach.scene_ids is None:
            parts.append({"$or": [{"scene_id": {"$ne": 0}}, scene_less]})
        elif reach.scene_ids:
            parts.append({"$or": [{"scene_id": {"$in": sorted(reach.scene_ids)}}, scene_less]})
        else:
            parts.append(scene_less)
    return parts[0] if len(parts) == 1 else {"$and": parts}


class NpcMemoryStore(MemoryOperations):
    """Write, recall, list and forget NPC memories: SQL first, then the campaign's vector collection; and
    the scoped-memory operations (`memory.memory_ops`: find, update, delete by criteria, scope info, scopes).

    Without an index or an embedder (`semantic` false) recall ranks by importance and recency alone. Recall
    never returns a private memory (the GM's alone: an NPC does not speak from it).
    """

    def _record(self, row: NpcMemoryRow) -> MemoryRecord:
        return record_of(row)

    async def index_records(self, campaign_id: int, records: Sequence[MemoryRecord]) -> bool:
        """Put records into the campaign's collection; False (and a log line) when the index is unavailable."""
        if not self.semantic or not records:
            return False
        try:
            await self._put(
                campaign_id,
                [r.id for r in records],
                [r.content for r in records],
                [r.metadata() for r in records],
            )
        except (DocIndexError, Exception) as error:  # recall falls back to SQL; rebuild repairs the index
            log.warning(
                "could not index %d NPC memories of campaign %s: %s", len(records), campaign_id, error
            )
            return False
        return True

    async def add(self, campaign_id: int, memories: Sequence[NewMemory]) -> list[MemoryRecord]:
        """Store memories in one transaction, then index them."""
        if not memories:
            return []
        records = await self.db.run(lambda session: add_memories(session, campaign_id, memories))
        await self.index_records(campaign_id, records)
        return records

    async def memories(
        self, campaign_id: int, npc_id: int, *, doc_type: DocType | None = None
    ) -> list[MemoryRecord]:
        """Return an NPC's standing memories (and common ones), oldest first; a branch's include inherited ones."""
        async with self.db.session() as session:
            reaches = await narrative_lineage(session, campaign_id)
            return await lineage_memories(session, reaches, npc_id, doc_type=doc_type)

    async def forget(self, campaign_id: int, npc_id: int, memory_id: int | None = None) -> list[int]:
        """Forget one memory or all of an NPC's; return the ids forgotten (relationships included)."""
        ids = await self.db.run(lambda session: forget(session, campaign_id, npc_id, memory_id))
        if self.index is not None and ids:
            try:
                await self.index.delete(campaign_id, ids)
            except DocIndexError as error:
                log.warning("forgotten memories stay in the index until it is rebuilt: %s", error)
        return ids

    async def recall(
        self,
        campaign_id: int,
        npc_id: int,
        question: str,
        *,
        limit: int,
        doc_types: Sequence[DocType] = (DocType.MEMORY, DocType.RELATIONSHIP),
        now: dt.datetime | None = None,
        record_access: bool = True,
    ) -> list[Recalled]:
        """Return an NPC's memories most relevant to `question`, best first, and record the access."""
        when = now or utc_now()
        similarity: dict[int, float] = {}
        async with self.db.session() as session:
            reaches = await narrative_lineage(session, campaign_id)
        if self.semantic and question.strip():
            assert self.index is not None
            try:
                vector = (await self._embed([question]))[0]
                hits = []
                for reach in reaches:  # the campaign's collection, then each ancestor's, within reach
                    where = _where(reach, npc_id, doc_types)
                    hits += await self.index.query(reach.campaign_id, vector, limit=CANDIDATES, where=where)
                hits.sort(key=lambda hit: -hit.similarity)
                similarity = {hit.id: hit.similarity for hit in hits[:CANDIDATES]}
                # What an ancestor forgot after the fork has no vector any more: compare its text here.
                async with self.db.session() as session:
                    kept = await forgotten_after_fork(session, reaches, npc_id)
                if kept:
                    for record, embedded in zip(
                        kept, await self._embed([m.content for m in kept]), strict=True
                    ):
                        near = sum(a * b for a, b in zip(vector, embedded, strict=True))  # unit vectors
                        similarity[record.id] = max(similarity.get(record.id, 0.0), near)
            except DocIndexError as error:
                log.warning("NPC memory search is unavailable, ranking by importance: %s", error)
        async with self.db.session() as session:
            if similarity:
                # The index only suggests: a hit must still be this NPC's (or common), standing memory, in reach.
                found = await lineage_memories(session, reaches, npc_id, ids=list(similarity))
                candidates = [m for m in found if m.npc_id in (npc_id, COMMON)]
            else:
                candidates = await lineage_memories(session, reaches, npc_id)
        candidates = [m for m in candidates if m.doc_type in doc_types and not m.private]
        scored = [
            Recalled(
                memory=m,
                similarity=similarity.get(m.id, 0.0),
                score=recall_score(similarity.get(m.id, 0.0), m.importance, m.last_accessed_at, when),
            )
            for m in candidates
        ]
        scored.sort(key=lambda r: (-r.score, -r.memory.id))
        chosen = scored[:limit]
        if record_access and chosen:
            # Recalling an inherited memory never writes to the ancestor's rows.
            ids = [r.memory.id for r in chosen if r.memory.campaign_id == campaign_id]
            if ids:
                await self.db.run(lambda session: touch(session, ids, when))
        return chosen

    async def relationships(self, campaign_id: int, memory_ids: Sequence[int]) -> list[MemoryRecord]:
        """Return the standing relationships that link any of `memory_ids`."""
        wanted = set(memory_ids)
        async with self.db.session() as session:
            reaches = await narrative_lineage(session, campaign_id)
            rows = await lineage_memories(session, reaches, doc_type=DocType.RELATIONSHIP)
        return [r for r in rows if wanted.intersection(r.memory_ids)]

    async def rebuild(self, campaign_id: int) -> int:
        """Drop the campaign's collection and index every standing memory again from SQL; return how many."""
        if not self.semantic:
            return 0
        assert self.index is not None
        async with self.db.session() as session:
            records = await memories_of(session, campaign_id)
        await self.index.reset(campaign_id)
        for start in range(0, len(records), 256):
            batch = records[start : start + 256]
            await self._put(
                campaign_id, [r.id for r in batch], [r.content for r in batch], [r.metadata() for r in batch]
            )
        return len(records)
