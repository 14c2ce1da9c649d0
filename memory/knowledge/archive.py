"""Export a campaign's knowledge sources and restore them into another campaign (a building block of export).

An archive holds, per source: its raw bytes (every version still stored), its class, enabled and hidden states,
tags, always-include flag, title, notes, use count, every version's metadata and the GM's choices of sections to
hide or reveal (the file's own GM-only marks come back with its bytes). Chunks, full-text rows and
vectors are derived data and are not exported: a restore re-imports the bytes, so they are rebuilt by the
importer (and embedded with the model installed where it is restored). The same files with the same settings
give the same chunks, so a round trip answers every question with the same passages.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import InvalidInput
from canon.storage import utc_now
from memory.knowledge.files import read_with_ocr
from memory.knowledge.import_rows import restore_history
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.repository import own_sources, source_versions
from memory.knowledge.service import KnowledgeService
from memory.knowledge.source_models import ImportOutcome, ImportReport, ProgressCallback, SourceVersionInfo

__all__ = ["ARCHIVE_FORMAT", "ArchivedSource", "KnowledgeArchive", "export_knowledge", "restore_knowledge"]

ARCHIVE_FORMAT = "lorekeeper-knowledge-1"


class ArchivedSource(BaseModel):
    """One source in an archive."""

    model_config = ConfigDict(frozen=True)

    filename: str
    title: str
    knowledge_class: KnowledgeClass
    enabled: bool
    hidden: bool
    tags: list[str]
    always_include: bool
    notes: str | None
    times_used: int
    imported_at: dt.datetime
    version: int
    versions: list[SourceVersionInfo]
    #: Raw bytes (base64) by file hash: the current version's, and older ones' when still stored.
    files: dict[str, str] = Field(default_factory=dict)
    file_hash: str
    #: The GM's choices of sections hidden or revealed after import (`memory.knowledge.sections`).
    section_choices: list[dict[str, Any]] = Field(default_factory=list)
    #: The GM had the book's scanned pages read by OCR; the restored source is read so again.
    ocr: bool = False


class KnowledgeArchive(BaseModel):
    """Every knowledge source of one campaign, with what is needed to rebuild it elsewhere."""

    model_config = ConfigDict(frozen=True)

    format: Literal["lorekeeper-knowledge-1"] = "lorekeeper-knowledge-1"
    exported_at: dt.datetime
    campaign_id: int
    sources: list[ArchivedSource]


async def export_knowledge(service: KnowledgeService, campaign_id: int) -> KnowledgeArchive:
    """Return an archive of the campaign's own sources (a branch's inherited ones stay with its parent)."""
    async with service.db.session() as session:
        sources = await own_sources(session, campaign_id)
        versions = {source.id: await source_versions(session, source.id) for source in sources}
    archived = []
    for source in sources:
        files: dict[str, str] = {}
        for file_hash in {source.file_hash, *(v.file_hash for v in versions[source.id])}:
            raw = await asyncio.to_thread(service.files.read_if_kept, file_hash)
            if raw is not None:
                files[file_hash] = base64.b64encode(raw).decode("ascii")
        if source.file_hash not in files:
            raise InvalidInput(f"The stored copy of {source.filename} is missing; it cannot be exported.")
        archived.append(
            ArchivedSource(
                filename=source.filename,
                title=source.title,
                knowledge_class=source.knowledge_class,
                enabled=source.enabled,
                hidden=source.hidden,
                tags=source.tags,
                always_include=source.always_include,
                notes=source.notes,
                times_used=source.times_used,
                imported_at=source.imported_at,
                version=source.version,
                versions=versions[source.id],
                files=files,
                file_hash=source.file_hash,
                section_choices=source.section_choices,
                ocr=read_with_ocr(source.parser_version),
            )
        )
    return KnowledgeArchive(exported_at=utc_now(), campaign_id=campaign_id, sources=archived)


async def _restore_history(service: KnowledgeService, source_id: int, item: ArchivedSource) -> None:
    """Give a restored source its archived versions' metadata, enabled state, use count and import time."""

    async def work(session: AsyncSession) -> None:
        await restore_history(
            session,
            source_id,
            item.versions,
            version=item.version,
            enabled=item.enabled,
            times_used=item.times_used,
            imported_at=item.imported_at,
        )

    await service.db.run(work)


async def restore_knowledge(
    service: KnowledgeService,
    campaign_id: int,
    archive: KnowledgeArchive,
    *,
    progress: ProgressCallback | None = None,
) -> list[ImportReport]:
    """Import an archive's sources into a campaign, with their settings and version history.

    Each source's current bytes are imported (chunks, full-text rows and vectors rebuilt); its class, states,
    tags, flags, title, notes, use count and older versions' metadata (and stored copies) are restored.
    """
    reports: list[ImportReport] = []
    for item in archive.sources:
        data = base64.b64decode(item.files[item.file_hash])
        if hashlib.sha256(data).hexdigest() != item.file_hash:
            raise InvalidInput(f"The archive's copy of {item.filename} is damaged (its hash does not match).")
        report = await service.import_bytes(
            campaign_id,
            item.filename,
            data,
            knowledge_class=item.knowledge_class,
            hidden=item.hidden,
            tags=item.tags,
            always_include=item.always_include or None,
            title=item.title,
            notes=item.notes,
            progress=progress,
            section_choices=item.section_choices,
            ocr=item.ocr,
        )
        if report.outcome == ImportOutcome.DUPLICATE:
            reports.append(report)
            continue
        for file_hash, encoded in item.files.items():
            if file_hash != item.file_hash:
                older = base64.b64decode(encoded)
                if hashlib.sha256(older).hexdigest() == file_hash:
                    await asyncio.to_thread(service.files.store, older, file_hash)
        await _restore_history(service, report.source.id, item)
        restored = await service.get_source(campaign_id, report.source.id, chunk_limit=0)
        reports.append(report.model_copy(update={"source": restored.source}))
    return reports
