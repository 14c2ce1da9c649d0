"""A small discord.py bot for the emulator tests: its commands, buttons and modals, and the bots that sync per guild or run sharded."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.offline.emulator import (
    Channel,
    DiscordEmulator,
    Guild,
    Member,
    Role,
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


@dataclass
class World:
    emu: DiscordEmulator
    guild: Guild
    gm_role: Role
    gm: Member
    pat: Member
    other_bot: Member
    chan: Channel
