"""SQLite against PostgreSQL under the bot's write patterns, one JSON line.

* turns: the turn log's group commit, 20,000 messages over 10 channels (as `bench/turns.py`);
* transactions: small independent write transactions (a token-ledger row each, like a /propose or a click),
  50 at a time: SQLite has one writer, PostgreSQL a pool;
* reads: scene reports, 50 at a time, while the writes above run.

  .venv/bin/python -m bench.storage [--messages 20000] [--transactions 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.ops.ledger import SqlTokenLedger
from bot.schema import database
from canon import campaigns
from canon.storage import Database, utc_now
from memory.scene_service import SceneService
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog

GM = Actor(id=1, name="GM", is_gm=True)
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000, 2)


async def run_on(db: Database, messages: int, transactions: int) -> dict[str, Any]:
    await database.upgrade(db)
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Bench", guild_id=1))
    scenes = SceneService(db)
    channels = [1000 + i for i in range(10)]
    scene_ids = []
    for channel in channels:
        scene = await scenes.start_scene(
            campaign_id=campaign.id, guild_id=1, channel_id=channel, title="B", location=None, actor=GM
        )
        scene_ids.append(scene.id)
    log = TurnLog(db)
    log.start()
    began = time.perf_counter()
    await asyncio.gather(
        *(
            log.append(
                IncomingMessage(
                    message_id=10_000_000 + i,
                    channel_id=channels[i % 10],
                    author_id=7,
                    author_name="Pat",
                    speaker=SpeakerKind.PLAYER,
                    text=f"message {i} " + "lorem ipsum " * 8,
                    created_at=utc_now(),
                )
            )
            for i in range(messages)
        )
    )
    turns_s = time.perf_counter() - began
    await log.close()

    ledger = SqlTokenLedger(db)
    gate = asyncio.Semaphore(50)
    writes: list[float] = []
    reads: list[float] = []

    async def write(i: int) -> None:
        async with gate:
            t = time.perf_counter()
            await ledger.record(campaign.id, "bench", "m", i, i)
            writes.append(time.perf_counter() - t)

    async def read(i: int) -> None:
        async with gate:
            t = time.perf_counter()
            await scenes.report(scene_ids[i % 10])
            reads.append(time.perf_counter() - t)

    began = time.perf_counter()
    await asyncio.gather(
        *(write(i) for i in range(transactions)), *(read(i) for i in range(transactions // 3))
    )
    mixed_s = time.perf_counter() - began
    return {
        "turns_per_s": round(messages / turns_s),
        "write_tx_per_s": round(len(writes) / mixed_s),
        "write_p50_ms": pct(writes, 50),
        "write_p99_ms": pct(writes, 99),
        "read_p50_ms": pct(reads, 50),
        "read_p99_ms": pct(reads, 99),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--transactions", type=int, default=3_000)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.from_url(f"sqlite+aiosqlite:///{tmp}/bench.sqlite3")
        try:
            results["sqlite"] = await run_on(db, args.messages, args.transactions)
        finally:
            await db.dispose()
    admin_url = os.environ.get("LOREKEEPER_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    schema = f"lk_bench_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(admin_url)
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        db = Database.from_url(admin_url, search_path=schema)
        try:
            results["postgres"] = await run_on(db, args.messages, args.transactions)
        finally:
            await db.dispose()
    except OSError as error:
        results["postgres"] = {"skipped": str(error)}
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        await admin.dispose()
    print(
        json.dumps(
            {"bench": "storage", "messages": args.messages, "transactions": args.transactions, **results}
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
