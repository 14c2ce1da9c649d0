"""The one way a cog reaches the application's services: those of the bot that received the interaction."""

from __future__ import annotations

import discord

from bot.app import Services
from bot.client.client import Lorekeeper


def services_of(interaction: discord.Interaction) -> Services:
    """Return the services of the bot that received an interaction (built by `bot.app.build_services`)."""
    return services_of_client(interaction.client)


def services_of_client(client: discord.Client) -> Services:
    """Return the services of the Lorekeeper client (for work that runs outside an interaction)."""
    if not isinstance(client, Lorekeeper):
        raise TypeError(f"{type(client).__name__} is not the Lorekeeper client: it has no services.")
    return client.services
