"""The full gateway path: MESSAGE_CREATE from the emulator to a committed turn in a bot running in its own process.

Two phases on one bot: a burst sent as fast as the emulator can dispatch (throughput), then the same number of
messages paced at the goal rate (latency without a backlog). Latency is wall-clock time from the dispatch of a
MESSAGE_CREATE to the bot's commit acknowledgement (both processes read the same clock). Each phase also gives
the CPU time the bot process and the emulator spent per message: unlike the rates, it hardly moves when other
work shares the machine.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.offline.emulator import DiscordEmulator

ROOT = Path(__file__).resolve().parents[1]


def process_cpu_seconds(pid: int) -> float | None:
    """Return the CPU time (user + system) a live process has used so far; None where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_ms_per(before: float | None, after: float | None, count: int) -> float | None:
    return None if before is None or after is None else round((after - before) * 1000 / count, 3)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000, 2)


class AckReader:
    """Reads the bot process's `ack <id> <time>` lines."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.acks: dict[int, float] = {}
        self.task = asyncio.create_task(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            parts = raw.split()
            if len(parts) == 3 and parts[0] == b"ack":
                self.acks[int(parts[1])] = float(parts[2])


async def run_gateway_burst(messages: int, channels: int, *, paced_rate: float = 1000.0) -> dict[str, Any]:
    """Return throughput and latency figures of the gateway path."""
    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordEmulator(timeout=60) as emu:
            guild = emu.add_guild("Bench")
            gm = emu.add_member(guild, "GM", roles=[emu.add_role(guild, "GM")])
            players = [emu.add_member(guild, f"Player {i}") for i in range(5)]
            chans = [emu.add_text_channel(guild, f"scene-{i}") for i in range(channels)]
            env = {**os.environ, "LOREKEEPER_DATA_DIR": tmp, "LOREKEEPER_LOG_LEVEL": "WARNING"}
            env.pop("LOREKEEPER_DATABASE_URL", None)
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.bot_process",
                emu.base_url,
                cwd=ROOT,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                limit=2**20,
            )
            assert proc.stdout is not None
            reader = AckReader(proc.stdout)
            try:
                # The bot's start (imports, the embedding model) can take minutes on a busy machine.
                await emu.wait_for(lambda: bool(emu.ready_sessions(guild.id)), timeout=300, what="bot ready")
                await emu.wait_for(lambda: bool(emu.global_commands), timeout=300, what="commands synced")
                for chan in chans:
                    await emu.invoke(chan, gm, "scene start", title="Bench", timeout=30)

                async def phase(count: int, rate: float | None) -> dict[str, Any]:
                    sent: dict[int, float] = {}
                    bot_cpu, own_cpu = process_cpu_seconds(proc.pid), time.process_time()
                    began = time.time()
                    for i in range(count):
                        if rate is not None:
                            due = began + i / rate
                            delay = due - time.time()
                            if delay > 0:
                                await asyncio.sleep(delay)
                        stamp = time.time()
                        message = await emu.send_message(
                            chans[i % channels],
                            players[i % len(players)],
                            f"turn {i}: the party presses on",
                            settle=False,
                        )
                        sent[int(message["id"])] = stamp
                        if rate is None and i % 200 == 0:
                            await asyncio.sleep(0)  # let the gateway writer drain
                    dispatched = time.time() - began
                    await emu.wait_for(
                        lambda: all(m in reader.acks for m in sent),
                        timeout=300,
                        what="every message committed",
                    )
                    bot_cpu_after, own_cpu_after = process_cpu_seconds(proc.pid), time.process_time()
                    last = max(reader.acks[m] for m in sent)
                    latencies = [reader.acks[m] - t for m, t in sent.items()]
                    return {
                        "messages_per_s": round(count / (last - began)),
                        "p50_ms": _percentile(latencies, 50),
                        "p99_ms": _percentile(latencies, 99),
                        "seconds": round(last - began, 2),
                        "dispatch_seconds": round(dispatched, 2),
                        "bot_cpu_ms_per_message": _cpu_ms_per(bot_cpu, bot_cpu_after, count),
                        "emulator_cpu_ms_per_message": _cpu_ms_per(own_cpu, own_cpu_after, count),
                    }

                burst = await phase(messages, None)
                paced = await phase(messages, paced_rate)
            finally:
                proc.terminate()
                await proc.wait()
                reader.task.cancel()
    return {"burst": burst, "paced": {"rate": paced_rate, **paced}}
