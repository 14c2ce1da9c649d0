"""A Chroma index of small documents (NPC memories, scene summaries): one collection per campaign and kind.

The database holds the documents; this index only finds them (DESIGN rule 1) and can be rebuilt from the
rows at any time. Campaigns are isolated by collection (`{prefix}{campaign_id}`), never by a metadata filter
across campaigns; filters are used only inside one campaign's collection (one NPC's memories, one doc type).
Vectors are computed by the caller and passed in. The Chroma client is synchronous: every call runs in a
worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from pydantic import BaseModel, ConfigDict

from canon.storage import utc_now
from memory.embedding import chroma_embedding_function

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

__all__ = ["ChromaDocIndex", "DocHit", "DocIndex", "DocIndexError", "Metadata"]

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


class ChromaDocIndex:
    """`DocIndex` over Chroma: `PersistentClient(path)`, or `HttpClient(host, port)` when a host is set."""

    def __init__(
        self,
        *,
        prefix: str,
        path: Path | None = None,
        host: str | None = None,
        port: int = 8000,
        metadata: Mapping[str, str | int] | None = None,
    ) -> None:
        if path is None and host is None:
            raise ValueError("a Chroma index needs a path or a host")
        self.prefix = prefix
        self.path = path
        self.host = host
        self.port = port
        self.metadata = dict(metadata or {})
        self._client: ClientAPI | None = None
        self._collections: dict[int, Collection] = {}
        self._lock = threading.Lock()

    def name(self, campaign_id: int) -> str:
        """Return the collection name of a campaign."""
        return f"{self.prefix}{campaign_id}"

    def _connect(self) -> ClientAPI:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        try:
            if self.host:
                return chromadb.HttpClient(host=self.host, port=self.port, settings=chroma_settings)
            assert self.path is not None
            self.path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self.path), settings=chroma_settings)
        except Exception as error:  # chromadb raises many untyped errors
            where = f"{self.host}:{self.port}" if self.host else str(self.path)
            raise DocIndexError(f"the index at {where} cannot be opened ({error})") from error

    def _client_now(self) -> ClientAPI:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._connect()
        return self._client

    def _collection(self, campaign_id: int, *, create: bool) -> Collection | None:
        cached = self._collections.get(campaign_id)
        if cached is not None:
            return cached
        from chromadb.errors import NotFoundError

        client = self._client_now()
        # Registers the offline embedding function, so a process reopening the collection needs no download.
        function = chroma_embedding_function()
        with self._lock:
            cached = self._collections.get(campaign_id)
            if cached is not None:
                return cached
            try:
                collection = client.get_collection(self.name(campaign_id), embedding_function=function)
            except (NotFoundError, ValueError) as error:
                if isinstance(error, ValueError) and "does not exist" not in str(error):
                    raise
                if not create:
                    return None
                meta: dict[str, Any] = {
                    "lk_campaign_id": campaign_id,
                    "lk_created_at": utc_now().isoformat(),
                    **self.metadata,
                }
                collection = client.create_collection(
                    self.name(campaign_id),
                    embedding_function=function,
                    metadata=meta,
                    configuration={"hnsw": {"space": "cosine"}},
                    get_or_create=True,
                )
            self._collections[campaign_id] = collection
            return collection

    async def _call(self, what: str, function: Any) -> Any:
        try:
            return await asyncio.to_thread(function)
        except DocIndexError:
            raise
        except Exception as error:  # Chroma's errors are untyped
            raise DocIndexError(f"the {self.prefix} index failed to {what}: {error}") from error

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

    async def reset(self, campaign_id: int) -> None:
        """Drop the campaign's collection."""

        def work() -> None:
            from chromadb.errors import NotFoundError

            client = self._client_now()
            with self._lock:
                self._collections.pop(campaign_id, None)
                with contextlib.suppress(NotFoundError, ValueError):
                    client.delete_collection(self.name(campaign_id))

        await self._call("drop the collection", work)

    async def count(self, campaign_id: int) -> int:
        """Return how many documents the campaign's collection holds."""

        def work() -> int:
            collection = self._collection(campaign_id, create=False)
            return 0 if collection is None else int(collection.count())

        return cast(int, await self._call("count documents", work))
