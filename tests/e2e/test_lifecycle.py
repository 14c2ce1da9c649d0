"""Lifecycle: a scene commit killed with SIGKILL is all there or not at all; SIGTERM shuts down gracefully."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
from pathlib import Path

from sqlalchemy import func, insert, select
from sqlalchemy.engine import make_url

from bot.app import build_canon
from bot.offline.emulator import DiscordEmulator
from bot.ops.backup import RunLock
from canon import campaigns
from canon.gate import Draft
from canon.models import Authority, Evidence, EvidenceKind
from canon.proposals import EntityContent
from canon.storage import Database, utc_now
from canon.tables import EntityRow, ProposalRow
from memory.scene_service import SceneService
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import Actor, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog
from tests.conftest import DatabaseTarget

ROOT = Path(__file__).resolve().parents[2]
GM = Actor(id=1, name="Gina", is_gm=True)
PROPOSALS = 1000


async def scene_under_review(db: Database, name: str) -> tuple[int, int]:
    """Return (campaign id, scene id) of a scene under review with PROPOSALS accepted entity proposals."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name, guild_id=7))
    service = build_canon(db, SceneService(db))
    channel = 9000 + campaign.id
    scene = await service.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=7, channel_id=channel, title="Census", location=None, actor=GM
    )
    log = TurnLog(db)
    log.start()
    await log.append(
        IncomingMessage(
            message_id=None,
            channel_id=channel,
            author_id=1,
            author_name="Gina",
            speaker=SpeakerKind.GM,
            text="Everyone in the city is counted.",
            created_at=utc_now(),
        )
    )
    await log.close()
    evidence = [Evidence(kind=EvidenceKind.TURNS, scene_id=scene.id, turn_from=1, turn_to=1)]
    template = Draft(
        content=EntityContent(name="Citizen 0000", entity_type="Person", description="counted"),
        authority=Authority.PLAYER,
        evidence=evidence,
        proposer_id=2,
        proposer_name="Pat",
    )
    (first,) = await service.proposals.submit(campaign, [template], scene_id=scene.id, batch=None)

    async def clone(session):  # type: ignore[no-untyped-def]
        # The real path checks each proposal against canon (slow); copies of a checked one are as valid.
        row = await session.get(ProposalRow, first.id)
        columns = [c.key for c in ProposalRow.__table__.columns if c.key != "id"]
        base = {c: getattr(row, c) for c in columns}
        rows = []
        for i in range(1, PROPOSALS):
            name = f"Citizen {i:04d}"
            rows.append(
                {
                    **base,
                    "content": {**base["content"], "name": name},
                    "fingerprint": hashlib.sha256(name.encode()).hexdigest(),
                }
            )
        await session.execute(insert(ProposalRow), rows)

    await db.run(clone)
    await service.canon.end_scene(channel)
    accepted = await service.reviews.accept_all(scene.id, GM)
    assert len(accepted) == PROPOSALS
    return campaign.id, scene.id


async def state(db: Database, campaign_id: int, scene_id: int) -> tuple[str, int]:
    async with db.session() as session:
        status = await session.scalar(select(SceneRow.status).where(SceneRow.id == scene_id))
        entities = await session.scalar(
            select(func.count()).select_from(EntityRow).where(EntityRow.campaign_id == campaign_id)
        )
    return str(status), int(entities or 0)


async def test_a_commit_killed_midway_is_all_there_or_not_at_all(db_target: DatabaseTarget) -> None:
    db = db_target.open()
    outcomes: list[str] = []
    scene: tuple[int, int] | None = None  # (campaign id, scene id) of the scene under review to commit next
    try:
        for attempt, delay in enumerate((0.0, 0.4, 1.2, 120.0)):
            if scene is None:
                scene = await scene_under_review(db, f"Census {attempt}")
            campaign_id, scene_id = scene
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.e2e.commit_process",
                db_target.url,
                db_target.search_path or "",
                str(scene_id),
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
            )
            assert proc.stdout is not None
            assert (await asyncio.wait_for(proc.stdout.readline(), 60)).strip() == b"committing"
            try:
                finished = await asyncio.wait_for(proc.stdout.readline(), delay)
            except TimeoutError:
                finished = b""
            if proc.returncode is None:
                proc.send_signal(signal.SIGKILL)
            await proc.wait()
            status, entities = await state(db, campaign_id, scene_id)
            if status == SceneStatus.COMPLETED:
                assert entities == PROPOSALS, f"completed with {entities} of {PROPOSALS} entities"
                outcomes.append("committed")
                scene = None
            else:
                # Nothing of it is there: the scene is still under review, and the next attempt commits the
                # same scene again (recovery: the same commit, run again, writes everything once).
                assert status == SceneStatus.REVIEW and entities == 0, (status, entities)
                outcomes.append("rolled back")
            if finished.strip() == b"committed":
                assert outcomes[-1] == "committed"
        async with db.session() as session:
            pending = await session.scalar(
                select(func.count()).select_from(ProposalRow).where(ProposalRow.status == "pending")
            )
        assert pending == 0
    finally:
        await db.dispose()
    # Kills landed both before the commit finished and after (the last attempt waits for it), and a scene
    # whose commit was killed was committed whole by a later attempt.
    assert "rolled back" in outcomes and outcomes[-1] == "committed", outcomes


def wal_exists(target: DatabaseTarget) -> bool:
    """Return whether a SQLite target's write-ahead log file is there."""
    return Path(f"{make_url(target.url).database}-wal").exists()


