"""SQL tables of the canon graph. Rows are written once and never deleted.

Every row carries the campaign that wrote it and the changeset (decision) that admitted it, which is what makes
branches copy-on-write (see `canon.campaigns`). A retcon is a row of its own that marks its target retconned
from its changeset on; so is every other change of status. Validity in the world is an interval on the campaign
calendar (`world_*`: the text as written and a sortable key, NULL when unknown) and on the story clock
(`story_*`: the scene order), and system time is the changeset's `recorded_at`, copied onto each row so
"as we believed at real time T" is one comparison.
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


class _Written:
    """Columns every canon row has: who wrote it, under which decision, and when."""

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    changeset_id: Mapped[int] = mapped_column(ForeignKey("changesets.id"))
    recorded_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class _Valid:
    """In-world validity on the campaign calendar and on the story clock."""

    world_from: Mapped[str | None] = mapped_column(String(60))
    world_from_key: Mapped[int | None] = mapped_column(BigInteger)
    world_until: Mapped[str | None] = mapped_column(String(60))
    world_until_key: Mapped[int | None] = mapped_column(BigInteger)
    story_from: Mapped[int | None] = mapped_column(Integer)
    story_until: Mapped[int | None] = mapped_column(Integer)


class EntityRow(_Written, _Valid, Base):
    """A typed thing of the world. Its validity is its existence (an era's bounds, an event's date)."""

    __tablename__ = "entities"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    type: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    name_folded: Mapped[str] = mapped_column(String(200))
    key: Mapped[str | None] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(20), default="concrete")
    visibility: Mapped[str] = mapped_column(String(10), default="public")
    description: Mapped[str | None] = mapped_column(Text)
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    authority: Mapped[str] = mapped_column(String(10))
    confidence: Mapped[float] = mapped_column(Float, default=1.0)

    __table_args__ = (
        Index("ix_entities_campaign_name", "campaign_id", "name_folded"),
        Index("ix_entities_campaign_key", "campaign_id", "key"),
        Index("ix_entities_campaign_type", "campaign_id", "type"),
    )


class AliasRow(_Written, Base):
    """Another name an entity goes by."""

    __tablename__ = "entity_aliases"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    entity_id: Mapped[int] = mapped_column(ForeignKey("entities.id"), index=True)
    alias: Mapped[str] = mapped_column(String(200))
    alias_folded: Mapped[str] = mapped_column(String(200))

    __table_args__ = (Index("ix_entity_aliases_campaign_alias", "campaign_id", "alias_folded"),)


class StatementRow(_Written, _Valid, Base):
    """One canon assertion about an entity: an attribute value, a relation to another entity, or a state."""

    __tablename__ = "statements"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(12))  # attribute | relation | state
    subject_id: Mapped[int] = mapped_column(ForeignKey("entities.id"))
    predicate: Mapped[str] = mapped_column(String(60))
    object_id: Mapped[int | None] = mapped_column(ForeignKey("entities.id"))
    value: Mapped[str | None] = mapped_column(Text)
    via: Mapped[str | None] = mapped_column(String(40))
    authority: Mapped[str] = mapped_column(String(10))
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    visibility: Mapped[str] = mapped_column(String(10), default="public")
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("statements.id"))

    __table_args__ = (
        Index("ix_statements_subject", "subject_id", "predicate"),
        Index("ix_statements_object", "object_id"),
        Index("ix_statements_campaign_predicate", "campaign_id", "predicate"),
    )


class StatusChangeRow(_Written, Base):
    """A change of canon level of an entity or statement: today only `retconned`, pointing at its replacement."""

    __tablename__ = "status_changes"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    target_kind: Mapped[str] = mapped_column(String(10))  # entity | statement
    target_id: Mapped[int] = mapped_column(BigInteger)
    level: Mapped[str] = mapped_column(String(12), default="retconned")
    replacement_id: Mapped[int | None] = mapped_column(BigInteger)
    rationale: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_status_changes_target", "target_kind", "target_id"),)


class EvidenceRow(_Written, Base):
    """What supports an entity or statement: turns of a scene, a source chunk, a YAML line, a command."""

    __tablename__ = "evidence"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    target_kind: Mapped[str] = mapped_column(String(10))
    target_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(12))  # turns | chunk | yaml | command | branch
    scene_id: Mapped[int | None] = mapped_column(BigInteger)
    turn_from: Mapped[int | None] = mapped_column(Integer)
    turn_to: Mapped[int | None] = mapped_column(Integer)
    source_id: Mapped[int | None] = mapped_column(BigInteger)
    chunk_id: Mapped[int | None] = mapped_column(BigInteger)
    file: Mapped[str | None] = mapped_column(String(300))
    line: Mapped[int | None] = mapped_column(Integer)
    proposal_id: Mapped[int | None] = mapped_column(BigInteger)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_evidence_target", "target_kind", "target_id"),)


class DependencyRow(_Written, Base):
    """A statement that relies on another entity or statement (so a retcon can list what to review)."""

    __tablename__ = "dependencies"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    statement_id: Mapped[int] = mapped_column(ForeignKey("statements.id"), index=True)
    depends_on_kind: Mapped[str] = mapped_column(String(10))
    depends_on_id: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_dependencies_target", "depends_on_kind", "depends_on_id"),)


class ProposalRow(Base):
    """A candidate canon change waiting for (or past) the GM's decision. Narrative, not canon."""

    __tablename__ = "proposals"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    scene_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    batch: Mapped[str | None] = mapped_column(String(60), index=True)
    type: Mapped[str] = mapped_column(String(20))
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    evidence: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    authority: Mapped[str] = mapped_column(String(10))
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    origin: Mapped[str] = mapped_column(String(20), default="command")
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(12), default="pending")
    rationale: Mapped[str | None] = mapped_column(Text)
    warnings: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    proposer_id: Mapped[int | None] = mapped_column(BigInteger)
    proposer_name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    decided_by_id: Mapped[int | None] = mapped_column(BigInteger)
    decided_by_name: Mapped[str | None] = mapped_column(String(100))
    decided_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    override_rationale: Mapped[str | None] = mapped_column(Text)
    committed_changeset_id: Mapped[int | None] = mapped_column(BigInteger)
    #: Whether the GM chose to show the rejection's rationale to players (it is private by default).
    rationale_public: Mapped[bool] = mapped_column(Boolean, default=False)


class ConflictRow(Base):
    """A continuity problem found in the graph; the fingerprint makes repeated checks report it once."""

    __tablename__ = "conflicts"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    kind: Mapped[str] = mapped_column(String(40))
    fingerprint: Mapped[str] = mapped_column(String(64))
    message: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # open | accepted (a proposal accepted despite it) | resolved | dismissed (never raised again)
    status: Mapped[str] = mapped_column(String(12), default="open")
    rationale: Mapped[str | None] = mapped_column(Text)
    resolution: Mapped[str | None] = mapped_column(String(20))  # retcon | change | rationale
    closed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    closed_by: Mapped[str | None] = mapped_column(String(100))
    first_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    last_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    notified_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("campaign_id", "fingerprint"),)
