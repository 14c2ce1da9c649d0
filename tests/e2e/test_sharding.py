"""Lorekeeper as an `AutoShardedBot` with two shards: commands and turn logging work on both."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from discord import Permissions
from sqlalchemy import select, text

from bot.app import Services, build_services
from bot.client.client import Lorekeeper, ShardedLorekeeper, create_bot
from bot.offline.emulator import Channel, DiscordEmulator, Guild, Member
from bot.ops.scheduler import RECONCILE_JOB, JobScheduler, session_job_id
from bot.schema.ops_tables import JOBS_TABLE
from canon.storage import utc_now
from config.settings import Settings
from memory.scene_tables import SceneRow, TurnRow
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import assert_no_pings, embed_fields
from tests.e2e.test_session_reminders_e2e import starts_soon


async def test_two_shards_serve_their_own_guilds(db_target: DatabaseTarget, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", shard_count=2)  # type: ignore[call-arg]
    async with DiscordEmulator() as emu:
        worlds = []
        for shard in (0, 1):
            guild = emu.add_guild(f"Realm {shard}", shard=(shard, 2))
            gm = emu.add_member(guild, f"GM {shard}", roles=[emu.add_role(guild, "GM")])
            player = emu.add_member(guild, f"Player {shard}")
            worlds.append((guild, gm, player, emu.add_text_channel(guild, "scene")))
        services = await build_services(settings, db=db_target.open())
        bot = create_bot(services)
        assert isinstance(bot, ShardedLorekeeper) and isinstance(bot, Lorekeeper)
        await emu.start_bot(bot)
        try:
            assert bot.shard_count == 2
            assert sorted(tuple(i["shard"]) for i in emu.identify_log) == [(0, 2), (1, 2)]
            for shard, (guild, gm, player, chan) in enumerate(worlds):
                assert bot.get_guild(guild.id).shard_id == shard  # type: ignore[union-attr]
                started = await emu.invoke(chan, gm, "scene start", title=f"On shard {shard}")
                assert not started.ephemeral, started.content
                await emu.send_message(chan, player, f"Hello from shard {shard}")
                status = await emu.invoke(chan, player, "scene status")
                assert status.ephemeral and "1" in str(status.embeds[0])
            for guild, *_ in worlds:  # each server's own latencies, whichever shard it is on
                assert services.metrics.summary(guild.id)["scene start"].count == 1
        finally:
            await emu.stop_bot(bot)
        emu.errors.assert_no_errors()
    db = db_target.open()
    try:
        async with db.session() as session:
            turns = (await session.execute(select(TurnRow.text, SceneRow.guild_id).join(SceneRow))).all()
    finally:
        await db.dispose()
    assert sorted(t[0] for t in turns) == ["Hello from shard 0", "Hello from shard 1"]
    assert {t[1] for t in turns} == {g.id for g, *_ in worlds}


def two_realms(emu: DiscordEmulator, channel: str) -> list[tuple[Guild, Member, Channel]]:
    """Add a server on each of 2 shards, each with a GM and one text channel."""
    worlds = []
    for shard in (0, 1):
        guild = emu.add_guild(f"Realm {shard}", shard=(shard, 2))
        gm = emu.add_member(guild, f"GM {shard}", roles=[emu.add_role(guild, "GM")])
        worlds.append((guild, gm, emu.add_text_channel(guild, channel)))
    return worlds


@contextlib.asynccontextmanager
async def split_processes(
    emu: DiscordEmulator, db_target: DatabaseTarget, tmp_path: Path
) -> AsyncIterator[tuple[list[Lorekeeper], list[Services]]]:
    """Run two bots' worth of processes on one database, each with its own client, services and one of 2 shards."""
    bots: list[Lorekeeper] = []
    all_services: list[Services] = []
    try:
        for shard in (0, 1):
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None, data_dir=tmp_path / f"data{shard}", shard_count=2, shard_ids=[shard]
            )
            services = await build_services(settings, db=db_target.open())
            bot = create_bot(services)
            await emu.start_bot(bot)
            bots.append(bot)
            all_services.append(services)
        yield bots, all_services
    finally:
        for bot in bots:
            await emu.stop_bot(bot)


