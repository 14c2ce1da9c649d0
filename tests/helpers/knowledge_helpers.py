"""Shared helpers of the imported-knowledge tests: a service on the test database with real Chroma and MiniLM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.campaigns import ChangesetKind, open_changeset
from canon.graph import CanonWriter
from canon.ontology import Ontology, base_ontology
from canon.storage import Database
from config.settings import LoreSettings
from memory.embedding import MiniLMEmbedder
from memory.knowledge.service import KnowledgeService
from memory.vector_index import ChromaVectorIndex, VectorHit

# One embedder object for every test: the onnxruntime session behind it is shared by the process anyway.
EMBEDDER = MiniLMEmbedder()


def knowledge_service(
    db: Database,
    tmp_path: Path,
    *,
    semantic: bool = True,
    settings: LoreSettings | None = None,
    vectors: Any = None,
    embedder: Any = None,
) -> KnowledgeService:
    """Return a knowledge service with data in tmp_path: real Chroma and the real model unless `semantic=False`."""
    data = tmp_path / "data"
    if semantic:
        vectors = vectors if vectors is not None else ChromaVectorIndex(path=data / "chroma")
        embedder = embedder if embedder is not None else EMBEDDER
    return KnowledgeService(db, data_dir=data, settings=settings, vectors=vectors, embedder=embedder)


async def new_campaign(db: Database, name: str) -> int:
    """Create a campaign and return its id."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))
    return campaign.id


class FailingEmbedder:
    """An embedder whose model "cannot be loaded": every call raises, like missing model files."""

    model_name = "all-MiniLM-L6-v2"
    dimensions = 384

    @property
    def model_version(self) -> str:
        return EMBEDDER.model_version

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        from memory.embedding import EmbeddingUnavailable

        raise EmbeddingUnavailable("Semantic search is unavailable: the embedding model file is missing.")

    def embed_query(self, text: str) -> list[float]:
        from memory.embedding import EmbeddingUnavailable

        raise EmbeddingUnavailable("Semantic search is unavailable: the embedding model file is missing.")


class LeakyVectorIndex:
    """A vector index that ignores campaigns and filters and returns every vector it ever saw.

    It stands for a buggy or shared index: retrieval must still never show what the database does not allow.
    """

    def __init__(self) -> None:
        self.items: dict[tuple[int, str], tuple[int, npt.NDArray[np.float32]]] = {}

    async def add(
        self,
        campaign_id: int,
        chunk_ids: Sequence[int],
        source_ids: Sequence[int],
        vectors: npt.NDArray[np.float32],
        *,
        views: Sequence[str] | None = None,
        metadata: Any = None,
    ) -> None:
        kinds = list(views) if views is not None else ["p"] * len(chunk_ids)
        for chunk_id, source_id, vector, view in zip(chunk_ids, source_ids, vectors, kinds, strict=True):
            self.items[(chunk_id, view)] = (source_id, np.asarray(vector))

    async def query(
        self, campaign_id: int, vector: Sequence[float], *, limit: int, exclude_sources: Sequence[int] = ()
    ) -> list[VectorHit]:
        query = np.asarray(vector)
        scored = sorted(
            ((1 - float(v @ query), cid, view, sid) for (cid, view), (sid, v) in self.items.items()),
        )
        return [
            VectorHit(chunk_id=cid, source_id=sid, distance=d, rank=rank, view=view)
            for rank, (d, cid, view, sid) in enumerate(scored[:limit], 1)
        ]

    async def delete(self, campaign_id: int, source_id: int, chunk_ids: Sequence[int]) -> None:
        for key in [k for k in self.items if k[0] in set(chunk_ids)]:
            del self.items[key]

    async def reset(self, campaign_id: int) -> None:
        self.items.clear()

    async def count(self, campaign_id: int) -> int:
        return len(self.items)

    async def describe(self, campaign_id: int) -> dict[str, Any] | None:
        return {"count": len(self.items)}


async def gm_writer(session: AsyncSession, campaign: int, ontology: Ontology | None = None) -> CanonWriter:
    """Return a writer of canon the GM sets down directly (no review), in the session's transaction."""
    changeset = await open_changeset(session, campaign, ChangesetKind.GM_DIRECT)
    return CanonWriter(session, changeset, ontology if ontology is not None else base_ontology())
