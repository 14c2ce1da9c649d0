"""Faults: a locked SQLite file, PostgreSQL connections killed mid-run or the server unreachable for a while, and
Discord answering 429 or 5xx."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.app import build_services
from bot.client.client import Lorekeeper
from bot.ops import jobs
from canon import storage
from canon.storage import Database
from memory.scene_tables import TurnRow
from tests.conftest import POSTGRES_URL
from tests.e2e.conftest import World


class FileLock:
    """Another process's writer: holds SQLite's write lock (BEGIN IMMEDIATE) until released."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.held = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        self.held.set()
        self.release.wait(60)
        conn.execute("COMMIT")
        conn.close()

    def __enter__(self) -> FileLock:
        self.thread.start()
        assert self.held.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.thread.join(10)


def sqlite_file(world: World) -> str:
    if not world.bot.services.db.is_sqlite:
        pytest.skip("a file lock is a SQLite matter")
    path = world.bot.services.db.engine.url.database
    assert path
    return path


async def turn_count(world: World) -> int:
    async with world.bot.services.db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(TurnRow)) or 0)


async def test_turns_written_while_the_file_is_locked_are_stored_once_it_is_free(world: World) -> None:
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Locked out")
    path = sqlite_file(world)
    acked: list[int] = []
    world.bot.services.turns.observers.append(acked.extend)
    with FileLock(path):
        for i in range(50):
            await world.emu.send_message(world.channel, world.pat, f"knock {i}", settle=False)
        await asyncio.sleep(1.5)  # longer than a few retries: the writer waits, nothing is dropped
        assert acked == []
    await world.emu.wait_for(lambda: len(acked) == 50, timeout=30, what="every turn stored after the lock")
    assert await turn_count(world) == 50


async def test_a_command_told_when_the_database_stays_locked(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite_file(world)
    monkeypatch.setattr(storage, "SQLITE_BUSY_TIMEOUT_MS", 100)  # a short wait, so the retries run out fast
    await world.restart()
    with FileLock(sqlite_file(world)):
        refused = await world.emu.invoke(world.channel, world.gm, "scene start", title="Busy", timeout=30)
    assert refused.ephemeral
    assert "database is busy or unreachable" in (refused.content or "") and "try again" in (
        refused.content or ""
    )
    started = await world.emu.invoke(world.channel, world.gm, "scene start", title="Busy")
    assert not started.ephemeral


@pytest.mark.postgres
async def test_postgres_connections_killed_mid_run_lose_no_turn(world: World) -> None:
    if world.bot.services.db.is_sqlite:
        pytest.skip("PostgreSQL only")
    assert POSTGRES_URL
    # The bot's own engine, tagged, so that only its connections are terminated on the shared server.
    tag = f"lk-test-{uuid.uuid4().hex[:10]}"
    engine = create_async_engine(
        world.target.url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        connect_args={"server_settings": {"search_path": world.target.search_path, "application_name": tag}},
    )
    await world.stop()
    services = await build_services(world.settings, db=Database(engine))
    bot = Lorekeeper(services)
    await world.emu.start_bot(bot)
    world.bots.append(bot)
    acked: list[int] = []
    services.turns.observers.append(acked.extend)
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Power cut")

    admin = create_async_engine(POSTGRES_URL)
    killed = 0
    try:
        for round_ in range(4):
            for i in range(40):
                await world.emu.send_message(world.channel, world.pat, f"r{round_} m{i}", settle=False)
            async with admin.connect() as conn:
                result = await conn.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = :t"
                    ),
                    {"t": tag},
                )
                killed += int(result.scalar() or 0)
            await asyncio.sleep(0.05)
    finally:
        await admin.dispose()
    assert killed > 0, "the bot's connections were terminated"
    await world.emu.wait_for(lambda: len(acked) == 160, timeout=60, what="every turn stored")
    async with services.db.session() as session:
        rows = (await session.execute(select(TurnRow.discord_message_id, TurnRow.number))).all()
    assert len(rows) == 160 == len({r[0] for r in rows})
    assert sorted(r[1] for r in rows) == list(range(1, 161))
    # Commands work on the fresh connections.
    status = await world.emu.invoke(world.channel, world.pat, "scene status")
    assert status.ephemeral and status.embeds
    # Writes are retried; a read whose connection is killed under it fails once and is logged (not retried:
    # the next message reads again). None of those errors comes from the turn log.
    for record in world.emu.errors.records:
        detail = world.emu.errors.format_records([record])
        assert "administrator command" in detail or "connection was closed" in detail, detail
        assert record.name != "memory.turn_log", detail
    world.emu.errors.clear()


