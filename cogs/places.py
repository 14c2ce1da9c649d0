"""Which campaign a command belongs to: the one its channel (or the channel's category) is bound to.

Every cog picks the campaign of a command here, so that a channel bound to a what-if branch plays in the
branch (`bot.services.branches`, `/campaign use`) and a channel bound to an abandoned branch says so.
"""

from __future__ import annotations

from typing import Any, cast

import discord

from bot.ops.logs import bind_log_context
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from cogs.checks import guild_only_message


def place_of(channel: Any) -> tuple[int | None, int | None, int | None]:
    """Return (channel id, parent channel id for a thread, category id) of a channel."""
    if channel is None:
        return None, None, None
    if isinstance(channel, discord.Thread):
        parent = channel.parent
        return channel.id, channel.parent_id, getattr(parent, "category_id", None)
    return getattr(channel, "id", None), None, getattr(channel, "category_id", None)


async def campaign_here(interaction: discord.Interaction, *, allow_abandoned: bool = False) -> Campaign:
    """Return the campaign the interaction's channel plays in (raises for DMs and abandoned branches)."""
    guild = interaction.guild
    if guild is None:
        raise InvalidInput(guild_only_message())
    channel_id, parent_id, category_id = place_of(interaction.channel)
    services = cast(Any, interaction.client).services
    campaign: Campaign = await services.campaigns.for_channel(
        guild.id,
        guild.name,
        channel_id if channel_id is not None else interaction.channel_id,
        category_id,
        parent_channel_id=parent_id,
        allow_abandoned=allow_abandoned,
    )
    bind_log_context(campaign=campaign.id)  # the rest of the command logs as the campaign it plays in
    return campaign
