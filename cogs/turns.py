"""The turn logger: messages, edits and deletions in a channel with an active scene become turns.

Nothing posted is lost: what the bot missed (down, disconnected, or its storage failing for long) is read back
from the channels' history at start, on reconnect and once the storage is back (`cogs.turn_history`), and while
the storage fails the GM is told so, in the scene's channel or the server's GM channel, and again when it is
over.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord.ext import commands

from bot.client.client import Lorekeeper, storage_advice
from bot.ops.logs import log_context
from cogs.checks import is_gm
from cogs.turn_history import Gates, HistoryReader, loggable
from memory.scenes import AttachmentInfo, EmbedInfo, SpeakerKind
from memory.turn_batch import IncomingMessage

log = logging.getLogger(__name__)


def attachment_metadata(message: discord.Message) -> list[AttachmentInfo]:
    """Return a message's attachments as inert metadata (never fetched)."""
    return [
        AttachmentInfo(filename=a.filename, size=a.size, content_type=a.content_type, url=a.url)
        for a in message.attachments
    ]


def embed_metadata(message: discord.Message) -> list[EmbedInfo]:
    """Return a message's embeds as inert data: their visible text (an empty part left out)."""
    return [
        EmbedInfo(
            type=e.type or None, title=e.title or None, description=e.description or None, url=e.url or None
        )
        for e in message.embeds
    ]


def roll_text(message: discord.Message) -> str:
    """Return what another bot's message says (a dice roll): its text, then its embeds' titles, descriptions,
    fields and footers, one per line."""
    lines = [message.content] if message.content else []
    for embed in message.embeds:
        lines += [part for part in (embed.title, embed.description) if part]
        lines += [f"{field.name}: {field.value}" for field in embed.fields if field.name or field.value]
        if embed.footer and embed.footer.text:
            lines.append(embed.footer.text)
    return "\n".join(lines)


def _said(fault: str | None) -> str:
    return "is back" if fault is None else fault


class TurnLogger(commands.Cog):
    """Listens to messages; does nothing for channels without an active scene."""

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.services = bot.services
        self.gates = Gates()
        if not bot.is_ready():  # until the first read-back at READY, new messages wait: older ones come first
            self.gates.close_all()
        self.history = HistoryReader(bot, self.services.turns, self.incoming, self.gates)
        self._tasks: set[asyncio.Task[None]] = set()
        self.services.turns.outage_observers.append(self._outage_changed)

    async def cog_unload(self) -> None:
        """Stop listening to the turn log's outages (the extension is unloaded)."""
        observers = self.services.turns.outage_observers
        if self._outage_changed in observers:
            observers.remove(self._outage_changed)
        self.gates.open_all()

    def incoming(self, message: discord.Message) -> IncomingMessage:
        """Return a Discord message as the turn log takes it."""
        if message.author.bot:  # another bot's message: a roll, its embeds' text included
            speaker, text = SpeakerKind.ROLL, roll_text(message)
        elif is_gm(message.author, self.services.settings.gm_role):
            speaker, text = SpeakerKind.GM, message.content
        else:
            speaker, text = SpeakerKind.PLAYER, message.content
        return IncomingMessage(
            message_id=message.id,
            channel_id=message.channel.id,
            author_id=message.author.id,
            author_name=message.author.display_name,
            speaker=speaker,
            text=text,
            attachments=attachment_metadata(message),
            embeds=embed_metadata(message),
            created_at=message.created_at,
        )

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Log a message as a turn when its channel has an active scene."""
        if message.guild is None or not loggable(message, self.bot.user):
            return
        with self.services.turns.admitting():  # a shutdown waits for this message
            await self.gates.wait(message.channel.id)
            await self._log(message)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Read back what was posted in the active scenes while the bot was down."""
        await self._read_back_all("start")

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        """Read back what was posted while the connection was down (Discord does not replay it)."""
        await self._read_back_all("reconnect")

    async def _read_back_all(self, why: str) -> None:
        self.gates.close_all()  # first thing: messages dispatched after this event wait for the read-back
        try:
            if not self.bot.is_closed():
                read = await self.history.read_back_all()
                if read:
                    log.info("%s: %d messages missed in the scenes' channels were stored", why, read)
        except Exception:
            if self.bot.is_closed():  # a shutdown closed the connection: the next start reads them back
                log.info("stopped reading the scenes' channels back at %s: the bot is shutting down", why)
            else:
                log.exception("reading the scenes' channels back at %s failed", why)
        finally:
            self.gates.open_all()

    def _outage_changed(self, fault: str | None) -> None:
        task = asyncio.ensure_future(self._after_outage_change(fault))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _after_outage_change(self, fault: str | None) -> None:
        try:
            if fault is None and self.services.turns.missed_channels:
                await self.history.read_back(set(self.services.turns.missed_channels))
            await self._tell_gms(fault)
        except Exception:
            if self.bot.is_closed():  # a shutdown closed the connection meanwhile: nobody is there to tell
                log.info("the bot shut down before telling the GMs that the storage %s", _said(fault))
            else:
                log.exception("could not tell the GMs that the storage %s", _said(fault))

    async def _tell_gms(self, fault: str | None) -> None:
        """Tell each active scene's GM (its server's GM channel, else the scene's channel) of an outage."""
        if fault is None:
            text = "✅ Messages are saved again; the ones posted meanwhile are stored too."
        else:
            text = (
                f"⚠️ I cannot save this scene's messages right now: {fault}. Keep playing: I keep them and "
                f"save them once it is fixed. To fix it, {storage_advice(fault)}."
            )
        targets: set[int] = set()
        for channel_id in sorted(await self._scene_channels()):
            channel = self.bot.get_channel(channel_id)
            guild = getattr(channel, "guild", None)
            if guild is None:
                continue  # another shard's
            gm_channel = None
            try:
                gm_channel = (await self.services.ops.guild(guild.id)).gm_channel_id
            except Exception:  # the database may be what fails: the scene's own channel then
                log.debug("no GM channel for server %s during the outage", guild.id, exc_info=True)
            targets.add(gm_channel or channel_id)
        for target in sorted(targets):
            channel = self.bot.get_channel(target)
            if isinstance(channel, discord.abc.Messageable):
                try:
                    await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
                except discord.HTTPException as error:
                    log.warning("could not tell channel %s about the storage: %s", target, error)

    async def _scene_channels(self) -> set[int]:
        try:
            return set(await self.services.scenes.open_channels())
        except Exception:  # not loaded yet, and the database is what fails
            return set()

    async def _log(self, message: discord.Message) -> None:
        if message.channel.id not in await self.services.scenes.open_channels():
            return
        logged = await self.services.turns.append(self.incoming(message))
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
