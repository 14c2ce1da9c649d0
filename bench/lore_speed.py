"""Speed of imported knowledge: importing the SRD world bible, and /lore retrieval latency (no LLM).

Prints one JSON line with:

- `import_world`: wall and CPU seconds to import `../shared/corpora/srd/world/*.md` with embeddings (real
  SQLite file, real Chroma, the offline MiniLM model). CPU seconds are reported too because a loaded machine
  stretches wall time; the goal is under 60 s on 2 cores.
- `srd`: p50/p95 of `KnowledgeService.ask` (hybrid, as a player, 5 results, not recorded) over the 100 dev
  questions in that campaign, after one warm-up pass; and p50/p95 with the answer recorded (one write each).
- `large`: the same questions against a generated campaign of 100,000 chunks (goal p95 under 150 ms), and the
  same questions answered by a naive baseline measured in the same run: one shared Chroma collection holding
  every campaign's vectors queried with a `where` filter on the campaign, plus a Python BM25 (rank_bm25's
  algorithm: every chunk scored for every query word) over every chunk of every campaign, filtered afterwards.

The generated campaign: 100 sources of 1,000 chunks each, plus one hidden source of `--hidden-chunks` (1,000)
chunks, written straight into the database (so its full-text index is built by the same triggers as any
import); each chunk is ~120 words drawn from the SRD world bible's own word frequencies under a generated
two-word heading. Embedding 100,000 chunks with the real model would take hours here, so their vectors are
random unit vectors inserted directly, two per chunk as production stores them (the prose and the title view);
the queries still go through the real embedder, and the search work (HNSW over 200,000 vectors, FTS over
100,000 chunks) is the real one. The questions are asked as a player, so the hidden source's 2,000 vectors are
kept out of every semantic search (the filtered path of `memory.knowledge.retrieval`), as they are out of the baseline's.

    .venv/bin/python -m bench.lore_speed [--chunks 100000] [--hidden-chunks 1000] [--work DIR] [--skip-baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import insert, select

from bot.schema import database
from canon import campaigns
from canon.models import SourceVisibility, Viewer
from canon.storage import Database, utc_now
from memory.chunking import CHUNKING_VERSION
from memory.embed_text import VIEWS_VERSION
from memory.embedding import EMBEDDING_DIMENSIONS, MiniLMEmbedder, chroma_embedding_function
from memory.knowledge.files import PARSER_VERSION
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeIndexStateRow, KnowledgeSourceRow
from memory.vector_index import VIEWS, ChromaVectorIndex, collection_name

SRD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "srd"
_WORD = re.compile(r"[a-z]+")


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """Return p50 and p95 in milliseconds."""
    ordered = sorted(values)

    def at(q: float) -> float:
        index = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
        return round(ordered[index] * 1000, 2)

    return {"p50_ms": at(50), "p95_ms": at(95), "n": len(ordered)}


class NaiveBM25:
    """BM25 Okapi as rank_bm25 computes it: every document scored for every query word, in Python."""

    def __init__(self, docs: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.doc_freqs = [Counter(doc) for doc in docs]
        self.doc_len = np.array([len(doc) for doc in docs], dtype=np.float64)
        self.avgdl = float(self.doc_len.mean())
        df: Counter[str] = Counter()
        for freqs in self.doc_freqs:
            df.update(freqs.keys())
        n = len(docs)
        self.idf = {w: math.log((n - f + 0.5) / (f + 0.5) + 1) for w, f in df.items()}

    def scores(self, query: list[str]) -> np.ndarray:
        score = np.zeros(len(self.doc_freqs))
        norm = self.k1 * (1 - self.b + self.b * self.doc_len / self.avgdl)
        for word in query:
            freq = np.array([doc.get(word) or 0 for doc in self.doc_freqs], dtype=np.float64)
            score += self.idf.get(word, 0.0) * freq * (self.k1 + 1) / (freq + norm)
        return score


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


async def import_world(
    work: Path, embedder: MiniLMEmbedder
) -> tuple[KnowledgeService, Database, int, dict[str, Any]]:
    """Import world/*.md with embeddings into a fresh campaign; return the service and the timing."""
    db = Database.from_url(f"sqlite+aiosqlite:///{work / 'lore.sqlite3'}")
    await database.upgrade(db)
    vectors = ChromaVectorIndex(path=work / "chroma")
    service = KnowledgeService(db, data_dir=work, vectors=vectors, embedder=embedder)
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "SRD world"))
    await asyncio.to_thread(embedder.load)  # model load is start-up, not import
    await vectors.count(campaign.id)  # chromadb import and client start-up likewise
    files = sorted((SRD / "world").glob("*.md"))
    wall, cpu = time.perf_counter(), time.process_time()
    chunks = 0
    for path in files:
        report = await service.import_path(campaign.id, path, knowledge_class=KnowledgeClass.REFERENCE)
        chunks += report.chunk_count
    timing = {
        "files": len(files),
        "chunks": chunks,
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "cores": len(os.sched_getaffinity(0)),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    return service, db, campaign.id, timing


async def latencies(
    service: KnowledgeService, campaign_id: int, questions: list[str], *, record: bool = False
) -> dict[str, Any]:
    """Return p50/p95 of asking every question once (after one warm-up pass), and p95 of each step."""
    for question in questions[:10]:
        await service.ask(campaign_id, question, viewer=Viewer.PLAYER, record=False)
    spent = []
    steps: dict[str, list[float]] = {}
    for question in questions:
        started = time.perf_counter()
        answer = await service.ask(campaign_id, question, viewer=Viewer.PLAYER, limit=5, record=record)
        spent.append(time.perf_counter() - started)
        for step, ms in answer.trace.timings_ms.items():
            steps.setdefault(step, []).append(ms / 1000)
    return {**percentiles(spent), "steps_p95_ms": {k: percentiles(v)["p95_ms"] for k, v in steps.items()}}


def synthetic_vocabulary() -> tuple[list[str], np.ndarray, list[str]]:
    """Return the SRD world bible's words with their frequencies, and capitalised words for headings."""
    counts: Counter[str] = Counter()
    names: set[str] = set()
    for path in sorted((SRD / "world").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        counts.update(tokens(text))
        names.update(w for w in re.findall(r"\b[A-Z][a-z]{3,}\b", text))
    words = sorted(counts)
    weights = np.array([counts[w] for w in words], dtype=np.float64)
    return words, weights / weights.sum(), sorted(names)


async def build_large(
    db: Database,
    work: Path,
    campaign_id: int,
    total: int,
    embedder: MiniLMEmbedder,
    *,
    hidden_chunks: int = 1000,
    seed: int = 7,
) -> tuple[list[tuple[int, str]], set[int], dict[str, Any]]:
    """Write `total` generated chunks (100 sources) and a hidden source into a campaign, with two random
    vectors per chunk in its collection; return (chunk id, text) of every chunk, the hidden chunk ids, timings.
    """
    rng = np.random.default_rng(seed)
    word_list, weights, name_list = synthetic_vocabulary()
    words, names = np.array(word_list), np.array(name_list)
    per_source = 1000
    started = time.perf_counter()
    texts: list[tuple[int, str]] = []
    source_of: dict[int, int] = {}
    hidden_ids: set[int] = set()
    now = utc_now()
    sizes = [min(per_source, total - start) for start in range(0, total, per_source)]
    plan = [(number, count, False) for number, count in enumerate(sizes)]
    if hidden_chunks:
        plan.append((len(sizes), hidden_chunks, True))
    for source_number, count, hidden in plan:
        bodies = []
        for _ in range(count):
            title = f"{rng.choice(names)} {rng.choice(names)}"
            paragraphs = [
                " ".join(rng.choice(words, size=int(rng.integers(30, 50)), p=weights)).capitalize() + "."
                for _ in range(3)
            ]
            bodies.append((title, f"# Atlas {source_number}\n## {title}\n\n" + "\n\n".join(paragraphs)))

        async def write(
            session: Any,
            source_number: int = source_number,
            bodies: list[Any] = bodies,
            hidden: bool = hidden,
        ) -> tuple[list[int], int]:
            source = KnowledgeSourceRow(
                campaign_id=campaign_id,
                title=f"Atlas {source_number}",
                filename=f"atlas-{source_number:03d}.md",
                knowledge_class=KnowledgeClass.REFERENCE.value,
                enabled=True,
                visibility=SourceVisibility.HIDDEN.value if hidden else SourceVisibility.NORMAL.value,
                tags=[],
                always_include=False,
                content_hash=f"{source_number:064d}",
                file_hash=f"{source_number:064d}",
                stored_path=f"sources/{source_number:064d}",
                size_bytes=sum(len(b) for _, b in bodies),
                mime_type="text/markdown",
                parser_version=PARSER_VERSION,
                chunking_version=CHUNKING_VERSION,
                version=1,
                chunk_count=len(bodies),
                token_count=0,
                vector_status="indexed",
                imported_at=now,
                updated_at=now,
                times_used=0,
            )
            session.add(source)
            await session.flush()
            rows = [
                {
                    "campaign_id": campaign_id,
                    "source_id": source.id,
                    "version": 1,
                    "chunk_index": index,
                    "heading_path": [f"Atlas {source_number}", title],
                    "heading_text": f"Atlas {source_number}\n{title}",
                    "text": body,
                    "display_text": None,
                    "token_count": len(body) // 4,  # an estimate: exact counts only matter for budgets
                    "content_hash": f"{source_number}-{index}",
                    "tags": [],
                    "char_start": 0,
                    "char_end": len(body),
                }
                for index, (title, body) in enumerate(bodies)
            ]
            await session.execute(insert(KnowledgeChunkRow), rows)
            return list(
                (
                    await session.execute(
                        select(KnowledgeChunkRow.id)
                        .where(KnowledgeChunkRow.source_id == source.id)
                        .order_by(KnowledgeChunkRow.chunk_index)
                    )
                ).scalars()
            ), source.id

        ids, source_id = await db.run(write)
        texts += [(cid, body) for cid, (_, body) in zip(ids, bodies, strict=True)]
        source_of.update(dict.fromkeys(ids, source_id))
        if hidden:
            hidden_ids.update(ids)
    sql_seconds = time.perf_counter() - started

    # Random unit vectors, two per chunk (the prose and the title view), straight into the campaign's collection.
    started = time.perf_counter()
    vectors = ChromaVectorIndex(path=work / "chroma")
    metadata: dict[str, str | int] = {
        "embedding_model": embedder.model_name,
        "embedding_model_version": embedder.model_version,
        "embedding_dimensions": EMBEDDING_DIMENSIONS,
        "embedding_views": VIEWS_VERSION,
        "chunking_version": CHUNKING_VERSION,
    }
    ids = [cid for cid, _ in texts]
    for start in range(0, len(ids), 5000):
        block = ids[start : start + 5000]
        for view in VIEWS:
            await vectors.add(
                campaign_id,
                block,
                [source_of[c] for c in block],
                unit_vectors(rng, len(block)),
                views=[view] * len(block),
                metadata=metadata,
            )

    async def state(session: Any) -> None:
        session.add(
            KnowledgeIndexStateRow(
                campaign_id=campaign_id,
                collection=collection_name(campaign_id),
                embedding_model=embedder.model_name,
                embedding_model_version=embedder.model_version,
                embedding_dimensions=EMBEDDING_DIMENSIONS,
                embedding_views=VIEWS_VERSION,
                chunking_version=CHUNKING_VERSION,
            )
        )

    await db.run(state)
    return (
        texts,
        hidden_ids,
        {
            "chunks": len(texts),
            "hidden_chunks": len(hidden_ids),
            "vectors": await vectors.count(campaign_id),
            "sql_write_s": round(sql_seconds, 1),
            "vector_write_s": round(time.perf_counter() - started, 1),
        },
    )


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    """Return n random unit vectors of the model's dimensions."""
    matrix = rng.standard_normal((n, EMBEDDING_DIMENSIONS)).astype(np.float32)
    unit: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


async def naive_baseline(
    work: Path,
    embedder: MiniLMEmbedder,
    corpora: dict[int, list[tuple[int, str]]],
    hidden: set[int],
    campaign_id: int,
    questions: list[str],
    seed: int = 11,
) -> dict[str, Any]:
    """Answer the questions the naive way: a shared filtered Chroma collection + Python BM25 over everything.

    The shared collection holds what the campaigns' own collections hold (two random vectors per chunk); a
    query filters it by campaign and leaves the hidden chunks out, as the player's search does.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    rng = np.random.default_rng(seed)
    client = chromadb.PersistentClient(
        path=str(work / "shared-chroma"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    collection = client.create_collection(
        "shared",
        embedding_function=chroma_embedding_function(),
        configuration={"hnsw": {"space": "cosine"}},
    )
    started = time.perf_counter()
    for cid, docs in corpora.items():
        ids = [chunk_id for chunk_id, _ in docs]
        for start in range(0, len(ids), 5000):
            block = ids[start : start + 5000]
            for view in VIEWS:
                collection.add(
                    ids=[f"{cid}:{i}:{view}" for i in block],
                    embeddings=unit_vectors(rng, len(block)),
                    metadatas=[{"campaign_id": cid, "hidden": i in hidden} for i in block],
                )
    build_vectors = time.perf_counter() - started
    started = time.perf_counter()
    all_docs = [(cid, chunk_id, text) for cid, docs in corpora.items() for chunk_id, text in docs]
    bm25 = NaiveBM25([tokens(text) for _, _, text in all_docs])
    allowed = np.array([cid == campaign_id and chunk_id not in hidden for cid, chunk_id, _ in all_docs])
    build_bm25 = time.perf_counter() - started
    stop = {"the", "a", "of", "and", "is", "what", "which", "how", "does", "do", "to", "in", "i"}
    where: Any = {"$and": [{"campaign_id": campaign_id}, {"hidden": False}]}
    spent = []
    for number, question in enumerate(questions):
        began = time.perf_counter()
        query: list[Sequence[float] | Sequence[int]] = [embedder.embed_query(question)]
        collection.query(query_embeddings=query, n_results=100, where=where)
        scores = bm25.scores([w for w in tokens(question) if w not in stop])
        scores[~allowed] = -1
        np.argpartition(-scores, 50)[:50]
        if number >= 5:  # the first few warm up
            spent.append(time.perf_counter() - began)
    return {
        **percentiles(spent),
        "build_shared_collection_s": round(build_vectors, 1),
        "build_bm25_s": round(build_bm25, 1),
    }


async def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--hidden-chunks", type=int, default=1000, help="chunks of the hidden source")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args(argv)
    if not (SRD / "world").is_dir():
        print(json.dumps({"skipped": f"SRD corpus not found at {SRD}"}))
        return {}
    questions = [
        json.loads(line)["q"] for line in (SRD / "eval" / "dev.jsonl").read_text().splitlines() if line
    ]
    embedder = MiniLMEmbedder()
    temporary = tempfile.TemporaryDirectory() if args.work is None else None
    work = Path(temporary.name) if temporary else args.work
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"bench": "lore_speed"}
    try:
        service, db, srd_campaign, timing = await import_world(work, embedder)
        report["import_world"] = timing
        report["srd"] = {
            "ask": await latencies(service, srd_campaign, questions),
            "ask_recorded": await latencies(service, srd_campaign, questions, record=True),
        }
        large = await db.run(lambda s: campaigns.create_campaign(s, "Generated"))
        texts, hidden, built = await build_large(
            db, work, large.id, args.chunks, embedder, hidden_chunks=args.hidden_chunks
        )
        report["large"] = {"build": built, "ask": await latencies(service, large.id, questions)}
        if not args.skip_baseline:
            async with db.session() as session:
                srd_rows = (
                    await session.execute(
                        select(KnowledgeChunkRow.id, KnowledgeChunkRow.text).where(
                            KnowledgeChunkRow.campaign_id == srd_campaign
                        )
                    )
                ).all()
            corpora = {srd_campaign: [(r[0], r[1]) for r in srd_rows], large.id: texts}
            baseline = await naive_baseline(work, embedder, corpora, hidden, large.id, questions)
            report["large"]["naive_baseline"] = baseline
            report["large"]["speedup_p95"] = round(baseline["p95_ms"] / report["large"]["ask"]["p95_ms"], 1)
            report["large"]["speedup_p50"] = round(baseline["p50_ms"] / report["large"]["ask"]["p50_ms"], 1)
        report["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
        await db.dispose()
    finally:
        if temporary is not None:
            temporary.cleanup()
    print(json.dumps(report))
    return report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
