"""Rebuilding a campaign's derived indexes from its sources, and the state of those indexes.

Chunks, full-text rows and vectors are derived data: the stored copies of the files and the source rows are the
truth, so everything else can be rebuilt from them at any time (`Reindexer.reindex`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon import offload
from canon.campaigns import get_campaign
from canon.storage import Database
from config.settings import LoreSettings
from memory import fulltext
from memory.chunking import CHUNKING_VERSION, chunk_markdown
from memory.knowledge.book_text import placed, read_source_text
from memory.knowledge.files import FileStore, parser_is_current, read_with_ocr
from memory.knowledge.import_rows import replace_chunks
from memory.knowledge.importer import APART_CHUNKS, chunking_options
from memory.knowledge.index_state import (
    EmbedItem,
    chunks_to_embed,
    index_counts,
    set_campaign_vector_status,
)
from memory.knowledge.repository import own_sources
from memory.knowledge.source_models import (
    ProgressCallback,
    ReindexReport,
    SourceInfo,
    VectorStatus,
    ViewBuild,
)
from memory.knowledge.vectors import ChunkVectors, error_text
from memory.vector_index import VectorIndexError


class Reindexer:
    """Rebuilds a campaign's chunks, full-text index and vectors; reports their state."""

    def __init__(
        self,
        db: Database,
        *,
        settings: LoreSettings,
        files: FileStore,
        vectors: ChunkVectors,
        view_status: Callable[[int], Awaitable[ViewBuild | None]],
    ) -> None:
        self.db = db
        self.view_status = view_status
        self.settings = settings
        self.files = files
        self.vectors = vectors

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
            sources = await own_sources(session, campaign_id)

        # The full-text index first: its delete triggers need it to match the chunks before any is replaced.
        async def rebuild(session: AsyncSession) -> None:
            await fulltext.rebuild(session)

        await self.db.run(rebuild)
        rechunked = 0
        for source in sources:
            if (
                rechunk
                or source.chunking_version != CHUNKING_VERSION
                or not parser_is_current(source.parser_version)
            ):
                await self._rechunk(source)
                rechunked += 1

        async with self.db.session() as session:
            items = await chunks_to_embed(session, campaign_id=campaign_id)
        status, error = await self._revector(campaign_id, items, progress)
        await self.db.run(lambda session: set_campaign_vector_status(session, campaign_id, status, error))
        return ReindexReport(
            campaign_id=campaign_id,
            sources=len(sources),
            chunks=len(items),
            rechunked_sources=rechunked,
            vectors=len(items) if status == VectorStatus.INDEXED else 0,
            vector_status=status,
            vector_error=error,
            seconds=time.perf_counter() - started,
        )

    async def _rechunk(self, source: SourceInfo) -> None:
        """Chunk a source again from its stored copy, with this chunker, these settings and the GM's sections."""
        data = await asyncio.to_thread(self.files.read, source.file_hash)
        ocr = read_with_ocr(source.parser_version)
        text, book = await read_source_text(data, source.filename, self.settings, ocr=ocr)
        chunk = partial(chunk_markdown, choices=source.section_choices)
        chunks = await asyncio.to_thread(chunk, text, source.title, chunking_options(self.settings))
        chunks = await asyncio.to_thread(placed, chunks, book)
        if len(chunks) >= APART_CHUNKS:  # a book's thousands of rows: on a loop of their own (see `Importer`)
            await offload.write_apart(self.db, lambda session: replace_chunks(session, source.id, chunks))
        else:
            await self.db.run(lambda session: replace_chunks(session, source.id, chunks))

    async def rechunk_source(self, source: SourceInfo) -> SourceInfo:
        """Chunk one source again (its GM-only sections changed) and replace its vectors; return it as it is now."""
        async with self.db.session() as session:
            old = [item.chunk_id for item in await chunks_to_embed(session, source_id=source.id)]
        await self._rechunk(source)
        async with self.db.session() as session:
            items = await chunks_to_embed(session, source_id=source.id)
        await self.vectors.drop(source.campaign_id, source.id, old)
        status, error = await self.vectors.embed(source.campaign_id, items, source.filename, None)
        return await self.vectors.set_status(source, status, error)

    async def _revector(
        self, campaign_id: int, items: list[EmbedItem], progress: ProgressCallback | None
    ) -> tuple[VectorStatus, str | None]:
        """Drop the campaign's vector collection and embed its chunks again; return the status and error."""
        if self.vectors.vectors is None or not self.vectors.enabled:
            return VectorStatus.DISABLED, None
        try:
            await self.vectors.vectors.reset(campaign_id)
        except VectorIndexError as failure:
            return VectorStatus.FAILED, error_text(failure)
        return await self.vectors.embed(campaign_id, items, "(reindex)", progress, whole=True)

    async def index_status(self, campaign_id: int) -> dict[str, Any]:
        """Return the state of a campaign's indexes: sources by vector status, and the vector index metadata."""
        async with self.db.session() as session:
            await get_campaign(session, campaign_id)
            counts, chunks = await index_counts(session, campaign_id)
        described: dict[str, Any] | None = None
        error: str | None = None
        names = await self.view_status(campaign_id)
        if self.vectors.vectors is not None:
            try:
                described = await self.vectors.vectors.describe(campaign_id)
            except VectorIndexError as failure:
                error = str(failure)
        return {
            "campaign_id": campaign_id,
            "chunks": chunks,
            "sources_by_vector_status": counts,
            "vector_index": described,
            "vector_index_error": error,
            "semantic_enabled": self.vectors.enabled,
            "names_view": names.model_dump(mode="json") if names is not None else None,
        }
