"""Importing a .md/.txt file into a campaign's knowledge, step by step (`Importer.import_bytes`):

1. Validate: a .md/.txt name, not empty, not over the size limit, strict UTF-8 (the error names the byte offset
   of the first bad byte), no NUL byte. Nothing is written before this passes.
2. Normalise: the text is NFC-normalised for chunking, indexing and duplicate detection (`content_hash` is the
   SHA-256 of the NFC text); the raw bytes are kept as they are in the vault under their SHA-256 (`file_hash`,
   `memory.vault`), BEFORE any row names them: what `/lore source`, a later re-chunk and an export read.
3. Decide: identical content already in the campaign -> reported as a duplicate of that source, nothing indexed.
   The same file name with other content -> a new version of that source: the old version's metadata stays in
   `knowledge_source_versions`, its chunks are replaced. A branch that inherits the source keeps the old version:
   it gets its own copy first, in the same transaction (`memory.knowledge.pinning.pin_for_branches`; so does a
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
import re
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon import offload
from canon.campaigns import get_campaign
from canon.errors import InvalidInput
from canon.storage import Database
from canon.wording.fact_names import clip_words
from config.settings import LoreSettings
from memory.books import Book, book_kind
from memory.chunking import Chunk, ChunkingOptions, chunk_markdown
from memory.chunking.secret import labelled_paragraphs
from memory.knowledge.book_text import placed, read_source_text
from memory.knowledge.files import (
    FileStore,
    check_suffix,
    clean_filename,
    clean_tags,
    detect_title,
    size_text,
)
from memory.knowledge.import_rows import ImportPlan, WrittenImport, write_import
from memory.knowledge.index_state import EmbedItem
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.progress import report_progress
from memory.knowledge.repository import same_text_or_name, source_info
from memory.knowledge.source_models import (
    ImportOutcome,
    ImportProgress,
    ImportReport,
    ImportStage,
    ProgressCallback,
    SourceInfo,
    VectorStatus,
)
from memory.knowledge.vectors import ChunkVectors

#: Imports of this many chunks or more write on a loop of their own (see `Importer._write`).
APART_CHUNKS = 300
_ALWAYS_CANON = "Only Canon sources can be always included; use --class canon."
_NO_SECRETS = (
    "{name} marks sections as GM-only. A shared library source is read by the players of every campaign it "
    "is attached to, so it holds no secrets: remove the markers, or import the file into a campaign instead."
)


def chunking_options(settings: LoreSettings) -> ChunkingOptions:
    """Return the chunk sizes from the settings."""
    minimum = min(settings.chunk_min_tokens, settings.chunk_max_tokens)
    return ChunkingOptions(
        min_tokens=minimum, max_tokens=settings.chunk_max_tokens, overlap_tokens=settings.chunk_overlap_tokens
    )


class Importer:
    """Imports files into a campaign's knowledge; see the module docstring for every step."""

    def __init__(
        self, db: Database, *, settings: LoreSettings, files: FileStore, vectors: ChunkVectors
    ) -> None:
        self.db = db
        self.settings = settings
        self.files = files
        self.vectors = vectors

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
        ocr: bool = False,
    ) -> ImportReport:
        """Import one file from disk (read in place; the copy kept is made by `import_bytes`)."""
        name = filename or path.name
        limit = self.settings.max_book_bytes if book_kind(name) else self.settings.max_file_bytes
        try:
            size = (await asyncio.to_thread(path.stat)).st_size
        except OSError as error:
            raise InvalidInput(f"{name} cannot be read: {error.strerror or error}.") from None
        if size > limit:
            raise InvalidInput(f"{name} is {size_text(size)}; the import limit is {size_text(limit)}.")
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
            ocr=ocr,
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
        section_choices: Sequence[dict[str, Any]] | None = None,
        public_only: bool = False,
        ocr: bool = False,
    ) -> ImportReport:
        """Import one file's bytes into a campaign (see the module docstring); `ocr` reads a scan's pages by OCR.

        Options left None keep an updated source's settings (a new one: Reference, visible, untagged, no GM section
        choices; `always_include=True` alone makes it Canon); `public_only` (a shared library's) refuses GM-only
        sections. Raises `InvalidInput` or `NotFound` (campaign); then nothing is written.
        """
        started = time.perf_counter()
        name, _ = self._validated(filename, data)
        text, book = await self._text(name, data, ocr=ocr)
        mime = book.mime if book is not None else check_suffix(name)
        clean = clean_tags(tags)
        if always_include and knowledge_class is None:
            knowledge_class = KnowledgeClass.CANON
        if always_include and knowledge_class not in (None, KnowledgeClass.CANON):
            raise InvalidInput(_ALWAYS_CANON)
        content_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        file_hash = hashlib.sha256(data).hexdigest()

        async with self.db.session() as session:
            await get_campaign(session, campaign_id)
            same, named = await same_text_or_name(session, campaign_id, content_hash, name)
            if same is not None:
                return _duplicate_report(name, source_info(same), started)
            existing = None if named is None else source_info(named)
        final_class = (
            knowledge_class or (existing.knowledge_class if existing else None) or KnowledgeClass.REFERENCE
        )
        if always_include and final_class != KnowledgeClass.CANON:
            raise InvalidInput(_ALWAYS_CANON)
        doc_title = (title or "").strip()[:200] or _book_title(book) or detect_title(text, name)
        doc_title = doc_title or (existing.title if existing else None) or name

        await report_progress(progress, ImportProgress(filename=name, stage=ImportStage.CHUNKING))
        kept = existing.section_choices if existing and section_choices is None else section_choices
        chunks = await self._chunks(name, text, doc_title, book, kept or [], public_only=public_only)

        stored_path, created_file = await asyncio.to_thread(self.files.store, data, file_hash)
        plan = ImportPlan(
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
            section_choices=list(section_choices) if section_choices is not None else None,
            ocr=ocr and book is not None and book.kind == "pdf",
        )
        stage = ImportProgress(filename=name, stage=ImportStage.STORING, total=len(chunks))
        await report_progress(progress, stage)
        written = await self._write(plan, chunks, created_file)
        if written.outcome == ImportOutcome.DUPLICATE:
            return _raced_duplicate_report(name, written, started)
        # A concurrent delete of another source with the same bytes may have removed the copy meanwhile.
        await asyncio.to_thread(self.files.store, data, file_hash)
        said = [*(book.warnings if book is not None else ()), *_labelled_in_the_open(chunks)]
        return await self._index(campaign_id, name, written, chunks, started, progress, said)

    async def _chunks(
        self,
        name: str,
        text: str,
        title: str,
        book: Book | None,
        choices: Sequence[dict[str, Any]],
        *,
        public_only: bool,
    ) -> list[Chunk]:
        """Return a file's chunks (the GM's sections applied, each placed on its page or chapter), or raise
        `InvalidInput` for none, or for a GM-only section in a file that must be public (a shared library's)."""
        options = chunking_options(self.settings)

        def chunked() -> list[Chunk]:
            return placed(chunk_markdown(text, title, options, choices=choices), book)

        chunks = await asyncio.to_thread(chunked)
        if not chunks:
            raise InvalidInput(f"{name} has no text to index.")
        if public_only and any(c.secret for c in chunks):
            raise InvalidInput(_NO_SECRETS.format(name=name))
        return chunks

    def _validated(self, filename: str, data: bytes) -> tuple[str, str]:
        """Return the stored name and MIME type of a file whose size is fine, or raise `InvalidInput`."""
        name = clean_filename(filename)
        mime = check_suffix(name)
        limit = self.settings.max_book_bytes if book_kind(name) else self.settings.max_file_bytes
        if len(data) > limit:
            raise InvalidInput(f"{name} is {size_text(len(data))}; the import limit is {size_text(limit)}.")
        if not data:
            raise InvalidInput(f"{name} is empty: there is nothing to import.")
        return name, mime

    async def _text(self, name: str, data: bytes, *, ocr: bool) -> tuple[str, Book | None]:
        """Return the text of a file (a book read off the loop) and the book, or raise `InvalidInput`."""
        text, book = await read_source_text(data, name, self.settings, ocr=ocr)
        if not text.strip():
            raise InvalidInput(f"{name} has no text (only blank space): there is nothing to import.")
        return text, book

    async def _write(self, plan: ImportPlan, chunks: Sequence[Chunk], created_file: bool) -> WrittenImport:
        """Write the import in one transaction; the stored copy it created goes if nothing refers to it.

        A large import writes on a loop of its own (`canon.offload.write_apart`): building and flushing a book's
        thousands of chunk rows held the bot's event loop for a tenth of a second and more (`bench.books`)."""
        if not self.vectors.enabled:  # nothing will embed the new version: written as it stays
            plan = plan.model_copy(update={"vector_status": VectorStatus.DISABLED})

        def work(session: AsyncSession) -> Awaitable[WrittenImport]:
            return write_import(session, plan, chunks)

        try:
            if len(chunks) >= APART_CHUNKS:
                written = await offload.write_apart(self.db, work)
            else:
                written = await self.db.run(work)
        except BaseException:
            if created_file:
                await self.files.remove_if_unused(plan.file_hash)
            raise
        if written.outcome == ImportOutcome.DUPLICATE and created_file:
            await self.files.remove_if_unused(plan.file_hash)
        return written

    async def _index(
        self,
        campaign_id: int,
        name: str,
        written: WrittenImport,
        chunks: Sequence[Chunk],
        started: float,
        progress: ProgressCallback | None,
        said: Sequence[str] = (),
    ) -> ImportReport:
        """Replace the old version's vectors by the new chunks' (and the branches' copies'); report."""
        items = [
            EmbedItem(
                chunk_id=cid, source_id=written.source.id, heading_path=list(c.heading_path), text=c.text
            )
            for cid, c in zip(written.chunk_ids, chunks, strict=True)
        ]
        await self.vectors.drop(campaign_id, written.source.id, written.old_chunk_ids)
        status, error = await self.vectors.embed(campaign_id, items, name, progress)
        source = written.source
        if (status, error) != (
            source.vector_status,
            source.vector_error,
        ):  # as written: no second transaction
            source = await self.vectors.set_status(source, status, error)
        # The branches' copies of the old version: in their own collections, once the import's are in.
        await self.vectors.embed_pinned(written.pinned, name)
        await report_progress(
            progress,
            ImportProgress(filename=name, stage=ImportStage.DONE, done=len(chunks), total=len(chunks)),
        )
        warnings = list(said)
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


