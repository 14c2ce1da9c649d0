"""Tests of the Discord rules the emulator enforces beyond a payload's shape (`bot/offline/emulator/discord_rules.py`).

A throwaway bot on the real discord.py client breaks each rule once; the validation rules that discord.py
itself would refuse to send are exercised over raw REST.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.offline.emulator import BotErrorCapture, Channel, DiscordEmulator, Guild, Member, capture_bot_errors
from bot.offline.emulator.discord_rules import MAX_COMMAND_CHARACTERS, command_characters

NONE = discord.AllowedMentions.none()


class RulesBot(commands.Bot):
    """Commands that each touch one of Discord's rules; `before_answer` lets a test move Discord's clock."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix="!",
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
            allowed_mentions=NONE,
        )
        self.before_answer: Callable[[], None] = lambda: None
        self.outcomes: list[str] = []
        tree = self.tree

        @tree.command(description="Speak through a webhook under a name")
        @app_commands.guild_only()
        async def speak(interaction: discord.Interaction, name: str) -> None:
            assert isinstance(interaction.channel, discord.TextChannel)
            hook = await interaction.channel.create_webhook(name="Lorekeeper NPCs")
            try:
                await hook.send("Well met.", username=name, allowed_mentions=NONE, wait=True)
                outcome = "sent"
            except discord.HTTPException as error:
                outcome = f"refused {error.status}/{error.code}"
            self.outcomes.append(outcome)
            await interaction.response.send_message(outcome, ephemeral=True)

        @tree.command(description="Ping a role in the channel")
        @app_commands.guild_only()
        async def call(interaction: discord.Interaction, role: discord.Role, everyone: bool = False) -> None:
            assert isinstance(interaction.channel, discord.TextChannel)
            mentions = discord.AllowedMentions(everyone=everyone, users=False, roles=[role])
            text = f"{role.mention} to arms" + (" @everyone" if everyone else "")
            await interaction.channel.send(text, allowed_mentions=mentions)
            await interaction.response.send_message("called", ephemeral=True)

        @tree.command(description="Answer with a role mention and no allowed_mentions")
        @app_commands.guild_only()
        async def shout(interaction: discord.Interaction, role: discord.Role) -> None:
            await self.http.request(
                discord.http.Route(
                    "POST",
                    "/interactions/{id}/{token}/callback",
                    id=interaction.id,
                    token=interaction.token,
                ),
                json={"type": 4, "data": {"content": f"{role.mention} hear this"}},
            )

        @tree.command(description="Answer after Discord's clock moved")
        async def late(interaction: discord.Interaction) -> None:
            self.before_answer()
            await interaction.response.send_message("too late?", ephemeral=True)

        @tree.command(description="Defer, let time pass, then edit")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            self.before_answer()
            try:
                await interaction.edit_original_response(content="done at last")
            except discord.HTTPException as error:
                self.outcomes.append(f"refused {error.status}/{error.code}")

        @tree.command(description="Send files")
        async def files(interaction: discord.Interaction, count: int) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            attached = [discord.File(io.BytesIO(b"x"), filename=f"f{i}.txt") for i in range(count)]
            try:
                await interaction.edit_original_response(content="files", attachments=attached)
                self.outcomes.append("sent")
            except discord.HTTPException as error:
                self.outcomes.append(f"refused {error.status}/{error.code}")
                await interaction.edit_original_response(content="too many")

        @tree.command(description="Open a modal")
        async def form(interaction: discord.Interaction, legacy: bool = False) -> None:
            modal = discord.ui.Modal(title="Form", custom_id="rules:form")
            if legacy:
                modal.add_item(discord.ui.TextInput(label="Old style", custom_id="rules:text", max_length=10))
            else:
                modal.add_item(
                    discord.ui.Label(
                        text="Your answer",
                        component=discord.ui.TextInput(custom_id="rules:text", max_length=10),
                    )
                )
            await interaction.response.send_modal(modal)

    async def setup_hook(self) -> None:
        await self.tree.sync()


@dataclass
class World:
    emu: DiscordEmulator
    guild: Guild
    gm: Member
    chan: Channel


@pytest.fixture
def bot_errors() -> Iterator[BotErrorCapture]:
    with capture_bot_errors() as errors:
        yield errors
    errors.assert_no_errors()


