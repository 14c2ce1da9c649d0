"""Knowledge sources as the inspector and the importer see them: pydantic values, never SQL rows.

A source's metadata, versions and chunks, the progress and outcome of an import, reindexing, deleting and the
original file; the passages chosen for an answer live in `memory.knowledge.models`.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memory.knowledge.models import KnowledgeClass


class VectorStatus(enum.StrEnum):
    """Whether a source's chunks have vectors in the semantic index."""

    PENDING = "pending"
    INDEXED = "indexed"
    FAILED = "failed"
    DISABLED = "disabled"
    STALE = "stale"


class SourceInfo(BaseModel):
    """One row of the source inspector."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    title: str
    filename: str
    knowledge_class: KnowledgeClass
    enabled: bool
    hidden: bool
    tags: list[str]
    always_include: bool
    content_hash: str
    file_hash: str
    size_bytes: int
    mime_type: str
    parser_version: str
    chunking_version: str
    version: int
    chunk_count: int
    token_count: int
    vector_status: VectorStatus
    vector_error: str | None
    imported_at: dt.datetime
    updated_at: dt.datetime
    times_used: int
    last_used_at: dt.datetime | None
    notes: str | None
    #: How many of its chunks lie in GM-only sections (the rest of it is as public as the source).
    hidden_chunks: int = 0
    #: The GM's choices of sections hidden or revealed after import (`memory.knowledge.sections`).
    section_choices: list[dict[str, Any]] = Field(default_factory=list)
    #: Set when the source belongs to an ancestor campaign of the branch being looked at (read-only here).
    inherited_from: int | None = None


class SourceVersionInfo(BaseModel):
    """The metadata of one version of a source."""

    model_config = ConfigDict(frozen=True)

    version: int
    title: str
    filename: str
    content_hash: str
    file_hash: str
    size_bytes: int
    parser_version: str
    chunking_version: str
    chunk_count: int
    imported_at: dt.datetime
    replaced_at: dt.datetime | None


class ChunkInfo(BaseModel):
    """One chunk as the source inspector shows it."""

    model_config = ConfigDict(frozen=True)

    id: int
    index: int
    heading_path: list[str]
    text: str
    display_text: str | None
    token_count: int
    content_hash: str
    #: Where the text is in the book ("p. 112", "ch. 3"); None when its sections are its places.
    place: str | None = None
    #: In a GM-only section of the source.
    section_hidden: bool = False


class SectionChange(BaseModel):
    """A section of a source hidden from players or shown to them, by the GM after import."""

    model_config = ConfigDict(frozen=True)

    source: SourceInfo
    path: list[str]
    hidden: bool
    #: The chunks the section holds, and how many of them changed.
    chunks: int
    changed: int
    #: Other sections that share a passage with it, and so followed the choice (their heading paths in words).
    also: list[str] = Field(default_factory=list)
    #: The source was chunked again so that the section stands alone (its vectors made again too).
    rechunked: bool = False


class SourceDetail(BaseModel):
    """A source with its versions and (the first of) its chunks."""

    model_config = ConfigDict(frozen=True)

    source: SourceInfo
    versions: list[SourceVersionInfo]
    chunks: list[ChunkInfo]


class ImportStage(enum.StrEnum):
    """Where an import is."""

    CHUNKING = "chunking"
    STORING = "storing"
    EMBEDDING = "embedding"
    DONE = "done"


class ImportProgress(BaseModel):
    """A progress report of one file's import; `done`/`total` count chunks while embedding."""

    model_config = ConfigDict(frozen=True)

    filename: str
    stage: ImportStage
    done: int = 0
    total: int = 0


#: Called with each progress report; may be a plain function or a coroutine function.
ProgressCallback = Callable[[ImportProgress], Awaitable[None] | None]


class ImportOutcome(enum.StrEnum):
    """What an import did."""

    CREATED = "created"
    UPDATED = "updated"
    DUPLICATE = "duplicate"


class ImportReport(BaseModel):
    """What an import did with one file."""

    model_config = ConfigDict(frozen=True)

    filename: str
    outcome: ImportOutcome
    source: SourceInfo
    #: The existing source whose content is identical (outcome duplicate); nothing was indexed again.
    duplicate_of: int | None = None
    #: The version replaced by this import (outcome updated).
    previous_version: int | None = None
    chunk_count: int = 0
    token_count: int = 0
    vector_status: VectorStatus = VectorStatus.PENDING
    #: Why the source has no vectors (it stays searchable by words); `reindex` repairs it later.
    vector_error: str | None = None
    seconds: float = 0.0
    warnings: list[str] = Field(default_factory=list)
    #: A file imported again with the same text: the settings it asked for that its source took ("now Canon
    #: (was Reference)"), each said for a person.
    changed: list[str] = Field(default_factory=list)


class ImportFailure(BaseModel):
    """A file that could not be imported, and why (written for people)."""

    model_config = ConfigDict(frozen=True)

    filename: str
    error: str


class ReindexReport(BaseModel):
    """What `reindex` rebuilt."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    sources: int
    chunks: int
    rechunked_sources: int
    vectors: int
    vector_status: VectorStatus
    vector_error: str | None = None
    seconds: float = 0.0


class OriginalFile(BaseModel):
    """A source's original as the GM asks for it: the bytes when they can be sent, else where they are kept."""

    model_config = ConfigDict(frozen=True)

    title: str
    filename: str
    size_bytes: int
    #: Where the vault keeps the originals, in words for the host (`memory.vault.Vault.describe`).
    where: str
    #: The bytes, when they fit what may be sent and the vault still has them.
    data: bytes | None = None
    #: The vault no longer has them (the source still answers; a re-import keeps them again).
    missing: bool = False


class ViewBuild(BaseModel):
    """A campaign's vectors gaining a view in the background (`memory.knowledge.view_builder`)."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    #: What is built ("names": the names view of every passage).
    view: str = "names"
    #: building (or waiting for a process to build it), done, or stale (a full reindex is needed first).
    state: str
    done: int = 0
    total: int = 0

    @property
    def percent(self) -> int:
        """Return how much is done, in whole percent (100 when there is nothing to do)."""
        return 100 if self.total <= 0 else min(100, self.done * 100 // self.total)


class DeleteReport(BaseModel):
    """What deleting a source removed."""

    model_config = ConfigDict(frozen=True)

    source_id: int
    title: str
    chunks_removed: int
    vectors_removed: bool
    file_removed: bool