def _labelled_in_the_open(chunks: Sequence[Chunk]) -> list[str]:
    """Return a warning for each paragraph a GM's label leads ("GM only: …", "Secret: …") in a section players
    may read: the label hides nothing, only a heading's marker does (`memory.chunking.secret`)."""
    found: dict[str, str] = {}
    for chunk in chunks:
        if chunk.secret:
            continue
        text = chunk.display_text or chunk.text
        for paragraph in labelled_paragraphs(text):
            # The heading nearest above it in the passage (small sections share one), else the passage's own.
            above = re.findall(r"(?m)^#{1,6}\s+(.+?)\s*$", text[: text.find(paragraph)])
            section = above[-1] if above else (chunk.heading_path[-1] if chunk.heading_path else "the top")
            found.setdefault(paragraph, section)
    return [
        f"“{clip_words(paragraph, 80)}” (under {section}) reads as a secret, but players may read its section: to keep "
        "it from them, add (GM only) to that section's heading, or move it under a heading that has it, and "
        "import the file again."
        for paragraph, section in found.items()
    ]


def _book_title(book: Book | None) -> str | None:
    """Return a book's own title (its metadata), unless it is a program's placeholder."""
    title = (book.title or "").strip() if book is not None else ""
    if (
        not title
        or title.lower().startswith(("microsoft word", "untitled"))
        or title.lower().endswith((".doc", ".docx", ".pdf", ".indd", ".tex"))
    ):
        return None
    return title[:200]


def _duplicate_report(name: str, source: SourceInfo, started: float) -> ImportReport:
    """Return the report of a file whose text the campaign already has (found before anything was written)."""
    return ImportReport(
        filename=name,
        outcome=ImportOutcome.DUPLICATE,
        source=source,
        duplicate_of=source.id,
        vector_status=source.vector_status,
        seconds=time.perf_counter() - started,
        warnings=[
            f"The same text is already imported as source #{source.id} ({source.filename}); nothing was indexed again."
        ],
    )


def _raced_duplicate_report(name: str, written: WrittenImport, started: float) -> ImportReport:
    """Return the report of a file whose text someone else imported while this import was chunking."""
    assert written.duplicate_of is not None
    return ImportReport(
        filename=name,
        outcome=ImportOutcome.DUPLICATE,
        source=written.source,
        duplicate_of=written.duplicate_of,
        seconds=time.perf_counter() - started,
        warnings=["The same text is already imported; nothing was indexed again."],
    )
