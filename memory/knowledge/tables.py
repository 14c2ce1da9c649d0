"""SQL tables of imported knowledge: sources, their versions, chunks, vector-index state, retrieval records.

Rows never leave the repository modules of `memory.knowledge`; the rest of the program sees the pydantic models
in `memory.knowledge.models`.

The full-text index is NOT described here: it is dialect-specific and created by migration 0003 with raw SQL
(SQLite: the FTS5 table `knowledge_fts` over `knowledge_chunks(heading_text, text)`, kept in sync by
triggers; PostgreSQL: the generated `tsvector` column `knowledge_chunks.search_vector` and its GIN index).
`bot.schema.database.include_name` hides those objects from schema comparisons.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import false

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now

#: Names of the full-text objects the migration creates outside the ORM (see `bot.schema.database.include_name`).
FTS_TABLE = "knowledge_fts"
PG_SEARCH_COLUMN = "search_vector"
PG_SEARCH_INDEX = "ix_knowledge_chunks_search_vector"


class KnowledgeSourceRow(Base):
    """An imported file of a campaign (its current version)."""

    __tablename__ = "knowledge_sources"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    title: Mapped[str] = mapped_column(String(200))
    #: The name it was imported under (a path relative to the imported folder for folder imports).
    filename: Mapped[str] = mapped_column(String(500))
    knowledge_class: Mapped[str] = mapped_column(String(20))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    #: "normal" (players may see it) or "hidden" (narrator/GM only).
    visibility: Mapped[str] = mapped_column(String(10), default="normal")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    always_include: Mapped[bool] = mapped_column(Boolean, default=False)
    #: sha256 of the NFC-normalised text: duplicate detection.
    content_hash: Mapped[str] = mapped_column(String(64))
    #: sha256 of the raw bytes: the name of the stored copy.
    file_hash: Mapped[str] = mapped_column(String(64))
    #: Where the raw bytes are kept, relative to the data directory (sources/<file_hash>).
    stored_path: Mapped[str] = mapped_column(String(300))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    mime_type: Mapped[str] = mapped_column(String(100))
    parser_version: Mapped[str] = mapped_column(String(40))
    chunking_version: Mapped[str] = mapped_column(String(40))
    version: Mapped[int] = mapped_column(Integer, default=1)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    token_count: Mapped[int] = mapped_column(Integer, default=0)
    #: pending | indexed | failed | disabled | stale: whether the vectors of its chunks are in the index.
    vector_status: Mapped[str] = mapped_column(String(12), default="pending")
    vector_error: Mapped[str | None] = mapped_column(Text)
    imported_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    times_used: Mapped[int] = mapped_column(Integer, default=0)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    notes: Mapped[str | None] = mapped_column(Text)
    #: How many of its chunks lie in GM-only sections (0: the common case, no chunk is looked up).
    hidden_chunks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: The GM's own choices after import, kept across versions: [{"path": [headings...], "hidden": bool}].
    section_choices: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list, server_default="[]")

    # AUTOINCREMENT: an id is never reused after a delete (answers and vectors refer to ids).
    __table_args__ = (
        UniqueConstraint("campaign_id", "filename"),
        Index("ix_knowledge_sources_campaign_content", "campaign_id", "content_hash"),
        {"sqlite_autoincrement": True},
    )


class KnowledgeSourceVersionRow(Base):
    """The metadata of one version of a source; a re-import of a changed file adds one."""

    __tablename__ = "knowledge_source_versions"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("knowledge_sources.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(500))
    content_hash: Mapped[str] = mapped_column(String(64))
    file_hash: Mapped[str] = mapped_column(String(64))
    stored_path: Mapped[str] = mapped_column(String(300))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    parser_version: Mapped[str] = mapped_column(String(40))
    chunking_version: Mapped[str] = mapped_column(String(40))
    chunk_count: Mapped[int] = mapped_column(Integer)
    imported_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    #: When a newer version replaced it (NULL for the current version).
    replaced_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("source_id", "version"),)


class KnowledgeChunkRow(Base):
    """One retrievable piece of a source's current version."""

    __tablename__ = "knowledge_chunks"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    source_id: Mapped[int] = mapped_column(ForeignKey("knowledge_sources.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    chunk_index: Mapped[int] = mapped_column(Integer)
    heading_path: Mapped[list[str]] = mapped_column(JSON, default=list)
    #: The heading path and every heading inside the chunk, one per line: the weighted full-text column.
    heading_text: Mapped[str] = mapped_column(Text, default="")
    #: What is indexed and embedded (heading context + body, NFC).
    text: Mapped[str] = mapped_column(Text)
    #: The body alone, when it differs from `text`.
    display_text: Mapped[str | None] = mapped_column(Text)
    token_count: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    char_start: Mapped[int] = mapped_column(Integer)
    char_end: Mapped[int] = mapped_column(Integer)
    #: The fields the chunk holds, read at import (`memory.knowledge.fields.read_fields`): [subject, label,
    #: value] each; None for a chunk imported before fields were kept (read when asked).
    fields: Mapped[list[list[str]] | None] = mapped_column(JSON)
    #: Where the text is in the book it came from ("p. 112", "ch. 3"); None when its sections are its places.
    place: Mapped[str | None] = mapped_column(String(40))
    #: In a GM-only section (marked in the file, or hidden by the GM after import): for the GM alone.
    section_hidden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    # AUTOINCREMENT: a chunk id is never reused, so a vector or an answer can never point at the wrong text.
    __table_args__ = (
        UniqueConstraint("source_id", "chunk_index"),
        Index("ix_knowledge_chunks_campaign", "campaign_id"),
        {"sqlite_autoincrement": True},
    )


class KnowledgeIndexStateRow(Base):
    """What the vectors of a campaign were made with, to detect stale or incompatible vectors."""

    __tablename__ = "knowledge_index_state"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), unique=True)
    collection: Mapped[str] = mapped_column(String(100))
    embedding_model: Mapped[str] = mapped_column(String(100))
    embedding_model_version: Mapped[str] = mapped_column(String(100))
    embedding_dimensions: Mapped[int] = mapped_column(Integer)
    #: Which views of a chunk are embedded, and how (`memory.embed_text.VIEWS_VERSION`).
    embedding_views: Mapped[str] = mapped_column(String(40))
    chunking_version: Mapped[str] = mapped_column(String(40))
    #: A view being added to the vectors (`memory.knowledge.view_builder`): chunks up to this id need it...
    building_until: Mapped[int | None] = mapped_column(BigInteger)
    #: ...and those up to this id have it. Both None when nothing is being built.
    building_through: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class KnowledgeRetrievalRow(Base):
    """One answered question: what was shown, with provenance and the trace, kept even if sources go away."""

    __tablename__ = "knowledge_retrievals"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    viewer: Mapped[str] = mapped_column(String(10))
    asker_id: Mapped[int | None] = mapped_column(BigInteger)
    question: Mapped[str] = mapped_column(Text)
    preset: Mapped[str] = mapped_column(String(40))
    #: Each shown result: provenance, score, reasons and the exact text shown.
    results: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    canon_facts: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    trace: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (Index("ix_knowledge_retrievals_campaign_created", "campaign_id", "created_at"),)


