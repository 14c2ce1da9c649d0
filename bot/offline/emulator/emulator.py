"""The public entry point: ``DiscordEmulator``, an async context manager around the local server."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from . import discord_rules as rules
from .delivery import handler_tasks
from .downloads import serve_attachment
from .errors import BotErrorCapture
from .gateway import GatewaySession, handle_gateway
from .interactions import InteractionResult
from .invoking import InteractionsSent
from .messages import Attachment, StoredMessage, Webhook
from .models import ALL_PERMISSIONS, Channel, Guild, SnowflakeFactory, User
from .rest import Fault, RequestRecord, RestApi
from .state import MessageObserver
from .world import WorldBuilding, _permission_bits

_log = logging.getLogger(__name__)

__all__ = ["DiscordEmulator", "handler_tasks", "point_client_at"]


def point_client_at(base_url: str) -> Callable[[], None]:
    """Point discord.py at an emulator by URL (for a bot in another process); return an undo function.

    ``base_url`` is ``DiscordEmulator.base_url`` (``http://127.0.0.1:PORT``).
    """
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    discord.http.Route.BASE = f"{base_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        base_url.replace("http", "ws", 1) + "/gateway"
    )

    def undo() -> None:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved

    return undo


async def _no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
    """Skip discord.py's 5 s pause before IDENTIFYing every shard but the first."""


class DiscordEmulator(WorldBuilding, InteractionsSent):
    """A local Discord (REST v10 + gateway) for the unmodified discord.py client.

    Create guilds, roles, members and channels before ``start_bot``; later additions are not
    announced on the gateway. Bots under test should be created with
    ``guild_ready_timeout=0.05`` (``start_bot`` also sets it), or every start costs 2 s.
    """

    _active: DiscordEmulator | None = None

    def __init__(
        self,
        *,
        token: str = "test-token",  # noqa: S107
        bot_name: str = "Lorekeeper",
        privileged_intents: Iterable[str] = ("members", "message_content"),
        bot_permissions: int | discord.Permissions = ALL_PERMISSIONS,
        recommended_shards: int = 1,
        heartbeat_interval_ms: int = 41250,
        timeout: float = 30.0,  # a deadline for hangs, not a wait: a loaded machine must not fail a slow handler
        attachment_size_limit: int = 10 * 1024 * 1024,
    ) -> None:
        self.token = token
        self.privileged_intents = set(privileged_intents)
        self.bot_permissions = _permission_bits(bot_permissions)
        self.recommended_shards = recommended_shards
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.timeout = timeout
        self.attachment_size_limit = attachment_size_limit

        self.ids = SnowflakeFactory()
        self.bot_user = User(self.ids.next(), bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.users: dict[int, User] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, StoredMessage] = {}
        self.blobs: dict[int, Attachment] = {}
        self.webhooks: dict[int, Webhook] = {}
        self.interactions: dict[int, InteractionResult] = {}
        self.interactions_by_token: dict[str, InteractionResult] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[RequestRecord] = []
        self.unhandled_requests: list[RequestRecord] = []
        self.faults: list[Fault] = []
        self.sessions: list[GatewaySession] = []
        self.resumable: list[GatewaySession] = []
        self.gateway_log: list[dict[str, Any]] = []
        self.identify_log: list[dict[str, Any]] = []
        self.typing: list[int] = []
        self.errors = BotErrorCapture()
        #: Discord's time for interaction tokens: moves only by ``clock.advance(seconds)``.
        self.clock = rules.InteractionClock()
        #: Deprecated or undocumented behaviours the bot relied on (each also logged as an ERROR).
        self.deprecations: list[str] = []
        #: Application commands created per scope (None: global), against Discord's 200 a day.
        self.command_creates: dict[int | None, int] = {}
        #: Called for every message created, edited or deleted, ephemeral ones included (``EmulatorState.observe``).
        self.observers: list[MessageObserver] = []

        self._dm_channels: dict[int, Channel] = {}
        self._bots: dict[discord.Client, asyncio.Task[None]] = {}
        self._bot_sessions: dict[discord.Client, list[GatewaySession]] = {}
        self._runner: web.AppRunner | None = None
        self._saved_patches: tuple[str, yarl.URL] | None = None
        self.port = 0
        self.rest = RestApi(self)

    # ------------------------------------------------------------------ lifecycle

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def __aenter__(self) -> DiscordEmulator:
        if DiscordEmulator._active is not None:
            raise RuntimeError("another DiscordEmulator is running: the patch points are process-wide")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self._saved_patches = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        DiscordEmulator._active = self
        self.errors.install()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            for bot in list(self._bots):
                try:
                    await self.stop_bot(bot)
                except Exception:
                    _log.exception("Stopping a bot at emulator shutdown failed")
            for session in list(self.sessions):
                with contextlib.suppress(Exception):
                    await session.ws.close(code=1001)
            if self._runner is not None:
                await self._runner.cleanup()
        finally:
            if self._saved_patches is not None:
                discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
                    self._saved_patches
                )
            DiscordEmulator._active = None
            self.errors.uninstall()

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        return await handle_gateway(self, request)

    async def _serve_attachment(self, request: web.Request) -> web.StreamResponse:
        return await serve_attachment(request, self.blobs.get(int(request.match_info["attachment_id"])))

    async def start_bot(
        self,
        bot: discord.Client,
        *,
        token: str | None = None,
        timeout: float | None = None,
        guild_ready_timeout: float | None = 0.05,
        settle: bool = True,
    ) -> None:
        """Log ``bot`` in, connect it (``reconnect=False``) and wait for ``on_ready``.

        Sets ``guild_ready_timeout`` (unless None) and skips the 5 s pause discord.py takes
        before identifying each extra shard (unless the bot overrides ``before_identify_hook``).
        With ``settle`` it also waits for the startup handlers (``on_ready``...) to return.
        A connection that fails before ready re-raises its exception (for example
        ``discord.ConnectionClosed`` with code 4014 for disallowed intents).
        """
        if bot in self._bots:
            raise RuntimeError("this bot is already running in the emulator")
        timeout = self.timeout if timeout is None else timeout
        if guild_ready_timeout is not None:
            bot._connection.guild_ready_timeout = guild_ready_timeout
        if type(bot).before_identify_hook is discord.Client.before_identify_hook:
            bot.before_identify_hook = _no_identify_delay  # type: ignore[method-assign]
        before = handler_tasks()
        sessions_before = set(self.sessions)
        await bot.login(self.token if token is None else token)
        task = asyncio.create_task(bot.connect(reconnect=False), name="emulator: bot.connect")
        self._bots[bot] = task
        ready = asyncio.ensure_future(bot.wait_until_ready())
        done, _ = await asyncio.wait({ready, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                self._bots.pop(bot, None)
                exc = task.exception()
                if exc is not None:
                    raise exc
                raise AssertionError("the bot's connect() returned before it became ready")
            raise AssertionError(f"the bot did not become ready within {timeout}s")
        self._bot_sessions[bot] = [s for s in self.sessions if s not in sessions_before]
        if settle:
            await self._wait_handlers(before, asyncio.get_running_loop().time() + timeout, "start_bot")

    async def stop_bot(self, bot: discord.Client, *, timeout: float | None = None) -> None:
        """Close ``bot`` and wait for its connect task and its gateway sessions to end."""
        timeout = self.timeout if timeout is None else timeout
        task = self._bots.pop(bot, None)
        sessions = self._bot_sessions.pop(bot, [])
        await bot.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, timeout)
            except discord.ConnectionClosed as exc:
                if exc.code != 1000:
                    raise
        for session in sessions:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.finished.wait(), timeout)

    async def drop_connections(self, *, code: int = 4000, timeout: float | None = None) -> None:
        """Close every gateway connection as a network failure would; wait until the bot resumed.

        discord.py reconnects (even with ``reconnect=False``) and sends RESUME; the emulator
        answers RESUMED. Events dispatched while disconnected are not replayed.
        """
        timeout = self.timeout if timeout is None else timeout
        dropped = [s for s in self.sessions if s.ready]
        for session in dropped:
            await session.ws.close(code=code, message=b"emulator: connection dropped")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        wanted = {s.session_id for s in dropped}
        while {s.session_id for s in self.sessions if s.ready and not s.closed} < wanted:
            if loop.time() > deadline:
                raise AssertionError(f"the bot did not resume within {timeout}s")
            await asyncio.sleep(0.005)
        for bot, sessions in self._bot_sessions.items():
            ids = {s.session_id for s in sessions}
            self._bot_sessions[bot] = [s for s in self.sessions if s.session_id in ids]

    # ------------------------------------------------------------------ lookups and assertions

    def channel_messages(
        self,
        channel: Channel,
        *,
        include_users: bool = False,
        include_ephemeral: bool = False,
        include_deleted: bool = False,
    ) -> list[dict[str, Any]]:
        """List the messages the bot (or webhooks) posted in ``channel``, oldest first."""
        result = []
        for stored in self.messages.values():
            if stored.channel is not channel:
                continue
            if (stored.deleted and not include_deleted) or (stored.ephemeral and not include_ephemeral):
                continue
            if not stored.from_bot and not include_users:
                continue
            result.append(stored.view())
        return result

    def requests_to(self, method: str, path_regex: str) -> list[RequestRecord]:
        """Return the logged REST requests matching ``method`` and ``path_regex`` (re.search)."""
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and pattern.search(r.path)]

    def fail_next(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 429,
        count: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        code: int = 0,
    ) -> Fault:
        """Answer the next ``count`` matching REST requests with ``status`` before doing anything.

        A 429 carries ``Via`` and a JSON ``retry_after`` (discord.py then sleeps and retries);
        note discord.py sleeps 1 s before retrying a 500/502/504.
        """
        fault = Fault(method.upper(), path_regex, status, count, retry_after, is_global, code)
        self.faults.append(fault)
        return fault

    async def wait_for(
        self, predicate: Callable[[], bool], *, timeout: float | None = None, what: str = ""
    ) -> None:
        """Wait until ``predicate()`` is true (for work the bot does in untracked background tasks)."""
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(f"condition {what or predicate!r} not met within {timeout}s")
            await asyncio.sleep(0.005)
