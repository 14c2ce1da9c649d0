"""Imported knowledge: import .md/.txt files, keep their versions, manage them, rebuild their indexes, ask.

An import, step by step (`KnowledgeService.import_bytes`):

1. Validate: a .md/.txt name, not empty, not over the size limit, strict UTF-8 (the error names the byte offset
   of the first bad byte), no NUL byte. Nothing is written before this passes.
2. Normalise: the text is NFC-normalised for chunking, indexing and duplicate detection (`content_hash` is the
   SHA-256 of the NFC text); the raw bytes are copied as they are to `data_dir/sources/<sha256 of the bytes>`
   (`file_hash`), which is what the source inspector and a later re-chunk read.
3. Decide: identical content already in the campaign -> reported as a duplicate of that source, nothing indexed.
   The same file name with other content -> a new version of that source: the old version's metadata stays in
   `knowledge_source_versions`, its chunks are replaced. A branch that inherits the source keeps the old version:
   it gets its own copy first, in the same transaction (`memory.knowledge_repo.pin_for_branches`; so does a
   delete).
4. Write, all or nothing: the source, its version row and its chunks in ONE transaction through `Database.run`
   (the full-text rows follow the chunks inside the database, see migration 0003). A failure leaves no trace
   (and removes the stored copy if this import created it).
5. Embed, after the commit and outside the writer: the chunks are embedded in batches (progress is reported)
   and added to the campaign's vector collection. If embedding is off or fails, the source stays imported and
   searchable by words; its `vector_status` says `disabled` or `failed` (with the error), and `reindex` repairs it.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import os
import re
import tempfile
import time
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign, get_campaign, lineage, pinned_sources
from canon.domain import Viewer
from canon.errors import Conflict, InvalidInput, NotFound
from canon.ontology import Ontology
from canon.storage import Database, utc_now
from config.settings import LoreSettings
from memory import fulltext
from memory.chunking import CHUNKING_VERSION, Chunk, ChunkingOptions, chunk_markdown
from memory.embed_text import VIEWS_VERSION, prose_view, title_view
from memory.embedding import Embedder
from memory.knowledge_domain import (
    Answer,
    CanonFact,
    ChunkInfo,
    DeleteReport,
    ImportOutcome,
    ImportProgress,
    ImportReport,
    ImportStage,
    KnowledgeClass,
    LoreResult,
    ProgressCallback,
    ReindexReport,
    RetrievalRecord,
    RetrievalTrace,
    SourceDetail,
    SourceInfo,
    SourceVisibility,
    VectorStatus,
)
from memory.knowledge_models import (
    KnowledgeChunkRow,
    KnowledgeIndexStateRow,
    KnowledgeRetrievalRow,
    KnowledgeSourceRow,
    KnowledgeSourceVersionRow,
)
from memory.knowledge_repo import (
    PinnedCopy,
    campaign_sources,
    chunk_info,
    delete_source_rows,
    lineage_sources,
    may_see,
    pin_for_branches,
    source_info,
    version_info,
)
from memory.retrieval import Retriever, SearchConfig, preset
from memory.vector_index import VectorIndex, VectorIndexError, collection_name

log = logging.getLogger(__name__)

__all__ = [
    "ALLOWED_SUFFIXES",
    "PARSER_VERSION",
    "InvalidEncoding",
    "KnowledgeService",
    "decode_strict",
    "expand_paths",
]

#: Bump when decoding or normalisation changes what an unchanged file turns into.
PARSER_VERSION = "utf8-nfc-1"
ALLOWED_SUFFIXES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain"}
YAML_SUFFIXES = (".yaml", ".yml")
EMBED_BATCH = 128
MAX_TAGS = 20
_TAG = re.compile(r"^[\w][\w .:/+-]{0,39}$")
_H1 = re.compile(r"^ {0,3}# +(.+?)(?: +#+)? *$", re.MULTILINE)


class InvalidEncoding(InvalidInput):
    """A file is not valid UTF-8; `byte_offset` is where its first bad byte is."""

    def __init__(self, message: str, byte_offset: int) -> None:
        super().__init__(message)
        self.byte_offset = byte_offset


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    if count >= 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count} bytes"


def decode_strict(data: bytes, filename: str) -> str:
    """Return the text of UTF-8 bytes, or raise `InvalidEncoding` naming the first bad byte's offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise InvalidEncoding(
            f"{filename} is not valid UTF-8: the first bad byte (0x{data[offset]:02X}) is at byte offset "
            f"{offset} (line {line}, byte {column} of that line). Save the file as UTF-8 and import it again.",
            offset,
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        offset = len(text[:nul].encode("utf-8"))
        raise InvalidEncoding(
            f"{filename} looks like a binary file, not text: it has a NUL byte at byte offset {offset}. "
            "Only .md and .txt text files can be imported.",
            offset,
        )
    return text


def clean_filename(filename: str) -> str:
    """Return a file name as stored: a relative POSIX path without `.`/`..`/empty parts, at most 500 chars."""
    parts = [p for p in PurePosixPath(filename.replace("\\", "/")).parts if p not in ("", ".", "..", "/")]
    name = "/".join(" ".join(part.split()) for part in parts)
    if not name:
        raise InvalidInput("A file to import needs a name ending in .md or .txt.")
    if len(name) > 500:
        raise InvalidInput("That file name is too long (500 characters at most).")
    return name


def check_suffix(filename: str) -> str:
    """Return the MIME type of an importable file name, or raise `InvalidInput` saying what is accepted."""
    suffix = PurePosixPath(filename).suffix.lower()
    if suffix in ALLOWED_SUFFIXES:
        return ALLOWED_SUFFIXES[suffix]
    if suffix in YAML_SUFFIXES:
        raise InvalidInput(
            f"{filename} is YAML: structured lore (timelines, bestiaries...) has its own importer. "
            "Only .md and .txt files are imported as knowledge sources."
        )
    raise InvalidInput(f"{filename} cannot be imported: only .md and .txt files are knowledge sources.")


