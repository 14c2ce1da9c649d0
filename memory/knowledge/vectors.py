"""The semantic half of imported knowledge: chunk vectors in the campaign's collection, and their bookkeeping.

Embedding runs after the chunks are committed and outside the database writer: it is the slow part of an import.
If it is off or fails, the source stays imported and searchable by words; its `vector_status` says `disabled` or
`failed` (with the error), and a reindex repairs it. The vector index only suggests: every hit is checked
against the database, so a vector left behind is harmless.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from canon import offload
from canon.storage import Database
from memory.chunking import CHUNKING_VERSION
from memory.embed_text import VIEWS, VIEWS_VERSION, names_view, prose_view, title_view
from memory.embedding import Embedder, MiniLMEmbedder
from memory.knowledge.index_state import (
    EmbedItem,
    chunks_to_embed,
    record_index_state,
    set_vector_status,
)
from memory.knowledge.pinning import PinnedCopy
from memory.knowledge.progress import report_progress
from memory.knowledge.repository import source_info_by_id
from memory.knowledge.retrieval import Retriever
from memory.knowledge.source_models import (
    ImportProgress,
    ImportStage,
    ProgressCallback,
    SourceInfo,
    VectorStatus,
)
from memory.vector_index import ChromaVectorIndex, VectorIndex, VectorIndexError, collection_name

log = logging.getLogger(__name__)

#: Chunks embedded per call of the embedder (three views each).
EMBED_BATCH = 128
#: Vectors written to Chroma in one call (`bench.loop_lag`: a longer write held the event loop too long).
VECTOR_WRITE_BATCH = 64


def _views(batch: Sequence[EmbedItem], views: Sequence[str] = VIEWS) -> list[str]:
    """Return a batch's views, view by view: prose, title, names (what is embedded, in that order)."""
    texts: list[str] = []
    for view in views:
        if view == "p":
            texts += [prose_view(i.heading_path, i.text) for i in batch]
        elif view == "t":
            texts += [title_view(i.heading_path, i.text[:200]) for i in batch]
        else:
            texts += [names_view(i.heading_path, i.text) for i in batch]
    return texts


def embed_views(embedder: Embedder, batch: Sequence[EmbedItem], views: Sequence[str] = VIEWS) -> np.ndarray:
    """Return the vectors of a batch's views (`_views`), one row each."""
    return np.asarray(embedder.embed_documents(_views(batch, views)), dtype=np.float32)


def error_text(error: BaseException) -> str:
    """Return an error as stored in `vector_error` (its message, at most 500 characters)."""
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return str(message)[:500]


