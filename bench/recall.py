"""NPC memory recall: for scripted questions with known right memories, recall@3 of `NpcMemoryStore.recall`.

No LLM: the production store (SQL rows in a fresh SQLite file, the campaign's Chroma collection, the real
offline MiniLM model) is filled with `bench/recall_data.py` and asked each question for the NPC it is put to.
A hit at k: a right memory is among the first k recalled. Also: recall@1, MRR@3, how many recalled memories
belonged to another NPC (must be 0), the time per recall, and the same figures for recall without the vector
index (importance and recency only), to show what the semantic search adds. Prints one JSON line.

    .venv/bin/python -m bench.recall
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.recall_data import MEMORIES, QUESTIONS
from bot.schema import database
from canon import campaigns
from canon.storage import Database
from memory.doc_index import ChromaDocIndex
from memory.embedding import MiniLMEmbedder
from memory.npc_memory import NewMemory, NpcMemoryStore, ScopeKind

K = 3


async def evaluate(
    store: NpcMemoryStore, campaign_id: int, ids: dict[tuple[str, str], int], npc_ids: dict[str, int]
) -> dict[str, Any]:
    """Ask every question; return recall@1, recall@K, MRR@K, foreign recalls and timing."""
    hits1 = hitsk = 0
    reciprocal = 0.0
    foreign = 0
    timings: list[float] = []
    misses: list[str] = []
    for npc, question, keys in QUESTIONS:
        right = {ids[(npc, key)] for key in keys}
        started = time.perf_counter()
        recalled = await store.recall(campaign_id, npc_ids[npc], question, limit=K, record_access=False)
        timings.append((time.perf_counter() - started) * 1000)
        got = [r.memory.id for r in recalled]
        foreign += sum(1 for r in recalled if r.memory.npc_id != npc_ids[npc])
        rank = next((i for i, memory_id in enumerate(got, 1) if memory_id in right), None)
        if rank == 1:
            hits1 += 1
        if rank is not None:
            hitsk += 1
            reciprocal += 1 / rank
        else:
            misses.append(f"{npc}: {question}")
    count = len(QUESTIONS)
    return {
        "recall_at_1": round(hits1 / count, 3),
        f"recall_at_{K}": round(hitsk / count, 3),
        f"mrr_at_{K}": round(reciprocal / count, 3),
        "foreign_recalls": foreign,
        "ms_per_recall_median": round(statistics.median(timings), 2),
        "misses": misses,
    }


async def main() -> dict[str, Any]:
    """Build the store in a temporary directory, fill it, and evaluate with and without the vector index."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.from_url(f"sqlite+aiosqlite:///{tmp}/recall.sqlite3")
        try:
            await database.upgrade(db)
            campaign = await db.run(lambda s: campaigns.create_campaign(s, "Recall bench"))
            embedder = MiniLMEmbedder()
            index = ChromaDocIndex(prefix="lk_mem", path=Path(tmp) / "chroma")
            store = NpcMemoryStore(db, index=index, embedder=embedder)
            npc_ids = {npc: number for number, npc in enumerate(MEMORIES, 1)}
            ids: dict[tuple[str, str], int] = {}
            started = time.perf_counter()
            for npc, memories in MEMORIES.items():
                records = await store.add(
                    campaign.id,
                    [
                        NewMemory(
                            npc_id=npc_ids[npc],
                            npc_name=npc,
                            scope_kind=ScopeKind.NPC,
                            content=text,
                            importance=importance,
                        )
                        for _, importance, text in memories
                    ],
                )
                for (key, _, _), record in zip(memories, records, strict=True):
                    ids[(npc, key)] = record.id
            indexed_seconds = time.perf_counter() - started
            semantic = await evaluate(store, campaign.id, ids, npc_ids)
            baseline = await evaluate(
                NpcMemoryStore(db, index=None, embedder=None), campaign.id, ids, npc_ids
            )
        finally:
            await db.dispose()
    return {
        "bench": "npc_recall",
        "embedder": f"{embedder.model_name} {embedder.model_version}",
        "npcs": len(MEMORIES),
        "memories": sum(len(m) for m in MEMORIES.values()),
        "questions": len(QUESTIONS),
        "k": K,
        **{k: v for k, v in semantic.items() if k != "misses"},
        "misses": semantic["misses"],
        "index_seconds": round(indexed_seconds, 2),
        "without_vectors": {k: v for k, v in baseline.items() if k != "misses"},
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main()), ensure_ascii=False))
