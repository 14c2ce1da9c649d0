"""The semantic index port (`VectorIndex`) and its Chroma implementation: one collection per campaign.

The vector index only suggests (DESIGN rule 1): every hit is checked against the database before it is used,
and the whole index can be rebuilt from the chunks (`KnowledgeService.reindex`).

Chroma is synchronous and slow to import (about three seconds), so the client is created on first use and
every call runs in a worker thread (`asyncio.to_thread`). Campaigns are isolated by collection, never by a
metadata filter: a filter costs about 25 times the query at 100,000 vectors (notes/offline-models.md), and a
shared collection would put one campaign's vectors one bug away from another's answers.

Each collection registers the offline MiniLM embedding function of `memory.embedding` (so a process
reopening it needs no download) and records, as collection metadata, the model name, version, dimensions and
the chunking version of its vectors. Vectors are computed by the caller (`Embedder`) and passed in, so imports
can batch and report progress; queries pass a query vector as well. A vector's id is `chunk:source:view`, so
a search learns the source of each hit without reading metadata (which costs more than the search itself).

A process that asks many questions searches each campaign's vectors in memory (`memory.vector_matrix`: loaded
from Chroma on the campaign's first search, kept in step with this process's writes, dropped when the database
says another process wrote; exact, and some twenty times cheaper than a search of Chroma's graph as deep as
`SEARCH_EF`). A process that asks one question and ends (`direct`) asks Chroma: loading a matrix costs more than
the one search it would serve.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from memory.chroma_client import SEARCH_EF, ChromaCollections, Owner
from memory.vector_matrix import CampaignMatrix, Freshness

__all__ = [
    "VIEWS",
    "ChromaVectorIndex",
    "VectorHit",
    "VectorIndex",
    "VectorIndexError",
    "collection_name",
    "parse_vector_id",
    "vector_id",
]

log = logging.getLogger(__name__)

#: Chroma's own limit on one add() is larger; smaller batches keep memory flat on big imports.
ADD_BATCH = 2048
COLLECTION_PREFIX = "lk_c"
#: The collection metadata recording how deep its searches walk (`memory.chroma_client.SEARCH_EF`).
SEARCH_EF_KEY = "lk_search_ef"
#: How many vectors one read of a collection fetches while its matrix loads.
LOAD_BATCH = 5000
#: How many vectors the matrices of one index hold at most (about 150 MB): the campaigns searched longest ago are
#: let go first, and a campaign larger than this alone is searched in Chroma.
MEMORY_VECTORS = 100_000


class VectorIndexError(Exception):
    """The vector index failed (unreachable server, corrupt files): semantic search is off until repaired."""


class VectorHit(BaseModel):
    """One nearest neighbour: a chunk, its source and its cosine distance (0 = same direction)."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    source_id: int
    distance: float
    rank: int
    #: Which view of the chunk matched ("p" prose, "t" title, "n" names; see `memory.embed_text`).
    view: str = "p"


def collection_name(campaign_id: int, prefix: str = COLLECTION_PREFIX) -> str:
    """Return the name of a campaign's collection."""
    return f"{prefix}{campaign_id}"


#: The views a chunk may have vectors for (see `memory.embed_text`).
VIEWS = ("p", "t", "n")


def vector_id(chunk_id: int, source_id: int, view: str) -> str:
    """Return the vector id of one view of a chunk: "chunk:source:view" ("123:7:p", "123:7:t", "123:7:n").

    The source is in the id so a search can drop vectors of blocked sources without reading metadata
    (fetching metadata costs more than the nearest-neighbour search itself).
    """
    return f"{chunk_id}:{source_id}:{view}"


@functools.lru_cache(maxsize=16384)
def parse_vector_id(value: str) -> tuple[int, int, str]:
    """Return (chunk id, source id, view) of a vector id (kept: a search reads some 150, mostly the same)."""
    chunk, source, view = value.split(":")
    return int(chunk), int(source), view


