"""The scene lifecycle end to end: the real discord.py client against the emulator, checked in the database."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import func, select

from bot.offline.emulator.delivery import handler_tasks
from canon.storage import Database
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import EmbedInfo, SceneStatus, SpeakerKind, scene_turns, turn_history
from tests.e2e.conftest import World, embed_fields, scene_report, sql_run_below

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/archive/test_export_import.py")


async def stored_turns(world: World, *, scene_id: int | None = None) -> list:
    db: Database = world.bot.services.db
    async with db.session() as session:
        if scene_id is None:
            scene_id = await session.scalar(select(func.max(SceneRow.id)))
        return await scene_turns(session, scene_id)


@SQL_RUN_BELOW
async def test_login_syncs_every_command(world: World) -> None:
    synced = {c["name"] for c in world.emu.global_commands}
    assert {"scene", "endscene"} <= synced
    scene = next(c for c in world.emu.global_commands if c["name"] == "scene")
    assert {o["name"] for o in scene["options"]} >= {"start", "status", "transcript"}
    assert not world.bot.extension_failures


@SQL_RUN_BELOW
async def test_a_scene_from_start_to_end(world: World) -> None:
    emu, chan = world.emu, world.channel
    started = await emu.invoke(chan, world.gm, "scene start", title="The Inn", location="Thornwall")
    assert not started.ephemeral
    assert started.embeds[0]["title"] == "Scene 1: The Inn"

    hello = await emu.send_message(chan, world.pat, "I order an ale.")
    await emu.send_message(chan, world.gm, "The barkeep nods.")
    typo = await emu.send_message(chan, world.quinn, "I lok around.")
    await emu.edit_message(typo, "I look around.")
    oops = await emu.send_message(chan, world.pat, "(out of character, sorry)")
    await emu.delete_message(oops)

    status = await emu.invoke(chan, world.pat, "scene status")
    assert status.ephemeral and embed_fields(status.embeds[0])["Turns"] == "3"

    transcript = await emu.invoke(chan, world.quinn, "scene transcript")
    (text,) = transcript.files.values()
    assert "I order an ale." in text.decode() and "[edited]\nI look around." in text.decode()
    assert "[deleted]\n*(message deleted)*" in text.decode()  # a tombstone: the deleted text is not shown
    assert "out of character" not in text.decode()

    ended = await emu.invoke(chan, world.gm, "endscene")
    report = scene_report(emu, chan)
    fields = embed_fields(report["embeds"][0])
    assert ended.ephemeral and report["embeds"][0]["title"] == "Scene ended: The Inn"
    assert (
        fields["Turns"] == "3"
        and "Pat (1)" in fields["Participants"]
        and "Gina (1)" in fields["Participants"]
    )

    turns = await stored_turns(world)
    assert [(t.number, t.author_name, t.speaker, t.text) for t in turns] == [
        (1, "Pat", SpeakerKind.PLAYER, "I order an ale."),
        (2, "Gina", SpeakerKind.GM, "The barkeep nods."),
        (3, "Quinn", SpeakerKind.PLAYER, "I look around."),
        (4, "Pat", SpeakerKind.PLAYER, "(out of character, sorry)"),
    ]
    assert turns[0].discord_message_id == int(hello["id"])
    assert turns[3].is_deleted and turns[2].edited_at is not None
    async with world.bot.services.db.session() as session:
        assert await turn_history(session, turns[2].id) == ["I lok around."]
        scene = await session.get(SceneRow, turns[0].scene_id)
        assert scene is not None and scene.status == SceneStatus.COMPLETED

    after = await emu.send_message(chan, world.pat, "Anyone still here?")
    assert after and len(await stored_turns(world)) == 4  # messages outside scenes are not stored


@SQL_RUN_BELOW
async def test_a_player_cannot_run_gm_commands(world: World) -> None:
    refused = await world.emu.invoke(world.channel, world.pat, "scene start", title="Mine now")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    async with world.bot.services.db.session() as session:
        assert await session.scalar(select(func.count()).select_from(SceneRow)) == 0
    await world.emu.invoke(world.channel, world.gm, "scene start")
    refused_end = await world.emu.invoke(world.channel, world.quinn, "endscene")
    assert refused_end.ephemeral and "Only the GM" in (refused_end.content or "")


@SQL_RUN_BELOW
async def test_manage_server_counts_as_gm(world: World) -> None:
    admin_role = world.emu.add_role(world.guild, "Admins", permissions=1 << 5)  # MANAGE_GUILD
    owner = world.emu.add_member(world.guild, "Olga", roles=[admin_role])
    await world.restart()  # new roles and members are announced at connect
    started = await world.emu.invoke(world.channel, owner, "scene start", title="By an admin")
    assert not started.ephemeral


@SQL_RUN_BELOW
async def test_commands_without_a_scene_and_twice(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    for command in ("scene status", "scene transcript", "endscene"):
        reply = await emu.invoke(chan, gm, command)
        assert reply.ephemeral and "no scene" in (reply.content or "").lower(), command
    await emu.invoke(chan, gm, "scene start", title="First")
    again = await emu.invoke(chan, gm, "scene start", title="Second")
    assert again.ephemeral and "already running" in (again.content or "")
    await emu.invoke(chan, gm, "endscene")
    twice = await emu.invoke(chan, gm, "endscene")
    assert twice.ephemeral and "no scene" in (twice.content or "").lower()
    async with world.bot.services.db.session() as session:
        titles = list((await session.execute(select(SceneRow.title))).scalars())
    assert titles == ["First"]


@SQL_RUN_BELOW
async def test_unusual_messages_are_stored_verbatim_and_nothing_pings(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="@everyone <@&1> party")
    long_text = "A" * 3999 + "Z"
    strange = "zero\u200bwidth \u202eright to left\u202c cafe\u0301 \u0645\u0631\u062d\u0628\u0627"
    pings = f"@everyone @here <@&{world.gm_role.id}> <@{world.pat.id}> listen up"
    await emu.send_message(chan, world.pat, long_text)
    await emu.send_message(chan, world.pat, "", attachments=[emu.make_attachment("map.png", b"\x89PNG....")])
    await emu.send_message(chan, world.pat, "", embeds=[{"title": "A shared link", "description": "preview"}])
    await emu.send_message(chan, world.pat, strange)
    await emu.send_message(chan, world.gm, pings, mentions=[world.pat])
    other_bot = emu.add_member(world.guild, "DiceBot", bot=True)
    await emu.send_message(chan, other_bot, "rolled 20")

    turns = await stored_turns(world)
    assert [t.text for t in turns] == [long_text, "", "", strange, pings, "rolled 20"]
    assert turns[5].speaker.value == "roll"  # another bot's message: a roll
    assert turns[1].attachments[0].filename == "map.png" and turns[1].attachments[0].size == 8
    assert turns[2].embeds == [EmbedInfo(type="rich", title="A shared link", description="preview")]
    transcript = await emu.invoke(chan, world.pat, "scene transcript")
    (text,) = transcript.files.values()
    assert pings in text.decode() and "[attachment: map.png, 8 bytes]" in text.decode()
    await emu.invoke(chan, world.gm, "endscene")  # echoes the title with @everyone: must not ping


@SQL_RUN_BELOW
async def test_two_servers_never_see_each_others_scenes(world: World) -> None:
    emu = world.emu
    other = emu.add_guild("Elsewhere")
    other_gm_role = emu.add_role(other, "GM")
    other_gm = emu.add_member(other, "Oscar", roles=[other_gm_role])
    other_chan = emu.add_text_channel(other, "general")
    await world.restart()  # the new guild is announced at connect
    await emu.invoke(world.channel, world.gm, "scene start", title="Tavern business")
    await emu.send_message(world.channel, world.pat, "In the tavern.")
    await emu.send_message(other_chan, other_gm, "Meanwhile, elsewhere.")
    status = await emu.invoke(other_chan, other_gm, "scene status")
    assert status.ephemeral and "no scene" in (status.content or "").lower()
    await emu.invoke(other_chan, other_gm, "scene start", title="Elsewhere business")
    await emu.send_message(other_chan, other_gm, "Now it counts.")
    async with world.bot.services.db.session() as session:
        rows = (await session.execute(select(SceneRow.title, SceneRow.campaign_id, SceneRow.guild_id))).all()
        campaigns = {guild: campaign for _, campaign, guild in rows}
        assert len(set(campaigns.values())) == 2
        texts = {
            title: list(
                (
                    await session.execute(select(TurnRow.text).join(SceneRow).where(SceneRow.title == title))
                ).scalars()
            )
            for title, _, _ in rows
        }
    assert texts == {"Tavern business": ["In the tavern."], "Elsewhere business": ["Now it counts."]}


@SQL_RUN_BELOW
async def test_a_restarted_bot_keeps_logging_to_the_same_scene(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Long night")
    await emu.send_message(chan, world.pat, "before the restart")
    await world.restart()
    await emu.send_message(chan, world.pat, "after the restart")
    turns = await stored_turns(world)
    assert [(t.number, t.text) for t in turns] == [(1, "before the restart"), (2, "after the restart")]
    status = await emu.invoke(chan, world.pat, "scene status")
    assert embed_fields(status.embeds[0])["Turns"] == "2"


async def test_a_replayed_message_is_stored_once(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start")
    message = await emu.send_message(chan, world.pat, "only once")
    await emu.replay(message)
    await emu.replay(message)
    turns = await stored_turns(world)
    assert [t.text for t in turns] == ["only once"]


@SQL_RUN_BELOW
async def test_an_unexpected_error_shows_an_id_and_is_logged(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel

    async def broken(*args, **kwargs):
        raise RuntimeError("the database caught fire")

    monkeypatch.setattr(world.bot.services.scenes, "current_scene", broken)
    reply = await emu.invoke(chan, world.pat, "scene status")
    assert reply.ephemeral and "give the bot's host this id" in (reply.content or "")
    error_id = (reply.content or "").split("`")[1]
    assert any(error_id in m for m in emu.errors.messages())
    assert "fire" not in (reply.content or "")
    emu.errors.clear()


@SQL_RUN_BELOW
async def test_endscene_under_review_is_refused_privately_and_changes_nothing(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    await emu.invoke(chan, world.gm, "endscene")  # a proposal waits: the scene goes under review
    async with world.bot.services.db.session() as session:
        before = await session.scalar(select(SceneRow).order_by(SceneRow.id.desc()).limit(1))
    assert before is not None and before.status == SceneStatus.REVIEW
    public_before = emu.channel_messages(chan, include_deleted=True)

    again = await emu.invoke(chan, world.gm, "endscene")
    assert again.ephemeral and "canon review is waiting" in (again.content or "")
    assert not again.deferred  # refused before any public "thinking…"
    assert emu.channel_messages(chan, include_deleted=True) == public_before
    async with world.bot.services.db.session() as session:
        after = await session.get(SceneRow, before.id)
    assert after is not None and (after.status, after.ended_at) == (SceneStatus.REVIEW, before.ended_at)


async def test_endscene_losing_a_race_takes_its_progress_message_back(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Two GMs")
    canon = world.bot.services.canon
    real_end = canon.end_scene

    async def other_gm_first(channel_id: int, **kwargs: Any):
        await real_end(channel_id)  # another process's /endscene lands between the check and this one
        return await real_end(channel_id, **kwargs)

    monkeypatch.setattr(canon, "end_scene", other_gm_first)
    lost = await emu.invoke(chan, world.gm, "endscene")
    assert lost.deferred and lost.ephemeral and "Ending “Two GMs”" in (lost.content or "")
    (refusal,) = lost.followups
    assert refusal["flags"] & 64 and "no scene" in refusal["content"].lower()
    (public,) = emu.channel_messages(chan)  # only the scene's start announcement: the progress was taken back
    assert public["embeds"][0]["title"] == "Scene 1: Two GMs"


async def test_a_second_endscene_while_the_first_reads_the_transcript_is_refused(
    world: World, monkeypatch
) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Slow reading")
    canon = world.bot.services.canon
    reading = asyncio.Event()
    release = asyncio.Event()
    real_hook = canon.before_review

    async def slow_reading(scene: Any, **kwargs: Any) -> None:
        reading.set()
        await release.wait()
        if real_hook is not None:
            await real_hook(scene, **kwargs)

    monkeypatch.setattr(canon, "before_review", slow_reading)
    first = await emu.invoke(chan, world.gm, "endscene", settle=False)  # answered; still reading
    await reading.wait()
    assert first.ephemeral and "Ending “Slow reading”" in (first.content or "")
    second = await emu.invoke(chan, world.gm, "endscene")
    assert second.ephemeral and not second.deferred and "already being ended" in (second.content or "")
    release.set()
    # The first /endscene was not settled: let it finish (its report, then the scene's recap) before the end.
    if running := handler_tasks():
        await asyncio.wait(running, timeout=60)
    await emu.settle()
    await emu.wait_for(lambda: any("Scene ended" in str(m["embeds"]) for m in emu.channel_messages(chan)))
    progress = [m for m in emu.channel_messages(chan) if m["content"].startswith("🎬")]
    assert progress == []  # the progress message became the report


@SQL_RUN_BELOW
async def test_a_moderators_purge_leaves_tombstones(world: World) -> None:
    emu, chan = world.emu, world.channel
    before_scene = await emu.send_message(chan, world.pat, "chatter before the scene")
    await emu.invoke(chan, world.gm, "scene start", title="The purge")
    kept = await emu.send_message(chan, world.pat, "I stay.")
    spam = [
        await emu.send_message(chan, world.quinn, "spam one"),
        await emu.send_message(
            chan, world.quinn, "spam two", attachments=[emu.make_attachment("x.png", b"x")]
        ),
    ]
    await emu.bulk_delete_messages([before_scene, *spam])  # a purge also sweeps a message that is no turn

    turns = await stored_turns(world)
    assert [(t.text, t.is_deleted) for t in turns] == [
        ("I stay.", False),
        ("spam one", True),
        ("spam two", True),
    ]
    assert turns[0].discord_message_id == int(kept["id"])
    assert turns[1].deleted_at is not None and turns[1].deleted_at == turns[2].deleted_at  # one purge
    status = await emu.invoke(chan, world.pat, "scene status")
    fields = embed_fields(status.embeds[0])
    assert fields["Turns"] == "1" and "Quinn" not in fields["Participants"]
    transcript = await emu.invoke(chan, world.pat, "scene transcript")
    (text,) = transcript.files.values()
    assert "I stay." in text.decode() and text.decode().count("*(message deleted)*") == 2
    assert "spam" not in text.decode() and "x.png" not in text.decode()
