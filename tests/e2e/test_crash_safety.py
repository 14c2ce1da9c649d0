"""A bot killed with SIGKILL in the middle of a message burst loses no acknowledged turn and duplicates none."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

from sqlalchemy import select

from bot.offline.emulator import DiscordEmulator
from memory.scene_tables import SceneRow, TurnRow
from tests.conftest import DatabaseTarget

ROOT = Path(__file__).resolve().parents[2]
STORED = re.compile(r"stored message (\d+) as turn")


class BotProcess:
    """The bot in a subprocess, with the message ids it acknowledged (logged after each commit)."""

    def __init__(self, emu: DiscordEmulator, data_dir: Path, target: DatabaseTarget | None = None) -> None:
        self.emu, self.data_dir, self.target = emu, data_dir, target
        self.acked: list[int] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task[None] | None = None
        self.log: list[str] = []

    async def start(self) -> None:
        env = {
            **os.environ,
            "LOREKEEPER_DATA_DIR": str(self.data_dir),
            "LOREKEEPER_LOG_LEVEL": "DEBUG",
            "LOREKEEPER_EMBEDDING__ENABLED": "false",
        }
        env.pop("LOREKEEPER_DATABASE_URL", None)
        if self.target is not None:
            env["LOREKEEPER_DATABASE_URL"] = self.target.database_url  # PostgreSQL: the test's schema
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.bot_process",
            self.emu.base_url,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self.reader = asyncio.create_task(self._read())
        guild_id = next(iter(self.emu.guilds))
        await self.emu.wait_for(lambda: bool(self.emu.ready_sessions(guild_id)), timeout=60, what="bot ready")
        await self.emu.wait_for(
            lambda: any("synced" in line for line in self.log), timeout=60, what="commands synced"
        )

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.log.append(line)
            if match := STORED.search(line):
                self.acked.append(int(match.group(1)))

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()
        if self.reader:
            await self.reader
        guild_id = next(iter(self.emu.guilds))
        await self.emu.wait_for(
            lambda: not self.emu.ready_sessions(guild_id), timeout=10, what="session closed"
        )

    async def terminate(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(self.proc.wait(), 30)
        if self.reader:
            await self.reader


async def test_sigkill_mid_burst_keeps_every_acknowledged_turn_once(
    tmp_path: Path, db_target: DatabaseTarget
) -> None:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Crash Test")
        gm = emu.add_member(guild, "Gina", roles=[emu.add_role(guild, "GM")])
        pat = emu.add_member(guild, "Pat")
        chan = emu.add_text_channel(guild, "scene")

        first = BotProcess(emu, tmp_path, db_target)
        await first.start()
        # The bot runs in another process: the emulator cannot watch its handlers, only wait for the reply.
        started = await emu.invoke(
            chan, gm, "scene start", title="Under fire", expect_response=False, settle=False
        )
        await emu.wait_for(started.done.is_set, timeout=30, what="/scene start answered")
        assert not started.ephemeral, started.content

        for i in range(3000):
            await emu.send_message(chan, pat, f"burst {i}", settle=False)
        await emu.wait_for(lambda: len(first.acked) >= 200, timeout=60, what="200 turns acknowledged")
        await first.kill()
        acked_before_kill = list(first.acked)
        assert 200 <= len(acked_before_kill) < 3000, "the kill should land mid-burst"

        second = BotProcess(emu, tmp_path, db_target)
        await second.start()
        after = await emu.send_message(chan, pat, "after the crash", settle=False)
        await emu.wait_for(
            lambda: int(after["id"]) in second.acked, timeout=30, what="post-crash turn stored"
        )
        await second.terminate()

    db = db_target.open()
    try:
        async with db.session() as session:
            rows = (
                await session.execute(select(TurnRow.discord_message_id, TurnRow.number, TurnRow.scene_id))
            ).all()
            scenes = (await session.execute(select(SceneRow.id, SceneRow.status))).all()
    finally:
        await db.dispose()
    stored_ids = [r[0] for r in rows]
    assert len(stored_ids) == len(set(stored_ids)), "a turn was stored twice"
    assert set(acked_before_kill) <= set(stored_ids), "an acknowledged turn was lost"
    assert int(after["id"]) in stored_ids
    assert scenes == [(scenes[0][0], "active")]
    assert {r[2] for r in rows} == {scenes[0][0]}
    numbers = sorted(r[1] for r in rows)
    assert numbers == list(range(1, len(numbers) + 1)), "turn numbers have gaps or repeats"
