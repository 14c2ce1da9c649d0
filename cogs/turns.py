"""The turn logger: messages, edits and deletions in a channel with an active scene become turns."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.client import Lorekeeper
from bot.logs import log_context
from cogs.checks import is_gm
from memory.scenes import SpeakerKind
from memory.turn_log import IncomingMessage

log = logging.getLogger(__name__)


def attachment_metadata(message: discord.Message) -> list[dict[str, Any]]:
    """Return a message's attachments as inert metadata (never fetched)."""
    return [
        {"filename": a.filename, "size": a.size, "content_type": a.content_type, "url": a.url}
        for a in message.attachments
    ]


def embed_metadata(message: discord.Message) -> list[dict[str, Any]]:
    """Return a message's embeds as inert data: their visible text."""
    return [
        {
            k: v
            for k, v in {"type": e.type, "title": e.title, "description": e.description, "url": e.url}.items()
            if v
        }
        for e in message.embeds
    ]


class TurnLogger(commands.Cog):
    """Listens to messages; does nothing for channels without an active scene."""

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.services = bot.services

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Log a message as a turn when its channel has an active scene."""
        if message.author.bot or message.webhook_id is not None or message.guild is None:
            return
        with self.services.turns.admitting():  # a shutdown waits for this message
            await self._log(message)

    async def _log(self, message: discord.Message) -> None:
        if message.channel.id not in await self.services.scenes.open_channels():
            return
        speaker = (
            SpeakerKind.GM if is_gm(message.author, self.services.settings.gm_role) else SpeakerKind.PLAYER
        )
        logged = await self.services.turns.append(
            IncomingMessage(
                message_id=message.id,
                channel_id=message.channel.id,
                author_id=message.author.id,
                author_name=message.author.display_name,
                speaker=speaker,
                text=message.content,
                attachments=attachment_metadata(message),
                embeds=embed_metadata(message),
                created_at=message.created_at,
            )
        )
        if logged is not None and not logged.duplicate and log.isEnabledFor(logging.DEBUG):
            with log_context(campaign=logged.campaign_id, scene=logged.scene_id, channel=message.channel.id):
                log.debug(
                    "stored message %s as turn %s of scene %s", message.id, logged.number, logged.scene_id
                )

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """Record the new text of an edited turn, keeping the old one in its history."""
        content = payload.data.get("content")
        if content is None or payload.guild_id is None:  # an embed unfurl, not an edit of the text
            return
        if (payload.data.get("author") or {}).get("bot"):  # our own answers and cards are never turns
            return
        edited = payload.data.get("edited_timestamp")
        when = discord.utils.parse_time(edited) if edited else discord.utils.utcnow()
        await self.services.turns.edit(payload.message_id, content, when)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """Leave a tombstone for a deleted turn."""
        if payload.guild_id is None:
            return
        await self.services.turns.delete(payload.message_id, discord.utils.utcnow())

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        """Leave a tombstone for each turn a purge deleted (queued together, so they share one commit)."""
        if payload.guild_id is None:
            return
        when = discord.utils.utcnow()
        await asyncio.gather(
            *(self.services.turns.delete(message_id, when) for message_id in payload.message_ids)
        )


async def setup(bot: Lorekeeper) -> None:
    """Register the turn logger."""
    await bot.add_cog(TurnLogger(bot))
