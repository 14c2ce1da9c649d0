"""Delivering events on the gateway and waiting until the bot has handled them (settling)."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from .gateway import DIRECT_MESSAGES, GUILD_MEMBERS, GUILD_MESSAGES, MESSAGE_CONTENT, GatewaySession
from .messages import StoredMessage
from .models import DM, Guild
from .state import EmulatorState

_HANDLER_TASK_PREFIXES = (
    "discord.py: ",
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-dynamic-item-",
    "discord-ui-modal-dispatch-",
)


def handler_tasks() -> set[asyncio.Task[Any]]:
    """Return the running tasks that execute bot handlers (listeners, commands, View callbacks)."""
    return {
        t for t in asyncio.all_tasks() if not t.done() and t.get_name().startswith(_HANDLER_TASK_PREFIXES)
    }


def _describe_tasks(tasks: Iterable[asyncio.Task[Any]]) -> str:
    lines = []
    for task in tasks:
        frames = task.get_stack(limit=1)
        where = ""
        if frames:
            code = frames[-1].f_code
            where = f" at {code.co_filename}:{frames[-1].f_lineno} in {code.co_name}"
        lines.append(f"  {task.get_name()}{where}")
    return "\n".join(lines)


class GatewayDelivery(EmulatorState):
    """Send events to the bot's gateway sessions and wait for its handlers."""

    # ------------------------------------------------------------------ gateway delivery

    def ready_sessions(self, guild_id: int | None) -> list[GatewaySession]:
        """Return the ready sessions that receive events of this guild (None: DMs)."""
        return [s for s in self.sessions if s.ready and not s.closed and s.handles_guild(guild_id)]

    def guild_create_payload(self, guild: Guild, session: GatewaySession) -> dict[str, Any]:
        if session.has_intents(GUILD_MEMBERS):
            return guild.payload()
        return guild.payload(members=[guild.members[self.bot_user.id]])

    def _content_visible(self, stored: StoredMessage) -> bool:
        data = stored.data
        if stored.channel.type == DM or stored.from_bot:
            return True
        return any(int(m["id"]) == self.bot_user.id for m in data.get("mentions", []))

    async def broadcast(
        self, event: str, data: dict[str, Any], *, guild_id: int | None, intents: int = 0
    ) -> list[GatewaySession]:
        """Dispatch an event to every ready session of the guild's shard that has ``intents``."""
        targets = [s for s in self.ready_sessions(guild_id) if s.has_intents(intents)]
        for session in targets:
            await session.dispatch(event, data)
        return targets

    async def broadcast_message(self, event: str, stored: StoredMessage) -> list[GatewaySession]:
        """Dispatch MESSAGE_CREATE/UPDATE, blanking content for sessions without the intent."""
        guild_id = stored.channel.guild_id
        intent = DIRECT_MESSAGES if guild_id is None else GUILD_MESSAGES
        targets = [s for s in self.ready_sessions(guild_id) if s.has_intents(intent)]
        visible = self._content_visible(stored)
        for session in targets:
            data = stored.data
            if not visible and not session.has_intents(MESSAGE_CONTENT):
                data = {**data, "content": "", "embeds": [], "attachments": [], "components": []}
                data.pop("poll", None)
            await session.dispatch(event, data)
        return targets

    async def broadcast_delete(self, stored: StoredMessage) -> list[GatewaySession]:
        guild_id = stored.channel.guild_id
        data: dict[str, Any] = {"id": str(stored.id), "channel_id": str(stored.channel.id)}
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        intent = DIRECT_MESSAGES if guild_id is None else GUILD_MESSAGES
        return await self.broadcast("MESSAGE_DELETE", data, guild_id=guild_id, intents=intent)

    async def broadcast_bulk_delete(self, stored: list[StoredMessage]) -> list[GatewaySession]:
        channel = stored[0].channel
        data: dict[str, Any] = {
            "ids": [str(m.id) for m in stored],
            "channel_id": str(channel.id),
            "guild_id": str(channel.guild_id),
        }
        return await self.broadcast(
            "MESSAGE_DELETE_BULK", data, guild_id=channel.guild_id, intents=GUILD_MESSAGES
        )

    async def _wait_handlers(self, before: set[asyncio.Task[Any]], deadline: float, label: str) -> None:
        """Wait until the bot is quiet.

        Quiet means: the handler tasks created since ``before`` returned, and every frame
        dispatched meanwhile (such as the echo of a message a handler posted) was parsed too.
        """
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        while True:
            pending = {t for t in handler_tasks() if t not in before and t is not current}
            remaining = deadline - loop.time()
            if pending:
                if remaining <= 0:
                    raise AssertionError(
                        f"{label}: bot handlers still running at the timeout "
                        f"(pass settle=False if the handler waits for something on purpose):\n"
                        f"{_describe_tasks(pending)}"
                    )
                await asyncio.wait(pending, timeout=remaining)
                continue
            unsynced = [s for s in self.sessions if s.ready and not s.closed and s.seq > s.synced_seq]
            if not unsynced:
                return
            for session in unsynced:
                await session.sync(max(remaining, 0.5))

    async def _deliver(
        self, label: str, send: Callable[[], Any], *, settle: bool, timeout: float | None
    ) -> list[GatewaySession]:
        if not settle:
            # A sync is a server HEARTBEAT, and discord.py answers it through its gateway rate limiter
            # (110 sends a minute): bursts must not sync per message. Call settle() once at the end.
            # (Nor are the handler tasks listed: that walks every task, for every message of a burst.)
            sent: list[GatewaySession] = await send()
            return sent
        timeout = self.timeout if timeout is None else timeout
        deadline = asyncio.get_running_loop().time() + timeout
        before = handler_tasks()
        targets: list[GatewaySession] = await send()
        for session in targets:
            await session.sync(timeout)
        await self._wait_handlers(before, deadline, label)
        return targets

    async def settle(self, *, timeout: float | None = None) -> None:
        """Wait until every session parsed what was sent and the handlers it started returned.

        Handlers already running when the last event was sent (a long ``on_ready``) are not
        awaited; only the event handler tasks started after a sync are.
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = asyncio.get_running_loop().time() + timeout
        before = handler_tasks()
        for session in [s for s in self.sessions if s.ready]:
            await session.sync(timeout)
        await self._wait_handlers(before, deadline, "settle")