async def open_world(permissions: discord.Permissions) -> tuple[DiscordEmulator, World]:
    emu = DiscordEmulator(bot_permissions=permissions)
    await emu.__aenter__()
    guild = emu.add_guild("Tavern")
    gm = emu.add_member(guild, "Gina")
    chan = emu.add_text_channel(guild, "scene-1")
    return emu, World(emu, guild, gm, chan)


#: What a server grants a bot invited without Mention Everyone.
PLAIN = discord.Permissions(
    view_channel=True, send_messages=True, manage_webhooks=True, embed_links=True, attach_files=True
)


@pytest.fixture
async def world(bot_errors: BotErrorCapture) -> AsyncIterator[World]:
    emu, world = await open_world(PLAIN)
    try:
        yield world
    finally:
        await emu.__aexit__(None, None, None)


@pytest.fixture
async def bot(world: World) -> AsyncIterator[RulesBot]:
    demo = RulesBot()
    await world.emu.start_bot(demo)
    yield demo
    await world.emu.stop_bot(demo)


async def rest(emu: DiscordEmulator, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    """Call the emulator's REST API as the bot, bypassing discord.py's own checks."""
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, f"{emu.api_base}{path}", json=body, headers={"Authorization": f"Bot {emu.token}"}
        ) as response,
    ):
        data = await response.json() if response.content_type == "application/json" else {}
        return response.status, data


# ---------------------------------------------------------------------- webhook names


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("Brann the Smith", "sent"),
        ("Clyde the Innkeeper", "refused 400/50035"),
        ("Lady DISCORDIA", "refused 400/50035"),
        ("everyone", "refused 400/50035"),
        ("Here", "refused 400/50035"),
        ("Here and there", "sent"),
        ("x" * 81, "refused 400/50035"),
        ("   ", "refused 400/50035"),
    ],
)
async def test_a_webhook_username_follows_discords_rules(
    world: World, bot: RulesBot, name: str, outcome: str
) -> None:
    result = await world.emu.invoke(world.chan, world.gm, "speak", name=name)
    assert result.content == outcome
    sent = [m for m in world.emu.channel_messages(world.chan) if m.get("webhook_id")]
    assert [m["author"]["username"] for m in sent] == ([name] if outcome == "sent" else [])


async def test_a_webhook_cannot_be_created_with_a_refused_name(world: World, bot: RulesBot) -> None:
    status, body = await rest(
        world.emu, "POST", f"/channels/{world.chan.id}/webhooks", {"name": "Discord NPCs"}
    )
    assert (status, body["code"]) == (400, 50035)
    assert world.emu.webhooks == {}


# ---------------------------------------------------------------------- mentions


async def test_a_role_is_pinged_only_when_mentionable(world: World, bot: RulesBot) -> None:
    shy = world.emu.add_role(world.guild, "Shy")
    party = world.emu.add_role(world.guild, "Party", mentionable=True)
    await world.emu.stop_bot(bot)
    await world.emu.start_bot(bot := RulesBot())  # roles are announced at connect
    await world.emu.invoke(world.chan, world.gm, "call", role=shy)
    await world.emu.invoke(world.chan, world.gm, "call", role=party, everyone=True)
    first, second = world.emu.channel_messages(world.chan)
    assert first["mention_roles"] == []  # not mentionable, and the bot lacks Mention Everyone
    assert second["mention_roles"] == [str(party.id)]
    assert second["mention_everyone"] is False  # @everyone needs Mention Everyone too
    await world.emu.stop_bot(bot)


async def test_mention_everyone_lets_the_bot_ping_any_role_and_everyone(bot_errors: BotErrorCapture) -> None:
    emu, world = await open_world(PLAIN | discord.Permissions(mention_everyone=True))
    try:
        shy = emu.add_role(world.guild, "Shy")
        bot = RulesBot()
        await emu.start_bot(bot)
        await emu.invoke(world.chan, world.gm, "call", role=shy, everyone=True)
        (posted,) = emu.channel_messages(world.chan)
        assert posted["mention_roles"] == [str(shy.id)] and posted["mention_everyone"] is True
    finally:
        await emu.__aexit__(None, None, None)


