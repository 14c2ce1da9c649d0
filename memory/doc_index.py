"""A Chroma index of small documents (NPC memories, scene summaries): one collection per campaign and kind.

The database holds the documents; this index only finds them (DESIGN rule 1) and can be rebuilt from the
rows at any time. Campaigns are isolated by collection (`{prefix}{campaign_id}`), never by a metadata filter
across campaigns; filters are used only inside one campaign's collection (one NPC's memories, one doc type).
Vectors are computed by the caller and passed in. The Chroma client is synchronous: every call runs in a
worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from pydantic import BaseModel, ConfigDict

from memory.chroma_client import ChromaCollections

if TYPE_CHECKING:
    from canon.storage import Database
    from memory.embedding import Embedder

__all__ = ["ChromaDocIndex", "DocHit", "DocIndex", "DocIndexError", "IndexedStore", "Metadata"]

log = logging.getLogger(__name__)

Metadata = Mapping[str, str | int | float | bool]
ADD_BATCH = 1024


class DocIndexError(Exception):
    """The index failed (unreachable server, corrupt files); recall falls back to the database."""


class DocHit(BaseModel):
    """One nearest document: its id, cosine distance (0 = same direction) and metadata."""

    model_config = ConfigDict(frozen=True)

    id: int
    distance: float
    metadata: dict[str, str | int | float | bool]

    @property
    def similarity(self) -> float:
        """Return the cosine similarity (1 - distance)."""
        return 1.0 - self.distance


@runtime_checkable
class DocIndex(Protocol):
    """Vectors of a campaign's documents of one kind."""

    async def upsert(
        self,
        campaign_id: int,
        ids: Sequence[int],
        vectors: Sequence[Sequence[float]],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Add or replace documents' vectors."""
        ...

    async def query(
        self,
        campaign_id: int,
        vector: Sequence[float],
        *,
        limit: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[DocHit]:
        """Return the `limit` nearest documents of a campaign matching `where` (Chroma's filter syntax)."""
        ...

    async def delete(self, campaign_id: int, ids: Sequence[int]) -> None:
        """Remove documents (missing ones are ignored)."""
        ...

    async def reset(self, campaign_id: int) -> None:
        """Drop every document of a campaign."""
        ...

    async def count(self, campaign_id: int) -> int:
        """Return how many documents a campaign has."""
        ...


class IndexedStore:
    """Documents kept in SQL and found by meaning through a `DocIndex` (NPC memories, scene moments)."""

    def __init__(self, db: Database, *, index: DocIndex | None, embedder: Embedder | None) -> None:
        self.db = db
        self.index = index
        self.embedder = embedder

    @property
    def semantic(self) -> bool:
        """Return whether the documents can be searched by meaning (an index and an embedder are set)."""
        return self.index is not None and self.embedder is not None

    async def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        assert self.embedder is not None
        return await asyncio.to_thread(self.embedder.embed_documents, list(texts))

    async def _put(
        self, campaign_id: int, ids: Sequence[int], texts: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        """Embed `texts` and add (or replace) them in the campaign's collection."""
        assert self.index is not None
        vectors = await self._embed(texts)
        await self.index.upsert(campaign_id, ids, vectors, metadatas)


class ChromaDocIndex(ChromaCollections):
    """`DocIndex` over Chroma: `PersistentClient(path)`, or `HttpClient(host, port)` when a host is set."""

    error = DocIndexError
    unopened = "the index at {where} cannot be opened ({error})"
    failed = "the {prefix} index failed to {what}: {error}"
    counted = "documents"

    async def upsert(
        self,
        campaign_id: int,
        ids: Sequence[int],
        vectors: Sequence[Sequence[float]],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Add or replace documents' vectors in the campaign's collection."""
        if not (len(ids) == len(vectors) == len(metadatas)):
            raise ValueError("ids, vectors and metadatas must have the same length")
        if not ids:
            return

        def work() -> None:
            collection = self._collection(campaign_id, create=True)
            assert collection is not None
            for start in range(0, len(ids), ADD_BATCH):
                end = start + ADD_BATCH
                embeddings: Any = [[float(x) for x in v] for v in vectors[start:end]]
                metas: Any = [dict(m) for m in metadatas[start:end]]
                collection.upsert(
                    ids=[str(i) for i in ids[start:end]], embeddings=embeddings, metadatas=metas
                )

        await self._call("add documents", work)

    async def query(
        self,
        campaign_id: int,
        vector: Sequence[float],
        *,
        limit: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[DocHit]:
        """Return the nearest documents of the campaign's collection (empty when it has none)."""
        if limit <= 0:
            return []

        def work() -> list[DocHit]:
            collection = self._collection(campaign_id, create=False)
            if collection is None:
                return []
            available = collection.count()
            if available == 0:
                return []
            query: Any = [[float(x) for x in vector]]
            found = collection.query(
                query_embeddings=query,
                n_results=min(limit, available),
                where=cast(Any, dict(where)) if where else None,
                include=cast(Any, ["distances", "metadatas"]),
            )
            ids = (found.get("ids") or [[]])[0]
            distances = (found.get("distances") or [[]])[0]
            metadatas = (found.get("metadatas") or [[]])[0]
            return [
                DocHit(id=int(i), distance=float(d), metadata=dict(m or {}))
                for i, d, m in zip(ids, distances, metadatas, strict=True)
            ]

        return cast(list[DocHit], await self._call("search", work))

    async def delete(self, campaign_id: int, ids: Sequence[int]) -> None:
        """Remove documents from the campaign's collection."""
        if not ids:
            return

        def work() -> None:
            collection = self._collection(campaign_id, create=False)
            if collection is not None:
                collection.delete(ids=[str(i) for i in ids])

        await self._call("delete documents", work)