def clean_tags(tags: Sequence[str] | None) -> list[str] | None:
    """Return tags trimmed, lower-cased and de-duplicated, or raise `InvalidInput` for a malformed one."""
    if tags is None:
        return None
    cleaned: list[str] = []
    for tag in tags:
        value = " ".join(tag.split()).lower()
        if not value:
            continue
        if not _TAG.fullmatch(value):
            raise InvalidInput(
                f"“{tag}” is not a tag: 1 to 40 letters, digits, spaces or . : / + - characters."
            )
        if value not in cleaned:
            cleaned.append(value)
    if len(cleaned) > MAX_TAGS:
        raise InvalidInput(f"A source has at most {MAX_TAGS} tags.")
    return cleaned


def detect_title(text: str, filename: str) -> str:
    """Return a source's title: its first `# ` heading near the top, else the file name without suffix."""
    match = _H1.search(text[:4000])
    title = match.group(1) if match else PurePosixPath(filename).stem
    title = " ".join(title.replace("*", "").replace("_", " ").split()) or PurePosixPath(filename).name
    return title[:200]


def expand_paths(paths: Sequence[Path]) -> list[tuple[Path, str]]:
    """Return (file, name to import it under) for each path; a folder means every .md/.txt under it, sorted.

    A file given directly keeps its own name; a file found in a folder is named by its path relative to that
    folder (so `Monsters/Orc.md` and `Spells/Orc.md` stay two sources).
    """
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            files = sorted(
                (p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in ALLOWED_SUFFIXES),
                key=lambda p: p.relative_to(path).as_posix(),
            )
            found += [(p, p.relative_to(path).as_posix()) for p in files]
        else:
            found.append((path, path.name))
    return found


async def _report(progress: ProgressCallback | None, update_: ImportProgress) -> None:
    if progress is None:
        return
    try:
        result = progress(update_)
        if inspect.isawaitable(result):
            await result
    except Exception:  # a broken progress display must not fail an import
        log.exception("the import progress callback failed")


class _Plan(BaseModel):
    """What an import will write, prepared before the transaction."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

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


class _Written(BaseModel):
    """What the import transaction did."""

    model_config = ConfigDict(frozen=True)

    outcome: ImportOutcome
    source: SourceInfo
    duplicate_of: int | None = None
    previous_version: int | None = None
    old_chunk_ids: list[int] = []
    chunk_ids: list[int] = []
    #: The copies of the old version made for the branches that inherit it (their vectors come after).
    pinned: list[tuple[int, int, list[int], list[int]]] = []


class _EmbedItem(BaseModel):
    """A chunk to embed: its ids, heading path and text."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    source_id: int
    heading_path: list[str]
    text: str


