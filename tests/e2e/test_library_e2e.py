"""A shared library end to end: rules imported once, attached to two campaigns of two servers, answers citing them
in both, nothing else crossing; a server's own library stays on its server; a player's command on every GM
control (and a GM's on the server administrator's import) is refused.

The real discord.py client against the emulator, a real database, real Chroma and the real embedding model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import discord
import pytest

from bot.offline.emulator import Channel, DiscordEmulator, Guild, Member
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, assert_no_pings, sql_run_below
from tests.e2e.jargon import JargonRecorder
from tests.e2e.test_lore_e2e import everything, with_sources

pytestmark = sql_run_below("tests/memory/knowledge/test_library.py", "tests/bot/cli/test_library.py")

RULES = b"""# Basic Rules

## Cover

Half cover gives a +2 bonus to AC and Dexterity saving throws; three-quarters cover gives +5.

## Grappling

A grappled creature's speed becomes 0 until the grapple ends.
"""
HOUSE_RULES = b"# House Rules\n\n## Critical Fumbles\n\nA natural 1 on an attack roll drops the weapon.\n"
TAVERN_WORLD = b"# Westhaven\n\n## The Crown\n\nKing Aldric rules Westhaven from the Gull Throne.\n"
KEEP_WORLD = (
    b"# Saltmarsh\n\n## The Council\n\nThe Council of Three rules Saltmarsh; Eliza Crane keeps the harbour.\n"
)
COVER = "how much AC does half cover give?"


@dataclass
class Table:
    """One server's people and scene channel."""

    guild: Guild
    gm: Member
    player: Member
    channel: Channel
    #: A member with the Manage Server permission (and no GM role).
    admin: Member


@pytest.fixture
async def two_servers(
    db_target: DatabaseTarget, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[World, Table, Table]]:
    """One bot in two servers, each with a GM, a player and a scene channel, made before the bot starts."""
    recorder = JargonRecorder()
    recorder.install(monkeypatch)
    async with DiscordEmulator() as emu:
        tables = []
        for name, gm_name, player_name in (("The Tavern", "Gina", "Pat"), ("The Keep", "Kai", "Quinn")):
            guild = emu.add_guild(name)
            role = emu.add_role(guild, "GM")
            gm = emu.add_member(guild, gm_name, roles=[role])
            player = emu.add_member(guild, player_name)
            admins = emu.add_role(guild, "Admins", permissions=discord.Permissions(manage_guild=True))
            admin = emu.add_member(guild, f"{gm_name} Admin", roles=[admins])
            channel = emu.add_text_channel(guild, "scene-1")
            tables.append((Table(guild, gm, player, channel, admin), role))
        (tavern, tavern_role), (keep, keep_role) = tables
        world = World(
            emu, settings, db_target, tavern.guild, tavern_role, tavern.gm, tavern.player, keep.player,
            tavern.channel,
        )  # fmt: skip
        await world.start()
        try:
            yield world, tavern, keep
            await emu.settle()
            assert_no_pings(emu)
            for guild, role in ((tavern.guild, tavern_role), (keep.guild, keep_role)):
                jargon = recorder.problems(guild, role.id)
                assert not jargon, "someone could read jargon:\n" + "\n".join(jargon[:15])
        finally:
            while world.bots:
                await world.stop()
        emu.errors.assert_no_errors()