async def test_an_answer_without_allowed_mentions_pings_users_only(world: World, bot: RulesBot) -> None:
    party = world.emu.add_role(world.guild, "Party", mentionable=True)
    await world.emu.stop_bot(bot)
    await world.emu.start_bot(bot := RulesBot())
    result = await world.emu.invoke(world.chan, world.gm, "shout", role=party)
    assert result.message is not None and result.message["mention_roles"] == []
    await world.emu.stop_bot(bot)


@pytest.mark.parametrize(
    "allowed",
    [
        {"parse": ["users"], "users": ["1"]},
        {"parse": ["roles"], "roles": ["1"]},
        {"parse": [], "users": [str(n) for n in range(101)]},
        {"parse": ["channels"]},
    ],
)
async def test_allowed_mentions_discord_refuses_are_refused(
    world: World, bot: RulesBot, allowed: dict[str, Any]
) -> None:
    body = {"content": "hello", "allowed_mentions": allowed}
    status, data = await rest(world.emu, "POST", f"/channels/{world.chan.id}/messages", body)
    assert (status, data["code"]) == (400, 50035)
    ok = {"content": "hello", "allowed_mentions": {"parse": ["users"], "users": []}}
    assert (await rest(world.emu, "POST", f"/channels/{world.chan.id}/messages", ok))[0] == 200


# ---------------------------------------------------------------------- interaction tokens


async def test_an_answer_after_three_seconds_finds_the_interaction_gone(
    world: World, bot: RulesBot, bot_errors: BotErrorCapture
) -> None:
    bot.before_answer = lambda: world.emu.clock.advance(3.5)
    with pytest.raises(AssertionError, match="never answered"):
        await world.emu.invoke(world.chan, world.gm, "late")
    assert "10062" in bot_errors.format_records()  # Unknown interaction
    bot_errors.clear()
    bot.before_answer = lambda: world.emu.clock.advance(2.5)
    assert (await world.emu.invoke(world.chan, world.gm, "late")).content == "too late?"


async def test_a_token_expires_after_fifteen_minutes(world: World, bot: RulesBot) -> None:
    bot.before_answer = lambda: world.emu.clock.advance(14 * 60)
    assert (await world.emu.invoke(world.chan, world.gm, "slow")).content == "done at last"
    bot.before_answer = lambda: world.emu.clock.advance(15 * 60 + 1)
    result = await world.emu.invoke(world.chan, world.gm, "slow", expect_response=False)
    assert not result.done.is_set()
    assert bot.outcomes == ["refused 401/50027"]


# ---------------------------------------------------------------------- files, components, modals


async def test_ten_files_a_message_at_most(world: World, bot: RulesBot) -> None:
    assert (await world.emu.invoke(world.chan, world.gm, "files", count=10)).content == "files"
    assert (await world.emu.invoke(world.chan, world.gm, "files", count=11)).content == "too many"
    assert bot.outcomes == ["sent", "refused 400/30015"]


def _select(options: int = 3, **extra: Any) -> dict[str, Any]:
    choices = [{"label": f"Option {i}", "value": f"v{i}"} for i in range(options)]
    return {"type": 3, "custom_id": "pick", "options": choices, **extra}


BUTTON = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}


@pytest.mark.parametrize(
    ("components", "accepted"),
    [
        ([{"type": 1, "components": [_select()]}], True),
        ([{"type": 1, "components": [_select(), BUTTON]}], False),  # a select is alone in its row
        ([{"type": 1, "components": [_select(26)]}], False),
        ([{"type": 1, "components": [_select(placeholder="p" * 151)]}], False),
        ([{"type": 1, "components": [_select(max_values=26)]}], False),
        ([{"type": 1, "components": [_select(min_values=3, max_values=2)]}], False),
        (
            [
                {
                    "type": 1,
                    "components": [
                        {**_select(), "options": [{"label": "a", "value": "v", "description": "d" * 101}]}
                    ],
                }
            ],
            False,
        ),
        ([{"type": 1, "components": [{**_select(), "options": [{"label": "a", "value": "v"}] * 2}]}], False),
        ([{"type": 1, "components": []}], False),
    ],
)
async def test_select_menus_follow_discords_rules(
    world: World, bot: RulesBot, components: list[dict[str, Any]], accepted: bool
) -> None:
    status, _ = await rest(
        world.emu,
        "POST",
        f"/channels/{world.chan.id}/messages",
        {"content": "Pick", "components": components},
    )
    assert (status == 200) is accepted


