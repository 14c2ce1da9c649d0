"""Semantic candidates: cosine similarity of the question to each chunk's best view in the vector collections.

Each campaign of the lineage has its own collection; only collections made with the installed model and the
current views (`memory.embed_text`) are searched, a stale one is reported. A collection still gaining its names
views (`memory.knowledge.view_builder`) is searched by the views it has: a chunk counts once, by its best view.
The vector index only suggests: every hit is filtered again against the sources the database allows this viewer,
and the GM-only sections' chunks it may not read (`unseen`) are left out as a hidden source's are. An index that
keeps a campaign's vectors in memory is told what the database says of them first (`Freshness`), so that
another process's writes are not missed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from memory.embed_text import BASE_VIEWS_VERSION, VIEWS, VIEWS_VERSION
from memory.embedding import Embedder
from memory.knowledge.index_state import index_versions
from memory.knowledge.repository import SourceLite
from memory.knowledge.retrieval.config import SearchConfig
from memory.vector_index import VectorHit, VectorIndex
from memory.vector_matrix import Freshness

log = logging.getLogger(__name__)

# Up to this many times the vectors a search wants, blocked vectors are over-fetched rather than filtered out.
_OVERFETCH_VECTORS = 4
# How long the vector-index state of a campaign is trusted (this process forgets it at once when it writes it).
_STATE_TTL = 10.0


def _consume(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


class SemanticSearch:
    """Searches a campaign's vector collections; `vectors` or `embedder` None means semantic search is off."""

    def __init__(self, *, vectors: VectorIndex | None, embedder: Embedder | None) -> None:
        self.vectors = vectors
        self.embedder = embedder
        self._index_state: dict[int, tuple[float, tuple[str, str]]] = {}

    def embed(self, texts: Sequence[str], known: dict[str, list[float]]) -> asyncio.Task[None] | None:
        """Start embedding the texts not `known` yet, in one call in a thread, into `known` (a question's vectors:
        a comparison's parts are embedded with its whole); None when search is off or every text is known."""
        if self.embedder is None or self.vectors is None:
            return None
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if not missing:
            return None
        embedder = self.embedder

        def work() -> None:
            found = (
                [embedder.embed_query(missing[0])] if len(missing) == 1 else embedder.embed_documents(missing)
            )
            known.update(zip(missing, found, strict=True))

        task = asyncio.create_task(asyncio.to_thread(work))
        # Whoever ends up not needing it (a lexical-only campaign, an error) leaves it unread: mark it read.
        task.add_done_callback(_consume)
        return task

    def forget_index_state(self, campaign_id: int) -> None:
        """Drop the cached vector-index state of a campaign (called when its vectors are rebuilt)."""
        self._index_state.pop(campaign_id, None)

    async def index_versions(self, session: AsyncSession, campaigns: set[int]) -> dict[int, tuple[str, str]]:
        """Return (model version, views version) of each campaign's vectors, cached for a few seconds."""
        now = time.monotonic()
        fresh = {c: v for c, (at, v) in self._index_state.items() if c in campaigns and now - at < _STATE_TTL}
        missing = campaigns - fresh.keys()
        if missing:
            for cid, version in (await index_versions(session, missing)).items():
                fresh[cid] = version
                self._index_state[cid] = (now, version)
        return {c: v for c, v in fresh.items() if v is not None}

    async def search(
        self,
        question: str,
        allowed: dict[int, SourceLite],
        blocked: Sequence[SourceLite],
        versions: dict[int, tuple[str, str]],
        config: SearchConfig,
        known: dict[str, list[float]] | None = None,
        *,
        unseen: frozenset[int] = frozenset(),
        ahead: Sequence[str] = (),
    ) -> tuple[list[tuple[int, float, str]], str]:
        """Return (chunk id, similarity, view) of the nearest allowed chunks, best first, and a status word.

        `known`: the question's vectors by text, embedded once a question (the ones this search embeds are added);
        `ahead`: texts the question's next searches embed, embedded in the same call (a comparison's parts)."""
        if self.vectors is None or self.embedder is None:
            return [], "disabled"
        if not allowed:
            return [], "empty"
        embedder, vectors = self.embedder, self.vectors
        try:
            current = (embedder.model_version, VIEWS_VERSION)
        except Exception as error:  # model files missing: lexical only
            return [], f"failed: {error}"
        # Vectors of the prose and title views alone are today's too: they serve while the names views are built.
        serving = {current, (current[0], BASE_VIEWS_VERSION)}
        campaigns = sorted({s.campaign_id for s in allowed.values()})
        stale = [c for c in campaigns if c in versions and versions[c] not in serving]
        usable = [c for c in campaigns if versions.get(c) in serving]
        if not usable:
            return [], "stale (run reindex)" if stale else "empty"
        # Several views per chunk: fetch as many times the vectors to keep `semantic_k` chunks.
        wanted = len(VIEWS) * config.semantic_k
        known = known if known is not None else {}
        embedding = self.embed([question, *ahead], known)
        # The index opens (on first use) while the question is embedded, not after.
        open_soon = getattr(vectors, "open_soon", None)
        opening = (
            asyncio.create_task(open_soon()) if open_soon is not None and embedding is not None else None
        )
        try:
            if embedding is not None:
                await embedding
            vector = np.asarray(known[question], dtype=np.float32)
            hits: list[VectorHit] = []
            note = getattr(vectors, "note_freshness", None)
            for campaign_id in usable:
                own_blocked = [s for s in blocked if s.campaign_id == campaign_id]
                if note is not None:
                    note(campaign_id, _freshness(campaign_id, allowed, own_blocked, versions))
                hits += await _nearest(
                    vectors, campaign_id, vector.tolist(), wanted, own_blocked, allowed, unseen
                )
        except Exception as error:  # semantic search is an extra: never fail the answer
            log.warning("semantic search failed: %s", error)
            return [], f"failed: {error}"
        finally:
            if opening is not None:
                await opening
        # Filtered again here: the vector index only suggests, the database decides what may be seen.
        best: dict[int, tuple[float, str]] = {}
        for hit in hits:
            if hit.source_id not in allowed or hit.chunk_id in unseen:
                continue
            similarity = 1.0 - hit.distance
            if hit.chunk_id not in best or best[hit.chunk_id][0] < similarity:
                best[hit.chunk_id] = (similarity, hit.view)
        # Ties in the order of the chunks (their order in their books), never in the order the index returned.
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[: config.semantic_k]
        status = "ok" if not stale else "partly stale (run reindex)"
        return [(cid, sim, view) for cid, (sim, view) in ranked], status