# `lorekeeper run`'s code (tests.e2e.ops_bot_process) with every pooled connection of the process counted: how
# many were opened, and how many the process closed itself (not left to the exit), printed as it ends.
COUNTED_BOT_SCRIPT = """
import asyncio, sys
from sqlalchemy import event
from sqlalchemy.pool import Pool
from tests.e2e import ops_bot_process

opened, closed = {}, set()  # opened holds each connection: no id is reused while we count
event.listen(Pool, "connect", lambda connection, record: opened.setdefault(id(connection), connection))
event.listen(Pool, "close", lambda connection, record: closed.add(id(connection)))
event.listen(Pool, "close_detached", lambda connection: closed.add(id(connection)))
code = asyncio.run(ops_bot_process.main(sys.argv[1]))
print("connections", len(opened), len(opened.keys() - closed), flush=True)
sys.exit(code)
"""


async def test_sigterm_writes_turns_in_flight_stops_jobs_and_closes_connections(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    async with DiscordEmulator(timeout=60) as emu:
        guild = emu.add_guild("Graceful")
        gm = emu.add_member(guild, "Gina", roles=[emu.add_role(guild, "GM")])
        pat = emu.add_member(guild, "Pat")
        chan = emu.add_text_channel(guild, "scene")
        env = {
            **os.environ,
            "LOREKEEPER_DATA_DIR": str(tmp_path),
            "LOREKEEPER_DATABASE_URL": db_target.database_url,  # PostgreSQL: the test's schema
            "LOREKEEPER_DISCORD_TOKEN": emu.token,
            "LOREKEEPER_EMBEDDING__ENABLED": "false",
            "LOREKEEPER_LOG_LEVEL": "INFO",
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            COUNTED_BOT_SCRIPT,
            emu.base_url,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=2**20,
        )
        assert proc.stdout is not None and proc.stderr is not None
        received: set[int] = set()
        acked: set[int] = set()
        connections: list[tuple[int, int]] = []  # (opened, left open), printed as the process ends
        log: list[str] = []

        async def read_out() -> None:
            async for raw in proc.stdout:  # type: ignore[union-attr]
                kind, _, value = raw.decode().strip().partition(" ")
                if kind == "connections":
                    opened, left_open = value.split()
                    connections.append((int(opened), int(left_open)))
                elif kind in (
                    "recv",
                    "ack",
                ):  # (the lease's answers and the reconciliations are not read here)
                    (received if kind == "recv" else acked).add(int(value))

        async def read_err() -> None:
            async for raw in proc.stderr:  # type: ignore[union-attr]
                log.append(raw.decode(errors="replace"))

        readers = [asyncio.create_task(read_out()), asyncio.create_task(read_err())]
        await emu.wait_for(lambda: bool(emu.ready_sessions(guild.id)), timeout=60, what="bot ready")
        await emu.wait_for(lambda: any("scheduler started" in line for line in log), timeout=60, what="jobs")
        started = await emu.invoke(
            chan, gm, "scene start", title="Last call", expect_response=False, settle=False
        )
        await emu.wait_for(started.done.is_set, timeout=30, what="/scene start answered")
        for i in range(1500):
            await emu.send_message(chan, pat, f"round {i}", settle=False)
        await emu.wait_for(lambda: len(received) >= 100, timeout=60, what="messages arriving")
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 60)
        await asyncio.gather(*readers)

    text = "".join(log)
    assert code == 0, text[-3000:]
    assert "scheduler stopped" in text
    assert "Traceback" not in text, text[-3000:]
    db = db_target.open()
    try:
        async with db.session() as session:
            stored = set((await session.execute(select(TurnRow.discord_message_id))).scalars())
    finally:
        await db.dispose()
    assert received, "the bot received messages before SIGTERM"
    assert received <= stored, f"{len(received - stored)} turns in flight were lost"
    assert acked <= stored
    # Every connection the bot opened (database, readers, the job store's) it closed itself before exiting.
    ((opened, left_open),) = connections
    assert opened >= 2 and left_open == 0, connections
    if db_target.is_sqlite:
        # And cleanly: SQLite removes the WAL when the last connection closes after a checkpoint.
        assert not wal_exists(db_target)
    with RunLock(tmp_path):  # the run lock (taken on SQLite) went with the bot: a restore may go ahead
        pass


STARTUP_SCRIPT = """
import asyncio, gc, sys
from bot.client.client import create_bot
from bot.app import build_services
from config.settings import load_settings
from memory import embedding
from bot.offline.emulator import DiscordEmulator

async def main():
    async with DiscordEmulator() as emu:
        emu.add_guild("Warm")
        services = await build_services(load_settings())
        print("before", "chromadb" in sys.modules, bool(embedding._runtimes), gc.get_freeze_count() > 0)
        bot = create_bot(services)
        await emu.start_bot(bot)
        print("after", "chromadb" in sys.modules, bool(embedding._runtimes), gc.get_freeze_count() > 0)
        await emu.stop_bot(bot)

asyncio.run(main())
"""


async def test_start_up_loads_the_model_and_chromadb_and_freezes_what_it_loaded(tmp_path: Path) -> None:
    # A fresh interpreter: the model, chromadb and the frozen heap are once per process.
    env = {**os.environ, "LOREKEEPER_DATA_DIR": str(tmp_path), "LOREKEEPER_LOG_LEVEL": "WARNING"}
    env.pop("LOREKEEPER_DATABASE_URL", None)
    env.pop("LOREKEEPER_EMBEDDING__ENABLED", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        STARTUP_SCRIPT,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 300)
    assert proc.returncode == 0, err.decode()[-3000:]
    # Before: nothing loaded (a first /lore would have paid for it); after the bot is ready: all of it.
    assert out.decode().split() == ["before", "False", "False", "False", "after", "True", "True", "True"]
