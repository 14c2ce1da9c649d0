"""Shared libraries against a copy per campaign: the SRD world bible imported once and attached to many campaigns.

In one run, on a real SQLite file, real Chroma and the offline MiniLM model:

- `library`: the SRD world bible (`../shared/corpora/srd/world/*.md`) imported once into the installation's
  library, then attached to `--campaigns` campaigns: the time of one attach (p50/p95), and what the campaigns
  hold of their own afterwards (chunks and vectors: 0 each, nothing copied);
- `copy` (the baseline): the same files imported into one campaign as its own sources, the way a table would
  without a library: the time and the chunks and vectors each such campaign adds;
- `/lore` over the corpus's question set in a campaign reading the library and in the campaign holding its own
  copy: p50/p95 latency and recall@5 (a top-5 passage from the section the question is about), which should
  agree: the same passages, from the same chunks.

Prints one JSON line.

    .venv/bin/python -m bench.library [--campaigns 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bench.lore_quality import first_hit
from bench.lore_speed import latencies, percentiles
from bot.schema import database
from canon import campaigns
from canon.models import Viewer
from canon.storage import Database
from memory.embedding import MiniLMEmbedder
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow
from memory.vector_index import ChromaVectorIndex

SRD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "srd"


async def _chunks(db: Database, campaign_id: int) -> int:
    async with db.session() as session:
        query = (
            select(func.count())
            .select_from(KnowledgeChunkRow)
            .where(KnowledgeChunkRow.campaign_id == campaign_id)
        )
        return int(await session.scalar(query) or 0)


async def _recall(service: KnowledgeService, campaign_id: int, questions: list[dict[str, Any]]) -> float:
    hits = 0
    for item in questions:
        answer = await service.ask(campaign_id, item["q"], viewer=Viewer.PLAYER, limit=5, record=False)
        targets = [{"file": item["file"], "heading": item["heading"]}]
        rank = first_hit(answer.results, targets)
        hits += rank is not None and rank <= 5
    return round(hits / len(questions), 3)


async def run(work: Path, count: int, srd: Path) -> dict[str, Any]:
    """Measure the library and the copy in one run; return the report."""
    embedder = MiniLMEmbedder()
    db = Database.from_url(f"sqlite+aiosqlite:///{work / 'library.sqlite3'}")
    await database.upgrade(db)
    vectors = ChromaVectorIndex(path=work / "chroma")
    service = KnowledgeService(db, data_dir=work, vectors=vectors, embedder=embedder)
    await asyncio.to_thread(embedder.load)  # model load is start-up, not import
    # Read once, up front: the corpus is the input, not what is measured.
    books = {path.name: path.read_bytes() for path in sorted((srd / "world").glob("*.md"))}
    questions = [json.loads(line) for line in (srd / "eval" / "dev.jsonl").read_text().splitlines() if line]

    started = time.perf_counter()
    holder = 0
    for name, data in books.items():
        report = await service.library.import_bytes(name, data, guild_id=None)
        holder = report.source.campaign_id
    library_import = time.perf_counter() - started
    readers = []
    attach_times: list[float] = []
    for number in range(count):
        name = f"Table {number + 1}"
        campaign = await db.run(lambda session: campaigns.create_campaign(session, name))  # noqa: B023 - awaited at once
        readers.append(campaign.id)
        for name in books:
            mark = time.perf_counter()
            await service.library.attach(campaign.id, name)
            attach_times.append(time.perf_counter() - mark)

    copy = await db.run(lambda s: campaigns.create_campaign(s, "Own copy"))
    started = time.perf_counter()
    for name, data in books.items():
        await service.import_bytes(copy.id, name, data)
    copy_import = time.perf_counter() - started

    first = readers[0]
    return {
        "bench": "library",
        "files": len(books),
        "campaigns": count,
        "library": {
            "import_s": round(library_import, 1),
            "chunks": await _chunks(db, holder),
            "vectors": await vectors.count(holder),
            "attach": percentiles(attach_times),
            "chunks_per_campaign": max([await _chunks(db, c) for c in readers]),
            "vectors_per_campaign": max([await vectors.count(c) for c in readers]),
            "originals": sum(1 for _ in service.vault.originals()),
        },
        "copy": {
            "import_s_per_campaign": round(copy_import, 1),
            "chunks_per_campaign": await _chunks(db, copy.id),
            "vectors_per_campaign": await vectors.count(copy.id),
        },
        "ask": {
            "library": await latencies(service, first, [q["q"] for q in questions]),
            "copy": await latencies(service, copy.id, [q["q"] for q in questions]),
        },
        "recall@5": {
            "library": await _recall(service, first, questions),
            "copy": await _recall(service, copy.id, questions),
        },
    }


def main(argv: list[str]) -> int:
    """Run the benchmark and print its JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=20)
    parser.add_argument(
        "--srd", type=Path, default=SRD, help="the SRD corpus folder (default: the shared one)"
    )
    args = parser.parse_args(argv)
    if not (args.srd / "world").is_dir():
        print(json.dumps({"bench": "library", "skipped": f"SRD corpus not found at {args.srd}"}))
        return 0
    with tempfile.TemporaryDirectory() as work:
        report = asyncio.run(run(Path(work), args.campaigns, args.srd))
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
