"""Scheduled sessions end to end: their reminders across restarts and time zones, the role they ping, jobs
whose channel was deleted, and sessions scheduled or cancelled by a process without the scheduler."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from zoneinfo import ZoneInfo

import pytest
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy import create_engine, text, update

from bot.offline.emulator.messages import parse_mentions
from bot.ops import jobs
from bot.ops.apscheduler_adapter import sync_url
from bot.ops.scheduler import BACKUP_JOB, CONTINUITY_JOB, IDLE_JOB
from bot.schema.ops_tables import JOBS_TABLE, ScheduledSessionRow
from canon.storage import utc_now
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World

TIMESTAMP = re.compile(r"<t:(\d+):F>")


async def starts_soon(target: DatabaseTarget, session_id: int, minutes: float = 10) -> None:
    """Move a scheduled session to start in a few minutes (its reminder is then due)."""
    db = target.open()

    async def work(session):  # type: ignore[no-untyped-def]
        await session.execute(
            update(ScheduledSessionRow)
            .where(ScheduledSessionRow.id == session_id)
            .values(starts_at=utc_now() + dt.timedelta(minutes=minutes))
        )

    try:
        await db.run(work)
    finally:
        await db.dispose()


def make_due(target: DatabaseTarget, job_id: str, seconds_ago: float = 60) -> None:
    """Move a stored job's next run into the past, as if the bot had been down when it fell due."""
    db = target.open()
    engine = create_engine(sync_url(db))
    store = SQLAlchemyJobStore(engine=engine, tablename=JOBS_TABLE, tableschema=target.search_path)
    sched = AsyncIOScheduler(jobstores={"default": store}, timezone=dt.UTC)
    try:
        sched.start(paused=True)
        sched.modify_job(job_id, next_run_time=utc_now() - dt.timedelta(seconds=seconds_ago))
    finally:
        sched.shutdown(wait=False)
        store.shutdown()
        engine.dispose()


async def stored_job_ids(world: World) -> set[str]:
    """Return the ids of the jobs the job store holds."""
    async with world.bot.services.db.session() as session:
        return set((await session.execute(text(f"SELECT id FROM {JOBS_TABLE}"))).scalars())


async def test_schedule_in_my_time_zone_shows_discord_timestamps(world: World) -> None:
    await world.emu.invoke(world.channel, world.gm, "timezone set", zone="America/New_York")
    shown = await world.emu.invoke(world.channel, world.gm, "timezone show")
    assert "America/New_York" in (shown.content or "")
    day = (utc_now() + dt.timedelta(days=60)).date()
    result = await world.emu.invoke(
        world.channel, world.gm, "session schedule", when=f"{day} 19:30", repeat="weekly", title="Heist"
    )
    stamp = int(TIMESTAMP.search(result.content or "").group(1))  # type: ignore[union-attr]
    expected = dt.datetime.combine(day, dt.time(19, 30), tzinfo=ZoneInfo("America/New_York"))
    assert dt.datetime.fromtimestamp(stamp, dt.UTC) == expected
    assert "America/New_York" in (result.content or "")
    assert "session:1" in await stored_job_ids(world)

    listed = await world.emu.invoke(world.channel, world.pat, "session list")
    assert (
        listed.ephemeral and "Heist" in (listed.content or "") and f"<t:{stamp}:F>" in (listed.content or "")
    )

    refused = await world.emu.invoke(world.channel, world.pat, "session cancel", session_id=1)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    cancelled = await world.emu.invoke(world.channel, world.gm, "session cancel", session_id=1)
    assert "Cancelled" in (cancelled.content or "")
    assert "session:1" not in await stored_job_ids(world)


