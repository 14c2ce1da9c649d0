"""NPC memory: what each NPC lived through, in its own words, and the links between its memories.

A memory record follows the seed: content, importance (0-1), a scope (`/campaign/{c}`, `.../npc/{n}`,
`.../npc/{n}/scene/{s}`), created and last-accessed times. Relationships between memories are memories too
(`doc_type` relationship, with the memories they link, an observation text and a strength), stored in the same
table and the same per-campaign collection, so they are searched together with memories or filtered apart.

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
import enum
import logging
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from canon.storage import utc_now
from memory.doc_index import DocIndexError, Metadata
from memory.lineage import Reach, narrative_lineage
from memory.memory_ops import MemoryOperations, categories_of, categories_text, clean_categories
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

#: Campaign-wide memories (common knowledge) are stored under this NPC id and recalled by every NPC.
COMMON = 0
RECENCY_HALF_LIFE_DAYS = 30.0
CANDIDATES = 24


class DocType(enum.StrEnum):
    """A memory, or a relationship between memories."""

    MEMORY = "memory"
    RELATIONSHIP = "relationship"


class ScopeKind(enum.StrEnum):
    """How wide a memory's scope is."""

    CAMPAIGN = "campaign"
    NPC = "npc"
    SCENE = "scene"


def scope_path(campaign_id: int, npc_id: int | None = None, scene_id: int | None = None) -> str:
    """Return a memory's scope path, e.g. `/campaign/3/npc/12/scene/7`."""
    path = f"/campaign/{campaign_id}"
    if npc_id:
        path += f"/npc/{npc_id}"
        if scene_id is not None:
            path += f"/scene/{scene_id}"
    return path


class NewMemory(BaseModel):
    """A memory (or relationship) to store; relationships name stored memory ids in `memory_ids`."""

    model_config = ConfigDict(frozen=True)

    npc_id: int
    npc_name: str
    doc_type: DocType = DocType.MEMORY
    scope_kind: ScopeKind = ScopeKind.SCENE
    scene_id: int | None = None
    content: str = Field(min_length=1, max_length=4000)
    importance: float = Field(default=0.5, ge=0, le=1)
    relationship_type: str | None = None
    memory_ids: tuple[int, ...] = ()
    strength: float | None = Field(default=None, ge=0, le=1)
    turn_from: int | None = None
    turn_to: int | None = None
    method: str = "extractive"
    created_at: dt.datetime | None = None
    categories: tuple[str, ...] = ()
    meta: dict[str, str | int | float | bool] = Field(default_factory=dict)
    private: bool = False


class MemoryRecord(BaseModel):
    """A stored memory or relationship."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    npc_id: int
    npc_name: str
    doc_type: DocType
    scope: str
    scope_kind: ScopeKind
    scene_id: int | None
    content: str
    importance: float
    relationship_type: str | None
    memory_ids: tuple[int, ...]
    strength: float | None
    turn_from: int | None
    turn_to: int | None
    method: str
    created_at: dt.datetime
    last_accessed_at: dt.datetime
    forgotten_at: dt.datetime | None
    categories: tuple[str, ...] = ()
    meta: dict[str, Any] = Field(default_factory=dict)
    private: bool = False
    updated_at: dt.datetime | None = None

    @property
    def scopes(self) -> list[str]:
        """Return the memory's scope and its ancestors, outermost first."""
        from memory.memory_ops import scope_ancestors

        return scope_ancestors(self.scope)

    def metadata(self) -> Metadata:
        """Return the metadata the vector index keeps beside the vector (for filters)."""
        return {
            "npc_id": self.npc_id,
            "doc_type": self.doc_type.value,
            "scope_kind": self.scope_kind.value,
            "scene_id": self.scene_id or 0,
            "importance": self.importance,
            "strength": self.strength if self.strength is not None else 0.0,
            "created_at": int(self.created_at.timestamp()),
        }


class Recalled(BaseModel):
    """A recalled memory, its similarity to the question and its final score."""

    model_config = ConfigDict(frozen=True)

    memory: MemoryRecord
    similarity: float
    score: float


