"""Who may do what: a GM is a member with the configured GM role or the Manage Server permission."""

from __future__ import annotations

import discord
from discord import app_commands

from canon.errors import NotAllowed
from memory.scenes import Actor


def is_gm(member: discord.abc.User | None, gm_role: str) -> bool:
    """Return whether a member may act as GM."""
    if not isinstance(member, discord.Member):
        return False
    if member.guild_permissions.manage_guild or member.guild_permissions.administrator:
        return True
    wanted = gm_role.casefold()
    return any(role.name.casefold() == wanted for role in member.roles)


def require_gm(interaction: discord.Interaction, gm_role: str) -> None:
    """Raise `NotAllowed` (shown ephemerally) unless the user of an interaction is a GM."""
    if not is_gm(interaction.user, gm_role):
        raise NotAllowed(
            f"Only the GM can do that: you need the “{gm_role}” role or the Manage Server permission."
        )


def actor_of(interaction: discord.Interaction, gm_role: str) -> Actor:
    """Return the user of an interaction as an `Actor`."""
    return Actor(
        id=interaction.user.id, name=interaction.user.display_name, is_gm=is_gm(interaction.user, gm_role)
    )


def gm_only() -> object:
    """Return an app-command check that lets only GMs run the command."""

    def predicate(interaction: discord.Interaction) -> bool:
        require_gm(interaction, interaction.client.services.settings.gm_role)  # type: ignore[attr-defined]
        return True

    return app_commands.check(predicate)


def guild_only_message() -> str:
    """Return the message for commands used outside a server."""
    return "Lorekeeper's commands work in a server's channels, not in direct messages."
