"""Operations end to end: scheduled sessions and their reminders across restarts, time zones, idle scenes,
the nightly check, `/admin status`, and jobs whose channel was deleted."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import sqlite3
from zoneinfo import ZoneInfo

import pytest
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord import Permissions
from sqlalchemy import create_engine, text, update

from bot.llm.client import ChatMessage
from bot.offline.emulator import Channel
from bot.offline.emulator.models import parse_mentions
from bot.ops import backup, jobs
from bot.ops.apscheduler_adapter import sync_url
from bot.ops.scheduler import BACKUP_JOB, CONTINUITY_JOB, IDLE_JOB
from bot.schema.ops_tables import JOBS_TABLE, ScheduledSessionRow
from canon.storage import utc_now
from config.settings import LLMSettings
from memory.scene_tables import SceneRow
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, embed_fields
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply

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


async def test_quiet_scene_reminds_the_gm_channel_once(world: World) -> None:
    gm_room = world.emu.add_text_channel(world.guild, "gm-room")
    await world.restart()
    await world.emu.invoke(world.channel, world.gm, "server gm-channel", channel=gm_room)
    await world.emu.invoke(world.channel, world.gm, "server idle", minutes=30)
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Slow boat")
    await jobs.idle_scene_job()
    assert world.emu.channel_messages(gm_room) == []  # not quiet yet

    async def age(session):  # type: ignore[no-untyped-def]
        await session.execute(update(SceneRow).values(started_at=utc_now() - dt.timedelta(hours=2)))

    await world.bot.services.db.run(age)
    await jobs.idle_scene_job()
    await jobs.idle_scene_job()
    notes = world.emu.channel_messages(gm_room)
    assert len(notes) == 1 and "Slow boat" in notes[0]["content"] and "no turn" in notes[0]["content"]
    # A new turn starts a new stretch: no reminder until it, too, has gone quiet.
    await world.emu.send_message(world.channel, world.pat, "Anyone there?")
    await jobs.idle_scene_job()
    assert len(world.emu.channel_messages(gm_room)) == 1


async def test_idle_reminder_to_a_deleted_channel_is_dropped(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Abandoned")

    async def age(session):  # type: ignore[no-untyped-def]
        await session.execute(update(SceneRow).values(started_at=utc_now() - dt.timedelta(days=2)))

    await world.bot.services.db.run(age)
    await world.emu.delete_channel(world.channel)
    with caplog.at_level(logging.WARNING, logger="bot.ops.jobs"):
        await jobs.idle_scene_job()
        await jobs.idle_scene_job()
    dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 1, "reported once, then not retried"


async def gm_room_and_a_conflict(world: World) -> Channel:
    """Set a GM channel and write canon that conflicts (Kara both ALLY_OF and ENEMY_OF Lenn); return it."""
    gm_room = world.emu.add_text_channel(world.guild, "gm-room")
    await world.restart()
    await world.emu.invoke(world.channel, world.gm, "server gm-channel", channel=gm_room)
    for relation in ("ALLY_OF", "ENEMY_OF"):
        await world.emu.invoke(
            world.channel,
            world.gm,
            "canon add relationship",
            subject="Kara",
            relation=relation,
            object="Lenn",
        )
    return gm_room


async def test_nightly_check_posts_only_new_conflicts(world: World) -> None:
    gm_room = await gm_room_and_a_conflict(world)

    async def forget(session):  # type: ignore[no-untyped-def]
        # As if the canon had been written by something that records no conflicts (an older version).
        await session.execute(text("DELETE FROM conflicts"))

    await world.bot.services.db.run(forget)
    await jobs.continuity_job()
    posted = world.emu.channel_messages(gm_room)
    assert len(posted) == 1 and "1 new conflict" in posted[0]["content"] and "Kara" in posted[0]["content"]
    await jobs.continuity_job()  # nothing new: nothing posted
    assert len(world.emu.channel_messages(gm_room)) == 1
    assert world.emu.channel_messages(world.channel, include_ephemeral=False) == [], "nothing in the open"


async def test_admin_status_shows_this_servers_counts_jobs_latency_and_tokens(world: World) -> None:
    admin = world.emu.add_member(
        world.guild,
        "Ada",
        roles=[world.emu.add_role(world.guild, "Admin", permissions=Permissions(manage_guild=True))],
    )
    other = world.emu.add_guild("Elsewhere")
    other_gm = world.emu.add_member(other, "Olga", roles=[world.emu.add_role(other, "GM")])
    other_room = world.emu.add_text_channel(other, "table")
    async with LLMStub(responder=lambda body: Reply.text("The fog lifts.")) as stub:
        llm = LLMSettings(base_url=stub.base_url, model=STUB_MODEL, max_retries=0, timeout_seconds=5)
        world.settings = world.settings.model_copy(update={"llm": llm})
        await world.restart()
        await world.emu.invoke(world.channel, world.gm, "scene start", title="Counting")
        await world.emu.send_message(world.channel, world.pat, "One turn.")
        await world.emu.invoke(world.channel, world.pat, "scene status")
        await world.emu.invoke(world.channel, world.gm, "session schedule", when="in 2 days", title="Ours")
        # Another server's commands and sessions are its own business.
        await world.emu.invoke(other_room, other_gm, "scene start", title="Theirs")
        await world.emu.invoke(other_room, other_gm, "session schedule", when="in 3 days", title="Theirs")
        services = world.bot.services
        campaign = services.campaigns.cached_campaign_id(world.guild.id)
        assert services.llm is not None and campaign is not None
        await services.llm.complete(
            [ChatMessage(role="user", content="Describe the harbour.")],
            campaign_id=campaign,
            purpose="narration",
        )
        result = await world.emu.invoke(world.channel, admin, "admin status")
    assert result.ephemeral
    fields = embed_fields(result.embeds[0])
    database = fields["Database"]
    assert "1 scenes · 1 turns" in database
    size = re.search(r"SQLite · ([\d,.]+) (B|KB|MB|GB)|PostgreSQL · ([\d,.]+) (B|KB|MB|GB)", database)
    assert size is not None and float((size.group(1) or size.group(3)).replace(",", "")) > 0, database
    pending = next(v for k, v in fields.items() if k.startswith("Pending jobs"))
    assert IDLE_JOB in pending and "session:1" in pending and "session:2" not in pending
    latency = fields["Command latency (recent)"]
    assert "scene start" in latency and "p95" in latency and "(1)" in latency  # ours only, not theirs
    tokens = re.search(
        r"narration \(stub-model\): 1 calls, ([\d,]+) \+ ([\d,]+) tokens", fields["LLM tokens (this server)"]
    )
    assert tokens is not None and int(tokens.group(1).replace(",", "")) > 0, fields[
        "LLM tokens (this server)"
    ]
    assert services.metrics.summary(world.guild.id)["scene start"].count == 1
    assert services.metrics.summary(other.id)["scene start"].count == 1


async def test_admin_commands_need_manage_server(world: World) -> None:
    from bot.offline.emulator import CommandNotAvailable

    with pytest.raises(CommandNotAvailable):
        await world.emu.invoke(world.channel, world.pat, "admin status")


async def test_logs_carry_the_command_campaign_and_scene(
    world: World, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.ops.logs import ContextFilter

    caplog.handler.addFilter(ContextFilter())
    with caplog.at_level(logging.DEBUG, logger="cogs.turns"):
        await world.emu.invoke(world.channel, world.gm, "scene start", title="Traced")
        await world.emu.send_message(world.channel, world.pat, "A traced turn.")
    (stored,) = [r for r in caplog.records if r.getMessage().startswith("stored message")]
    assert "campaign=1" in stored.context and "scene=1" in stored.context  # type: ignore[attr-defined]

    async def broken(guild_id: int) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(world.bot.services.ops, "sessions", broken)
    caplog.clear()
    answer = await world.emu.invoke(world.channel, world.pat, "session list")
    assert "give the bot's host this id" in (answer.content or "")
    (error,) = [r for r in caplog.records if r.getMessage().startswith("unexpected error")]
    context = error.context  # type: ignore[attr-defined]
    assert (
        "command=session list" in context and f"guild={world.guild.id}" in context and "campaign=1" in context
    )
    world.emu.errors.clear()


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


async def test_the_backup_job_keeps_the_newest_backups(world: World) -> None:
    if not world.bot.services.db.is_sqlite:
        pytest.skip("scheduled backups are of the SQLite database (PostgreSQL: pg_dump)")
    world.settings = world.settings.model_copy(
        update={"ops": world.settings.ops.model_copy(update={"backup_keep": 2})}
    )
    await world.restart()
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Kept")
    await world.emu.send_message(world.channel, world.pat, "Worth keeping.")
    folder = backup.backup_dir(world.settings)
    made = []
    for _ in range(3):
        await jobs.backup_job()
        made.append(backup.backups(folder)[-1])
    kept = backup.backups(folder)
    assert kept == made[1:], "the oldest was removed, the two newest kept"
    for path in kept:
        assert backup.inspect_backup(path)  # a whole, migrated Lorekeeper database
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT text FROM turns").fetchall() == [("Worth keeping.",)]


async def test_the_nightly_report_to_a_deleted_gm_channel_is_dropped_with_a_log_line(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    gm_room = await gm_room_and_a_conflict(world)
    await world.bot.services.db.run(lambda session: session.execute(text("DELETE FROM conflicts")))
    await world.emu.delete_channel(gm_room)
    with caplog.at_level(logging.WARNING, logger="bot.ops.jobs"):
        await jobs.continuity_job()
    (dropped,) = [r for r in caplog.records if "report dropped" in r.getMessage()]
    assert str(gm_room.id) in dropped.getMessage() and "deleted" in dropped.getMessage()
    assert world.emu.channel_messages(world.channel, include_ephemeral=False) == [], "not posted elsewhere"