def _record(row: NpcMemoryRow) -> MemoryRecord:
    return MemoryRecord(
        categories=categories_of(row.categories),
        meta=dict(row.meta or {}),
        private=bool(row.private),
        updated_at=row.updated_at,
        id=row.id,
        campaign_id=row.campaign_id,
        npc_id=row.npc_entity_id,
        npc_name=row.npc_name,
        doc_type=DocType(row.doc_type),
        scope=row.scope,
        scope_kind=ScopeKind(row.scope_kind),
        scene_id=row.scene_id,
        content=row.content,
        importance=row.importance,
        relationship_type=row.relationship_type,
        memory_ids=tuple(row.memory_ids or ()),
        strength=row.strength,
        turn_from=row.turn_from,
        turn_to=row.turn_to,
        method=row.method,
        created_at=row.created_at,
        last_accessed_at=row.last_accessed_at,
        forgotten_at=row.forgotten_at,
    )


def recall_score(similarity: float, importance: float, last_accessed: dt.datetime, now: dt.datetime) -> float:
    """Return a memory's recall score: mostly relevance, then importance, then recency of use."""
    age_days = max(0.0, (now - last_accessed).total_seconds() / 86400)
    recency = math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
    return 0.75 * similarity + 0.15 * importance + 0.10 * recency


# --- repository -------------------------------------------------------------------------------------------


async def add_memories(
    session: AsyncSession, campaign_id: int, memories: Sequence[NewMemory]
) -> list[MemoryRecord]:
    """Store memories and relationships; return them with their ids."""
    now = utc_now()
    rows: list[NpcMemoryRow] = []
    for memory in memories:
        kind = memory.scope_kind
        scene = memory.scene_id if kind == ScopeKind.SCENE else None
        npc = memory.npc_id if kind != ScopeKind.CAMPAIGN else COMMON
        row = NpcMemoryRow(
            campaign_id=campaign_id,
            npc_entity_id=npc,
            npc_name=memory.npc_name[:200],
            doc_type=memory.doc_type.value,
            scope=scope_path(campaign_id, npc or None, scene),
            scope_kind=kind.value,
            scene_id=memory.scene_id,
            content=memory.content,
            importance=memory.importance,
            relationship_type=memory.relationship_type,
            memory_ids=list(memory.memory_ids),
            strength=memory.strength,
            turn_from=memory.turn_from,
            turn_to=memory.turn_to,
            method=memory.method,
            created_at=memory.created_at or now,
            last_accessed_at=memory.created_at or now,
            categories=categories_text(clean_categories(memory.categories)),
            meta=dict(memory.meta),
            private=memory.private,
        )
        session.add(row)
        rows.append(row)
    await session.flush()
    return [_record(row) for row in rows]


async def memories_of(
    session: AsyncSession,
    campaign_id: int,
    npc_id: int | None = None,
    *,
    include_forgotten: bool = False,
    doc_type: DocType | None = None,
    scene_id: int | None = None,
) -> list[MemoryRecord]:
    """Return a campaign's memories (of one NPC, common ones included), oldest first."""
    query = select(NpcMemoryRow).where(NpcMemoryRow.campaign_id == campaign_id)
    if npc_id is not None:
        query = query.where(or_(NpcMemoryRow.npc_entity_id == npc_id, NpcMemoryRow.npc_entity_id == COMMON))
    if not include_forgotten:
        query = query.where(NpcMemoryRow.forgotten_at.is_(None))
    if doc_type is not None:
        query = query.where(NpcMemoryRow.doc_type == doc_type.value)
    if scene_id is not None:
        query = query.where(NpcMemoryRow.scene_id == scene_id)
    rows = (await session.execute(query.order_by(NpcMemoryRow.id))).scalars()
    return [_record(row) for row in rows]


async def memories_by_id(
    session: AsyncSession, campaign_id: int, ids: Sequence[int]
) -> dict[int, MemoryRecord]:
    """Return the standing memories among `ids` of one campaign, by id."""
    if not ids:
        return {}
    query = select(NpcMemoryRow).where(
        NpcMemoryRow.campaign_id == campaign_id,
        NpcMemoryRow.id.in_(list(ids)),
        NpcMemoryRow.forgotten_at.is_(None),
    )
    return {row.id: _record(row) for row in (await session.execute(query)).scalars()}