class KnowledgeBookGlossaryRow(Base):
    """The plain words a set of readable sources define their terms by (`retrieval.book_terms`), kept so that a
    question reads them rather than every passage: keyed by a digest of the sources (ids and versions), the
    GM-only chunks left out and the rules that made it, so a row is never read for other sources or rules."""

    __tablename__ = "knowledge_book_glossaries"

    readable: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: The campaign whose question (or import) made it, to drop the rows its older sources left behind. Not a
    #: campaign's row: never exported, never inherited.
    asked_in: Mapped[int] = mapped_column(BigInteger, index=True)
    terms: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    made_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class KnowledgeLibraryRow(Base):
    """A shared library: Reference sources imported once and attached read-only to many campaigns.

    Its sources belong to a holder campaign of its own (status `library`, no server, never listed or played), so
    that they are imported, chunked, indexed and embedded once, as any campaign's are: their chunks and vectors
    are in the holder's rows and collection, never copied into a campaign's (`memory.knowledge.library`).
    """

    __tablename__ = "knowledge_libraries"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), unique=True)
    #: The Discord server whose campaigns may attach its sources; NULL: every campaign of the installation.
    guild_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class KnowledgeLibraryAttachmentRow(Base):
    """A shared library source a campaign reads (and its branches with it), attached by its GM."""

    __tablename__ = "knowledge_library_attachments"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    source_id: Mapped[int] = mapped_column(ForeignKey("knowledge_sources.id", ondelete="CASCADE"))
    attached_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    attached_by: Mapped[str | None] = mapped_column(String(100))

    __table_args__ = (
        UniqueConstraint("campaign_id", "source_id"),
        Index("ix_knowledge_library_attachments_source", "source_id"),
    )
