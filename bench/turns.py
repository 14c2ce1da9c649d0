"""Turns persisted per second: (a) through the turn log directly, (b) through the full gateway path.

A burst of 20,000 messages over 10 channels, each with an active scene, on a fresh SQLite file. Latency is from
the moment a message is handed over (to the service, or to the gateway as MESSAGE_CREATE) to the moment its
commit is acknowledged. Prints one JSON line; `goals` says whether each goal was met: (a) at least 5,000
turns/s, (b) at least 1,000 messages/s in the burst and a p99 under 50 ms when paced at 1,000 messages/s.

Rates and latencies depend on what else runs: `machine` gives the load average around the run, and the CPU
milliseconds per turn (or per message, for the bot and the emulator processes) say what the work costs itself.

    .venv/bin/python -m bench.turns [--messages 20000] [--channels 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.schema import database
from canon import campaigns
from canon.storage import Database, utc_now
from memory.scene_service import SceneService
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog

GM = Actor(id=1, name="GM", is_gm=True)
GOAL_SERVICE_TURNS_PER_S = 5000
GOAL_GATEWAY_PER_S = 1000
GOAL_GATEWAY_P99_MS = 50


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (0-100) of values, in milliseconds rounded to 0.01."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[index] * 1000, 2)


async def prepare(path: Path, channels: int) -> tuple[Database, list[int]]:
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    await database.upgrade(db)
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Bench", guild_id=1))
    scenes = SceneService(db)
    ids = [1000 + i for i in range(channels)]
    for channel in ids:
        await scenes.start_scene(
            campaign_id=campaign.id, guild_id=1, channel_id=channel, title="Bench", location=None, actor=GM
        )
    return db, ids


async def service_path(messages: int, channels: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db, channel_ids = await prepare(Path(tmp) / "bench.sqlite3", channels)
        log = TurnLog(db)
        log.start()
        latencies: list[float] = []

        async def one(i: int) -> None:
            message = IncomingMessage(
                message_id=10_000_000 + i,
                channel_id=channel_ids[i % channels],
                author_id=7,
                author_name="Pat",
                speaker=SpeakerKind.PLAYER,
                text=f"message {i} " + "lorem ipsum " * 8,
                created_at=utc_now(),
            )
            started = time.perf_counter()
            stored = await log.append(message)
            latencies.append(time.perf_counter() - started)
            assert stored is not None and not stored.duplicate

        began, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(messages)))
        elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
        batches = log.committed_batches
        await log.close()
        await db.dispose()
    return {
        "turns_per_s": round(messages / elapsed),
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "commits": batches,
        "seconds": round(elapsed, 2),
        "cpu_ms_per_turn": round(cpu * 1000 / messages, 3),
    }


async def gateway_path(messages: int, channels: int) -> dict[str, Any]:
    from bench.gateway_burst import run_gateway_burst

    return await run_gateway_burst(messages, channels, paced_rate=GOAL_GATEWAY_PER_S)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--channels", type=int, default=10)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    service = await service_path(args.messages, args.channels)
    gateway = await gateway_path(args.messages, args.channels)
    print(
        json.dumps(
            {
                "bench": "turns",
                "messages": args.messages,
                "channels": args.channels,
                "service": service,
                "gateway": gateway,
                "goals": goals(service, gateway),
                "machine": {
                    "cpus": os.cpu_count(),
                    "load_1m_before": round(load_before, 2),
                    "load_1m_after": round(os.getloadavg()[0], 2),
                },
            }
        )
    )


def goals(service: dict[str, Any], gateway: dict[str, Any]) -> dict[str, Any]:
    """Return each goal, the figure it is judged on, and whether it was met."""
    checks = {
        "service_turns_per_s": (service["turns_per_s"], ">=", GOAL_SERVICE_TURNS_PER_S),
        "gateway_burst_messages_per_s": (gateway["burst"]["messages_per_s"], ">=", GOAL_GATEWAY_PER_S),
        "gateway_paced_p99_ms": (gateway["paced"]["p99_ms"], "<", GOAL_GATEWAY_P99_MS),
    }
    result: dict[str, Any] = {
        name: {"goal": f"{op} {target}", "got": got, "met": got >= target if op == ">=" else got < target}
        for name, (got, op, target) in checks.items()
    }
    result["all_met"] = all(check["met"] for check in result.values())
    return result


if __name__ == "__main__":
    asyncio.run(main())
