"""Embedded Chroma (PersistentClient) against a Chroma server (HttpClient): add and query costs, one JSON line.

Random unit vectors of MiniLM's 384 dimensions, one collection, HNSW cosine, top-10 queries; the server is
`chroma run` on 127.0.0.1 (tests/helpers/chroma_server.py).

    .venv/bin/python -m bench.chroma_modes [--vectors 20000] [--queries 500]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers.chroma_server import ChromaServer


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000, 2)


def measure(client: Any, vectors: np.ndarray, queries: np.ndarray) -> dict[str, Any]:
    collection = client.create_collection("bench", configuration={"hnsw": {"space": "cosine"}})
    began = time.perf_counter()
    for start in range(0, len(vectors), 2048):
        batch = vectors[start : start + 2048]
        collection.add(
            ids=[str(i) for i in range(start, start + len(batch))],
            embeddings=batch,
            metadatas=[{"source_id": i % 50} for i in range(start, start + len(batch))],
        )
    bulk = time.perf_counter() - began
    single = []
    for i in range(50):
        t = time.perf_counter()
        collection.add(ids=[f"x{i}"], embeddings=queries[i : i + 1], metadatas=[{"source_id": 1}])
        single.append(time.perf_counter() - t)
    plain, filtered = [], []
    for q in queries:
        t = time.perf_counter()
        collection.query(query_embeddings=[q.tolist()], n_results=10)
        plain.append(time.perf_counter() - t)
    for q in queries[:100]:
        t = time.perf_counter()
        collection.query(query_embeddings=[q.tolist()], n_results=10, where={"source_id": {"$nin": [1, 2]}})
        filtered.append(time.perf_counter() - t)
    return {
        "bulk_add_per_s": round(len(vectors) / bulk),
        "one_add_p50_ms": pct(single, 50),
        "query_p50_ms": pct(plain, 50),
        "query_p99_ms": pct(plain, 99),
        "filtered_query_p50_ms": pct(filtered, 50),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--vectors", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    import chromadb
    from chromadb.config import Settings

    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((args.vectors, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = rng.standard_normal((args.queries, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    settings = Settings(anonymized_telemetry=False)
    with tempfile.TemporaryDirectory() as tmp:
        embedded = measure(
            chromadb.PersistentClient(path=str(Path(tmp) / "embedded"), settings=settings), vectors, queries
        )
        server = ChromaServer(Path(tmp) / "server")
        server.start()
        try:
            remote = measure(
                chromadb.HttpClient(host=server.host, port=server.port, settings=settings), vectors, queries
            )
        finally:
            server.stop()
    print(
        json.dumps({"bench": "chroma_modes", "vectors": args.vectors, "embedded": embedded, "server": remote})
    )


if __name__ == "__main__":
    main()
