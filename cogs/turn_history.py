"""Read back what the turn log missed from Discord's channel history, and hold new messages until it is done.

Messages posted while the bot was down or disconnected never reach `on_message`; nor are the messages of a
channel queued while the storage fails for long (`memory.turn_log`). At start (READY), on reconnect (RESUMED)
and when the storage is back, each active scene's channel is read from its resume point (the newest message
stored, else the scene's start) and every message is appended through the turn log, which skips the ones
already stored (idempotent by message id). New messages of a channel being read wait at its gate, so that the
turns stay in the order they were posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable

import discord

from memory.turn_batch import IncomingMessage
from memory.turn_log import ResumePoint, TurnLog, resume_points

log = logging.getLogger(__name__)

#: Messages appended together (one page of Discord's history: one commit).
PAGE = 100


class Gates:
    """Hold new messages back while history is read: all channels at once, or one channel."""

    def __init__(self) -> None:
        self._all = asyncio.Event()
        self._all.set()
        self._channels: dict[int, asyncio.Event] = {}

    def close_all(self) -> None:
        """Hold every channel's new messages (until `open_all`)."""
        self._all.clear()

    def open_all(self) -> None:
        """Let every channel's held messages through."""
        self._all.set()

    @contextlib.asynccontextmanager
    async def holding(self, channel_id: int) -> AsyncIterator[None]:
        """Hold one channel's new messages while the block runs."""
        gate = self._channels.setdefault(channel_id, asyncio.Event())
        gate.clear()
        try:
            yield
        finally:
            gate.set()
            self._channels.pop(channel_id, None)

    async def wait(self, channel_id: int) -> None:
        """Wait until a new message of the channel may be logged."""
        await self._all.wait()
        gate = self._channels.get(channel_id)
        if gate is not None:
            await gate.wait()


def loggable(message: discord.Message, me: discord.abc.User | None) -> bool:
    """Tell whether a message of a scene's channel is a turn: a member's, or another bot's (a roll); never
    this bot's own (logged when it sends them) nor a webhook's."""
    if message.webhook_id is not None:
        return False
    return not (message.author.bot and me is not None and message.author.id == me.id)


class HistoryReader:
    """Append the messages of active scenes' channels that the turn log missed, in posting order."""

    def __init__(
        self,
        client: discord.Client,
        turns: TurnLog,
        incoming: Callable[[discord.Message], IncomingMessage],
        gates: Gates,
    ) -> None:
        self.client = client
        self.turns = turns
        self.incoming = incoming
        self.gates = gates
        self._lock = asyncio.Lock()

    async def read_back_all(self) -> int:
        """Read back every active scene's channel this process serves (at start and on reconnect)."""
        async with self._lock:
            try:
                points = await resume_points(self.turns.db)
            except Exception:
                log.exception("could not list the active scenes to read their channels' history back")
                return 0
            return await self._read(points)

    async def read_back(self, channel_ids: Iterable[int]) -> int:
        """Read back some channels (those the turn log missed during an outage), each behind its gate."""
        wanted = set(channel_ids)
        async with self._lock:
            try:
                points = [p for p in await resume_points(self.turns.db) if p.channel_id in wanted]
            except Exception:
                log.exception("could not list the active scenes to read their channels' history back")
                return 0
            for channel_id in wanted - {p.channel_id for p in points}:
                self.turns.caught_up(channel_id)  # no active scene there any more: nothing to log
            total = 0
            for point in points:
                async with self.gates.holding(point.channel_id):
                    total += await self._read([point])
            return total

    async def _read(self, points: list[ResumePoint]) -> int:
        total = 0
        for point in points:
            channel = self.client.get_channel(point.channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                continue  # another shard's (or a deleted) channel
            try:
                read = await self._read_channel(channel, point)
            except discord.HTTPException as error:
                log.warning("could not read the history of channel %s: %s", point.channel_id, error)
                continue
            except Exception:
                if self.client.is_closed():
                    raise  # shutting down: the caller says so
                log.exception("could not read the history of channel %s", point.channel_id)
                continue
            self.turns.caught_up(point.channel_id)
            if read:
                log.info("read %d missed messages back from channel %s", read, point.channel_id)
            total += read
        return total

    async def _read_channel(self, channel: discord.abc.Messageable, point: ResumePoint) -> int:
        after = (
            discord.Object(point.after_message_id)
            if point.after_message_id is not None
            else discord.Object(discord.utils.time_snowflake(point.started_at, high=False))
        )
        appended = 0
        page: list[discord.Message] = []
        async for message in channel.history(limit=None, after=after, oldest_first=True):
            if not loggable(message, self.client.user):
                continue  # the bot's own posts (narration, NPCs) are logged when it sends them
            page.append(message)
            if len(page) >= PAGE:
                appended += await self._append(page)
                page = []
        if page:
            appended += await self._append(page)
        return appended

    async def _append(self, page: list[discord.Message]) -> int:
        # Queued in posting order (each append queues before it waits), committed together.
        results = await asyncio.gather(
            *(self.turns.append(self.incoming(message), read_back=True) for message in page)
        )
        stored = [(m, r) for m, r in zip(page, results, strict=True) if r is not None and not r.duplicate]
        if log.isEnabledFor(logging.DEBUG):
            for message, logged in stored:
                log.debug(
                    "stored message %s as turn %s of scene %s (read back)",
                    message.id,
                    logged.number,
                    logged.scene_id,
                )
        return len(stored)