async def test_modal_fields_follow_discords_rules_and_text_inputs_go_in_labels(
    world: World, bot: RulesBot, bot_errors: BotErrorCapture
) -> None:
    opened = await world.emu.invoke(world.chan, world.gm, "form")
    with pytest.raises(AssertionError, match="at most 10"):
        await world.emu.submit_modal(opened, world.gm, {"rules:text": "x" * 11}, expect_response=False)
    assert world.emu.deprecations == []
    await world.emu.invoke(world.chan, world.gm, "form", legacy=True)
    assert [d.split(" (")[0] for d in world.emu.deprecations] == [
        "a text input inside an action row of a modal",
        "a text input with its own label",
    ]
    bot_errors.clear()


@pytest.mark.parametrize(
    "field",
    [
        {"type": 18, "label": "L" * 46, "component": {"type": 4, "custom_id": "t", "style": 1}},
        {
            "type": 18,
            "label": "Ok",
            "description": "d" * 101,
            "component": {"type": 4, "custom_id": "t", "style": 1},
        },
        {
            "type": 18,
            "label": "Ok",
            "component": {"type": 4, "custom_id": "t", "style": 1, "max_length": 4001},
        },
        {
            "type": 18,
            "label": "Ok",
            "component": {"type": 4, "custom_id": "t", "style": 1, "placeholder": "p" * 101},
        },
        {
            "type": 18,
            "label": "Ok",
            "component": {"type": 4, "custom_id": "t", "style": 1, "value": "v" * 4001},
        },
    ],
)
def test_modal_limits_are_checked(field: dict[str, Any]) -> None:
    from bot.offline.emulator.discord_rules import ApiError, check_modal

    with pytest.raises(ApiError) as refused:
        check_modal({"title": "Form", "custom_id": "m", "components": [field]}, [])
    assert refused.value.code == 50035


# ---------------------------------------------------------------------- application commands


def test_command_characters_count_names_descriptions_and_choices() -> None:
    command = {
        "name": "lore",
        "description": "Ask",
        "options": [
            {"name": "kind", "description": "What", "choices": [{"name": "Canon", "value": "canon"}]},
        ],
    }
    assert command_characters(command) == 4 + 3 + 4 + 4 + 5 + 5


async def test_a_command_over_8000_characters_is_refused(world: World, bot: RulesBot) -> None:
    options = [
        {"type": 3, "name": f"o{i}", "description": "d" * 100, "choices": [
            {"name": "n" * 100, "value": "v" * 100} for _ in range(2)
        ]}
        for i in range(25)
    ]  # fmt: skip
    command = {"name": "huge", "description": "Too big", "type": 1, "options": options}
    assert command_characters(command) > MAX_COMMAND_CHARACTERS
    status, data = await rest(
        world.emu, "POST", f"/applications/{world.emu.application_id}/commands", command
    )
    assert (status, data["code"]) == (400, 50035)


async def test_two_hundred_command_creates_a_day(world: World, bot: RulesBot) -> None:
    app = world.emu.application_id
    already = world.emu.command_creates[None]
    for i in range(200 - already):
        body = {"name": f"c{i}", "description": "d", "type": 1}
        assert (await rest(world.emu, "POST", f"/applications/{app}/commands", body))[0] == 200
    again = {"name": "c0", "description": "same command, updated", "type": 1}
    assert (await rest(world.emu, "POST", f"/applications/{app}/commands", again))[0] == 200  # not a create
    status, data = await rest(
        world.emu, "POST", f"/applications/{app}/commands", {"name": "new", "description": "d"}
    )
    assert (status, data["code"]) == (429, 30034)


async def test_a_command_kept_from_dms_by_dm_permission_alone_is_flagged(
    world: World, bot: RulesBot, bot_errors: BotErrorCapture
) -> None:
    app = world.emu.application_id
    body = {"name": "old", "description": "d", "type": 1, "dm_permission": False}
    assert (await rest(world.emu, "POST", f"/applications/{app}/commands", body))[0] == 200
    (deprecation,) = world.emu.deprecations
    assert "dm_permission alone" in deprecation
    with_contexts = {"name": "new", "description": "d", "type": 1, "dm_permission": False, "contexts": [0]}
    assert (await rest(world.emu, "POST", f"/applications/{app}/commands", with_contexts))[0] == 200
    assert len(world.emu.deprecations) == 1
    bot_errors.clear()
