"""The Discord client: intents, extension loading, command sync and the one error handler users see."""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.ext.commands.bot import BotBase

from bot.client import command_sync
from bot.client.replies import reply_ephemeral
from bot.ops.logs import bind_log_context
from canon import offload
from canon.errors import GameError
from canon.storage_faults import DISK_ERROR, DISK_FULL, READ_ONLY, is_transient, storage_fault
from memory import chroma_apart
from memory.chroma_client import ChromaCollections
from memory.embedding import MiniLMEmbedder

if TYPE_CHECKING:
    from bot.app import Services

log = logging.getLogger(__name__)

EXTENSIONS = (
    "cogs.scenes",
    "cogs.recaps",
    "cogs.turns",
    "cogs.canon",
    "cogs.canon_pictures",  # adds /canon tree to cogs.canon's group: after it
    "cogs.knowledge",  # adds /canon reveal, unreveal and known to cogs.canon's group: after it
    "cogs.voice",
    "cogs.npc_memory_tools",  # adds to cogs.voice's /npc group: after it
    "cogs.operations",
    "cogs.lore",
    "cogs.lore_library",  # adds /lore library to cogs.lore's group: after it
    "cogs.notes",
    "cogs.characters",
    "cogs.beliefs",
    "cogs.campaign",
    "cogs.calendar",
    "cogs.wiki",
    "cogs.health",  # the heartbeat `lorekeeper doctor --live` reads
)


#: The bot permissions the README's invite asks for: read and post in channels and threads, with embeds and
#: files; read history; manage the webhook NPCs speak through. Mention Everyone is optional (README): without
#: it, a session reminder pings a players' role only if the role is mentionable.
INVITE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    manage_webhooks=True,
)


def intents() -> discord.Intents:
    """Return the intents Lorekeeper needs: guilds, members, messages and their content."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.members = True
    wanted.guild_messages = True
    wanted.message_content = True
    wanted.dm_messages = False
    return wanted


#: What the bot's host can do about each storage fault, for the GM (`canon.storage_faults.storage_fault`).
STORAGE_ADVICE = {
    DISK_FULL: "ask the bot's host to free space on the disk of its data folder",
    READ_ONLY: "ask the bot's host to let the bot write to its database again (`lorekeeper doctor` checks it)",
    DISK_ERROR: "ask the bot's host to check the disk of its data folder (`lorekeeper doctor` checks it)",
}


def storage_advice(fault: str) -> str:
    """Return the next step for a storage fault, in words for the GM."""
    return STORAGE_ADVICE.get(fault, "try again in a minute")


def user_message_for(error: BaseException) -> tuple[str, GameError | None]:
    """Return what to tell the user about an error raised by a command or a button, and the game error if any."""
    original = error
    while isinstance(original, app_commands.CommandInvokeError | commands.CommandInvokeError):
        original = original.original
    if isinstance(original, GameError):
        return original.message, original
    if isinstance(original, app_commands.CheckFailure) and str(original):
        return str(original), GameError(str(original))
    if isinstance(original, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {original.retry_after:.0f} s.", GameError("cooldown")
    fault = storage_fault(original)
    if fault in STORAGE_ADVICE:  # the storage itself: said plainly, with what the host can do
        log.warning("a command could not write: %s (%s)", fault, original)
        return (
            f"That was not saved: {fault}. Nothing else was lost; {storage_advice(fault)}, then try again."
        ), GameError(fault)
    if fault is not None or is_transient(original):  # retried, and the database still did not answer
        log.warning("database unavailable after retries: %s", original)
        return (
            "The database is busy or unreachable right now, so that was not saved. Nothing else was lost: "
            "try again in a minute."
        ), GameError("database unavailable")
    error_id = secrets.token_hex(4)
    log.error("unexpected error %s", error_id, exc_info=(type(original), original, original.__traceback__))
    return (
        f"Something went wrong on my side. If it keeps happening, give the bot's host this id: `{error_id}`."
    ), None


class LorekeeperTree(app_commands.CommandTree["Lorekeeper"]):
    """The command tree with one error handler: game errors ephemerally, anything else logged with an id."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Note when a command arrived (for its latency) and tag this task's log records with it."""
        interaction.extras["lk_received"] = time.perf_counter()
        command = interaction.command.qualified_name if interaction.command is not None else None
        client = interaction.client
        campaign = None
        if interaction.guild_id is not None and isinstance(client, Lorekeeper):
            # The server's campaign, without a query (this runs for every command): a command in a channel
            # bound to a branch logs as the branch from the moment it looks its campaign up (`campaign_here`).
            campaign = client.services.campaigns.cached_campaign_id(interaction.guild_id)
        bind_log_context(
            command=command, guild=interaction.guild_id, channel=interaction.channel_id, campaign=campaign
        )
        return True

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        client = interaction.client
        if isinstance(client, Lorekeeper):
            client.record_latency(interaction, failed=True)
        text, _ = user_message_for(error)
        try:
            await reply_ephemeral(interaction, text)
        except discord.HTTPException:
            log.warning("could not tell the user about an error", exc_info=True)