def _standing(row: NpcMemoryRow, reach: Reach) -> bool:
    """Return whether a memory row is remembered from the campaign of `reach`'s point of view."""
    if not reach.sees_scene(row.scene_id):
        return False
    if row.scene_id is None and not reach.sees_time(row.created_at):
        return False
    if row.forgotten_at is None:
        return True
    # Forgotten in the parent after the fork: the branch still remembers it.
    return reach.inherited and reach.up_to_time is not None and row.forgotten_at > reach.up_to_time


async def lineage_memories(
    session: AsyncSession,
    reaches: Sequence[Reach],
    npc_id: int | None = None,
    *,
    doc_type: DocType | None = None,
    ids: Sequence[int] | None = None,
) -> list[MemoryRecord]:
    """Return the standing memories seen through a lineage (of one NPC, common ones included), oldest first."""
    by_campaign = {r.campaign_id: r for r in reaches}
    query = select(NpcMemoryRow).where(NpcMemoryRow.campaign_id.in_(list(by_campaign)))
    if npc_id is not None:
        query = query.where(or_(NpcMemoryRow.npc_entity_id == npc_id, NpcMemoryRow.npc_entity_id == COMMON))
    if doc_type is not None:
        query = query.where(NpcMemoryRow.doc_type == doc_type.value)
    if ids is not None:
        if not ids:
            return []
        query = query.where(NpcMemoryRow.id.in_(list(ids)))
    rows = (await session.execute(query.order_by(NpcMemoryRow.id))).scalars()
    return [_record(row) for row in rows if _standing(row, by_campaign[row.campaign_id])]


async def forgotten_after_fork(
    session: AsyncSession, reaches: Sequence[Reach], npc_id: int
) -> list[MemoryRecord]:
    """Return the memories (of one NPC, common ones included) an ancestor forgot after the fork.

    The branch still remembers them, but forgetting took them out of the ancestor's vector collection.
    """
    inherited = {r.campaign_id: r for r in reaches if r.inherited and r.up_to_time is not None}
    if not inherited:
        return []
    query = select(NpcMemoryRow).where(
        NpcMemoryRow.campaign_id.in_(list(inherited)),
        NpcMemoryRow.forgotten_at.is_not(None),
        or_(NpcMemoryRow.npc_entity_id == npc_id, NpcMemoryRow.npc_entity_id == COMMON),
    )
    rows = (await session.execute(query.order_by(NpcMemoryRow.id))).scalars()
    return [_record(row) for row in rows if _standing(row, inherited[row.campaign_id])]


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


async def touch(session: AsyncSession, ids: Sequence[int], when: dt.datetime) -> None:
    """Record that memories were recalled."""
    if ids:
        await session.execute(
            update(NpcMemoryRow).where(NpcMemoryRow.id.in_(list(ids))).values(last_accessed_at=when)
        )


async def forget(
    session: AsyncSession, campaign_id: int, npc_id: int, memory_id: int | None = None
) -> list[int]:
    """Mark one memory (or every memory of an NPC) forgotten, with the relationships that link them."""
    query = select(NpcMemoryRow).where(
        NpcMemoryRow.campaign_id == campaign_id,
        NpcMemoryRow.npc_entity_id == npc_id,
        NpcMemoryRow.forgotten_at.is_(None),
    )
    rows = list((await session.execute(query)).scalars())
    chosen = [r for r in rows if memory_id is None or r.id == memory_id]
    if memory_id is not None and not chosen:
        raise NotFound(f"There is no memory #{memory_id} of this NPC.")
    gone = {r.id for r in chosen}
    linked = [
        r
        for r in rows
        if r.id not in gone and r.doc_type == DocType.RELATIONSHIP and gone.intersection(r.memory_ids or ())
    ]
    now = utc_now()
    for row in chosen + linked:
        row.forgotten_at = now
    await session.flush()
    return sorted(gone | {r.id for r in linked})


# --- the store --------------------------------------------------------------------------------------------


class NpcMemoryStore(MemoryOperations):
    """Write, recall, list and forget NPC memories: SQL first, then the campaign's vector collection; and
    the scoped-memory operations (`memory.memory_ops`: find, update, delete by criteria, scope info, scopes).

    Without an index or an embedder (`semantic` false) recall ranks by importance and recency alone. Recall
    never returns a private memory (the GM's alone: an NPC does not speak from it).
    """

    def _record(self, row: NpcMemoryRow) -> MemoryRecord:
        return _record(row)

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