async def test_server_default_zone_and_bad_input(world: World) -> None:
    await world.emu.invoke(world.channel, world.gm, "server timezone", zone="Asia/Tokyo")
    day = (utc_now() + dt.timedelta(days=10)).date()
    result = await world.emu.invoke(world.channel, world.gm, "session schedule", when=f"{day} 20:00")
    stamp = int(TIMESTAMP.search(result.content or "").group(1))  # type: ignore[union-attr]
    # Tokyo has no daylight saving time: 20:00 there is always 11:00 UTC.
    assert dt.datetime.fromtimestamp(stamp, dt.UTC) == dt.datetime.combine(day, dt.time(11, 0), tzinfo=dt.UTC)
    bad_zone = await world.emu.invoke(world.channel, world.pat, "timezone set", zone="Mars/Olympus")
    assert bad_zone.ephemeral and "not a time zone" in (bad_zone.content or "")
    past = await world.emu.invoke(world.channel, world.gm, "session schedule", when="2001-01-01 10:00")
    assert past.ephemeral and "already passed" in (past.content or "")
    gibberish = await world.emu.invoke(world.channel, world.gm, "session schedule", when="whenever")
    assert gibberish.ephemeral and "not a time I can read" in (gibberish.content or "")


async def test_reminder_that_fell_due_while_down_is_sent_once(world: World) -> None:
    await world.emu.invoke(world.channel, world.gm, "session schedule", when="in 2 days", title="Catch-up")
    await world.stop()
    await starts_soon(world.target, 1)
    make_due(world.target, "session:1")
    await world.start()

    def reminders() -> list[dict]:  # type: ignore[type-arg]
        return [m for m in world.emu.channel_messages(world.channel) if m["content"].startswith("⏰")]

    await world.emu.wait_for(lambda: len(reminders()) == 1, what="the overdue reminder")
    # Restart twice more: the one-off reminder is gone from the store and is never sent again.
    await world.restart()
    await world.restart()
    await asyncio.sleep(0.3)
    assert len(reminders()) == 1
    assert "Catch-up" in reminders()[0]["content"] and "<t:" in reminders()[0]["content"]
    assert "session:1" not in await stored_job_ids(world)
    # The job running twice (a crash between posting and the store's update) still posts once.
    await jobs.session_reminder_job(1)
    assert len(reminders()) == 1


async def test_a_reminder_pings_the_players_role_and_nobody_else(world: World) -> None:
    emu = world.emu
    party = emu.add_role(world.guild, "Party", mentionable=True)
    world.pingable_roles.add(party.id)  # the reminder's, and only there (checked below)
    await world.restart()  # new roles are announced at connect
    refused = await emu.invoke(
        world.channel, world.gm, "session schedule", when="in 2 days", players=world.guild.everyone
    )
    assert refused.ephemeral and "does not ping @everyone" in (refused.content or "")
    assert await world.bot.services.ops.sessions(world.guild.id) == []
    told = await emu.invoke(
        world.channel, world.gm, "session schedule", when="in 2 days", title="Heist @everyone", players=party
    )
    assert f"pinging <@&{party.id}>" in (told.content or "")
    assert parse_mentions(told.content or "", told.message["allowed_mentions"]) == ([], [], False)
    (scheduled,) = await world.bot.services.ops.sessions(world.guild.id)
    assert scheduled.ping_role_id == party.id
    listed = await emu.invoke(world.channel, world.pat, "session list")
    assert f"pings <@&{party.id}>" in (listed.content or "")

    await world.stop()
    await starts_soon(world.target, scheduled.id)
    make_due(world.target, f"session:{scheduled.id}")
    await world.start()

    def reminders() -> list[dict]:  # type: ignore[type-arg]
        return [m for m in emu.channel_messages(world.channel) if "⏰" in m["content"]]

    await emu.wait_for(lambda: len(reminders()) == 1, what="the reminder")
    (reminder,) = reminders()
    assert reminder["content"].startswith(f"<@&{party.id}> ⏰ **Heist @everyone**")
    # The players' role is pinged; the @everyone in the GM's title is not.
    assert parse_mentions(reminder["content"], reminder["allowed_mentions"]) == ([], [party.id], False)
    assert reminder["mention_roles"] == [str(party.id)]  # mentionable: Discord notifies it