class Lorekeeper(commands.Bot):
    """Lorekeeper's Discord client; its services are built outside and passed in."""

    def __init__(self, services: Services, **options: Any) -> None:
        options.setdefault("intents", intents())
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # Turns are stored, not cached: edits and deletions arrive as raw events.
        options.setdefault("max_messages", None)
        super().__init__(command_prefix=commands.when_mentioned, tree_cls=LorekeeperTree, **options)
        self.services = services
        self.extension_failures: dict[str, BaseException] = {}

    async def setup_hook(self) -> None:
        """Load every extension (logging each failure) and sync the slash commands."""
        for extension in EXTENSIONS:
            try:
                await self.load_extension(extension)
            except Exception as error:
                self.extension_failures[extension] = error
                log.exception("failed to load extension %s", extension)
        await self.sync_commands()
        await self.warm_up()
        await self.check_storage()
        await self.start_jobs()
        # Campaigns indexed before the names view gain it in the background, searched meanwhile by what they have.
        self.services.knowledge.view_builder.start()

    async def check_storage(self) -> None:
        """Say at start, in the logs, when the database takes no writes (commands that write will say it too)."""
        try:
            fault = await self.services.db.write_fault()
        except Exception:
            log.warning("could not check that the database takes writes", exc_info=True)
            return
        if fault is not None:
            log.warning(
                "the database takes no writes: %s. Commands that write will fail and turns will wait in memory "
                "until it does; %s (`lorekeeper doctor` checks it).",
                fault,
                storage_advice(fault).removeprefix("ask the bot's host to "),
            )

    async def warm_up(self) -> None:
        """Load the embedding model and import chromadb now, in a worker thread, rather than on a first /lore.

        Both take seconds, and an import holds the interpreter lock throughout: done on a first question, it
        stalled every command and message behind it. Both are once per process. A failure is only logged
        (lookups fall back to words alone, as they would anyway).
        """
        knowledge = self.services.knowledge

        def load() -> None:
            if isinstance(knowledge.embedder, MiniLMEmbedder):
                knowledge.embedder.load()
            if knowledge.vectors is not None:
                importlib.import_module("chromadb")

        vectors = knowledge.vectors
        try:
            # In a background thread: the model's own threads inherit its lower priority (`canon.offload`).
            await offload.in_background(load)
            if chroma_apart.kept_apart() and isinstance(vectors, ChromaCollections) and vectors.host is None:
                # The embedded index's own process starts and opens it now (at normal priority: it answers
                # searches too).
                await asyncio.to_thread(lambda: vectors.client().list_collections())
        except Exception:
            log.warning("the embedding model or chromadb did not load at start", exc_info=True)

    async def start_jobs(self) -> None:
        """Start the scheduled jobs (idle scenes, session reminders, nightly check, backups); log a failure."""
        from bot.ops.jobs import ChannelGone

        scheduler = self.services.scheduler
        if scheduler is None:
            return
        client = self

        class Poster:
            async def post(self, channel_id: int, content: str, *, ping_role_id: int | None = None) -> None:
                mentions = discord.AllowedMentions.none()
                if ping_role_id is not None:  # that role alone
                    mentions.roles = [discord.Object(ping_role_id)]
                try:
                    channel = client.get_channel(channel_id) or await client.fetch_channel(channel_id)
                    if not isinstance(channel, discord.abc.Messageable):
                        raise ChannelGone(f"channel {channel_id} cannot take messages")
                    await channel.send(content, allowed_mentions=mentions)
                except (discord.NotFound, discord.Forbidden) as error:
                    raise ChannelGone(str(error)) from error

        try:
            await scheduler.start(self.services, Poster())
        except Exception:
            log.exception("the scheduler did not start; scheduled jobs are off until a restart")

    def record_latency(self, interaction: discord.Interaction, *, failed: bool = False) -> None:
        """Record how long a command took from its receipt (`interaction_check`) to now."""
        received = interaction.extras.get("lk_received")
        if received is None or interaction.command is None:
            return
        self.services.metrics.record(
            interaction.command.qualified_name,
            time.perf_counter() - received,
            guild_id=interaction.guild_id,
            failed=failed,
        )

    async def on_app_command_completion(
        self, interaction: discord.Interaction, command: app_commands.Command[Any, ..., Any] | Any
    ) -> None:
        """Record a finished command's latency."""
        self.record_latency(interaction)

    async def sync_commands(self) -> None:
        """Sync commands to the dev guild when one is configured (instant), else globally (up to an hour).

        Only when the tree changed since the last sync (`bot.client.command_sync`): a restart makes no sync call.
        """
        dev_guild = self.services.settings.dev_guild_id
        guild = discord.Object(id=dev_guild) if dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        if self.application_id is None:  # pragma: no cover - set at login, before setup_hook
            raise RuntimeError("the application id is not known yet")
        synced = await command_sync.sync_if_changed(self.tree, self.services.db, self.application_id, guild)
        if synced is not None:
            where = f"to the dev guild {dev_guild}" if guild is not None else "globally"
            log.info("synced %d commands %s", synced, where)

    async def on_message(self, message: discord.Message, /) -> None:
        """Skip prefix-command parsing: Lorekeeper has only slash commands, and this runs for every message."""

    async def on_ready(self) -> None:
        """Log who we are once connected, and take what start-up loaded out of the garbage collector's sight."""
        log.info("connected as %s to %d servers", self.user, len(self.guilds))
        freeze_startup_heap()
        offload.settle()

    async def close(self) -> None:
        """Disconnect from Discord, then unload the extensions, write what is queued and close the database.

        The gateway closes first: `commands.Bot.close` unloads every extension before it disconnects, and a
        message received meanwhile reached no turn logger (its turn was lost under load). Disconnected first,
        the bot receives nothing more; what is posted from then on is read back from the channels' history
        at the next start (`cogs.turns`).
        """
        try:
            await super(BotBase, self).close()  # discord.Client's (or AutoShardedClient's): the gateway
            await super().close()  # the extensions; the gateway's close is not repeated
        finally:
            await self.services.close()
            offload.release()


_heap_frozen = False


def freeze_startup_heap() -> None:
    """Move what start-up loaded out of the garbage collector's sight (once per process).

    The model, chromadb and every server's cache live as long as the process: full collections walking them
    took up to seconds each under load, the event loop stalled throughout. Frozen, they are never walked again.
    Once only: an object frozen and later dropped in a reference cycle is never freed.
    """
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.collect()
        gc.freeze()


class ShardedLorekeeper(Lorekeeper, commands.AutoShardedBot):
    """Lorekeeper as an `AutoShardedBot`: one process, several gateway connections (shards)."""


def create_bot(services: Services, **options: Any) -> Lorekeeper:
    """Return the client the settings ask for: sharded when `shard_count` is set, else a plain bot.

    With `shard_ids` as well, this process runs only those shards of `shard_count`; the other processes run
    the rest, on the same database.
    """
    settings = services.settings
    if settings.shard_count:
        options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", settings.shard_ids)
        return ShardedLorekeeper(services, **options)
    return Lorekeeper(services, **options)
