"""End-to-end harness: the real Lorekeeper client against the local Discord emulator, on a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Set
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.app import build_services
from bot.client.client import INVITE_PERMISSIONS, Lorekeeper
from bot.offline.emulator import Channel, DiscordEmulator, Guild, Member, Role
from bot.offline.emulator.models import LOADING
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.conftest import sql_run_below as sql_run_below  # the e2e flows' own, where they import it
from tests.e2e.jargon import JargonRecorder


@dataclass
class World:
    """A Discord server with a GM, two players and a scene channel, and the running bot."""

    emu: DiscordEmulator
    settings: Settings
    target: DatabaseTarget
    guild: Guild
    gm_role: Role
    gm: Member
    pat: Member
    quinn: Member
    channel: Channel
    bots: list[Lorekeeper] = field(default_factory=list)
    #: Roles a test lets the bot ping (a session's players' role in its reminder); nothing else may ping.
    pingable_roles: set[int] = field(default_factory=set)

    async def start(self, **options: Any) -> Lorekeeper:
        """Start a new bot process-equivalent: new services, new client, the same database."""
        services = await build_services(self.settings, db=self.target.open())
        bot = Lorekeeper(services, **options)
        await self.emu.start_bot(bot)
        self.bots.append(bot)
        return bot

    async def restart(self) -> Lorekeeper:
        """Stop the running bot (flushing what it queued) and start a fresh one on the same database."""
        await self.stop()
        return await self.start()

    async def stop(self) -> None:
        """Stop the running bot."""
        if self.bots:
            await self.emu.stop_bot(self.bots.pop())

    @property
    def bot(self) -> Lorekeeper:
        """Return the running bot."""
        return self.bots[-1]


def assert_no_pings(emu: DiscordEmulator, pingable_roles: Set[int] = frozenset()) -> None:
    """Fail when anything the bot posted (replies, followups, channel and webhook messages) could ping, but
    for the `pingable_roles`, which a message may allow and mention (and then no other role)."""
    posted = [
        m
        for m in emu.messages.values()
        if (m.from_bot or m.data.get("webhook_id")) and not m.data.get("flags", 0) & LOADING
    ]  # a "thinking…" message never filled (deleted instead) has no text that could ping
    for message in posted:
        mentions = message.allowed_mentions
        assert mentions is not None and mentions.get("parse") == [], (
            f"message {message.id} was posted without allowed_mentions none: {mentions}"
        )
        assert not mentions.get("users") and not mentions.get("replied_user")
        assert {int(r) for r in mentions.get("roles") or ()} <= pingable_roles, (
            f"message {message.id} may ping roles {mentions.get('roles')}"
        )


def tavern(emu: DiscordEmulator, settings: Settings, target: DatabaseTarget) -> World:
    """Return the usual server, its bot not started: "The Tavern", with a GM role, Gina (the GM), the players
    Pat and Quinn, and the channel scene-1."""
    guild = emu.add_guild("The Tavern")
    gm_role = emu.add_role(guild, "GM")
    gm = emu.add_member(guild, "Gina", roles=[gm_role])
    pat = emu.add_member(guild, "Pat")
    quinn = emu.add_member(guild, "Quinn")
    channel = emu.add_text_channel(guild, "scene-1")
    return World(emu, settings, target, guild, gm_role, gm, pat, quinn, channel)


@asynccontextmanager
async def running(world: World) -> AsyncIterator[World]:
    """Start the world's bot; after the test, fail if anything it posted could ping, stop every bot it started,
    and fail if any handler logged an error."""
    await world.start()
    try:
        yield world
        await world.emu.settle()
        assert_no_pings(world.emu)
    finally:
        while world.bots:
            await world.stop()
    world.emu.errors.assert_no_errors()


@pytest.fixture
async def world(
    db_target: DatabaseTarget, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[World]:
    """A running bot in one server; fails the test if any handler logged an error, if anything it posted
    could ping, or if anyone (a player or the GM) could read the program's jargon (`tests.e2e.jargon`)."""
    recorder = JargonRecorder()
    recorder.install(monkeypatch)
    # The bot has what the README's invite gives it, not more (no Mention Everyone, no administrator).
    async with DiscordEmulator(bot_permissions=INVITE_PERMISSIONS) as emu:
        world = tavern(emu, settings, db_target)
        await world.start()
        try:
            yield world
            await emu.settle()
            assert_no_pings(emu, world.pingable_roles)
            jargon = recorder.problems(world.guild, world.gm_role.id)
            assert not jargon, "someone could read jargon:\n" + "\n".join(jargon[:15])
        finally:
            while world.bots:
                await world.stop()
        emu.errors.assert_no_errors()


def embed_fields(embed: dict[str, Any]) -> dict[str, str]:
    """Return an embed's fields as a name -> value mapping."""
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def scene_report(emu: DiscordEmulator, channel: Channel) -> dict[str, Any]:
    """Return the report `/endscene` posted in a channel (the newest), as a message of the channel."""
    reports = [
        m
        for m in emu.channel_messages(channel)
        if m.get("embeds") and str(m["embeds"][0].get("title", "")).startswith("Scene ended")
    ]
    assert reports, "no scene report was posted in the channel"
    return reports[-1]
