"""Commands a cog adds to another cog's group (`/canon tree`, `/lore library`, `/npc memory-edit`): added when its
extension loads, after the one that owns the group, and taken away again when it unloads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from discord import app_commands

from bot.client.client import Lorekeeper

Subcommand = app_commands.Command[Any, Any, Any] | app_commands.Group


def add_to_group(
    bot: Lorekeeper, group_name: str, commands: Sequence[Subcommand], *, extension: str, owner: str
) -> None:
    """Add an extension's commands to the `/group_name` group, each once; raise when the extension that owns
    the group (`owner`) is not loaded yet."""
    group = bot.tree.get_command(group_name)
    if not isinstance(group, app_commands.Group):
        raise RuntimeError(f"{extension} needs {owner} loaded first (it adds to /{group_name})")
    for command in commands:
        if group.get_command(command.name) is None:
            group.add_command(command)


def remove_from_group(bot: Lorekeeper, group_name: str, commands: Sequence[Subcommand]) -> None:
    """Take commands out of the `/group_name` group again (nothing when the group is gone)."""
    group = bot.tree.get_command(group_name)
    if isinstance(group, app_commands.Group):
        for command in commands:
            group.remove_command(command.name)