@runtime_checkable
class VectorIndex(Protocol):
    """Vectors of chunks, one namespace per campaign; the semantic half of retrieval."""

    async def add(
        self,
        campaign_id: int,
        chunk_ids: Sequence[int],
        source_ids: Sequence[int],
        vectors: npt.NDArray[np.float32],
        *,
        views: Sequence[str] | None = None,
        metadata: Mapping[str, str | int] | None = None,
    ) -> None:
        """Add (or replace) vectors of chunks (one per chunk and view); `metadata` says how they were made."""
        ...

    async def query(
        self,
        campaign_id: int,
        vector: Sequence[float],
        *,
        limit: int,
        exclude_sources: Sequence[int] = (),
    ) -> list[VectorHit]:
        """Return the `limit` nearest chunks of a campaign, none from `exclude_sources`."""
        ...

    async def delete(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> None:
        """Remove every vector of some chunks of one source (missing ones are ignored)."""
        ...

    async def reset(self, campaign_id: int) -> None:
        """Drop every vector of a campaign."""
        ...

    async def count(self, campaign_id: int) -> int:
        """Return how many vectors a campaign has."""
        ...

    async def describe(self, campaign_id: int) -> dict[str, Any] | None:
        """Return what a campaign's vectors were made with, or None when it has none."""
        ...


class ChromaVectorIndex(ChromaCollections):
    """`VectorIndex` over Chroma: `PersistentClient(path)` by default, `HttpClient(host, port)` when a host is set."""

    error = VectorIndexError
    unopened = "the vector index at {where} cannot be opened ({error})"
    failed = "the vector index failed to {what}: {error}"
    counted = "vectors"

    def __init__(
        self,
        *,
        path: Path | None = None,
        host: str | None = None,
        port: int = 8000,
        embedding_batch_size: int = 32,
        prefix: str = COLLECTION_PREFIX,
        owner: Callable[[], Awaitable[Owner]] | None = None,
        direct: bool = False,
        in_memory: bool | None = None,
        memory_vectors: int = MEMORY_VECTORS,
    ) -> None:
        """`in_memory`: search each campaign's vectors in memory (`memory.vector_matrix`); by default, unless
        `direct` (a process answering one question). `memory_vectors`: the most vectors kept so."""
        super().__init__(
            prefix=prefix,
            path=path,
            host=host,
            port=port,
            embedding_batch_size=embedding_batch_size,
            owner=owner,
            direct=direct,
        )
        self.in_memory = not direct if in_memory is None else in_memory
        self.memory_vectors = memory_vectors
        self._matrices: OrderedDict[int, CampaignMatrix] = OrderedDict()
        #: What the database last said of a campaign's vectors (`note_freshness`), for its next search to weigh.
        self._notes: dict[int, Freshness] = {}
        #: Held while a matrix is read, written or loaded (from worker threads only: a load takes a while)...
        self._matrix_lock = threading.Lock()
        #: ...and this one only for a moment, by the event loop's thread too.
        self._notes_lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        data_dir: Path,
        host: str | None,
        port: int,
        batch_size: int,
        owner: Callable[[], Awaitable[Owner]] | None = None,
        *,
        direct: bool = False,
    ) -> ChromaVectorIndex:
        """Return the index the settings describe (data_dir/chroma unless a Chroma server is configured);
        `direct`: an embedded index is read without importing chromadb (`memory.chroma_direct`)."""
        return cls(
            path=data_dir / "chroma",
            host=host,
            port=port,
            embedding_batch_size=batch_size,
            owner=owner,
            direct=direct,
        )

    # -- the port ----------------------------------------------------------------------------------

    async def add(
        self,
        campaign_id: int,
        chunk_ids: Sequence[int],
        source_ids: Sequence[int],
        vectors: npt.NDArray[np.float32],
        *,
        views: Sequence[str] | None = None,
        metadata: Mapping[str, str | int] | None = None,
    ) -> None:
        """Add (or replace) vectors of chunks in the campaign's collection."""
        kinds = list(views) if views is not None else ["p"] * len(chunk_ids)
        if not (len(chunk_ids) == len(source_ids) == len(vectors) == len(kinds)):
            raise ValueError("chunk_ids, source_ids, views and vectors must have the same length")
        if not chunk_ids:
            return

        def work() -> None:
            collection = self._collection(campaign_id, create=True, metadata=metadata)
            assert collection is not None
            current = dict(collection.metadata or {})
            wanted = {**current, **(metadata or {}), SEARCH_EF_KEY: SEARCH_EF}
            if current.get(SEARCH_EF_KEY) != SEARCH_EF:
                # A collection made before its searches were exact: its searches walk as far from now on.
                collection.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})
            if wanted != current:
                wanted.pop("hnsw:space", None)
                collection.modify(metadata=wanted)
            for start in range(0, len(chunk_ids), ADD_BATCH):
                end = start + ADD_BATCH
                collection.upsert(
                    ids=[
                        vector_id(c, s, v)
                        for c, s, v in zip(
                            chunk_ids[start:end], source_ids[start:end], kinds[start:end], strict=True
                        )
                    ],
                    embeddings=vectors[start:end],
                    metadatas=[{"source_id": int(s)} for s in source_ids[start:end]],
                )
            with self._matrix_lock:
                matrix = self._matrices.get(campaign_id)
                if matrix is not None:
                    matrix.upsert(
                        [
                            (vector_id(c, s, v), int(c), int(s), v)
                            for c, s, v in zip(chunk_ids, source_ids, kinds, strict=True)
                        ],
                        np.asarray(vectors, dtype=np.float32),
                    )

        await self._call("add vectors", work)

    async def query(
        self,
        campaign_id: int,
        vector: Sequence[float],
        *,
        limit: int,
        exclude_sources: Sequence[int] = (),
    ) -> list[VectorHit]:
        """Return the nearest chunks of the campaign's collection (empty when it has none)."""
        if limit <= 0:
            return []
        if self.in_memory:
            return await self._query_matrix(campaign_id, vector, limit, exclude_sources)
        found = await self._call("search", self._chroma_hits, campaign_id, vector, limit, exclude_sources)
        return cast(list[VectorHit], found)

    def _chroma_hits(
        self, campaign_id: int, vector: Sequence[float], limit: int, exclude_sources: Sequence[int]
    ) -> list[VectorHit]:
        """Return the nearest vectors as Chroma's own search finds them (blocking: from a worker thread)."""
        collection = self._collection(campaign_id, create=False)
        if collection is None:
            return []
        where: Any = {"source_id": {"$nin": [int(s) for s in exclude_sources]}} if exclude_sources else None
        query: list[Sequence[float] | Sequence[int]] = [[float(x) for x in vector]]
        found = collection.query(
            query_embeddings=query,
            n_results=limit,
            where=where,
            include=["distances"],
        )
        ids = (found.get("ids") or [[]])[0]
        distances = (found.get("distances") or [[]])[0]
        parsed = []
        for raw_id, distance in zip(ids, distances, strict=True):
            try:
                parsed.append((float(distance), *parse_vector_id(raw_id)))
            except ValueError:  # not one of ours
                continue
        # Equal distances in the order of the chunks (their order in their books), not the index's.
        parsed.sort(key=lambda hit: (hit[0], hit[1], VIEWS.index(hit[3]) if hit[3] in VIEWS else len(VIEWS)))
        return [
            VectorHit(chunk_id=chunk_id, source_id=source_id, distance=distance, rank=rank, view=view)
            for rank, (distance, chunk_id, source_id, view) in enumerate(parsed, 1)
        ]

    async def delete(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> None:
        """Remove the vectors of some chunks of one source from the campaign's collection."""
        if not chunk_ids:
            return

        def work() -> None:
            collection = self._collection(campaign_id, create=False)
            if collection is None:
                return
            ids = [vector_id(c, source_id, v) for c in chunk_ids for v in VIEWS]
            for start in range(0, len(ids), ADD_BATCH):
                collection.delete(ids=ids[start : start + ADD_BATCH])
            with self._matrix_lock:
                matrix = self._matrices.get(campaign_id)
                if matrix is not None:
                    matrix.remove(ids, source=source_id)

        await self._call("delete vectors", work)

    async def reset(self, campaign_id: int) -> None:
        """Drop every vector of a campaign (its collection, and its matrix)."""
        await super().reset(campaign_id)
        await asyncio.to_thread(self._forget, campaign_id)

    async def prune(self, names: list[str]) -> None:
        """Drop collections by name (and every matrix: the names do not say whose they are)."""
        await super().prune(names)
        await asyncio.to_thread(self._forget, None)

    def _forget(self, campaign_id: int | None) -> None:
        """Drop a campaign's matrix (every one: None), waiting for a search reading it to end."""
        with self._matrix_lock, self._notes_lock:
            if campaign_id is None:
                self._matrices.clear()
                self._notes.clear()
            else:
                self._matrices.pop(campaign_id, None)
                self._notes.pop(campaign_id, None)

    def note_freshness(self, campaign_id: int, freshness: Freshness) -> None:
        """Take what the database says of a campaign's vectors (before a search of them): a matrix that no longer
        holds them is dropped by the next search, which loads it again (`memory.vector_matrix`)."""
        if not self.in_memory:
            return
        with self._notes_lock:
            self._notes[campaign_id] = freshness

    async def _query_matrix(
        self, campaign_id: int, vector: Sequence[float], limit: int, exclude_sources: Sequence[int]
    ) -> list[VectorHit]:
        """Return the nearest vectors of the campaign's matrix (loaded from its collection on first use)."""
        query = np.asarray(vector, dtype=np.float32)

        def work() -> list[VectorHit]:
            with self._matrix_lock:
                with self._notes_lock:
                    note = self._notes.pop(campaign_id, None)
                matrix = self._matrices.get(campaign_id)
                if matrix is not None and note is not None and not matrix.fresh(note):
                    del self._matrices[campaign_id]  # another process wrote: read it again
                    matrix = None
                if matrix is None:
                    collection = self._collection(campaign_id, create=False)
                    if collection is None:
                        return []
                    if collection.count() > self.memory_vectors:  # too large to keep: Chroma searches it
                        return self._chroma_hits(campaign_id, vector, limit, exclude_sources)
                    matrix = self._load_matrix(campaign_id, note)
                    if matrix is None:
                        return []
                    self._matrices[campaign_id] = matrix
                    self._let_go(keep=campaign_id)
                self._matrices.move_to_end(campaign_id)
                found = matrix.nearest(query, limit, exclude_sources)
            return [
                VectorHit(chunk_id=chunk_id, source_id=source_id, distance=distance, rank=rank, view=view)
                for rank, (distance, chunk_id, source_id, view) in enumerate(found, 1)
            ]

        return cast(list[VectorHit], await self._call("search", work))

    def _let_go(self, *, keep: int) -> None:
        """Drop the matrices searched longest ago until they hold `memory_vectors` at most (but `keep`'s)."""
        held = sum(len(m) for m in self._matrices.values())
        for campaign_id in list(self._matrices):
            if held <= self.memory_vectors:
                return
            if campaign_id != keep:
                held -= len(self._matrices.pop(campaign_id))

    def _load_matrix(self, campaign_id: int, freshness: Freshness | None) -> CampaignMatrix | None:
        """Read a campaign's vectors from its collection (None when it has none); with the matrix lock held.
        `freshness`: what the database said before they were read."""
        collection = self._collection(campaign_id, create=False)
        if collection is None:
            return None
        parsed: list[tuple[str, int, int, str]] = []
        blocks: list[npt.NDArray[np.float32]] = []
        offset = 0
        while True:
            page = collection.get(include=["embeddings"], limit=LOAD_BATCH, offset=offset)
            ids = list(page.get("ids") or [])
            embeddings = page.get("embeddings")
            if not ids:
                break
            array = np.asarray(embeddings, dtype=np.float32)
            keep = []
            for row, raw_id in enumerate(ids):
                try:
                    parsed.append((raw_id, *parse_vector_id(raw_id)))
                except ValueError:  # not one of ours
                    continue
                keep.append(row)
            blocks.append(array[keep])
            offset += len(ids)
            if len(ids) < LOAD_BATCH:
                break
        vectors = np.concatenate(blocks) if blocks else np.zeros((0, 0), dtype=np.float32)
        return CampaignMatrix.of(VIEWS, parsed, vectors, freshness)

    async def describe(self, campaign_id: int) -> dict[str, Any] | None:
        """Return the campaign's collection metadata (model, version, dimensions, chunking version)."""

        def work() -> dict[str, Any] | None:
            collection = self._collection(campaign_id, create=False)
            if collection is None:
                return None
            return {**dict(collection.metadata or {}), "count": int(collection.count())}

        return cast("dict[str, Any] | None", await self._call("read the collection", work))
