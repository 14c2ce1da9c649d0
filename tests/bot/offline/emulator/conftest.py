"""Fixtures shared by the emulator tests: a world with a guild and its members, and a demo bot logged into it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import discord
import pytest

from bot.offline.emulator import (
    BotErrorCapture,
    DiscordEmulator,
    capture_bot_errors,
)
from tests.helpers.emulator_bot import DemoBot, World


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
