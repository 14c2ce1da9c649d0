"""SQL that writes an import: a source's rows, versions and chunks, a re-chunking, a restored history.

Every function runs inside the caller's transaction (the services own them) and returns the values of
`memory.knowledge.models`. The full-text rows follow the chunks inside the database (see migration 0003).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import InvalidInput
from canon.storage import utc_now
from canon.visibility import source_visibility_of
from memory.chunking import CHUNKING_VERSION, Chunk
from memory.chunking.secret import secret_title
from memory.knowledge.fields import fields_to_rows, read_fields
from memory.knowledge.files import parser_version, read_with_ocr
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.pinning import PinnedCopy, pin_for_branches
from memory.knowledge.repository import same_text_or_name, source_info
from memory.knowledge.sections import chunk_hidden
from memory.knowledge.source_models import ImportOutcome, SourceInfo, SourceVersionInfo, VectorStatus
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow

#: Chunk rows inserted per statement.
_INSERT_BATCH = 500


class ImportPlan(BaseModel):
    """What an import will write, prepared before the transaction."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    filename: str
    title: str | None
    mime: str
    content_hash: str
    file_hash: str
    stored_path: str
    size_bytes: int
    knowledge_class: KnowledgeClass | None
    hidden: bool | None
    tags: list[str] | None
    always_include: bool | None
    notes: str | None
    #: The GM's sections hidden or shown (an archive's); None keeps an updated source's.
    section_choices: list[dict[str, Any]] | None = None
    #: The GM had the book's scanned pages read by OCR (a re-chunk reads them so again).
    ocr: bool = False
    #: What the new version's vectors are until they are made: `disabled` when nothing will make them.
    vector_status: VectorStatus = VectorStatus.PENDING


class WrittenImport(BaseModel):
    """What the import transaction did."""

    model_config = ConfigDict(frozen=True)

    outcome: ImportOutcome
    source: SourceInfo
    duplicate_of: int | None = None
    previous_version: int | None = None
    old_chunk_ids: list[int] = []
    chunk_ids: list[int] = []
    #: The copies of the old version made for the branches that inherit it (their vectors come after).
    pinned: list[PinnedCopy] = []


# --- an import -------------------------------------------------------------------------------------------


async def write_import(session: AsyncSession, plan: ImportPlan, chunks: Sequence[Chunk]) -> WrittenImport:
    """Write a new source, or a new version of the campaign's source of that file name, with its chunks.

    Identical text imported since the caller checked makes a duplicate outcome, and nothing is written. Before an
    old version's chunks go, each branch that inherits it gets its own copy (`pin_for_branches`).
    """
    same, row = await same_text_or_name(session, plan.campaign_id, plan.content_hash, plan.filename)
    if same is not None:  # imported by someone else since the check above
        duplicate = source_info(same)
        return WrittenImport(outcome=ImportOutcome.DUPLICATE, source=duplicate, duplicate_of=duplicate.id)
    now = utc_now()
    old_chunk_ids: list[int] = []
    previous: int | None = None
    pinned: list[PinnedCopy] = []
    token_count = sum(c.token_count for c in chunks)
    if row is not None:
        pinned = await pin_for_branches(session, row)  # before the old version's chunks go
        previous = row.version
        old_chunk_ids = await _retire_version(session, row.id, now)
        _update_source(row, plan, len(chunks), token_count, now)
        outcome = ImportOutcome.UPDATED
    else:
        row = _new_source(plan, len(chunks), token_count, now)
        session.add(row)
        outcome = ImportOutcome.CREATED
    await session.flush()
    session.add(_version_row(row, now))
    rows = chunk_rows(
        plan.campaign_id, row.id, row.version, chunks, row.tags or [], row.section_choices or []
    )
    row.hidden_chunks = sum(1 for r in rows if r["section_hidden"])
    await insert_chunks(session, rows)
    chunk_ids = list(
        (
            await session.execute(
                select(KnowledgeChunkRow.id)
                .where(KnowledgeChunkRow.source_id == row.id)
                .order_by(KnowledgeChunkRow.chunk_index)
            )
        ).scalars()
    )
    await session.flush()
    return WrittenImport(
        outcome=outcome,
        source=source_info(row),
        previous_version=previous,
        old_chunk_ids=old_chunk_ids,
        chunk_ids=chunk_ids,
        pinned=pinned,
    )