def _freshness(
    campaign_id: int,
    allowed: dict[int, SourceLite],
    blocked: Sequence[SourceLite],
    versions: dict[int, tuple[str, str]],
) -> Freshness:
    """Return what the database says of a campaign's vectors: each source's version, vector state and size, and
    the campaign's index state (an index keeping vectors in memory reloads them when these move)."""
    sources = {
        s.id: (s.version, s.vector_status, s.chunk_count)
        for s in (*allowed.values(), *blocked)
        if s.campaign_id == campaign_id
    }
    return Freshness(sources=sources, index=versions.get(campaign_id))


async def _nearest(
    vectors: VectorIndex,
    campaign_id: int,
    vector: list[float],
    wanted: int,
    blocked: Sequence[SourceLite],
    allowed: dict[int, SourceLite],
    unseen: frozenset[int] = frozenset(),
) -> list[VectorHit]:
    """Return a campaign's nearest vectors, holding its `wanted` nearest allowed ones (or all it has).

    Vectors of blocked sources (hidden from this viewer, disabled, imported after a branch's fork) are kept out
    without a metadata filter when possible: in a large collection a filter costs many times the search itself
    (notes/offline-models.md). With few blocked vectors, over-fetching by their number is exact. With more, one
    search twice as deep nearly always holds enough allowed vectors (a hidden source is a small share of a
    campaign); only when it does not (a question about the hidden material itself) is the filtered search run.
    The vectors of GM-only sections the asker may not read (`unseen` chunks) count as blocked ones; the filtered
    search names sources only, so it fetches past them by their number.
    """
    hidden = len(VIEWS) * len(unseen)
    blocked_vectors = len(VIEWS) * sum(s.chunk_count for s in blocked) + hidden
    if blocked_vectors <= _OVERFETCH_VECTORS * wanted:
        return await vectors.query(campaign_id, vector, limit=wanted + blocked_vectors)
    deeper = 2 * wanted
    found = await vectors.query(campaign_id, vector, limit=deeper)
    # Enough: the wanted number, or every vector the allowed sources have when they have fewer.
    enough = min(
        wanted,
        len(VIEWS) * sum(s.chunk_count for s in allowed.values() if s.campaign_id == campaign_id) - hidden,
    )
    readable = sum(1 for hit in found if hit.source_id in allowed and hit.chunk_id not in unseen)
    if len(found) < deeper or readable >= enough:
        return found
    excluded = [s.id for s in blocked]
    return await vectors.query(campaign_id, vector, limit=wanted + hidden, exclude_sources=excluded)
