"""Operations end to end: idle scenes, the nightly check, `/admin status`, logs, backups, and jobs whose channel
was deleted (scheduled sessions and their reminders: test_session_reminders_e2e)."""

from __future__ import annotations

import datetime as dt
import logging
import re
import sqlite3

import pytest
from discord import Permissions
from sqlalchemy import text, update

from bot.llm.client import ChatMessage
from bot.offline.emulator import Channel
from bot.ops import backup, jobs
from bot.ops.scheduler import IDLE_JOB
from canon.storage import utc_now
from config.settings import LLMSettings
from memory.scene_tables import SceneRow
from tests.e2e.conftest import World, embed_fields
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply


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