async def _retire_version(session: AsyncSession, source_id: int, now: dt.datetime) -> list[int]:
    """Mark a source's current version replaced and delete its chunks; return their ids."""
    old_chunk_ids = list(
        (
            await session.execute(
                select(KnowledgeChunkRow.id).where(KnowledgeChunkRow.source_id == source_id)
            )
        ).scalars()
    )
    await session.execute(
        update(KnowledgeSourceVersionRow)
        .where(
            KnowledgeSourceVersionRow.source_id == source_id,
            KnowledgeSourceVersionRow.replaced_at.is_(None),
        )
        .values(replaced_at=now)
    )
    await session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source_id))
    return old_chunk_ids


def _update_source(
    row: KnowledgeSourceRow, plan: ImportPlan, chunk_count: int, token_count: int, now: dt.datetime
) -> None:
    """Make `row` the next version of its source; options the plan leaves None keep their setting."""
    row.version += 1
    row.title = plan.title or row.title
    row.content_hash = plan.content_hash
    row.file_hash = plan.file_hash
    row.stored_path = plan.stored_path
    row.size_bytes = plan.size_bytes
    row.mime_type = plan.mime
    row.parser_version = parser_version(ocr=plan.ocr)
    row.chunking_version = CHUNKING_VERSION
    row.chunk_count = chunk_count
    row.token_count = token_count
    row.vector_status = plan.vector_status.value
    row.vector_error = None
    row.updated_at = now
    if plan.knowledge_class is not None:
        row.knowledge_class = plan.knowledge_class.value
    if plan.hidden is not None:
        row.visibility = source_visibility_of(plan.hidden).value
    if plan.tags is not None:
        row.tags = list(plan.tags)
    if plan.always_include is not None:
        row.always_include = plan.always_include
    if row.always_include and row.knowledge_class != KnowledgeClass.CANON:
        raise InvalidInput("Only Canon sources can be always included; use --class canon.")
    if plan.notes is not None:
        row.notes = plan.notes
    if plan.section_choices is not None:
        row.section_choices = list(plan.section_choices)


def _new_source(plan: ImportPlan, chunk_count: int, token_count: int, now: dt.datetime) -> KnowledgeSourceRow:
    """Return the row of a source imported for the first time (Reference, visible, untagged by default)."""
    return KnowledgeSourceRow(
        campaign_id=plan.campaign_id,
        title=plan.title or plan.filename,
        filename=plan.filename,
        knowledge_class=(plan.knowledge_class or KnowledgeClass.REFERENCE).value,
        enabled=True,
        visibility=source_visibility_of(bool(plan.hidden)).value,
        tags=list(plan.tags or []),
        always_include=bool(plan.always_include),
        content_hash=plan.content_hash,
        file_hash=plan.file_hash,
        stored_path=plan.stored_path,
        size_bytes=plan.size_bytes,
        mime_type=plan.mime,
        parser_version=parser_version(ocr=plan.ocr),
        chunking_version=CHUNKING_VERSION,
        version=1,
        chunk_count=chunk_count,
        token_count=token_count,
        vector_status=plan.vector_status.value,
        imported_at=now,
        updated_at=now,
        times_used=0,
        notes=plan.notes,
        section_choices=list(plan.section_choices or []),
    )


def _version_row(row: KnowledgeSourceRow, now: dt.datetime) -> KnowledgeSourceVersionRow:
    """Return the version row describing a source's current version."""
    return KnowledgeSourceVersionRow(
        source_id=row.id,
        version=row.version,
        title=row.title,
        filename=row.filename,
        content_hash=row.content_hash,
        file_hash=row.file_hash,
        stored_path=row.stored_path,
        size_bytes=row.size_bytes,
        parser_version=row.parser_version,
        chunking_version=row.chunking_version,
        chunk_count=row.chunk_count,
        imported_at=now,
        replaced_at=None,
    )


# --- chunks --------------------------------------------------------------------------------------------------


