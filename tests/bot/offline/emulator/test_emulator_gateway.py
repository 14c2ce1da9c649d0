"""The emulator's messages and gateway: message events, purges, replays, direct messages, the channel REST surface, reconnects, intents, members leaving, guild commands and shards."""

from __future__ import annotations

import asyncio
import io

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.offline.emulator import (
    BotErrorCapture,
    CommandNotAvailable,
    DiscordEmulator,
    point_client_at,
)
from tests.helpers.emulator_bot import DemoBot, World, register_commands


class GuildSyncBot(commands.Bot):
    """Syncs one command to a single guild only, as a development guild would."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.guild_id = guild_id

        @app_commands.command(description="Tavern only")
        async def tavern(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                f"welcome to {interaction.guild and interaction.guild.name}"
            )

        self.tree.add_command(tavern, guild=discord.Object(guild_id))

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=discord.Object(self.guild_id))


class ShardedDemoBot(commands.AutoShardedBot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix="!", intents=discord.Intents.default(), shard_count=2, guild_ready_timeout=0.05
        )
        register_commands(self.tree)

    async def setup_hook(self) -> None:
        await self.tree.sync()


# ---------------------------------------------------------------------- messages


async def test_on_message_sees_content_edit_and_delete(world: World, bot: DemoBot) -> None:
    emu = world.emu
    m = await emu.send_message(world.chan, world.pat, "Hello there")
    assert [x.content for x in bot.seen] == ["Hello there"]
    assert bot.seen[0].author.id == world.pat.id
    await emu.edit_message(m, "Hello again")
    assert bot.edits == [("Hello there", "Hello again")]
    await emu.delete_message(m)
    assert bot.deleted == [int(m["id"])]
    await emu.send_message(world.chan, world.other_bot, "beep")
    assert len(bot.seen) == 1  # the bot ignores bots


async def test_a_purge_is_one_bulk_delete_event(world: World, bot: DemoBot) -> None:
    emu = world.emu
    sent = [await emu.send_message(world.chan, world.pat, f"line {i}") for i in range(3)]
    await emu.bulk_delete_messages(sent[:2])
    assert bot.purged == [(world.chan.id, world.guild.id, {int(m["id"]) for m in sent[:2]})]
    assert bot.deleted == []  # one MESSAGE_DELETE_BULK, not a MESSAGE_DELETE per message
    assert [m["content"] for m in emu.channel_messages(world.chan, include_users=True)] == ["line 2"]
    with pytest.raises(ValueError, match="2 to 100 messages"):
        await emu.bulk_delete_messages(sent[2:])


async def test_replay_delivers_the_same_message_again(world: World, bot: DemoBot) -> None:
    emu = world.emu
    m = await emu.send_message(world.chan, world.pat, "!echo hi")
    assert [x["content"] for x in emu.channel_messages(world.chan)] == ["echo: hi"]
    await emu.replay(m)
    assert [x.id for x in bot.seen] == [int(m["id"])] * 2
    assert [x["content"] for x in emu.channel_messages(world.chan)] == ["echo: hi"]


async def test_direct_messages_both_ways(world: World, bot: DemoBot) -> None:
    emu = world.emu
    dm = emu.dm_channel(world.pat)
    await emu.send_message(dm, world.pat, "!echo psst")
    assert [m["content"] for m in emu.channel_messages(dm)] == ["echo: psst"]
    user = bot.get_user(world.pat.id)
    assert user is not None
    sent = await user.send("a private word")
    assert sent.channel.id == dm.id
    assert [m["content"] for m in emu.channel_messages(dm)] == ["echo: psst", "a private word"]
    assert emu.requests_to("POST", r"^/users/@me/channels$")


async def test_channel_rest_surface(world: World, bot: DemoBot) -> None:
    emu = world.emu
    channel = bot.get_channel(world.chan.id)
    assert isinstance(channel, discord.TextChannel)
    async with channel.typing():
        message = await channel.send("first", file=discord.File(io.BytesIO(b"abc"), "a.txt"))
    assert emu.typing == [world.chan.id]
    await message.add_reaction("\N{THUMBS UP SIGN}")
    edited = await message.edit(content="first, edited")
    assert edited.edited_at is not None
    assert edited.attachments[0].filename == "a.txt"  # kept across the edit
    (stored,) = emu.channel_messages(world.chan)
    assert stored["content"] == "first, edited"
    assert stored["files"] == {"a.txt": b"abc"}
    assert stored["reactions"][0]["emoji"]["name"] == "\N{THUMBS UP SIGN}" and stored["reactions"][0]["me"]
    fetched = await channel.fetch_message(message.id)
    assert fetched.content == "first, edited"
    await channel.send("second")
    history = [m.content async for m in channel.history(limit=10)]
    assert history == ["second", "first, edited"]
    thread = await channel.create_thread(name="Side scene", type=discord.ChannelType.public_thread)
    await thread.send("in the thread")
    assert [m["content"] for m in emu.channel_messages(emu.channels[thread.id])] == ["in the thread"]
    await message.delete()
    assert [m["content"] for m in emu.channel_messages(world.chan)] == ["second"]
    member = await bot.get_guild(world.guild.id).fetch_member(world.gm.id)  # type: ignore[union-attr]
    assert [r.name for r in member.roles] == ["@everyone", "GM"]
    with pytest.raises(discord.HTTPException) as excinfo:
        await channel.send("x" * 2001)
    assert excinfo.value.code == 50035


async def test_bot_resumes_after_a_dropped_connection(world: World, bot: DemoBot) -> None:
    emu = world.emu
    resumed: list[bool] = []

    async def on_resumed() -> None:
        resumed.append(True)

    bot.add_listener(on_resumed)
    before = [s.session_id for s in emu.sessions]
    await emu.drop_connections()
    assert [s.session_id for s in emu.sessions] == before  # same session, new socket
    assert len(emu.gateway_log) == 2 and len(emu.identify_log) == 1  # RESUME, not a second IDENTIFY
    await emu.send_message(world.chan, world.pat, "still there?")
    assert resumed == [True]
    assert [m.content for m in bot.seen] == ["still there?"]


async def test_attachments_on_user_messages(world: World, bot: DemoBot) -> None:
    att = world.emu.make_attachment("notes.txt", "some notes")
    await world.emu.send_message(world.chan, world.pat, "see file", attachments=[att])
    (attachment,) = bot.seen[0].attachments
    assert attachment.filename == "notes.txt"
    assert await attachment.read() == b"some notes"


async def test_without_message_content_intent_content_is_blank(world: World) -> None:
    demo = DemoBot(message_content=False)
    await world.emu.start_bot(demo)
    try:
        await world.emu.send_message(world.chan, world.pat, "secret plans")
        await world.emu.send_message(world.chan, world.pat, f"{world.emu.bot_user.mention} hi")
        assert [m.content for m in demo.seen] == ["", f"<@{world.emu.bot_user.id}> hi"]
    finally:
        await world.emu.stop_bot(demo)


async def test_deleted_channel_answers_unknown_channel(world: World, bot: DemoBot) -> None:
    channel = bot.get_channel(world.chan.id)
    assert isinstance(channel, discord.TextChannel)
    await world.emu.delete_channel(world.chan)
    assert bot.get_channel(world.chan.id) is None
    with pytest.raises(discord.NotFound) as excinfo:
        await channel.send("anyone?")
    assert excinfo.value.code == 10003


async def test_a_member_leaving_reaches_the_bot_as_discord_sends_it(world: World, bot: DemoBot) -> None:
    left: list[discord.Member] = []
    raw: list[discord.RawMemberRemoveEvent] = []

    async def on_member_remove(member: discord.Member) -> None:
        left.append(member)

    async def on_raw_member_remove(payload: discord.RawMemberRemoveEvent) -> None:
        raw.append(payload)

    bot.add_listener(on_member_remove)
    bot.add_listener(on_raw_member_remove)
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.get_member(world.pat.id) is not None
    count = guild.member_count
    plain = discord.Client(intents=discord.Intents.default())  # without the members intent: not told
    await world.emu.start_bot(plain)
    try:
        await world.emu.remove_member(world.pat)
        assert [(m.id, m.guild.id) for m in left] == [(world.pat.id, world.guild.id)]
        assert [(p.guild_id, p.user.id) for p in raw] == [(world.guild.id, world.pat.id)]
        assert guild.get_member(world.pat.id) is None and guild.member_count == (count or 0) - 1
        events = [e for s in world.emu.sessions for e in s.events if e[0] == "GUILD_MEMBER_REMOVE"]
        assert events == [("GUILD_MEMBER_REMOVE", world.guild.id)]  # one session had the intent
    finally:
        await world.emu.stop_bot(plain)
    with pytest.raises(AssertionError, match="not a member"):  # gone: they post and click no more
        await world.emu.send_message(world.chan, world.pat, "still here?")
    with pytest.raises(AssertionError, match="not a member"):
        await world.emu.remove_member(world.pat)


async def test_guild_commands_only_run_in_their_guild(world: World) -> None:
    emu = world.emu
    other = emu.add_guild("Elsewhere")
    wanderer = emu.add_member(other, user=world.pat.user)  # the same user in two guilds
    elsewhere = emu.add_text_channel(other, "general")
    demo = GuildSyncBot(world.guild.id)
    await emu.start_bot(demo)
    try:
        assert emu.global_commands == []
        (cmd,) = emu.guild_commands[world.guild.id]
        assert cmd["name"] == "tavern" and cmd["guild_id"] == str(world.guild.id)
        r = await emu.invoke(world.chan, world.pat, "tavern")
        assert r.content == "welcome to Tavern"
        assert r.payload["data"]["guild_id"] == str(world.guild.id)
        with pytest.raises(CommandNotAvailable, match="was not synced"):
            await emu.invoke(elsewhere, wanderer, "tavern")
        assert (await demo.fetch_guild(other.id)).name == "Elsewhere"
        assert (await demo.fetch_user(world.pat.id)).name == "Pat"
    finally:
        await emu.stop_bot(demo)


async def test_a_bot_started_outside_start_bot_is_waited_for_by_timeout(
    world: World, bot_errors: BotErrorCapture
) -> None:
    # As for a bot in another process: the emulator cannot watch its handlers, only its answers.
    undo = point_client_at(world.emu.base_url)
    demo = DemoBot()
    await demo.login("test-token")
    task = asyncio.create_task(demo.connect(reconnect=False))
    try:
        await asyncio.wait_for(demo.wait_until_ready(), 10)
        r = await world.emu.invoke(world.chan, world.pat, "ping")
        assert r.content == "pong from shard 0"
        with pytest.raises(AssertionError, match="not watched"):
            await world.emu.invoke(world.chan, world.pat, "boom", timeout=0.2)
        assert any("kaboom" in world.emu.errors.format_records([r]) for r in bot_errors.records)
        bot_errors.clear()
    finally:
        undo()
        await demo.close()
        await task


# ---------------------------------------------------------------------- sharding


async def test_auto_sharded_bot_gets_each_guild_on_its_shard(bot_errors: BotErrorCapture) -> None:
    async with DiscordEmulator() as emu:
        guilds = [emu.add_guild("Zero", shard=(0, 2)), emu.add_guild("One", shard=(1, 2))]
        chans = [emu.add_text_channel(g, "general") for g in guilds]
        sharded = ShardedDemoBot()
        await emu.start_bot(sharded)
        assert sorted(tuple(i["shard"]) for i in emu.identify_log) == [(0, 2), (1, 2)]
        sessions = sorted(emu.sessions, key=lambda s: s.shard)
        for shard_id, (guild, chan) in enumerate(zip(guilds, chans, strict=True)):
            assert sharded.get_guild(guild.id).shard_id == shard_id  # type: ignore[union-attr]
            r = await emu.invoke(chan, guild.owner, "ping")
            assert r.content == f"pong from shard {shard_id}"
        for shard_id, session in enumerate(sessions):
            assert session.shard == (shard_id, 2)
            # Each connection carried only its own guild: READY, GUILD_CREATE, the interaction, the echo.
            assert {g for _, g in session.events if g is not None} == {guilds[shard_id].id}
            assert [e for e, _ in session.events][:2] == ["READY", "GUILD_CREATE"]
            assert "INTERACTION_CREATE" in [e for e, _ in session.events]
        await emu.stop_bot(sharded)