async def _insert_chunks(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Insert chunk rows (the database writes their full-text rows in the same statement)."""
    for start in range(0, len(rows), 500):
        await session.execute(insert(KnowledgeChunkRow), rows[start : start + 500])


def _heading_text(chunk: Chunk) -> str:
    """Return the heading path and the headings inside the chunk, one per line: the weighted FTS column."""
    titles = list(chunk.heading_path)
    body = chunk.display_text if chunk.display_text is not None else chunk.text
    in_code = False
    for line in body.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and stripped.startswith("#"):
            title = stripped.lstrip("#").strip().strip("#").strip().replace("*", "")
            if title and title not in titles:
                titles.append(title)
    return "\n".join(titles)


def _chunk_rows(
    campaign_id: int, source_id: int, version: int, chunks: Sequence[Chunk], tags: Sequence[str]
) -> list[dict[str, Any]]:
    return [
        {
            "campaign_id": campaign_id,
            "source_id": source_id,
            "version": version,
            "chunk_index": chunk.index,
            "heading_path": list(chunk.heading_path),
            "heading_text": _heading_text(chunk),
            "text": chunk.text,
            "display_text": chunk.display_text,
            "token_count": chunk.token_count,
            "content_hash": chunk.content_hash,
            "tags": list(tags),
            "char_start": chunk.char_start,
            "char_end": chunk.char_end,
        }
        for chunk in chunks
    ]


class KnowledgeService:
    """Imported knowledge for the cogs and the command line: import, inspect, manage, reindex, ask.

    `vectors` and `embedder` are the semantic half; either may be None (embedding switched off), and then
    everything still works by words alone.
    """

    def __init__(
        self,
        db: Database,
        *,
        data_dir: Path,
        settings: LoreSettings | None = None,
        vectors: VectorIndex | None = None,
        embedder: Embedder | None = None,
        ontology_for: Callable[[Campaign], Ontology] | None = None,
    ) -> None:
        self.db = db
        self.data_dir = data_dir
        self.settings = settings or LoreSettings()
        self.vectors = vectors
        self.embedder = embedder
        self.retriever = Retriever(db, vectors=vectors, embedder=embedder, ontology_for=ontology_for)

    # -- options -----------------------------------------------------------------------------------

    @property
    def semantic_enabled(self) -> bool:
        """Return whether semantic indexing is configured (an embedder and a vector index)."""
        return self.vectors is not None and self.embedder is not None

    def chunking_options(self) -> ChunkingOptions:
        """Return the chunk sizes from the settings."""
        minimum = min(self.settings.chunk_min_tokens, self.settings.chunk_max_tokens)
        return ChunkingOptions(
            min_tokens=minimum,
            max_tokens=self.settings.chunk_max_tokens,
            overlap_tokens=self.settings.chunk_overlap_tokens,
        )

    # -- import ------------------------------------------------------------------------------------

    async def import_path(
        self,
        campaign_id: int,
        path: Path,
        *,
        filename: str | None = None,
        knowledge_class: KnowledgeClass | None = None,
        hidden: bool | None = None,
        tags: Sequence[str] | None = None,
        always_include: bool | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Import one file from disk (read in place; the copy kept is made by `import_bytes`)."""
        name = filename or path.name
        limit = self.settings.max_file_bytes
        try:
            size = (await asyncio.to_thread(path.stat)).st_size
        except OSError as error:
            raise InvalidInput(f"{name} cannot be read: {error.strerror or error}.") from None
        if size > limit:
            raise InvalidInput(f"{name} is {_size(size)}; the import limit is {_size(limit)}.")
        data = await asyncio.to_thread(path.read_bytes)
        return await self.import_bytes(
            campaign_id,
            name,
            data,
            knowledge_class=knowledge_class,
            hidden=hidden,
            tags=tags,
            always_include=always_include,
            progress=progress,
        )

    async def import_bytes(
        self,
        campaign_id: int,
        filename: str,
        data: bytes,
        *,
        knowledge_class: KnowledgeClass | None = None,
        hidden: bool | None = None,
        tags: Sequence[str] | None = None,
        always_include: bool | None = None,
        title: str | None = None,
        notes: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Import one .md/.txt file's bytes into a campaign; see the module docstring for every step.

        Options left None keep an updated source's current setting (a new source gets Reference, visible,
        no tags, not always included; `always_include=True` alone makes a new source Canon).
        Raises `InvalidInput` (bad name, size, encoding, empty) or `NotFound` (campaign); then nothing is written.
        """
        started = time.perf_counter()
        name = clean_filename(filename)
        mime = check_suffix(name)
        limit = self.settings.max_file_bytes
        if len(data) > limit:
            raise InvalidInput(f"{name} is {_size(len(data))}; the import limit is {_size(limit)}.")
        if not data:
            raise InvalidInput(f"{name} is empty: there is nothing to import.")
        text = decode_strict(data, name).removeprefix("\ufeff")
        normalized = unicodedata.normalize("NFC", text)
        if not normalized.strip():
            raise InvalidInput(f"{name} has no text (only blank space): there is nothing to import.")
        clean = clean_tags(tags)
        if always_include and knowledge_class is None:
            knowledge_class = KnowledgeClass.CANON
        if always_include and knowledge_class not in (None, KnowledgeClass.CANON):
            raise InvalidInput("Only Canon sources can be always included; use --class canon.")
        content_hash = hashlib.sha256(normalized.encode("utf-8")).hexdigest()
        file_hash = hashlib.sha256(data).hexdigest()

        async with self.db.session() as session:
            await get_campaign(session, campaign_id)
            duplicate = await self._find_duplicate(session, campaign_id, content_hash)
            if duplicate is not None:
                return self._duplicate_report(name, duplicate, started)
            existing = (
                await session.execute(
                    select(KnowledgeSourceRow).where(
                        KnowledgeSourceRow.campaign_id == campaign_id, KnowledgeSourceRow.filename == name
                    )
                )
            ).scalar_one_or_none()
            existing_class = KnowledgeClass(existing.knowledge_class) if existing else None
            existing_title = existing.title if existing else None
        final_class = knowledge_class or existing_class or KnowledgeClass.REFERENCE
        if always_include and final_class != KnowledgeClass.CANON:
            raise InvalidInput("Only Canon sources can be always included; use --class canon.")
        doc_title = (title or "").strip()[:200] or detect_title(normalized, name) or existing_title or name

        await _report(progress, ImportProgress(filename=name, stage=ImportStage.CHUNKING))
        chunks = await asyncio.to_thread(chunk_markdown, normalized, doc_title, self.chunking_options())
        if not chunks:
            raise InvalidInput(f"{name} has no text to index.")

        stored_path, created_file = await asyncio.to_thread(self._store_file, data, file_hash)
        plan = _Plan(
            campaign_id=campaign_id,
            filename=name,
            title=doc_title,
            mime=mime,
            content_hash=content_hash,
            file_hash=file_hash,
            stored_path=stored_path,
            size_bytes=len(data),
            knowledge_class=knowledge_class,
            hidden=hidden,
            tags=clean,
            always_include=always_include,
            notes=notes,
        )
        await _report(progress, ImportProgress(filename=name, stage=ImportStage.STORING, total=len(chunks)))
        try:
            written = await self.db.run(lambda session: self._write_import(session, plan, chunks))
        except BaseException:
            if created_file:
                await self._remove_file_if_unused(file_hash)
            raise
        if written.outcome == ImportOutcome.DUPLICATE:
            if created_file:
                await self._remove_file_if_unused(file_hash)
            assert written.duplicate_of is not None
            return ImportReport(
                filename=name,
                outcome=ImportOutcome.DUPLICATE,
                source=written.source,
                duplicate_of=written.duplicate_of,
                seconds=time.perf_counter() - started,
                warnings=["The same text is already imported; nothing was indexed again."],
            )
        # A concurrent delete of another source with the same bytes may have removed the copy meanwhile.
        await asyncio.to_thread(self._store_file, data, file_hash)

        items = [
            _EmbedItem(
                chunk_id=cid, source_id=written.source.id, heading_path=list(c.heading_path), text=c.text
            )
            for cid, c in zip(written.chunk_ids, chunks, strict=True)
        ]
        await self._drop_vectors(campaign_id, written.source.id, written.old_chunk_ids)
        status, error = await self._embed(campaign_id, items, name, progress)
        source = await self._set_vector_status(written.source, status, error)
        # The branches' copies of the old version: in their own collections, once the import's are in.
        await self._embed_pinned([PinnedCopy(*p) for p in written.pinned], name)
        await _report(
            progress,
            ImportProgress(filename=name, stage=ImportStage.DONE, done=len(chunks), total=len(chunks)),
        )
        warnings = []
        if error:
            warnings.append(f"Semantic indexing failed; the source is searchable by words only: {error}")
        return ImportReport(
            filename=name,
            outcome=written.outcome,
            source=source,
            previous_version=written.previous_version,
            chunk_count=len(chunks),
            token_count=sum(c.token_count for c in chunks),
            vector_status=status,
            vector_error=error,
            seconds=time.perf_counter() - started,
            warnings=warnings,
        )

    @staticmethod
    async def _find_duplicate(
        session: AsyncSession, campaign_id: int, content_hash: str
    ) -> KnowledgeSourceRow | None:
        return (
            await session.execute(
                select(KnowledgeSourceRow)
                .where(
                    KnowledgeSourceRow.campaign_id == campaign_id,
                    KnowledgeSourceRow.content_hash == content_hash,
                )
                .order_by(KnowledgeSourceRow.id)
                .limit(1)
            )
        ).scalar_one_or_none()

    @staticmethod
    def _duplicate_report(name: str, row: KnowledgeSourceRow, started: float) -> ImportReport:
        return ImportReport(
            filename=name,
            outcome=ImportOutcome.DUPLICATE,
            source=source_info(row),
            duplicate_of=row.id,
            vector_status=VectorStatus(row.vector_status),
            seconds=time.perf_counter() - started,
            warnings=[
                f"The same text is already imported as source #{row.id} ({row.filename}); nothing was indexed again."
            ],
        )

    async def _write_import(self, session: AsyncSession, plan: _Plan, chunks: Sequence[Chunk]) -> _Written:
        duplicate = await self._find_duplicate(session, plan.campaign_id, plan.content_hash)
        if duplicate is not None:  # imported by someone else since the check above
            return _Written(
                outcome=ImportOutcome.DUPLICATE, source=source_info(duplicate), duplicate_of=duplicate.id
            )
        now = utc_now()
        row = (
            await session.execute(
                select(KnowledgeSourceRow).where(
                    KnowledgeSourceRow.campaign_id == plan.campaign_id,
                    KnowledgeSourceRow.filename == plan.filename,
                )
            )
        ).scalar_one_or_none()
        old_chunk_ids: list[int] = []
        previous: int | None = None
        token_count = sum(c.token_count for c in chunks)
        pinned: list[PinnedCopy] = []
        if row is not None:
            pinned = await pin_for_branches(session, row)  # before the old version's chunks go
            previous = row.version
            old_chunk_ids = list(
                (
                    await session.execute(
                        select(KnowledgeChunkRow.id).where(KnowledgeChunkRow.source_id == row.id)
                    )
                ).scalars()
            )
            await session.execute(
                update(KnowledgeSourceVersionRow)
                .where(
                    KnowledgeSourceVersionRow.source_id == row.id,
                    KnowledgeSourceVersionRow.replaced_at.is_(None),
                )
                .values(replaced_at=now)
            )
            await session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == row.id))
            row.version += 1
            row.title = plan.title or row.title
            row.content_hash = plan.content_hash
            row.file_hash = plan.file_hash
            row.stored_path = plan.stored_path
            row.size_bytes = plan.size_bytes
            row.mime_type = plan.mime
            row.parser_version = PARSER_VERSION
            row.chunking_version = CHUNKING_VERSION
            row.chunk_count = len(chunks)
            row.token_count = token_count
            row.vector_status = VectorStatus.PENDING.value
            row.vector_error = None
            row.updated_at = now
            if plan.knowledge_class is not None:
                row.knowledge_class = plan.knowledge_class.value
            if plan.hidden is not None:
                row.visibility = (SourceVisibility.HIDDEN if plan.hidden else SourceVisibility.NORMAL).value
            if plan.tags is not None:
                row.tags = list(plan.tags)
            if plan.always_include is not None:
                row.always_include = plan.always_include
            if row.always_include and row.knowledge_class != KnowledgeClass.CANON:
                raise InvalidInput("Only Canon sources can be always included; use --class canon.")
            if plan.notes is not None:
                row.notes = plan.notes
            outcome = ImportOutcome.UPDATED
        else:
            row = KnowledgeSourceRow(
                campaign_id=plan.campaign_id,
                title=plan.title or plan.filename,
                filename=plan.filename,
                knowledge_class=(plan.knowledge_class or KnowledgeClass.REFERENCE).value,
                enabled=True,
                visibility=(SourceVisibility.HIDDEN if plan.hidden else SourceVisibility.NORMAL).value,
                tags=list(plan.tags or []),
                always_include=bool(plan.always_include),
                content_hash=plan.content_hash,
                file_hash=plan.file_hash,
                stored_path=plan.stored_path,
                size_bytes=plan.size_bytes,
                mime_type=plan.mime,
                parser_version=PARSER_VERSION,
                chunking_version=CHUNKING_VERSION,
                version=1,
                chunk_count=len(chunks),
                token_count=token_count,
                vector_status=VectorStatus.PENDING.value,
                imported_at=now,
                updated_at=now,
                times_used=0,
                notes=plan.notes,
            )
            session.add(row)
            outcome = ImportOutcome.CREATED
        await session.flush()
        session.add(
            KnowledgeSourceVersionRow(
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
        )
        await _insert_chunks(
            session, _chunk_rows(plan.campaign_id, row.id, row.version, chunks, row.tags or [])
        )
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
        return _Written(
            outcome=outcome,
            source=source_info(row),
            previous_version=previous,
            old_chunk_ids=old_chunk_ids,
            chunk_ids=chunk_ids,
            pinned=[tuple(p) for p in pinned],
        )

    # -- raw files ---------------------------------------------------------------------------------

    def _store_file(self, data: bytes, file_hash: str) -> tuple[str, bool]:
        """Copy raw bytes to sources/<sha256> (atomically); return the relative path and whether it was new."""
        relative = f"sources/{file_hash}"
        target = self.data_dir / relative
        if target.is_file() and target.stat().st_size == len(data):
            return relative, False
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".import-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return relative, True

    async def _remove_file_if_unused(self, file_hash: str) -> bool:
        """Delete the stored copy of a file when no source or version of any campaign refers to it."""
        async with self.db.session() as session:
            used = await session.scalar(
                select(func.count())
                .select_from(KnowledgeSourceVersionRow)
                .where(KnowledgeSourceVersionRow.file_hash == file_hash)
            )
            used = (used or 0) + (
                await session.scalar(
                    select(func.count())
                    .select_from(KnowledgeSourceRow)
                    .where(KnowledgeSourceRow.file_hash == file_hash)
                )
                or 0
            )
        if used:
            return False
        path = self.data_dir / "sources" / file_hash
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    async def _embed_pinned(self, copies: Sequence[PinnedCopy], filename: str) -> None:
        """Add the vectors of branches' copies of a source to their collections (see `pin_for_branches`)."""
        for copy in copies:
            for campaign_id in copy.restricted_in:  # their cached lineage predates the copy
                self.retriever.forget_campaign(campaign_id)
            async with self.db.session() as session:
                rows = (
                    await session.execute(
                        select(KnowledgeChunkRow.id, KnowledgeChunkRow.heading_path, KnowledgeChunkRow.text)
                        .where(KnowledgeChunkRow.source_id == copy.source_id)
                        .order_by(KnowledgeChunkRow.chunk_index)
                    )
                ).all()
                row = await session.get(KnowledgeSourceRow, copy.source_id)
                if row is None:  # deleted meanwhile
                    continue
                source = source_info(row)
            items = [
                _EmbedItem(chunk_id=cid, source_id=copy.source_id, heading_path=list(path or []), text=text)
                for cid, path, text in rows
            ]
            status, error = await self._embed(copy.campaign_id, items, filename, None)
            await self._set_vector_status(source, status, error)

    async def drop_vectors(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> bool:
        """Remove the vectors of a source's chunks from a campaign's collection (a rebase's dropped copies)."""
        return await self._drop_vectors(campaign_id, source_id, chunk_ids)

    async def remove_file_if_unused(self, file_hash: str) -> bool:
        """Delete a stored copy no source of any campaign refers to any more (after a branch is deleted)."""
        return await self._remove_file_if_unused(file_hash)

    def read_original(self, source: SourceInfo) -> bytes:
        """Return the raw bytes of a source's current version, as imported."""
        return (self.data_dir / "sources" / source.file_hash).read_bytes()

    # -- vectors -----------------------------------------------------------------------------------

    def _index_metadata(self) -> dict[str, str | int]:
        assert self.embedder is not None
        return {
            "embedding_model": self.embedder.model_name,
            "embedding_model_version": self.embedder.model_version,
            "embedding_dimensions": self.embedder.dimensions,
            "embedding_views": VIEWS_VERSION,
            "chunking_version": CHUNKING_VERSION,
        }

    async def _embed(
        self,
        campaign_id: int,
        items: Sequence[_EmbedItem],
        filename: str,
        progress: ProgressCallback | None,
    ) -> tuple[VectorStatus, str | None]:
        """Embed the views of chunks and add them to the campaign's collection; return the status and error.

        Called after the chunks are committed and outside the writer: embedding is the slow part of an import.
        """
        if self.vectors is None or self.embedder is None:
            return VectorStatus.DISABLED, None
        embedder, vectors = self.embedder, self.vectors
        total = len(items)
        try:
            metadata = await asyncio.to_thread(self._index_metadata)
            await self._record_index_state(campaign_id, metadata)
            for start in range(0, total, EMBED_BATCH):
                batch = items[start : start + EMBED_BATCH]
                texts = [prose_view(i.heading_path, i.text) for i in batch]
                texts += [title_view(i.heading_path, i.text[:200]) for i in batch]
                array = np.asarray(await asyncio.to_thread(embedder.embed_documents, texts), dtype=np.float32)
                await vectors.add(
                    campaign_id,
                    [i.chunk_id for i in batch] * 2,
                    [i.source_id for i in batch] * 2,
                    array,
                    views=["p"] * len(batch) + ["t"] * len(batch),
                    metadata=metadata,
                )
                await _report(
                    progress,
                    ImportProgress(
                        filename=filename, stage=ImportStage.EMBEDDING, done=start + len(batch), total=total
                    ),
                )
        except Exception as error:  # the import stands; lexical search works; reindex repairs
            log.warning("semantic indexing in campaign %s failed: %s", campaign_id, error)
            return VectorStatus.FAILED, _error_text(error)
        return VectorStatus.INDEXED, None

    async def _drop_vectors(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> bool:
        if self.vectors is None or not chunk_ids:
            return self.vectors is not None
        try:
            await self.vectors.delete(campaign_id, source_id, chunk_ids)
        except VectorIndexError as error:  # orphans are harmless: every hit is checked against the database
            log.warning("could not remove %d vectors of campaign %s: %s", len(chunk_ids), campaign_id, error)
            return False
        return True

    async def _record_index_state(self, campaign_id: int, metadata: dict[str, str | int]) -> None:
        async def work(session: AsyncSession) -> None:
            row = (
                await session.execute(
                    select(KnowledgeIndexStateRow).where(KnowledgeIndexStateRow.campaign_id == campaign_id)
                )
            ).scalar_one_or_none()
            values = {
                "collection": collection_name(campaign_id),
                "embedding_model": str(metadata["embedding_model"]),
                "embedding_model_version": str(metadata["embedding_model_version"]),
                "embedding_dimensions": int(metadata["embedding_dimensions"]),
                "embedding_views": str(metadata["embedding_views"]),
                "chunking_version": str(metadata["chunking_version"]),
            }
            if row is None:
                session.add(KnowledgeIndexStateRow(campaign_id=campaign_id, **values))
            elif any(getattr(row, key) != value for key, value in values.items()):
                # Vectors made another way are not comparable: flag the campaign's other sources stale.
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated_at = utc_now()
                await session.execute(
                    update(KnowledgeSourceRow)
                    .where(
                        KnowledgeSourceRow.campaign_id == campaign_id,
                        KnowledgeSourceRow.vector_status == VectorStatus.INDEXED.value,
                    )
                    .values(vector_status=VectorStatus.STALE.value)
                )

        await self.db.run(work)
        self.retriever.forget_index_state(campaign_id)

    async def _set_vector_status(
        self, source: SourceInfo, status: VectorStatus, error: str | None
    ) -> SourceInfo:
        async def work(session: AsyncSession) -> SourceInfo:
            row = await session.get(KnowledgeSourceRow, source.id)
            if row is None:  # deleted meanwhile
                return source.model_copy(update={"vector_status": status, "vector_error": error})
            if row.version == source.version:
                row.vector_status = status.value
                row.vector_error = error
            await session.flush()
            return source_info(row)

        return await self.db.run(work)

    # -- inspect and manage ------------------------------------------------------------------------

    async def list_sources(self, campaign_id: int, *, viewer: Viewer = Viewer.GM) -> list[SourceInfo]:
        """Return the sources a campaign sees (a player: only the ones that are not hidden), oldest first."""
        async with self.db.session() as session:
            sources = await campaign_sources(session, campaign_id)
        return [s for s in sources if may_see(s, viewer)]

    async def get_source(
        self, campaign_id: int, source_id: int, *, viewer: Viewer = Viewer.GM, chunk_limit: int = 50
    ) -> SourceDetail:
        """Return a source, its versions and its first chunks; `NotFound` if the viewer may not see it."""
        async with self.db.session() as session:
            source = await self._visible_source(session, campaign_id, source_id, viewer)
            versions = (
                await session.execute(
                    select(KnowledgeSourceVersionRow)
                    .where(KnowledgeSourceVersionRow.source_id == source_id)
                    .order_by(KnowledgeSourceVersionRow.version)
                )
            ).scalars()
            chunks = (
                await session.execute(
                    select(KnowledgeChunkRow)
                    .where(KnowledgeChunkRow.source_id == source_id)
                    .order_by(KnowledgeChunkRow.chunk_index)
                    .limit(chunk_limit)
                )
            ).scalars()
            return SourceDetail(
                source=source,
                versions=[version_info(v) for v in versions],
                chunks=[chunk_info(c) for c in chunks],
            )

    async def chunks(
        self, campaign_id: int, source_id: int, *, viewer: Viewer = Viewer.GM
    ) -> list[ChunkInfo]:
        """Return every chunk of a source, in order."""
        async with self.db.session() as session:
            await self._visible_source(session, campaign_id, source_id, viewer)
            rows = (
                await session.execute(
                    select(KnowledgeChunkRow)
                    .where(KnowledgeChunkRow.source_id == source_id)
                    .order_by(KnowledgeChunkRow.chunk_index)
                )
            ).scalars()
            return [chunk_info(r) for r in rows]

    @staticmethod
    async def _visible_source(
        session: AsyncSession, campaign_id: int, source_id: int, viewer: Viewer
    ) -> SourceInfo:
        for source in await campaign_sources(session, campaign_id):
            if source.id == source_id and may_see(source, viewer):
                return source
        raise NotFound(f"There is no knowledge source #{source_id} in this campaign.")

    async def _own_row(self, session: AsyncSession, campaign_id: int, source_id: int) -> KnowledgeSourceRow:
        row = await session.get(KnowledgeSourceRow, source_id)
        if row is None or row.campaign_id != campaign_id:
            inherited = row is not None and row.campaign_id in {
                s.campaign_id for s in await campaign_sources(session, campaign_id) if s.id == source_id
            }
            if inherited:
                raise InvalidInput(
                    f"Source #{source_id} belongs to the campaign this branch was forked from; change it there."
                )
            raise NotFound(f"There is no knowledge source #{source_id} in this campaign.")
        return row

    async def set_source(
        self,
        campaign_id: int,
        source_id: int,
        *,
        knowledge_class: KnowledgeClass | None = None,
        hidden: bool | None = None,
        tags: Sequence[str] | None = None,
        always_include: bool | None = None,
        title: str | None = None,
        notes: str | None = None,
    ) -> SourceInfo:
        """Change a source's class, visibility, tags, always-include flag, title or notes (None: unchanged)."""
        clean = clean_tags(tags)

        async def work(session: AsyncSession) -> SourceInfo:
            row = await self._own_row(session, campaign_id, source_id)
            if knowledge_class is not None:
                row.knowledge_class = knowledge_class.value
            if hidden is not None:
                row.visibility = (SourceVisibility.HIDDEN if hidden else SourceVisibility.NORMAL).value
            if always_include is not None:
                row.always_include = always_include
            if row.always_include and row.knowledge_class != KnowledgeClass.CANON:
                if always_include:
                    raise InvalidInput(
                        "Only Canon sources can be always included; set its class to canon first."
                    )
                row.always_include = False  # a source moved out of Canon stops being always included
            if clean is not None:
                row.tags = clean
                await session.execute(
                    update(KnowledgeChunkRow)
                    .where(KnowledgeChunkRow.source_id == source_id)
                    .values(tags=clean)
                )
            if title is not None and title.strip():
                row.title = " ".join(title.split())[:200]
            if notes is not None:
                row.notes = notes.strip() or None
            row.updated_at = utc_now()
            await session.flush()
            return source_info(row)

        return await self.db.run(work)

    async def set_enabled(self, campaign_id: int, source_id: int, enabled: bool) -> SourceInfo:
        """Enable or disable a source: a disabled source stays stored but is never retrieved."""

        async def work(session: AsyncSession) -> SourceInfo:
            row = await self._own_row(session, campaign_id, source_id)
            row.enabled = enabled
            row.updated_at = utc_now()
            await session.flush()
            return source_info(row)

        return await self.db.run(work)

    async def enable_source(self, campaign_id: int, source_id: int) -> SourceInfo:
        """Make a disabled source retrievable again."""
        return await self.set_enabled(campaign_id, source_id, True)

    async def disable_source(self, campaign_id: int, source_id: int) -> SourceInfo:
        """Keep a source but stop retrieving it."""
        return await self.set_enabled(campaign_id, source_id, False)

    async def delete_source(self, campaign_id: int, source_id: int) -> DeleteReport:
        """Delete a source, its versions, chunks, full-text rows and vectors (and its stored copy if unused).

        Answers already given keep the text they showed: retrieval records store it.
        """

        async def work(session: AsyncSession) -> tuple[str, str, list[int], list[PinnedCopy]]:
            row = await self._own_row(session, campaign_id, source_id)
            await self._refuse_unpinning(session, campaign_id, row)
            # A branch that inherits it keeps it: its own copy, as it stands, before the rows go.
            pinned = await pin_for_branches(session, row)
            title, file_hash = row.title, row.file_hash
            session.expunge(row)
            ids, _ = await delete_source_rows(session, source_id)
            await session.flush()
            return title, file_hash, ids, pinned

        title, file_hash, chunk_ids, pinned = await self.db.run(work)
        await self._embed_pinned(pinned, title)
        dropped = await self._drop_vectors(campaign_id, source_id, chunk_ids)
        removed = await self._remove_file_if_unused(file_hash)
        return DeleteReport(
            source_id=source_id,
            title=title,
            chunks_removed=len(chunk_ids),
            vectors_removed=dropped,
            file_removed=removed,
        )

    @staticmethod
    async def _refuse_unpinning(session: AsyncSession, campaign_id: int, row: KnowledgeSourceRow) -> None:
        """Refuse deleting a branch's copy of an inherited source that would bring the parent's newer one in.

        The copy is the source as the branch had it at its fork; without it the branch would read the version
        its parent has now, which the branch's story never saw. Disabling the copy, or a rebase, says which.
        """
        campaign = await get_campaign(session, campaign_id)
        if pinned_sources(campaign).get(row.id) != row.content_hash:
            return
        steps = await lineage(session, campaign_id)
        if any(s.filename == row.filename for s in await lineage_sources(session, steps[1:])):
            raise Conflict(
                f"“{row.filename}” is this branch's copy of the source as it was at the fork; its parent has "
                "changed it since, and deleting the copy would bring the parent's version in. Disable it "
                "instead, or rebase the branch to take the parent's version."
            )

    # -- reindex -----------------------------------------------------------------------------------

    async def reindex(
        self, campaign_id: int, *, rechunk: bool = False, progress: ProgressCallback | None = None
    ) -> ReindexReport:
        """Rebuild every derived index of a campaign's own sources without touching the sources.

        Sources chunked by an older chunker (or all, with `rechunk`) are re-chunked from their stored copies;
        the full-text index is rebuilt; the campaign's vector collection is dropped and re-embedded.
        """
        started = time.perf_counter()
        async with self.db.session() as session:
            await get_campaign(session, campaign_id)
            rows = (
                await session.execute(
                    select(KnowledgeSourceRow)
                    .where(KnowledgeSourceRow.campaign_id == campaign_id)
                    .order_by(KnowledgeSourceRow.id)
                )
            ).scalars()
            sources = [source_info(r) for r in rows]

        # The full-text index first: its delete triggers need it to match the chunks before any is replaced.
        async def rebuild(session: AsyncSession) -> None:
            await fulltext.rebuild(session)

        await self.db.run(rebuild)
        rechunked = 0
        for source in sources:
            if (
                rechunk
                or source.chunking_version != CHUNKING_VERSION
                or source.parser_version != PARSER_VERSION
            ):
                await self._rechunk(source)
                rechunked += 1

        async with self.db.session() as session:
            chunk_rows = (
                await session.execute(
                    select(
                        KnowledgeChunkRow.id,
                        KnowledgeChunkRow.source_id,
                        KnowledgeChunkRow.heading_path,
                        KnowledgeChunkRow.text,
                    )
                    .where(KnowledgeChunkRow.campaign_id == campaign_id)
                    .order_by(KnowledgeChunkRow.id)
                )
            ).all()
        items = [
            _EmbedItem(chunk_id=cid, source_id=sid, heading_path=list(path or []), text=text)
            for cid, sid, path, text in chunk_rows
        ]
        vectors = 0
        status: VectorStatus
        error: str | None
        if self.vectors is not None and self.embedder is not None:
            try:
                await self.vectors.reset(campaign_id)
            except VectorIndexError as failure:
                status, error = VectorStatus.FAILED, _error_text(failure)
            else:
                status, error = await self._embed(campaign_id, items, "(reindex)", progress)
                vectors = len(items) if status == VectorStatus.INDEXED else 0
        else:
            status, error = VectorStatus.DISABLED, None

        async def mark(session: AsyncSession) -> None:
            await session.execute(
                update(KnowledgeSourceRow)
                .where(KnowledgeSourceRow.campaign_id == campaign_id)
                .values(vector_status=status.value, vector_error=error)
            )

        await self.db.run(mark)
        return ReindexReport(
            campaign_id=campaign_id,
            sources=len(sources),
            chunks=len(chunk_rows),
            rechunked_sources=rechunked,
            vectors=vectors,
            vector_status=status,
            vector_error=error,
            seconds=time.perf_counter() - started,
        )

    async def _rechunk(self, source: SourceInfo) -> None:
        data = await asyncio.to_thread(self.read_original, source)
        text = unicodedata.normalize("NFC", decode_strict(data, source.filename).removeprefix("\ufeff"))
        chunks = await asyncio.to_thread(chunk_markdown, text, source.title, self.chunking_options())

        async def work(session: AsyncSession) -> None:
            row = await session.get(KnowledgeSourceRow, source.id)
            if row is None:
                return
            await session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source.id))
            await _insert_chunks(
                session, _chunk_rows(row.campaign_id, row.id, row.version, chunks, row.tags or [])
            )
            row.chunking_version = CHUNKING_VERSION
            row.parser_version = PARSER_VERSION
            row.chunk_count = len(chunks)
            row.token_count = sum(c.token_count for c in chunks)
            await session.execute(
                update(KnowledgeSourceVersionRow)
                .where(
                    KnowledgeSourceVersionRow.source_id == source.id,
                    KnowledgeSourceVersionRow.version == row.version,
                )
                .values(
                    chunking_version=CHUNKING_VERSION, parser_version=PARSER_VERSION, chunk_count=len(chunks)
                )
            )
            await session.flush()

        await self.db.run(work)

    # -- ask ---------------------------------------------------------------------------------------

    async def ask(
        self,
        campaign_id: int,
        question: str,
        *,
        viewer: Viewer = Viewer.PLAYER,
        limit: int = 5,
        config: SearchConfig | str = "default",
        record: bool = True,
        asker_id: int | None = None,
    ) -> Answer:
        """Answer a lore question from the campaign's sources and canon graph, for a player or the GM.

        Players never get hidden sources or GM-only canon; the GM gets them marked hidden. With `record`, the
        answer is stored (with the exact text shown) for the "Why these?" inspector, and each source used
        counts one more use.
        """
        question = " ".join(question.split())
        if not question:
            raise InvalidInput("Ask a question, for example `/lore ask who rules Westhaven?`.")
        if len(question) > 1000:
            raise InvalidInput("A lore question is at most 1,000 characters.")
        if not 1 <= limit <= 25:
            raise InvalidInput("Ask for 1 to 25 results.")
        search = preset(config) if isinstance(config, str) else config
        answer = await self.retriever.search(campaign_id, question, viewer=viewer, limit=limit, config=search)
        if record:
            retrieval_id = await self._record(answer, search.name, asker_id)
            answer = answer.model_copy(update={"retrieval_id": retrieval_id})
        return answer

    async def _record(self, answer: Answer, preset_name: str, asker_id: int | None) -> int:
        used = sorted({r.source_id for r in answer.results if r.source_id is not None})
        now = utc_now()

        async def work(session: AsyncSession) -> int:
            row = KnowledgeRetrievalRow(
                campaign_id=answer.campaign_id,
                viewer=answer.viewer,
                asker_id=asker_id,
                question=answer.question,
                preset=preset_name,
                results=[r.model_dump(mode="json") for r in answer.results],
                canon_facts=[f.model_dump(mode="json") for f in answer.canon_facts],
                trace=answer.trace.model_dump(mode="json"),
                created_at=now,
            )
            session.add(row)
            if used:
                # Only the campaign's own sources count a use: a branch asking never writes to its parent.
                await session.execute(
                    update(KnowledgeSourceRow)
                    .where(
                        KnowledgeSourceRow.id.in_(used), KnowledgeSourceRow.campaign_id == answer.campaign_id
                    )
                    .values(times_used=KnowledgeSourceRow.times_used + 1, last_used_at=now)
                )
            await session.flush()
            return row.id

        # Urgent: the answer waits for this short insert, and must not queue behind long commands.
        return await self.db.run(work, urgent=True)

    async def get_retrieval(self, campaign_id: int, retrieval_id: int, *, viewer: Viewer) -> RetrievalRecord:
        """Return a stored answer for the "Why these?" inspector (a player never sees its hidden parts)."""
        async with self.db.session() as session:
            row = await session.get(KnowledgeRetrievalRow, retrieval_id)
            if row is None or row.campaign_id != campaign_id:
                raise NotFound(f"There is no lore answer #{retrieval_id} in this campaign.")
            results = [LoreResult.model_validate(r) for r in row.results]
            facts = [CanonFact.model_validate(f) for f in row.canon_facts]
            trace = RetrievalTrace.model_validate(row.trace)
            record = RetrievalRecord(
                id=row.id,
                campaign_id=row.campaign_id,
                viewer=row.viewer,
                asker_id=row.asker_id,
                question=row.question,
                preset=row.preset,
                results=results,
                canon_facts=facts,
                trace=trace,
                created_at=row.created_at,
            )
        if viewer == Viewer.GM:
            return record
        visible_facts = [f for f in facts if not f.hidden]
        # An entity match reads "window → name (score)"; the window is the fact's `matched`.
        windows = {f.matched for f in visible_facts}
        stripped: dict[str, Any] = {
            "candidates": [c for c in trace.candidates if not c.hidden],
            "entity_matches": [m for m in trace.entity_matches if m.split(" → ", 1)[0] in windows],
        }
        if record.viewer == Viewer.GM.value:
            # The GM's search ran over hidden sources too: its typo corrections (in the warnings and the words
            # searched) may be words only they contain, and its source counts include them.
            stripped.update(warnings=[], lexical_query=None, allowed_sources=0, blocked_sources=0)
        return record.model_copy(
            update={
                "results": [r for r in results if not r.hidden],
                "canon_facts": visible_facts,
                "trace": trace.model_copy(update=stripped),
            }
        )

    async def index_status(self, campaign_id: int) -> dict[str, Any]:
        """Return the state of a campaign's indexes: sources by vector status, and the vector index metadata."""
        async with self.db.session() as session:
            await get_campaign(session, campaign_id)
            counts = dict(
                (
                    await session.execute(
                        select(KnowledgeSourceRow.vector_status, func.count())
                        .where(KnowledgeSourceRow.campaign_id == campaign_id)
                        .group_by(KnowledgeSourceRow.vector_status)
                    )
                ).all()
            )
            chunks = await session.scalar(
                select(func.count())
                .select_from(KnowledgeChunkRow)
                .where(KnowledgeChunkRow.campaign_id == campaign_id)
            )
        described: dict[str, Any] | None = None
        error: str | None = None
        if self.vectors is not None:
            try:
                described = await self.vectors.describe(campaign_id)
            except VectorIndexError as failure:
                error = str(failure)
        return {
            "campaign_id": campaign_id,
            "chunks": chunks or 0,
            "sources_by_vector_status": counts,
            "vector_index": described,
            "vector_index_error": error,
            "semantic_enabled": self.semantic_enabled,
        }


def _error_text(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return str(message)[:500]