async def insert_chunks(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Insert chunk rows (the database writes their full-text rows in the same statement)."""
    for start in range(0, len(rows), _INSERT_BATCH):
        await session.execute(insert(KnowledgeChunkRow), rows[start : start + _INSERT_BATCH])


def heading_text(chunk: Chunk) -> str:
    """Return the heading path and the headings inside the chunk, one per line: the weighted FTS column."""
    titles = list(chunk.heading_path)
    body = chunk.display_text if chunk.display_text is not None else chunk.text
    in_code = False
    for line in body.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and stripped.startswith("#"):
            title = secret_title(stripped.lstrip("#").strip().strip("#").strip().replace("*", ""))[0]
            if title and title not in titles:
                titles.append(title)
    return "\n".join(titles)


def chunk_rows(
    campaign_id: int,
    source_id: int,
    version: int,
    chunks: Sequence[Chunk],
    tags: Sequence[str],
    choices: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Return the rows of a source version's chunks (GM-only sections: the file's marks, then the GM's choices)."""
    rows: list[dict[str, Any]] = [
        {
            "campaign_id": campaign_id,
            "source_id": source_id,
            "version": version,
            "chunk_index": chunk.index,
            "heading_path": list(chunk.heading_path),
            "heading_text": heading_text(chunk),
            "text": chunk.text,
            "display_text": chunk.display_text,
            "token_count": chunk.token_count,
            "content_hash": chunk.content_hash,
            "tags": list(tags),
            "char_start": chunk.char_start,
            "char_end": chunk.char_end,
            "place": chunk.place,
            "fields": (
                chunk.fields
                if chunk.fields is not None
                else fields_to_rows(read_fields(chunk.heading_path, chunk.text))
            ),
            "section_hidden": chunk.secret,
        }
        for chunk in chunks
    ]
    for row in rows:
        row["section_hidden"] = chunk_hidden(
            row["heading_path"], row["heading_text"], row["section_hidden"], choices
        )
    return rows


async def replace_chunks(session: AsyncSession, source_id: int, chunks: Sequence[Chunk]) -> None:
    """Replace a source's chunks by a new chunking of the same version (a source deleted meanwhile is left)."""
    row = await session.get(KnowledgeSourceRow, source_id)
    if row is None:
        return
    await session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source_id))
    rows = chunk_rows(row.campaign_id, row.id, row.version, chunks, row.tags or [], row.section_choices or [])
    await insert_chunks(session, rows)
    row.hidden_chunks = sum(1 for r in rows if r["section_hidden"])
    row.chunking_version = CHUNKING_VERSION
    row.parser_version = parser_version(ocr=read_with_ocr(row.parser_version))
    row.chunk_count = len(chunks)
    row.token_count = sum(c.token_count for c in chunks)
    await session.execute(
        update(KnowledgeSourceVersionRow)
        .where(
            KnowledgeSourceVersionRow.source_id == source_id,
            KnowledgeSourceVersionRow.version == row.version,
        )
        .values(chunking_version=CHUNKING_VERSION, parser_version=row.parser_version, chunk_count=len(chunks))
    )
    await session.flush()


# --- a restored source's history -----------------------------------------------------------------------------


async def restore_history(
    session: AsyncSession,
    source_id: int,
    versions: Sequence[SourceVersionInfo],
    *,
    version: int,
    enabled: bool,
    times_used: int,
    imported_at: dt.datetime,
) -> None:
    """Give a just re-imported source its archived version history, enabled state, use count and import time."""
    row = await session.get(KnowledgeSourceRow, source_id)
    if row is None:
        return
    await session.execute(
        delete(KnowledgeSourceVersionRow).where(KnowledgeSourceVersionRow.source_id == source_id)
    )
    for archived in versions:
        values = archived.model_dump()
        if (
            archived.version == version
        ):  # re-chunked here: the current version's row describes what was just built
            values.update(
                chunking_version=row.chunking_version,
                parser_version=row.parser_version,
                chunk_count=row.chunk_count,
                replaced_at=None,
            )
        values["stored_path"] = f"sources/{archived.file_hash}"
        session.add(KnowledgeSourceVersionRow(source_id=source_id, **values))
    row.version = version
    row.enabled = enabled
    row.times_used = times_used
    row.imported_at = imported_at
    await session.execute(
        update(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source_id).values(version=version)
    )
    await session.flush()