async def test_restarts_neither_lose_nor_double_jobs(world: World) -> None:
    await world.emu.invoke(world.channel, world.gm, "session schedule", when="in 3 days", repeat="daily")
    before = await stored_job_ids(world)
    assert {IDLE_JOB, CONTINUITY_JOB, "session:1"} <= before
    if world.bot.services.db.is_sqlite:
        assert BACKUP_JOB in before
    await world.restart()
    await world.restart()
    assert await stored_job_ids(world) == before
    pending = await world.bot.services.scheduler.pending()  # type: ignore[union-attr]
    assert sorted(job_id for job_id, _ in pending) == sorted(before)


async def test_job_whose_channel_was_deleted_is_dropped_with_a_log_line(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    doomed = world.emu.add_text_channel(world.guild, "doomed")
    await world.stop()
    await world.start()  # the new channel is announced on the next start
    await world.emu.invoke(
        doomed, world.gm, "session schedule", when="in 5 days", title="Lost", repeat="weekly"
    )
    await world.emu.delete_channel(doomed)
    await world.stop()
    await starts_soon(world.target, 1)
    make_due(world.target, "session:1", seconds_ago=5)
    with caplog.at_level(logging.WARNING, logger="bot.ops.jobs"):
        await world.start()
        await world.emu.wait_for(
            lambda: any("dropped" in r.getMessage() and "deleted" in r.getMessage() for r in caplog.records),
            what="the drop logged",
        )
    assert "session:1" not in await stored_job_ids(world)
    listed = await world.emu.invoke(world.channel, world.gm, "session list")
    assert "Lost" not in (listed.content or "")


async def test_a_session_without_its_job_gets_one_when_the_scheduler_starts(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    ops = world.settings.ops
    # Scheduled through a process whose scheduler is off (the session row commits first, then the job).
    world.settings = world.settings.model_copy(
        update={"ops": ops.model_copy(update={"scheduler_enabled": False})}
    )
    await world.restart()
    assert world.bot.services.scheduler is None
    scheduled = await world.emu.invoke(
        world.channel, world.gm, "session schedule", when="in 3 days", repeat="weekly", title="Orphan"
    )
    assert "scheduled" in (scheduled.content or "")
    assert "session:1" not in await stored_job_ids(world)
    world.settings = world.settings.model_copy(update={"ops": ops})
    with caplog.at_level(logging.WARNING, logger="bot.ops.scheduler"):
        await world.restart()
    assert "session:1" in await stored_job_ids(world)
    (added,) = [r for r in caplog.records if r.getMessage().startswith("re-added")]
    assert "#1" in added.getMessage()
    caplog.clear()
    await world.restart()  # nothing is missing any more: nothing re-added, nothing doubled
    assert not [r for r in caplog.records if r.getMessage().startswith("re-added")]
    assert sorted(job for job, _ in await world.bot.services.scheduler.pending()).count("session:1") == 1  # type: ignore[union-attr]


async def test_sessions_changed_or_cancelled_elsewhere_get_their_jobs_remade_or_removed(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    for title in ("Moved", "Dropped", "Kept"):
        await world.emu.invoke(
            world.channel, world.gm, "session schedule", when="in 3 days", repeat="weekly", title=title
        )

    async def pending() -> dict[str, dt.datetime | None]:
        scheduler = world.bot.services.scheduler
        assert scheduler is not None
        return dict(await scheduler.pending())

    before = await pending()
    later = utc_now() + dt.timedelta(days=5)
    lead = dt.timedelta(minutes=world.settings.ops.session_reminder_minutes)
    kept = await world.bot.services.ops.get_session(3)
    assert kept is not None  # "in 3 days" has seconds: the first reminder is still the first session's
    assert before["session:3"] == (kept.starts_at - lead).replace(second=0, microsecond=0)

    async def elsewhere(session):  # type: ignore[no-untyped-def]
        # As another process (one without the scheduler) would leave them: a session moved, one cancelled.
        await session.execute(
            update(ScheduledSessionRow).where(ScheduledSessionRow.id == 1).values(starts_at=later)
        )
        await session.execute(
            update(ScheduledSessionRow).where(ScheduledSessionRow.id == 2).values(status="cancelled")
        )

    await world.bot.services.db.run(elsewhere)
    scheduler = world.bot.services.scheduler
    assert scheduler is not None
    with caplog.at_level(logging.INFO, logger="bot.ops.scheduler"):
        done = await scheduler.reconcile(world.bot.services.ops)
    assert (done.added, done.replaced, done.removed) == ([], [1], [2])
    after = await pending()
    assert after["session:1"] == (later - lead).replace(second=0, microsecond=0)
    assert "session:2" not in after and after["session:3"] == before["session:3"]
    assert any(r.getMessage().startswith("remade") and "#1" in r.getMessage() for r in caplog.records)
    assert any(r.getMessage().startswith("removed") and "#2" in r.getMessage() for r in caplog.records)
    # Nothing changed since: the next reconciliation (and a restart's) leaves every job as it is.
    done = await scheduler.reconcile(world.bot.services.ops)
    assert (done.added, done.replaced, done.removed) == ([], [], [])
    await world.restart()
    assert await pending() == after


async def test_a_weekly_session_scheduled_inside_its_reminder_lead_is_reminded_at_once(world: World) -> None:
    await world.emu.invoke(
        world.channel, world.gm, "session schedule", when="in 10 minutes", repeat="weekly", title="Soon"
    )

    def reminders() -> list[str]:
        return [
            m["content"] for m in world.emu.channel_messages(world.channel) if m["content"].startswith("⏰")
        ]

    # The scheduler runs it (its trigger alone would first fire a week on, for the second session).
    await world.emu.wait_for(lambda: len(reminders()) == 1, what="the reminder of the first session")
    assert "Soon" in reminders()[0] and "repeats weekly" in reminders()[0]
    pending = dict(await world.bot.services.scheduler.pending())  # type: ignore[union-attr]
    (scheduled,) = await world.bot.services.ops.sessions(world.guild.id)
    lead = dt.timedelta(minutes=world.settings.ops.session_reminder_minutes)
    next_week = scheduled.starts_at + dt.timedelta(days=7) - lead
    assert pending["session:1"] == next_week.replace(second=0, microsecond=0)


async def test_a_daily_reminder_fires_before_each_session_never_before_the_first(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = (utc_now() + dt.timedelta(days=3)).date()
    await world.emu.invoke(
        world.channel, world.gm, "session schedule", when=f"{day} 19:00", repeat="daily", title="Nightly"
    )
    scheduler = world.bot.services.scheduler
    assert scheduler is not None and scheduler.scheduler is not None
    job = await asyncio.to_thread(scheduler.scheduler.get_job, "session:1")
    start = dt.datetime.combine(day, dt.time(19, 0), tzinfo=dt.UTC)  # the server's zone: UTC
    lead = dt.timedelta(minutes=world.settings.ops.session_reminder_minutes)
    # The first reminder is the first session's, three days on, not one tomorrow for no session at all.
    first = job.next_run_time
    assert first == start - lead
    second = job.trigger.get_next_fire_time(first, first + dt.timedelta(seconds=1))
    assert second == first + dt.timedelta(days=1)
    for moment in (first, second):  # the job as APScheduler runs it at each fire time
        monkeypatch.setattr(jobs, "utc_now", lambda moment=moment: moment)
        await jobs.session_reminder_job(1)
    reminders = [
        m["content"] for m in world.emu.channel_messages(world.channel) if m["content"].startswith("⏰")
    ]
    stamps = [int(TIMESTAMP.search(text).group(1)) for text in reminders]  # type: ignore[union-attr]
    assert stamps == [int(start.timestamp()), int((start + dt.timedelta(days=1)).timestamp())]
    assert all("Nightly" in text and "repeats daily" in text for text in reminders)
