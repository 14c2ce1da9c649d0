"""Who may do what: a GM is a member with the configured GM role or the Manage Server permission."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import discord
from discord import app_commands

from canon.errors import InvalidInput, NotAllowed
from cogs.services import services_of
from memory.scenes import Actor

T = TypeVar("T")

#: Where commands may be used, as Discord's `contexts` (its deprecated `dm_permission` is not relied on).
IN_SERVERS = app_commands.AppCommandContext(guild=True)
IN_SERVERS_AND_DMS = app_commands.AppCommandContext(guild=True, dm_channel=True)


def is_gm(member: discord.abc.User | None, gm_role: str) -> bool:
    """Return whether a member may act as GM."""
    if not isinstance(member, discord.Member):
        return False
    permissions = member.guild_permissions  # computed from every role: once (this runs for every message)
    if permissions.manage_guild or permissions.administrator:
        return True
    wanted = gm_role.casefold()
    return any(role.name.casefold() == wanted for role in member.roles)


class NotGM(app_commands.CheckFailure):
    """An app-command check failure whose message is shown to the user as is."""


def not_gm_message(gm_role: str) -> str:
    """Return the refusal a non-GM sees."""
    return f"Only the GM can do that: you need the “{gm_role}” role or the Manage Server permission."


def require_gm(interaction: discord.Interaction, gm_role: str) -> None:
    """Raise `NotAllowed` (shown ephemerally) unless the user of an interaction is a GM (for buttons)."""
    if not is_gm(interaction.user, gm_role):
        raise NotAllowed(not_gm_message(gm_role))


def actor_of(interaction: discord.Interaction, gm_role: str) -> Actor:
    """Return the user of an interaction as an `Actor`."""
    return Actor(
        id=interaction.user.id, name=interaction.user.display_name, is_gm=is_gm(interaction.user, gm_role)
    )


def gm_only() -> Callable[[T], T]:
    """Return an app-command check that lets only GMs run the command."""

    def predicate(interaction: discord.Interaction) -> bool:
        gm_role = services_of(interaction).settings.gm_role
        if not is_gm(interaction.user, gm_role):
            raise NotGM(not_gm_message(gm_role))
        return True

    return app_commands.check(predicate)


def guild_only_message() -> str:
    """Return the message for commands used outside a server."""
    return "Lorekeeper's commands work in a server's channels, not in direct messages."


def guild_of(interaction: discord.Interaction) -> discord.Guild:
    """Return the server a command was used in, or raise `InvalidInput` saying the commands work in servers."""
    if interaction.guild is None:
        raise InvalidInput(guild_only_message())
    return interaction.guild