async def test_a_shared_library_serves_two_servers_campaigns_and_nothing_else_crosses(
    two_servers: tuple[World, Table, Table],
) -> None:
    world, tavern, keep = two_servers
    emu, services = world.emu, world.bot.services
    west = await services.campaigns.for_guild(tavern.guild.id, tavern.guild.name)
    salt = await services.campaigns.for_guild(keep.guild.id, keep.guild.name)
    await services.knowledge.import_bytes(west.id, "westhaven.md", TAVERN_WORLD)
    await services.knowledge.import_bytes(salt.id, "saltmarsh.md", KEEP_WORLD)
    # The bot's operator imports the rules once, for every campaign (`lorekeeper library import`).
    await services.knowledge.library.import_bytes("basic-rules.md", RULES, guild_id=None)

    for table in (tavern, keep):
        listed = await emu.invoke(table.channel, table.gm, "lore library list")
        assert listed.ephemeral and "Basic Rules" in everything(listed.message)
        assert "not attached here" in everything(listed.message)
        offered = await emu.autocomplete(table.channel, table.gm, "lore library attach", "source", "basic")
        assert [c["value"] for c in offered] == ["basic-rules.md"]
        attached = await emu.invoke(table.channel, table.gm, "lore library attach", source="Basic Rules")
        assert attached.ephemeral and "Attached **Basic Rules**" in (attached.content or "")

    # Both campaigns' players get answers citing the shared rules, in the answer and behind its Sources button.
    for table in (tavern, keep):
        asked = await emu.invoke(table.channel, table.player, "lore ask", question=COVER)
        shown = await with_sources(world, asked, table.player)
        assert "+2 bonus to AC" in shown and "Basic Rules" in shown
    # Nothing else crosses: the Tavern's king never reaches the Keep, nor the Keep's council the Tavern.
    keep_asks = await emu.invoke(
        keep.channel, keep.player, "lore ask", question="who rules from the Gull Throne?"
    )
    assert "Aldric" not in await with_sources(world, keep_asks, keep.player)
    tavern_asks = await emu.invoke(tavern.channel, tavern.gm, "lore ask", question="who rules Saltmarsh?")
    assert "Council of Three" not in await with_sources(world, tavern_asks, tavern.gm)

    # A server's own library stays on its server: the Tavern's house rules are not even listed at the Keep.
    added = await emu.invoke(
        tavern.channel, tavern.admin, "lore library import", file=emu.make_attachment("house.md", HOUSE_RULES)
    )
    assert "this server's shared library" in everything(added.message)
    at_keep = await emu.invoke(keep.channel, keep.gm, "lore library list")
    assert "House Rules" not in everything(at_keep.message)
    refused = await emu.invoke(keep.channel, keep.gm, "lore library attach", source="house.md")
    assert refused.ephemeral and "There is no library source called" in (refused.content or "")

    # Detaching is instant and for that campaign alone.
    detached = await emu.invoke(keep.channel, keep.gm, "lore library detach", source="basic-rules.md")
    assert "Detached **Basic Rules**" in (detached.content or "")
    after = await emu.invoke(keep.channel, keep.player, "lore ask", question=COVER)
    assert "+2 bonus to AC" not in await with_sources(world, after, keep.player)
    still = await emu.invoke(tavern.channel, tavern.player, "lore ask", question=COVER)
    assert "+2 bonus to AC" in await with_sources(world, still, tavern.player)


async def test_a_player_is_refused_every_library_control(two_servers: tuple[World, Table, Table]) -> None:
    world, tavern, _ = two_servers
    emu, services = world.emu, world.bot.services
    await services.knowledge.library.import_bytes("basic-rules.md", RULES, guild_id=None)
    chan, player, gm = tavern.channel, tavern.player, tavern.gm
    for command, options in (
        ("lore library list", {}),
        ("lore library attach", {"source": "basic-rules.md"}),
        ("lore library detach", {"source": "basic-rules.md"}),
    ):
        denied = await emu.invoke(chan, player, command, **options)
        assert denied.ephemeral and "Only the GM" in (denied.content or ""), command
    assert await emu.autocomplete(chan, player, "lore library attach", "source", "") == []
    campaign = await services.campaigns.for_guild(tavern.guild.id, tavern.guild.name)
    assert not [s for s in await services.knowledge.library.available(campaign.id) if s.attached]
    # Adding to the server's library is its administrator's: a player and a GM (by role) are both refused.
    for who in (player, gm):
        denied = await emu.invoke(
            chan, who, "lore library import", file=emu.make_attachment("x.md", HOUSE_RULES)
        )
        assert denied.ephemeral and "Only a server administrator" in (denied.content or "")
    assert [s.source.filename for s in await services.knowledge.library.everything()] == ["basic-rules.md"]
