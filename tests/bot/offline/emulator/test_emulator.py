"""Tests of the local Discord emulator, driven by a small throwaway bot on the real discord.py client."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.offline.emulator import (
    BotErrorCapture,
    Channel,
    CommandNotAvailable,
    DiscordEmulator,
    Guild,
    Member,
    Role,
    capture_bot_errors,
    point_client_at,
)

LORE_NAMES = ["Aldric", "Alda", "Borin", "Cedric"]


class VoteButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:vote:(?P<choice>[a-z]+)"):
    """A persistent button: any bot instance that registered the class answers it."""

    def __init__(self, choice: str) -> None:
        super().__init__(discord.ui.Button(label=choice.title(), custom_id=f"demo:vote:{choice}"))
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str]
    ) -> VoteButton:
        return cls(match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, DemoBot)
        bot.votes.append((interaction.user.id, self.choice))
        await interaction.response.send_message(
            f"{interaction.user.name} voted {self.choice}", ephemeral=True
        )


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    text = discord.ui.Label(text="Your text", component=discord.ui.TextInput(custom_id="fb:text"))
    mood = discord.ui.Label(
        text="Mood",
        component=discord.ui.Select(
            custom_id="fb:mood",
            options=[
                discord.SelectOption(label="Happy", value="happy"),
                discord.SelectOption(label="Sad", value="sad"),
            ],
        ),
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        assert isinstance(self.mood.component, discord.ui.Select)
        assert isinstance(self.text.component, discord.ui.TextInput)
        await interaction.response.send_message(
            f"thanks: {self.text.component.value} ({self.mood.component.values[0]})"
        )


class CloseButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:close"):
    """Answers with type 7: the clicked message itself is updated."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Close", custom_id="demo:close"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str]
    ) -> CloseButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content="Vote closed", view=None)


class TallyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:tally"):
    """Answers with type 6, then edits the clicked message through @original."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Tally", custom_id="demo:tally"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str]
    ) -> TallyButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        bot = interaction.client
        assert isinstance(bot, DemoBot)
        await interaction.edit_original_response(content=f"Vote! ({len(bot.votes)} so far)")


def register_commands(tree: app_commands.CommandTree[Any]) -> None:
    """Define the demo commands on a tree (fresh objects per bot instance)."""

    @tree.command(description="Answer pong")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"pong from shard {interaction.guild and interaction.guild.shard_id}"
        )

    @tree.command(description="Answer privately")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("hush", ephemeral=True)

    scene = app_commands.Group(name="scene", description="Scenes")

    @scene.command(name="start", description="Start a scene")
    async def scene_start(interaction: discord.Interaction, title: str, location: str = "nowhere") -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"Scene {title} at {location}")

    tree.add_command(scene)

    @tree.command(description="Defer, then send a file as a followup")
    async def report(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        await interaction.edit_original_response(content="working")
        data = io.BytesIO(b"line one\nline two\n")
        await interaction.followup.send("here", file=discord.File(data, "report.txt"), ephemeral=True)

    @tree.command(description="Think, then answer with a followup")
    async def roll(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("rolled 4")

    @tree.command(description="Think in public, take it back, answer privately")
    async def retract(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.delete_original_response()
        await interaction.followup.send("just for you", ephemeral=True)

    @tree.command(description="Answer, read back, delete, follow up, edit the followup")
    async def scratch(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("temp")
        original = await interaction.original_response()
        await interaction.delete_original_response()
        note = await interaction.followup.send(f"was {original.content!r}", wait=True)
        await note.edit(content=f"{note.content}, cleaned")

    @tree.command(description="Defer and never finish")
    async def stall(interaction: discord.Interaction) -> None:
        await interaction.response.defer()

    @tree.command(description="Post a persistent vote")
    async def vote(interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(VoteButton("yes"))
        view.add_item(VoteButton("no"))
        view.add_item(TallyButton())
        view.add_item(CloseButton())
        await interaction.response.send_message("Vote!", view=view)

    lore = app_commands.Group(name="lore", description="Lore")

    @lore.command(name="import", description="Import a lore file")
    async def lore_import(interaction: discord.Interaction, file: discord.Attachment) -> None:
        data = await file.read()
        first = data.decode().splitlines()[0]
        receipt = discord.File(io.BytesIO(data.upper()), f"{file.filename}.receipt")
        await interaction.response.send_message(
            f"{file.filename}: {len(data)} bytes, starts {first!r}", file=receipt
        )

    tree.add_command(lore)

    propose = app_commands.Group(name="propose", description="Proposals")

    @propose.command(name="fact", description="Propose a fact")
    async def propose_fact(interaction: discord.Interaction, subject: str, text: str = "") -> None:
        await interaction.response.send_message(f"proposed {subject}: {text}")

    @propose_fact.autocomplete("subject")
    async def subject_choices(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        text = interaction.namespace.text or ""
        return [
            app_commands.Choice(name=f"{n}{text}", value=n)
            for n in LORE_NAMES
            if n.lower().startswith(current.lower())
        ]

    tree.add_command(propose)

    @tree.command(description="Show typed options")
    async def inspect(
        interaction: discord.Interaction,
        who: discord.Member,
        count: int,
        loud: bool,
        where: discord.TextChannel,
        role: discord.Role,
        ratio: float = 0.5,
    ) -> None:
        await interaction.response.send_message(
            f"{who.display_name}|{count + 1}|{loud}|{where.name}|{role.name}|{ratio * 2}"
        )

    @tree.command(description="Needs Manage Server")
    @app_commands.default_permissions(manage_guild=True)
    async def gm(interaction: discord.Interaction) -> None:
        perms = interaction.permissions
        await interaction.response.send_message(f"gm ok {perms.manage_guild}")

    @tree.command(description="Post a message in the channel")
    async def announce(interaction: discord.Interaction, text: str) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        await interaction.channel.send(text)
        await interaction.response.send_message("sent", ephemeral=True)

    @tree.command(description="Post through a channel webhook")
    async def narrate(interaction: discord.Interaction, text: str) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        hook = await interaction.channel.create_webhook(name="Lorekeeper Narrator")
        await hook.send(
            text, username="Narrator", file=discord.File(io.BytesIO(b"map"), "map.txt"), wait=True
        )
        await interaction.response.send_message("narrated", ephemeral=True)

    @tree.command(description="Open a feedback form")
    async def feedback(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(FeedbackModal())

    @tree.command(description="Fail")
    async def boom(interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom")


class DemoBot(commands.Bot):
    """The throwaway bot under test."""

    def __init__(self, *, message_content: bool = True) -> None:
        intents = discord.Intents.default()
        intents.members = True
        intents.message_content = message_content
        super().__init__(
            command_prefix="!",
            intents=intents,
            guild_ready_timeout=0.05,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.seen: list[discord.Message] = []
        self.edits: list[tuple[str, str]] = []
        self.deleted: list[int] = []
        self.purged: list[tuple[int, int | None, set[int]]] = []
        self.votes: list[tuple[int, str]] = []
        self.echoed: set[int] = set()
        register_commands(self.tree)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(VoteButton, TallyButton, CloseButton)
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot:
            return
        self.seen.append(message)
        # Idempotent: a redelivered MESSAGE_CREATE must not produce a second reply.
        if message.content.startswith("!echo ") and message.id not in self.echoed:
            self.echoed.add(message.id)
            await message.channel.send(f"echo: {message.content.removeprefix('!echo ')}")

    async def on_message_edit(self, before: discord.Message, after: discord.Message) -> None:
        self.edits.append((before.content, after.content))

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.deleted.append(payload.message_id)

    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        self.purged.append((payload.channel_id, payload.guild_id, payload.message_ids))


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


@dataclass
class World:
    emu: DiscordEmulator
    guild: Guild
    gm_role: Role
    gm: Member
    pat: Member
    other_bot: Member
    chan: Channel


@pytest.fixture
def bot_errors() -> Iterator[BotErrorCapture]:
    with capture_bot_errors() as errors:
        yield errors
    errors.assert_no_errors()


@pytest.fixture
async def world(bot_errors: BotErrorCapture) -> AsyncIterator[World]:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Tavern")
        gm_role = emu.add_role(guild, "GM", permissions=discord.Permissions(manage_guild=True))
        gm = emu.add_member(guild, "Gina", roles=[gm_role])
        pat = emu.add_member(guild, "Pat")
        other_bot = emu.add_member(guild, "OtherBot", bot=True)
        category = emu.add_category(guild, "Scenes")
        chan = emu.add_text_channel(guild, "scene-1", category=category)
        yield World(emu, guild, gm_role, gm, pat, other_bot, chan)


@pytest.fixture
async def bot(world: World) -> AsyncIterator[DemoBot]:
    demo = DemoBot()
    await world.emu.start_bot(demo)
    yield demo
    await world.emu.stop_bot(demo)


# ---------------------------------------------------------------------- login, sync, gateway


async def test_login_syncs_commands_and_receives_the_guild(world: World, bot: DemoBot) -> None:
    emu = world.emu
    names = sorted(c["name"] for c in emu.global_commands)
    assert names == sorted(["ping", "secret", "scene", "report", "vote", "lore", "propose", "inspect", "gm",
                            "announce", "narrate", "feedback", "roll", "retract", "scratch", "stall",
                            "boom"])  # fmt: skip
    assert emu.requests_to("PUT", rf"/applications/{emu.application_id}/commands$")
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Tavern"
    assert guild.chunked
    assert {m.name for m in guild.members} >= {"Gina", "Pat", "OtherBot", "Lorekeeper"}
    assert guild.get_channel(world.chan.id).category.name == "Scenes"  # type: ignore[union-attr]
    assert guild.get_member(world.gm.id).guild_permissions.manage_guild  # type: ignore[union-attr]
    assert not guild.get_member(world.pat.id).guild_permissions.manage_guild  # type: ignore[union-attr]
    (identify,) = emu.identify_log
    assert identify["intents"] == bot.intents.value
    # zlib-stream, or zstd-stream when the zstandard module is importable
    assert (
        emu.gateway_log[0]["query"]["compress"] == discord.utils._ActiveDecompressionContext.COMPRESSION_TYPE
    )


async def test_bad_token_is_a_login_failure(world: World) -> None:
    demo = DemoBot()
    with pytest.raises(discord.LoginFailure):
        await world.emu.start_bot(demo, token="wrong")
    await demo.close()


async def test_disallowed_privileged_intent_closes_with_4014(bot_errors: BotErrorCapture) -> None:
    async with DiscordEmulator(privileged_intents=()) as emu:
        emu.add_guild("Tavern")
        demo = DemoBot()
        with pytest.raises(discord.ConnectionClosed) as excinfo:
            await emu.start_bot(demo)
        assert excinfo.value.code == 4014


# ---------------------------------------------------------------------- slash commands


async def test_invoke_plain_and_ephemeral(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "ping")
    assert r.content == "pong from shard 0"
    assert not r.ephemeral and not r.deferred
    assert r.message is not None and r.message["author"]["id"] == str(world.emu.bot_user.id)
    assert [m["content"] for m in world.emu.channel_messages(world.chan)] == ["pong from shard 0"]
    r = await world.emu.invoke(world.chan, world.pat, "secret")
    assert r.content == "hush" and r.ephemeral
    assert len(world.emu.channel_messages(world.chan)) == 1  # ephemeral replies are not in the channel


async def test_observers_follow_every_message_change_ephemeral_ones_included(
    world: World, bot: DemoBot
) -> None:
    emu = world.emu
    seen: list[tuple[str, int, str, bool]] = []
    emu.observers.append(lambda event, m: seen.append((event, m.id, m.data["content"], m.ephemeral)))
    posted = await emu.send_message(world.chan, world.pat, "!echo hi")
    await emu.edit_message(posted, "!echo hi again")
    r = await emu.invoke(world.chan, world.pat, "secret")
    r2 = await emu.invoke(world.chan, world.gm, "scene start", title="Inn")  # thinking, then filled in
    await emu.delete_message(posted)
    assert r.final is not None and r2.final is not None
    echo = next(m for m in emu.channel_messages(world.chan) if m["content"] == "echo: hi")
    assert seen == [
        ("MESSAGE_CREATE", int(posted["id"]), "!echo hi", False),
        ("MESSAGE_CREATE", int(echo["id"]), "echo: hi", False),
        ("MESSAGE_UPDATE", int(posted["id"]), "!echo hi again", False),
        ("MESSAGE_CREATE", r.final.id, "hush", True),  # the gateway never carried this one
        ("MESSAGE_CREATE", r2.final.id, "", False),
        ("MESSAGE_UPDATE", r2.final.id, "Scene Inn at nowhere", False),
        ("MESSAGE_DELETE", int(posted["id"]), "!echo hi again", False),
    ]


async def test_commands_for_lists_what_discord_would_offer_this_member(world: World, bot: DemoBot) -> None:
    offered = {c["name"] for c in world.emu.commands_for(world.chan, world.pat)}
    assert "gm" not in offered  # default_member_permissions: Manage Server, which Pat lacks
    assert {"ping", "scene", "lore", "propose"} <= offered
    assert "gm" in {c["name"] for c in world.emu.commands_for(world.chan, world.gm)}


async def test_defer_then_edit_original(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.gm, "scene start", title="The Inn", location="Thornwall")
    assert r.deferred and r.response_type == 5
    assert r.content == "Scene The Inn at Thornwall"
    r = await world.emu.invoke(world.chan, world.gm, "scene start", title="Docks")
    assert r.content == "Scene Docks at nowhere"


async def test_defer_then_followup_with_a_file(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "report")
    assert r.deferred and r.ephemeral
    assert r.original_message is not None and r.original_message["content"] == "working"
    assert r.content == "working"
    (followup,) = r.followups
    assert followup["content"] == "here"
    assert followup["files"] == {"report.txt": b"line one\nline two\n"}
    assert followup["flags"] & 64
    assert world.emu.channel_messages(world.chan) == []


async def test_first_followup_fills_the_thinking_message(
    world: World, bot: DemoBot, bot_errors: BotErrorCapture
) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "roll")
    assert r.deferred and r.content == "rolled 4"
    (followup,) = r.followups
    assert r.original_message is not None and followup["id"] == r.original_message["id"]
    assert not followup["flags"] & 128  # no longer loading
    assert [m["content"] for m in world.emu.channel_messages(world.chan)] == ["rolled 4"]
    # Discord documents this as deprecated: it works, and the emulator fails the test that relies on it.
    (deprecation,) = world.emu.deprecations
    assert "first message after a thinking deferral was a followup" in deprecation
    bot_errors.clear()


async def test_a_withdrawn_thinking_message_lets_the_followup_be_ephemeral(
    world: World, bot: DemoBot, bot_errors: BotErrorCapture
) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "retract")
    assert r.deferred and r.original_message is not None and r.original_message["deleted"]
    assert r.ephemeral and r.content == "just for you"
    (followup,) = r.followups
    assert followup["id"] != r.original_message["id"]
    assert world.emu.channel_messages(world.chan) == []
    (deprecation,) = world.emu.deprecations  # undocumented: a test relying on it fails
    assert "after the deferral's loading message was deleted" in deprecation
    bot_errors.clear()


async def test_original_response_read_deleted_and_followup_edited(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "scratch")  # settles: the handler ran to its end
    assert r.original_message is not None and r.original_message["deleted"]
    (followup,) = r.followups
    assert followup["content"] == "was 'temp', cleaned"
    assert followup["edited_timestamp"] is not None
    assert [m["content"] for m in world.emu.channel_messages(world.chan)] == ["was 'temp', cleaned"]


async def test_a_deferral_never_finished_fails_clearly(world: World, bot: DemoBot) -> None:
    with pytest.raises(
        AssertionError, match=r"/stall: the interaction was deferred \(type 5\) but never edited"
    ):
        await world.emu.invoke(world.chan, world.pat, "stall")
    r = await world.emu.invoke(world.chan, world.pat, "stall", expect_response=False)
    assert r.deferred and not r.done.is_set()


async def test_typed_options_and_resolved_objects(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(
        world.chan,
        world.gm,
        "inspect",
        who=world.pat,
        count=2,
        loud=True,
        where=world.chan,
        role=world.gm_role,
    )
    assert r.content == "Pat|3|True|scene-1|GM|1.0"
    with pytest.raises(CommandNotAvailable, match="takes an integer"):
        await world.emu.invoke(
            world.chan,
            world.gm,
            "inspect",
            who=world.pat,
            count="2",
            loud=True,
            where=world.chan,
            role=world.gm_role,
        )
    with pytest.raises(CommandNotAvailable, match="required option"):
        await world.emu.invoke(world.chan, world.gm, "inspect", who=world.pat)
    with pytest.raises(CommandNotAvailable, match="was not synced"):
        await world.emu.invoke(world.chan, world.gm, "nope")
    with pytest.raises(CommandNotAvailable, match="no subcommand"):
        await world.emu.invoke(world.chan, world.gm, "scene stop")


async def test_default_member_permissions_are_enforced(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.gm, "gm")
    assert r.content == "gm ok True"
    with pytest.raises(CommandNotAvailable, match="default_member_permissions"):
        await world.emu.invoke(world.chan, world.pat, "gm")
    r = await world.emu.invoke(world.chan, world.guild.owner, "gm")
    assert r.content == "gm ok True"


async def test_autocomplete_returns_the_choices(world: World, bot: DemoBot) -> None:
    choices = await world.emu.autocomplete(
        world.chan, world.pat, "propose fact", focused="subject", value="Ald"
    )
    assert choices == [{"name": "Aldric", "value": "Aldric"}, {"name": "Alda", "value": "Alda"}]
    choices = await world.emu.autocomplete(
        world.chan, world.pat, "propose fact", focused="subject", value="b", text="!"
    )
    assert choices == [{"name": "Borin!", "value": "Borin"}]
    with pytest.raises(CommandNotAvailable, match="autocomplete"):
        await world.emu.autocomplete(world.chan, world.pat, "propose fact", focused="text", value="x")


async def test_attachment_option_is_readable(world: World, bot: DemoBot) -> None:
    att = world.emu.make_attachment("lore.md", b"# Thornwall\nA town.\n")
    r = await world.emu.invoke(world.chan, world.gm, "lore import", file=att)
    assert r.content == "lore.md: 20 bytes, starts '# Thornwall'"
    assert r.files == {"lore.md.receipt": b"# THORNWALL\nA TOWN.\n"}
    (attachment,) = r.message["attachments"]  # type: ignore[index]
    assert attachment["filename"] == "lore.md.receipt" and attachment["size"] == 20


async def test_webhook_post_is_recorded_with_its_username(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.gm, "narrate", text="The door creaks.")
    assert r.content == "narrated" and r.ephemeral
    (posted,) = world.emu.channel_messages(world.chan)
    assert posted["content"] == "The door creaks."
    assert posted["author"]["username"] == "Narrator"
    assert posted["files"] == {"map.txt": b"map"}
    assert posted["webhook_id"] == posted["author"]["id"]
    assert int(posted["webhook_id"]) in world.emu.webhooks


async def test_errors_in_commands_are_captured(
    world: World, bot: DemoBot, bot_errors: BotErrorCapture
) -> None:
    with pytest.raises(AssertionError, match=r"(?s)/boom: the interaction was never answered.*kaboom"):
        await world.emu.invoke(world.chan, world.pat, "boom")
    assert any("Ignoring exception in command 'boom'" in m for m in bot_errors.messages())
    assert any(r.exc_info and isinstance(r.exc_info[1].__cause__, RuntimeError) for r in bot_errors.records)
    bot_errors.clear()


async def test_rate_limit_is_retried_without_a_duplicate(world: World, bot: DemoBot) -> None:
    world.emu.fail_next("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.01)
    r = await world.emu.invoke(world.chan, world.gm, "announce", text="Hear ye")
    assert r.content == "sent"
    attempts = world.emu.requests_to("POST", r"^/channels/\d+/messages$")
    assert [a.status for a in attempts] == [429, 200]
    (posted,) = world.emu.channel_messages(world.chan)
    assert posted["content"] == "Hear ye"
    assert posted["allowed_mentions"] == {"parse": []}


# ---------------------------------------------------------------------- components


async def test_click_a_dynamic_button_survives_a_restart(world: World) -> None:
    emu = world.emu
    first = DemoBot()
    await emu.start_bot(first)
    r = await emu.invoke(world.chan, world.gm, "vote")
    message = r.message
    assert message is not None
    buttons = [c["custom_id"] for c in message["components"][0]["components"]]
    assert buttons == ["demo:vote:yes", "demo:vote:no", "demo:tally", "demo:close"]
    click = await emu.click(message, "demo:vote:yes", world.pat)
    assert click.content == "Pat voted yes" and click.ephemeral
    assert first.votes == [(world.pat.id, "yes")]
    await emu.stop_bot(first)

    second = DemoBot()
    await emu.start_bot(second)
    click = await emu.click(message, "demo:vote:no", world.gm)
    assert click.content == "Gina voted no"
    assert second.votes == [(world.gm.id, "no")]
    assert first.votes == [(world.pat.id, "yes")]
    with pytest.raises(AssertionError, match="no component"):
        await emu.click(message, "demo:vote:maybe", world.gm)

    tally = await emu.click(message, "demo:tally", world.pat)  # type 6, then PATCH @original
    assert tally.response_type == 6 and tally.deferred
    assert tally.content == "Vote! (1 so far)"
    assert tally.message is not None and tally.message["id"] == message["id"]
    closed = await emu.click(message, "demo:close", world.gm)  # type 7
    assert closed.response_type == 7
    assert closed.content == "Vote closed" and closed.components == []
    (posted,) = emu.channel_messages(world.chan)
    assert posted["content"] == "Vote closed" and posted["components"] == []
    with pytest.raises(AssertionError, match="no component"):
        await emu.click(message, "demo:vote:yes", world.pat)  # the buttons are gone now
    await emu.stop_bot(second)


async def test_modal_is_recorded_and_can_be_submitted(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "feedback")
    assert r.response_type == 9 and r.modal is not None
    assert r.modal["title"] == "Feedback"
    done = await world.emu.submit_modal(r, world.pat, {"fb:text": "great inn", "fb:mood": ["happy"]})
    assert done.content == "thanks: great inn (happy)"
    with pytest.raises(AssertionError, match="left empty"):
        await world.emu.submit_modal(r, world.pat, {"fb:mood": ["sad"]})


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