class ChunkVectors:
    """Adds, drops and accounts for the vectors of a campaign's chunks.

    `vectors` and `embedder` may be None (embedding switched off); then every source is `disabled`, and
    everything still works by words alone. The retriever is told when what it caches changes.
    """

    def __init__(
        self, db: Database, *, vectors: VectorIndex | None, embedder: Embedder | None, retriever: Retriever
    ) -> None:
        self.db = db
        self.vectors = vectors
        self.embedder = embedder
        self.retriever = retriever

    @property
    def enabled(self) -> bool:
        """Return whether semantic indexing is configured (an embedder and a vector index)."""
        return self.vectors is not None and self.embedder is not None

    def index_metadata(self) -> dict[str, str | int]:
        """Return what vectors made now are made with (the model's files are read the first time)."""
        assert self.embedder is not None
        return {
            "embedding_model": self.embedder.model_name,
            "embedding_model_version": self.embedder.model_version,
            "embedding_dimensions": self.embedder.dimensions,
            "embedding_views": VIEWS_VERSION,
            "chunking_version": CHUNKING_VERSION,
        }

    async def embed(
        self,
        campaign_id: int,
        items: Sequence[EmbedItem],
        filename: str,
        progress: ProgressCallback | None,
        *,
        whole: bool = False,
    ) -> tuple[VectorStatus, str | None]:
        """Embed the views of chunks and add them to the campaign's collection; return the status and error.

        Called after the chunks are committed and outside the writer: embedding is the slow part of an import.
        `whole`: these are all the campaign's vectors, made again (a reindex).
        """
        if self.vectors is None or self.embedder is None:
            return VectorStatus.DISABLED, None
        embedder = self.embedder
        total = len(items)
        try:
            metadata = await asyncio.to_thread(self.index_metadata)
            first_new = None if whole or not items else min(i.chunk_id for i in items)
            await self.record_index_state(campaign_id, metadata, first_new=first_new)
            for start in range(0, total, EMBED_BATCH):
                batch = items[start : start + EMBED_BATCH]
                # The views' texts (token counting) and their vectors, in a worker thread: on the event loop,
                # a batch's views alone held it for a tenth of a second.
                if offload.enabled() and isinstance(embedder, MiniLMEmbedder):
                    # In a worker process: in a thread, its Python held the interpreter in turns, and a turn
                    # taken by a thread the system then kept waiting for a core kept the loop waiting too.
                    await offload.warm()
                    array = await offload.in_process(embed_views, embedder, batch)
                elif offload.enabled():
                    array = await offload.in_background(embed_views, embedder, batch)
                else:  # as before `canon.offload`: the texts on the loop (the baseline of bench.loop_lag)
                    texts = _views(batch)
                    array = np.asarray(
                        await asyncio.to_thread(embedder.embed_documents, texts), dtype=np.float32
                    )
                await self.write(campaign_id, batch, array, VIEWS, metadata)
                await report_progress(
                    progress,
                    ImportProgress(
                        filename=filename, stage=ImportStage.EMBEDDING, done=start + len(batch), total=total
                    ),
                )
        except Exception as error:  # the import stands; lexical search works; reindex repairs
            log.warning("semantic indexing in campaign %s failed: %s", campaign_id, error)
            return VectorStatus.FAILED, error_text(error)
        return VectorStatus.INDEXED, None

    async def write(
        self,
        campaign_id: int,
        batch: Sequence[EmbedItem],
        array: np.ndarray,
        views: Sequence[str],
        metadata: dict[str, str | int],
    ) -> None:
        """Add a batch's vectors (`embed_views`' rows: view by view) to the campaign's collection."""
        assert self.vectors is not None
        chunk_ids = [i.chunk_id for i in batch] * len(views)
        source_ids = [i.source_id for i in batch] * len(views)
        kinds = [view for view in views for _ in batch]
        # Chroma's writes hold the interpreter while they index: small writes let the loop in between.
        for at in range(0, len(chunk_ids), VECTOR_WRITE_BATCH):
            part = slice(at, at + VECTOR_WRITE_BATCH)
            await self.vectors.add(
                campaign_id,
                chunk_ids[part],
                source_ids[part],
                array[part],
                views=kinds[part],
                metadata=metadata,
            )

    async def drop(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> bool:
        """Remove the vectors of a source's chunks from a campaign's collection; return whether that worked."""
        if self.vectors is None or not chunk_ids:
            return self.vectors is not None
        try:
            await self.vectors.delete(campaign_id, source_id, chunk_ids)
        except VectorIndexError as error:  # orphans are harmless: every hit is checked against the database
            log.warning("could not remove %d vectors of campaign %s: %s", len(chunk_ids), campaign_id, error)
            return False
        return True

    async def record_index_state(
        self, campaign_id: int, metadata: dict[str, str | int], *, first_new: int | None = None
    ) -> None:
        """Record what the campaign's vectors are made with (a change marks older vectors stale)."""
        if isinstance(self.vectors, ChromaVectorIndex):
            # The collection is named by the installation, learnt on the index's first call: a name read
            # before it is the unowned one, and recording it would mark every earlier source stale.
            await self.vectors.ready()
            collection = self.vectors.name(campaign_id)
        else:
            collection = collection_name(campaign_id)
        values: dict[str, str | int] = {
            "collection": collection,
            "embedding_model": str(metadata["embedding_model"]),
            "embedding_model_version": str(metadata["embedding_model_version"]),
            "embedding_dimensions": int(metadata["embedding_dimensions"]),
            "embedding_views": str(metadata["embedding_views"]),
            "chunking_version": str(metadata["chunking_version"]),
        }

        async def work(session: AsyncSession) -> None:
            await record_index_state(session, campaign_id, values, first_new=first_new)

        await self.db.run(work)
        self.retriever.forget_index_state(campaign_id)

    async def set_status(self, source: SourceInfo, status: VectorStatus, error: str | None) -> SourceInfo:
        """Record a source's vector status and error; return the source as it now is."""
        return await self.db.run(lambda session: set_vector_status(session, source, status, error))

    async def embed_pinned(self, copies: Sequence[PinnedCopy], filename: str) -> None:
        """Add the vectors of branches' copies of a source to their collections (see `pin_for_branches`)."""
        for copy in copies:
            for campaign_id in copy.restricted_in:  # their cached lineage predates the copy
                self.retriever.forget_campaign(campaign_id)
            async with self.db.session() as session:
                items = await chunks_to_embed(session, source_id=copy.source_id)
                source = await source_info_by_id(session, copy.source_id)
            if source is None:  # deleted meanwhile
                continue
            status, error = await self.embed(copy.campaign_id, items, filename, None)
            await self.set_status(source, status, error)
