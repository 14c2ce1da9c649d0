"""NPC memory records: what a memory is (its scope, its kind, its recall score) and the SQL that keeps them.

A memory record follows the seed: content, importance (0-1), a scope (`/campaign/{c}`, `.../npc/{n}`,
`.../npc/{n}/scene/{s}`), created and last-accessed times. Relationships between memories are memories too
(`doc_type` relationship, with the memories they link, an observation text and a strength), stored in the same
table. The rows are the source of truth; `memory.npc_memory.NpcMemoryStore` writes and recalls through the
functions here, then keeps the vector index in step.

In a branch an NPC also remembers what it lived through in the ancestors' scenes up to the fork
(`memory.lineage`), never a later scene of theirs: `lineage_memories` reads through the lineage, and every write
here (adding, forgetting, marking as recalled) touches the campaign's own rows only.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from canon.storage import utc_now
from memory.doc_index import Metadata
from memory.lineage import Reach
from memory.memory_ops import categories_of, categories_text, clean_categories
from memory.voice_tables import NpcMemoryRow

#: Campaign-wide memories (common knowledge) are stored under this NPC id and recalled by every NPC.
COMMON = 0
RECENCY_HALF_LIFE_DAYS = 30.0


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


def record_of(row: NpcMemoryRow) -> MemoryRecord:
    """Return a row as the record the rest of the program reads."""
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
    return [record_of(row) for row in rows]


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
    return [record_of(row) for row in rows]


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
    return {row.id: record_of(row) for row in (await session.execute(query)).scalars()}


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
    return [record_of(row) for row in rows if _standing(row, by_campaign[row.campaign_id])]


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
    return [record_of(row) for row in rows if _standing(row, inherited[row.campaign_id])]


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