async def test_two_processes_split_the_shards_and_one_runs_the_jobs(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    async with DiscordEmulator() as emu:
        worlds = two_realms(emu, "scene")
        async with split_processes(emu, db_target, tmp_path) as (bots, all_services):
            assert sorted(tuple(i["shard"]) for i in emu.identify_log) == [(0, 2), (1, 2)]
            # Both stand for the scheduler; the first to start holds its lease and runs the jobs.
            assert [s.scheduler is not None and s.scheduler.running for s in all_services] == [True, False]
            for shard, (guild, gm, chan) in enumerate(worlds):
                assert [b.get_guild(guild.id) is not None for b in bots] == [shard == 0, shard == 1]
                started = await emu.invoke(chan, gm, "scene start", title=f"On shard {shard}")
                assert not started.ephemeral, started.content
                assert all_services[shard].metrics.summary(guild.id)["scene start"].count == 1
                assert "scene start" not in all_services[1 - shard].metrics.summary(guild.id)
        emu.errors.assert_no_errors()


async def run_job_now(scheduler: JobScheduler, job_id: str) -> None:
    """Make a stored job due now, as if its time had come, and wait until the running scheduler has run it."""
    from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED

    running = scheduler.scheduler
    assert running is not None and scheduler.running
    loop = asyncio.get_running_loop()
    ran: asyncio.Future[BaseException | None] = loop.create_future()

    def finished(event: Any) -> None:  # on the loop's thread or the scheduler's worker thread
        if event.job_id == job_id:
            loop.call_soon_threadsafe(lambda: ran.done() or ran.set_result(event.exception))

    running.add_listener(finished, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    try:
        await asyncio.to_thread(running.modify_job, job_id, next_run_time=utc_now())
        error = await asyncio.wait_for(ran, timeout=30)
    finally:
        running.remove_listener(finished)
    assert error is None, f"{job_id} failed: {error!r}"


async def stored_jobs(services: Services) -> dict[str, dt.datetime | None]:
    """Return the job store's job ids and next run times, read from the shared database."""
    async with services.db.session() as session:
        rows = (await session.execute(text(f"SELECT id, next_run_time FROM {JOBS_TABLE}"))).all()
    return {job_id: dt.datetime.fromtimestamp(when, dt.UTC) if when else None for job_id, when in rows}


async def test_a_session_scheduled_through_the_process_without_the_scheduler_is_reminded_by_the_other(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    async with DiscordEmulator() as emu:
        worlds = two_realms(emu, "table")
        guild, gm, chan = worlds[1]  # a server on shard 1: its commands reach the process without jobs
        admin = emu.add_member(
            guild, "Ada", roles=[emu.add_role(guild, "Admin", permissions=Permissions(manage_guild=True))]
        )
        async with split_processes(emu, db_target, tmp_path) as (_, (zero, one)):
            assert zero.scheduler is not None and zero.scheduler.running
            assert one.scheduler is not None and not one.scheduler.running
            assert RECONCILE_JOB in await stored_jobs(zero)

            scheduled = await emu.invoke(
                chan, gm, "session schedule", when="in 2 days", title="Across shards"
            )
            assert not scheduled.ephemeral and "Across shards" in (scheduled.content or "")
            (session,) = await one.ops.sessions(guild.id)
            job_id = session_job_id(session.id)
            assert job_id not in await stored_jobs(zero), "the shard-1 process adds no job"

            # The shard-0 process's reconciliation, when it falls due, adds the missing job.
            await run_job_now(zero.scheduler, RECONCILE_JOB)
            lead = dt.timedelta(minutes=zero.settings.ops.session_reminder_minutes)
            reminded_at = (await stored_jobs(zero))[job_id]
            assert reminded_at is not None  # the store keeps a float timestamp: equal to a microsecond
            assert abs(reminded_at - (session.starts_at - lead)) <= dt.timedelta(microseconds=1)
            # The shard-1 server's admin sees it pending, read from the shared job store.
            status = await emu.invoke(chan, admin, "admin status")
            pending = next(v for k, v in embed_fields(status.embeds[0]).items() if k.startswith("Pending"))
            assert job_id in pending and RECONCILE_JOB in pending, pending

            # The session moves to start in ten minutes (inside the reminder's lead): the next reconciliation
            # remakes its job, which the shard-0 process runs at once, posting in the shard-1 server's
            # channel.
            await starts_soon(db_target, session.id, minutes=10)
            await run_job_now(zero.scheduler, RECONCILE_JOB)

            def reminders() -> list[dict[str, Any]]:
                return [m for m in emu.channel_messages(chan) if m["content"].startswith("⏰")]

            await emu.wait_for(lambda: len(reminders()) == 1, what="the reminder from the shard-0 process")
            assert "Across shards" in reminders()[0]["content"]
            await run_job_now(zero.scheduler, RECONCILE_JOB)  # the one-off session is over: no new job
            assert job_id not in await stored_jobs(zero)
            assert (await one.ops.get_session(session.id)).status == "done"  # type: ignore[union-attr]

            # Cancelled through the shard-1 process: its job goes at the next reconciliation, unposted.
            await emu.invoke(chan, gm, "session schedule", when="in 3 days", repeat="weekly", title="Off")
            (later,) = await one.ops.sessions(guild.id)
            later_job = session_job_id(later.id)
            await run_job_now(zero.scheduler, RECONCILE_JOB)
            assert later_job in await stored_jobs(zero)
            cancelled = await emu.invoke(chan, gm, "session cancel", session_id=later.id)
            assert "Cancelled" in (cancelled.content or "")
            await run_job_now(zero.scheduler, RECONCILE_JOB)
            assert later_job not in await stored_jobs(zero)
            assert len(reminders()) == 1
            await emu.settle()
            assert_no_pings(emu)
        emu.errors.assert_no_errors()


def test_one_process_without_shard_count_is_a_plain_bot(settings: Settings) -> None:
    class Stub:
        pass

    services = Stub()
    services.settings = settings  # type: ignore[attr-defined]
    bot = create_bot(services)  # type: ignore[arg-type]
    assert type(bot) is Lorekeeper
