"""SQL tables of the game-master's voice: token usage, narrations, NPC memories, scene digests and scene casts.

Rows never leave the repositories that read them (`memory.npc_memory`, `memory.narrations`, `memory.digests`,
`bot.ops.ledger`). NPC memories live here first: the Chroma collections that make them searchable are derived
from these rows and can be rebuilt from them at any time.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class LLMUsageRow(Base):
    """One language-model call's tokens, per campaign (NULL: outside any campaign) and purpose."""

    __tablename__ = "llm_usage"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id"))
    purpose: Mapped[str] = mapped_column(String(60))
    model: Mapped[str] = mapped_column(String(200))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (Index("ix_llm_usage_campaign_purpose", "campaign_id", "purpose"),)


class NarrationRow(Base):
    """One narration: the exact context and prompt it was written from, its text, and where it was posted."""

    __tablename__ = "narrations"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"), index=True)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    trigger: Mapped[str] = mapped_column(String(20))
    requested_by_id: Mapped[int | None] = mapped_column(BigInteger)
    requested_by_name: Mapped[str | None] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20), default="drafted")
    context: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    prompt: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    output: Mapped[str | None] = mapped_column(Text)
    blocked_reason: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(String(200))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    turn_number: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class NpcMemoryRow(Base):
    """An NPC's memory (`doc_type` memory) or a relationship between its memories (`doc_type` relationship).

    `content` is the memory in the NPC's own words, or the relationship's observation. `scope` is a path:
    `/campaign/{c}` (common to every NPC), `/campaign/{c}/npc/{n}` or `/campaign/{c}/npc/{n}/scene/{s}`.
    A forgotten memory keeps its row (`forgotten_at`) and leaves the vector index.
    """

    __tablename__ = "npc_memories"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    npc_entity_id: Mapped[int] = mapped_column(BigInteger)
    npc_name: Mapped[str] = mapped_column(String(200))
    doc_type: Mapped[str] = mapped_column(String(20), default="memory")
    scope: Mapped[str] = mapped_column(String(200))
    scope_kind: Mapped[str] = mapped_column(String(20))
    scene_id: Mapped[int | None] = mapped_column(ForeignKey("scenes.id"))
    content: Mapped[str] = mapped_column(Text)
    importance: Mapped[float] = mapped_column(Float, default=0.5)
    relationship_type: Mapped[str | None] = mapped_column(String(40))
    memory_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    strength: Mapped[float | None] = mapped_column(Float)
    turn_from: Mapped[int | None] = mapped_column(Integer)
    turn_to: Mapped[int | None] = mapped_column(Integer)
    method: Mapped[str] = mapped_column(String(20), default="extractive")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    last_accessed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    forgotten_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # Categories one a line, a line break first and last ("\nthreat\nvyr\n"; `memory.memory_ops`); metadata
    # the GM's key -> value pairs; a private memory is the GM's alone (an NPC never speaks from it).
    categories: Mapped[str] = mapped_column(Text, default="")
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_npc_memories_campaign_npc", "campaign_id", "npc_entity_id"),)


class SceneDigestRow(Base):
    """What the voice did with a completed scene: its summary, the NPCs it gave memories, and when."""

    __tablename__ = "scene_digests"

    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    summary: Mapped[str] = mapped_column(Text)
    summary_method: Mapped[str] = mapped_column(String(20))
    npc_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    memories_written: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class SceneCastRow(Base):
    """An NPC the GM declared present in a scene (`/scene cast`), whether or not anyone names it."""

    __tablename__ = "scene_cast"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"))
    entity_id: Mapped[int] = mapped_column(BigInteger)
    added_by_name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (UniqueConstraint("scene_id", "entity_id"),)