class TcpProxy:
    """A TCP proxy in front of PostgreSQL that a test cuts (connections dropped, new ones refused) and restores.

    The bot connects through it, so a cut is the server unreachable from the bot's side, as a restarted
    PostgreSQL or a network outage is, while the test's own connections go straight to the server.
    """

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.server: asyncio.Server | None = None
        self.links: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        """Listen (on the same port as before, after a cut)."""
        self.server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _link(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.close()
            return
        self.links |= {client_w, server_w}

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            except OSError:
                pass
            finally:
                writer.close()

        await asyncio.gather(pipe(client_r, server_w), pipe(server_r, client_w))
        self.links -= {client_w, server_w}

    def cut(self) -> None:
        """Drop every connection and refuse new ones."""
        assert self.server is not None
        self.server.close()
        for writer in list(self.links):
            writer.transport.abort()


@pytest.mark.postgres
async def test_postgres_unreachable_for_a_while_loses_no_turn_and_tells_the_user(world: World) -> None:
    if world.bot.services.db.is_sqlite:
        pytest.skip("PostgreSQL only")
    url = make_url(world.target.url)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    through = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    await world.stop()
    db = Database.from_url(through, search_path=world.target.search_path)
    services = await build_services(world.settings, db=db)
    bot = Lorekeeper(services)
    await world.emu.start_bot(bot)
    world.bots.append(bot)
    acked: list[int] = []
    services.turns.observers.append(acked.extend)
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Blackout")
    for i in range(20):
        await world.emu.send_message(world.channel, world.pat, f"before {i}", settle=False)
    await world.emu.wait_for(lambda: len(acked) == 20, timeout=30, what="turns before the outage")

    proxy.cut()
    try:
        for i in range(30):
            await world.emu.send_message(world.channel, world.pat, f"during {i}", settle=False)
        # While it lasts, a command's reads and retried writes fail: the user is told so, not left waiting.
        for told in (
            # settle=False: the messages' handlers wait for their turns' commit, on purpose.
            await world.emu.invoke(world.channel, world.pat, "scene status", timeout=30, settle=False),
            await world.emu.invoke(
                world.channel, world.gm, "session schedule", when="in 2 days", timeout=30, settle=False
            ),
        ):
            assert told.ephemeral and "database is busy or unreachable" in (told.content or ""), told.content
        await asyncio.sleep(1.5)  # longer than a command's retries: the turn log keeps waiting
        assert len(acked) == 20, "no turn is reported stored while the database is unreachable"
    finally:
        await proxy.start()  # back, even after a failure above (the bot's shutdown writes what it queued)
    await world.emu.wait_for(lambda: len(acked) == 50, timeout=60, what="every turn stored once it is back")
    async with services.db.session() as session:
        rows = (await session.execute(select(TurnRow.text, TurnRow.number).order_by(TurnRow.number))).all()
    assert [r[0] for r in rows] == [f"before {i}" for i in range(20)] + [f"during {i}" for i in range(30)]
    assert [r[1] for r in rows] == list(range(1, 51))
    status = await world.emu.invoke(world.channel, world.pat, "scene status")
    assert status.ephemeral and status.embeds, "commands work again"
    # What went wrong meanwhile was logged as the outage it was, never as a turn lost.
    for record in world.emu.errors.records:
        assert record.name != "memory.turn_log", world.emu.errors.format_records([record])
    world.emu.errors.clear()


async def test_discord_429_and_5xx_are_retried_without_duplicates(world: World) -> None:
    emu = world.emu
    emu.fail_next("POST", r"/interactions/\d+/[^/]+/callback", status=429, retry_after=0.2)
    started = await emu.invoke(world.channel, world.gm, "scene start", title="Rate limited")
    assert not started.ephemeral and started.embeds
    assert len(emu.requests_to("POST", r"/interactions/\d+/[^/]+/callback")) == 2  # refused once, then sent

    await emu.invoke(world.channel, world.gm, "session schedule", when="in 2 days", title="Retry night")

    async def soon(session):  # type: ignore[no-untyped-def]
        import datetime as dt

        from sqlalchemy import update

        from bot.schema.ops_tables import ScheduledSessionRow
        from canon.storage import utc_now

        await session.execute(
            update(ScheduledSessionRow).values(starts_at=utc_now() + dt.timedelta(minutes=5))
        )

    await world.bot.services.db.run(soon)
    emu.fail_next("POST", rf"/channels/{world.channel.id}/messages", status=502)
    emu.fail_next("POST", rf"/channels/{world.channel.id}/messages", status=429, retry_after=0.1)
    await jobs.session_reminder_job(1)
    reminders = [m for m in emu.channel_messages(world.channel) if m["content"].startswith("⏰")]
    assert len(reminders) == 1 and "Retry night" in reminders[0]["content"]
    assert len(emu.requests_to("POST", rf"/channels/{world.channel.id}/messages")) == 3
