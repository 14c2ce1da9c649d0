"""The public entry point: ``DiscordEmulator``, an async context manager around the local server."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import re
import secrets
from collections.abc import Callable, Iterable
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from . import discord_rules as rules
from .errors import BotErrorCapture
from .gateway import (
    DIRECT_MESSAGES,
    GUILD_MEMBERS,
    GUILD_MESSAGES,
    GUILDS,
    MESSAGE_CONTENT,
    GatewaySession,
    handle_gateway,
)
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    CommandNotAvailable,
    InteractionResult,
    OptionBuilder,
    modal_submission,
    nest_options,
    walk_command,
)
from .models import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    GUILD_CATEGORY,
    GUILD_TEXT,
    Attachment,
    Channel,
    Guild,
    Member,
    Role,
    SnowflakeFactory,
    StoredMessage,
    User,
    Webhook,
    custom_ids,
    find_component,
    guess_content_type,
    now_iso,
    parse_mentions,
)
from .rest import Fault, RequestRecord, RestApi

_log = logging.getLogger(__name__)

# Tasks discord.py creates to run bot code for one event; their names are stable in 2.7.
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


def _permission_bits(permissions: int | discord.Permissions) -> int:
    """Return the bits of permissions given as an int or a ``discord.Permissions``."""
    return permissions.value if isinstance(permissions, discord.Permissions) else int(permissions)


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


class DiscordEmulator:
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
        timeout: float = 10.0,
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

        self._dm_channels: dict[int, Channel] = {}
        self._bots: dict[discord.Client, asyncio.Task[None]] = {}
        self._bot_sessions: dict[discord.Client, list[GatewaySession]] = {}
        self._runner: web.AppRunner | None = None
        self._saved_patches: tuple[str, yarl.URL] | None = None
        self.port = 0
        self.rest = RestApi(self)

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

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
        blob = self.blobs.get(int(request.match_info["attachment_id"]))
        if blob is None:
            return web.Response(status=404)
        return web.Response(body=blob.data, content_type=blob.content_type or "application/octet-stream")

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

    # ------------------------------------------------------------------ world building

    def add_user(self, name: str, *, bot: bool = False, global_name: str | None = None) -> User:
        """Create a user (users are shared across guilds)."""
        user = User(self.ids.next(), name, bot=bot, global_name=global_name)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: User | None = None,
        id: int | None = None,
        shard: tuple[int, int] | None = None,
    ) -> Guild:
        """Create a guild with @everyone, the bot (with a managed role) and an owner member.

        ``shard=(shard_id, shard_count)`` picks an id Discord would route to that shard.
        """
        guild_id = id if id is not None else self.ids.next(shard=shard)
        guild = Guild(guild_id, name)
        guild.roles[guild_id] = Role(guild_id, guild_id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS)
        bot_role = Role(
            self.ids.next(), guild_id, self.bot_user.name, self.bot_permissions, position=1, managed=True
        )
        guild.roles[bot_role.id] = bot_role
        self.guilds[guild_id] = guild
        owner = owner or self.add_user(f"{name} Owner")
        guild.owner_id = owner.id
        guild.members[owner.id] = Member(owner, guild)
        guild.members[self.bot_user.id] = Member(self.bot_user, guild, role_ids=[bot_role.id])
        return guild

    def add_role(
        self,
        guild: Guild,
        name: str,
        *,
        permissions: int | discord.Permissions = 0,
        position: int | None = None,
        color: int = 0,
        mentionable: bool = False,
    ) -> Role:
        """Create a role; ``permissions`` is an int or a ``discord.Permissions``."""
        value = _permission_bits(permissions)
        pos = position if position is not None else len(guild.roles)
        role = Role(
            self.ids.next(), guild.id, name, value, position=pos, color=color, mentionable=mentionable
        )
        guild.roles[role.id] = role
        return role

    def add_member(
        self,
        guild: Guild,
        name: str | None = None,
        *,
        user: User | None = None,
        roles: Iterable[Role] = (),
        nick: str | None = None,
        bot: bool = False,
    ) -> Member:
        """Add a member: a new user called ``name``, or an existing ``user``."""
        if user is None:
            if name is None:
                raise ValueError("add_member needs a name or a user")
            user = self.add_user(name, bot=bot)
        member = Member(user, guild, role_ids=[r.id for r in roles], nick=nick)
        guild.members[user.id] = member
        return member

    def add_category(self, guild: Guild, name: str, *, position: int | None = None) -> Channel:
        """Create a category channel."""
        return self._add_channel(guild, name, GUILD_CATEGORY, None, position, None)

    def add_text_channel(
        self,
        guild: Guild,
        name: str,
        *,
        category: Channel | None = None,
        parent_id: int | None = None,
        topic: str | None = None,
        position: int | None = None,
    ) -> Channel:
        """Create a text channel, optionally inside a category."""
        parent = category.id if category is not None else parent_id
        return self._add_channel(guild, name, GUILD_TEXT, parent, position, topic)

    def _add_channel(
        self,
        guild: Guild,
        name: str,
        kind: int,
        parent_id: int | None,
        position: int | None,
        topic: str | None,
    ) -> Channel:
        pos = position if position is not None else len(guild.channels)
        channel = Channel(self.ids.next(), name, kind, guild, parent_id=parent_id, position=pos, topic=topic)
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        return channel

    def dm_channel(self, user: User | Member) -> Channel:
        """Return the DM channel between ``user`` and the bot (created on first use)."""
        user = user.user if isinstance(user, Member) else user
        channel = self._dm_channels.get(user.id)
        if channel is None:
            channel = Channel(self.ids.next(), user.name, DM, None, recipients=[user])
            self._dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def make_attachment(
        self,
        filename: str,
        data: bytes | str,
        *,
        content_type: str | None = None,
        description: str | None = None,
    ) -> Attachment:
        """Store a file the emulator serves over HTTP; pass it as an option value or message attachment."""
        raw = data.encode() if isinstance(data, str) else data
        att_id = self.ids.next()
        att = Attachment(
            att_id,
            filename,
            raw,
            url=f"{self.base_url}/attachments/{att_id}/{filename}",
            content_type=content_type or guess_content_type(filename),
            description=description,
        )
        self.blobs[att_id] = att
        return att

    # ------------------------------------------------------------------ lookups and assertions

    def stored(self, message: dict[str, Any] | int | StoredMessage) -> StoredMessage:
        """Return the live record of a message (from its dict, id or record)."""
        if isinstance(message, StoredMessage):
            return message
        message_id = message if isinstance(message, int) else int(message["id"])
        try:
            return self.messages[message_id]
        except KeyError:
            raise AssertionError(f"the emulator knows no message {message_id}") from None

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

    # ------------------------------------------------------------------ users acting

    def _member_or_user(self, channel: Channel, who: Member | User) -> tuple[User, Member | None]:
        user = who.user if isinstance(who, Member) else who
        if channel.guild is None:
            return user, None
        member = channel.guild.members.get(user.id)
        if member is None:
            raise AssertionError(f"{user.name} is not a member of guild {channel.guild.name!r}")
        return user, member

    def _check_channel(self, channel: Channel) -> None:
        if channel.deleted:
            raise AssertionError(f"channel {channel.name!r} was deleted")

    def message_payload(
        self,
        channel: Channel,
        *,
        author: dict[str, Any],
        member: Member | None,
        content: str = "",
        embeds: list[dict[str, Any]] | None = None,
        components: list[dict[str, Any]] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        flags: int = 0,
        allowed_mentions: dict[str, Any] | None = None,
        extra_mentions: Iterable[int] = (),
        message_type: int = 0,
        message_reference: dict[str, Any] | None = None,
        default_parse: tuple[str, ...] = rules.MESSAGE_DEFAULT_PARSE,
        mentioner: Member | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Build a message object the way Discord returns and dispatches it.

        ``mentioner`` (default: ``member``) is whose permissions decide the role and @everyone pings.
        """
        user_ids, role_ids, everyone = self.pinged(
            channel, content, allowed_mentions, default_parse, member if mentioner is None else mentioner
        )
        for uid in extra_mentions:
            if uid not in user_ids:
                user_ids.append(uid)
        data: dict[str, Any] = {
            "id": str(self.ids.next()),
            "channel_id": str(channel.id),
            "author": author,
            "content": content,
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": everyone,
            "mentions": self._mention_payloads(channel, user_ids),
            "mention_roles": [str(r) for r in role_ids],
            "attachments": attachments or [],
            "embeds": embeds or [],
            "reactions": [],
            "pinned": False,
            "type": message_type,
            "flags": flags,
            "components": components or [],
        }
        if channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
            if member is not None:
                data["member"] = member.payload(with_user=False)
        if message_reference is not None:
            data["message_reference"] = message_reference
            ref = self.messages.get(int(message_reference.get("message_id", 0) or 0))
            data["referenced_message"] = None if ref is None else copy.deepcopy(ref.data)
        data.update(extra)
        return data

    def pinged(
        self,
        channel: Channel,
        content: str,
        allowed: dict[str, Any] | None,
        default_parse: tuple[str, ...],
        mentioner: Member | None,
    ) -> tuple[list[int], list[int], bool]:
        """Return (users, roles, everyone) a message's content really notifies (see ``rules.pinged``)."""
        parsed = parse_mentions(content, allowed if allowed is not None else {"parse": list(default_parse)})
        guild = channel.guild
        if guild is None:
            return rules.pinged(parsed, None)
        permissions = guild.permissions_of(mentioner) if mentioner is not None else 0
        rights = rules.MentionRights(
            mention_everyone=bool(permissions & rules.MENTION_EVERYONE),
            role_mentionable=lambda role_id: bool(getattr(guild.roles.get(role_id), "mentionable", False)),
        )
        return rules.pinged(parsed, rights)

    def set_mentions(self, stored: StoredMessage, data: dict[str, Any]) -> None:
        """Recompute a message's ``mentions``, ``mention_roles`` and ``mention_everyone`` from its content."""
        user_ids, role_ids, everyone = self.pinged(
            stored.channel,
            data.get("content") or "",
            stored.allowed_mentions,
            stored.default_parse,
            stored.mentioner,
        )
        data["mentions"] = self._mention_payloads(stored.channel, user_ids)
        data["mention_roles"] = [str(r) for r in role_ids]
        data["mention_everyone"] = everyone

    def _mention_payloads(self, channel: Channel, user_ids: Iterable[int]) -> list[dict[str, Any]]:
        result = []
        for uid in user_ids:
            user = self.users.get(uid)
            if user is None:
                continue
            entry = user.payload()
            if channel.guild is not None and uid in channel.guild.members:
                entry["member"] = channel.guild.members[uid].payload(with_user=False)
            result.append(entry)
        return result

    async def send_message(
        self,
        channel: Channel,
        author: Member | User,
        content: str = "",
        *,
        attachments: Iterable[Attachment] = (),
        embeds: Iterable[dict[str, Any]] = (),
        mentions: Iterable[Member | User] = (),
        reference: dict[str, Any] | None = None,
        settle: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Post a user's message (MESSAGE_CREATE) and, with ``settle``, wait until the bot handled it."""
        self._check_channel(channel)
        user, member = self._member_or_user(channel, author)
        ref = None
        if reference is not None:
            ref = {"message_id": reference["id"], "channel_id": reference["channel_id"]}
            if channel.guild is not None:
                ref["guild_id"] = str(channel.guild.id)
        data = self.message_payload(
            channel,
            author=user.payload(),
            member=member,
            content=content,
            embeds=[{"type": "rich", **e} for e in embeds],
            attachments=[a.payload() for a in attachments],
            extra_mentions=[m.id for m in mentions],
            message_type=19 if ref else 0,
            message_reference=ref,
        )
        stored = StoredMessage(
            data, channel, self.blobs, from_bot=user.id == self.bot_user.id, mentioner=member
        )
        self.messages[stored.id] = stored
        await self._deliver(
            f"message {content[:40]!r}",
            lambda: self.broadcast_message("MESSAGE_CREATE", stored),
            settle=settle,
            timeout=timeout,
        )
        return stored.view()

    async def edit_message(
        self,
        message: dict[str, Any] | StoredMessage,
        content: str | None = None,
        *,
        embeds: Iterable[dict[str, Any]] | None = None,
        settle: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Edit a message (MESSAGE_UPDATE with the full message) as its author would."""
        stored = self.stored(message)
        if content is not None:
            stored.data["content"] = content
            stored.allowed_mentions = None  # a person's edit parses with the default allowances
            self.set_mentions(stored, stored.data)
        if embeds is not None:
            stored.data["embeds"] = [{"type": "rich", **e} for e in embeds]
        stored.data["edited_timestamp"] = now_iso()
        await self._deliver(
            "edit_message",
            lambda: self.broadcast_message("MESSAGE_UPDATE", stored),
            settle=settle,
            timeout=timeout,
        )
        return stored.view()

    async def delete_message(
        self, message: dict[str, Any] | StoredMessage, *, settle: bool = True, timeout: float | None = None
    ) -> None:
        """Delete a message (MESSAGE_DELETE)."""
        stored = self.stored(message)
        stored.deleted = True
        await self._deliver(
            "delete_message", lambda: self.broadcast_delete(stored), settle=settle, timeout=timeout
        )

    async def bulk_delete_messages(
        self,
        messages: Iterable[dict[str, Any] | StoredMessage],
        *,
        settle: bool = True,
        timeout: float | None = None,
    ) -> None:
        """Delete 2 to 100 messages of one server channel at once, as a moderator's purge does (MESSAGE_DELETE_BULK)."""
        stored = [self.stored(m) for m in messages]
        channels = {m.channel.id for m in stored}
        if not 2 <= len(stored) <= 100 or len(channels) != 1 or stored[0].channel.guild_id is None:
            raise ValueError("a bulk delete takes 2 to 100 messages of one server channel")
        for message in stored:
            message.deleted = True
        await self._deliver(
            f"bulk_delete_messages ({len(stored)})",
            lambda: self.broadcast_bulk_delete(stored),
            settle=settle,
            timeout=timeout,
        )

    async def replay(
        self, message: dict[str, Any] | StoredMessage, *, settle: bool = True, timeout: float | None = None
    ) -> None:
        """Dispatch the same MESSAGE_CREATE payload again (Discord may redeliver after a resume)."""
        stored = self.stored(message)
        await self._deliver(
            "replay", lambda: self.broadcast_message("MESSAGE_CREATE", stored), settle=settle, timeout=timeout
        )

    async def delete_channel(
        self, channel: Channel, *, settle: bool = True, timeout: float | None = None
    ) -> None:
        """Delete a channel (CHANNEL_DELETE); later REST calls to it get 404 Unknown Channel (10003)."""
        channel.deleted = True
        data = channel.payload()
        await self._deliver(
            "delete_channel",
            lambda: self.broadcast("CHANNEL_DELETE", data, guild_id=channel.guild_id, intents=GUILDS),
            settle=settle,
            timeout=timeout,
        )

    # ------------------------------------------------------------------ interactions

    def _new_interaction(
        self,
        kind: int,
        label: str,
        channel: Channel,
        who: Member | User,
        data: dict[str, Any],
        *,
        source: StoredMessage | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        self._check_channel(channel)
        user, member = self._member_or_user(channel, who)
        interaction_id = self.ids.next()
        token = f"emu{interaction_id}{secrets.token_hex(12)}"
        guild = channel.guild
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": {
                **channel.payload(),
                "permissions": str(member.permissions if member else ALL_PERMISSIONS),
            },
            "locale": locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.attachment_size_limit,
            "app_permissions": str(self._bot_permissions(guild)),
        }
        if guild is not None and member is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member.payload(with_permissions=True),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        else:
            payload.update(user=user.payload(), context=1, authorizing_integration_owners={"0": str(user.id)})
        if source is not None:
            payload["message"] = copy.deepcopy(source.data)
        record = InteractionResult(
            interaction_id,
            token,
            kind,
            label,
            channel,
            user,
            member,
            payload,
            source_message=source,
            created_at=self.clock.now(),
        )
        self.interactions[interaction_id] = record
        self.interactions_by_token[token] = record
        return record

    def _bot_permissions(self, guild: Guild | None) -> int:
        if guild is None:
            return ALL_PERMISSIONS
        return guild.permissions_of(guild.members[self.bot_user.id])

    async def _run_interaction(
        self, record: InteractionResult, *, timeout: float | None, expect_response: bool, settle: bool
    ) -> InteractionResult:
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        guild_id = record.channel.guild_id
        sessions = self.ready_sessions(guild_id)
        if not sessions:
            where = "DMs" if guild_id is None else f"guild {guild_id}"
            raise AssertionError(f"{record.label}: no ready gateway session receives events of {where}")
        session = sessions[-1]  # the newest connection, as one bot process would get it
        before = handler_tasks()
        errors_before = len(self.errors.records)
        await session.dispatch("INTERACTION_CREATE", record.payload)
        await session.sync(timeout)
        # Handlers can only be watched when the bot runs in this process (started by start_bot).
        watch = bool(self._bots)
        while not record.done.is_set():
            pending = {t for t in handler_tasks() if t not in before}
            if watch and not pending:
                break  # every handler returned: nothing is going to answer
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            done_waiter = asyncio.ensure_future(record.done.wait())
            try:
                await asyncio.wait(
                    {done_waiter, *pending}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                done_waiter.cancel()
        if expect_response and not record.done.is_set():
            if record.deferred:
                state = f"deferred (type {record.response_type}) but never edited nor followed up"
            else:
                state = "never answered"
            pending = {t for t in handler_tasks() if t not in before}
            if not watch:
                why = (
                    f"no answer within {timeout}s (the bot runs out of process: its handlers are not watched)"
                )
            elif pending:
                why = f"handlers still running at the {timeout}s timeout:\n{_describe_tasks(pending)}"
            else:
                why = "the handlers returned without answering (unknown command or custom_id, or an error)"
            logged = self.errors.records[errors_before:]
            errors = f"\nErrors logged meanwhile:\n{self.errors.format_records(logged)}" if logged else ""
            raise AssertionError(f"{record.label}: the interaction was {state}; {why}{errors}")
        if settle:
            await self._wait_handlers(before, deadline, record.label)
        return record

    def find_command(self, channel: Channel, name: str) -> tuple[dict[str, Any], bool]:
        """Find a synced chat-input command by root name: the guild's commands first, then global ones."""
        guild = channel.guild
        if guild is not None:
            for cmd in self.guild_commands.get(guild.id, []):
                if cmd["name"] == name and cmd.get("type", 1) == 1:
                    return cmd, True
        for cmd in self.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd, False
        synced = sorted(
            {c["name"] for c in self.global_commands}
            | {c["name"] for c in self.guild_commands.get(guild.id if guild else 0, [])}
        )
        raise CommandNotAvailable(f"/{name} was not synced here (synced: {synced or 'nothing'})")

    def _check_available(
        self, command: dict[str, Any], channel: Channel, member: Member | None, label: str
    ) -> None:
        contexts = command.get("contexts")
        in_guild = channel.guild is not None
        if contexts is not None and (0 if in_guild else 1) not in contexts:
            raise CommandNotAvailable(
                f"{label}: not available in {'guilds' if in_guild else 'DMs'} ({contexts=})"
            )
        if not in_guild and contexts is None and command.get("dm_permission") is False:
            raise CommandNotAvailable(f"{label}: not available in DMs (dm_permission false)")
        required = command.get("default_member_permissions")
        if in_guild and required is not None and member is not None:
            needed = int(required)
            have = member.permissions
            allowed = bool(have & ADMINISTRATOR) if needed == 0 else have & needed == needed
            if not allowed:
                raise CommandNotAvailable(
                    f"{label}: {member.name} lacks default_member_permissions {needed} (has {have})"
                )

    def _command_interaction_data(
        self,
        channel: Channel,
        who: Member | User,
        command: str,
        values: dict[str, Any],
        *,
        focused: str | None = None,
        focused_value: str = "",
    ) -> tuple[dict[str, Any], str]:
        parts = command.strip().lstrip("/").split()
        if not parts:
            raise ValueError("empty command")
        label = "/" + " ".join(parts)
        cmd, guild_scoped = self.find_command(channel, parts[0])
        _, member = self._member_or_user(channel, who)
        self._check_available(cmd, channel, member, label)
        leaf, chain = walk_command(cmd, parts[1:])
        builder = OptionBuilder(label, channel.guild, member.permissions if member else ALL_PERMISSIONS)
        leaf_options = builder.build(
            leaf.get("options", []), values, focused=focused, focused_value=focused_value
        )
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": nest_options(chain, leaf_options),
        }
        if builder.resolved:
            data["resolved"] = builder.resolved
        if guild_scoped and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return data, label

    async def invoke(
        self,
        channel: Channel,
        user: Member | User,
        command: str,
        /,
        *,
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
        locale: str = "en-US",
        **kw_options: Any,
    ) -> InteractionResult:
        """Run a slash command ("group sub" for subcommands) and wait until it is answered.

        Options are given by name, typed per the synced definitions (records for users,
        channels, roles and attachments); ``options={...}`` passes names that clash with
        these parameters. Waits for an immediate response, or for a deferral then an edit of
        the original or a followup; with ``settle`` also for the handler to return. Raises
        ``CommandNotAvailable`` when Discord would refuse the command, AssertionError when the
        bot never answers (after ``timeout``, or as soon as its handlers returned).
        """
        values = {**(options or {}), **kw_options}
        data, label = self._command_interaction_data(channel, user, command, values)
        record = self._new_interaction(APPLICATION_COMMAND, label, channel, user, data, locale=locale)
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )

    async def autocomplete(
        self,
        channel: Channel,
        user: Member | User,
        command: str,
        /,
        focused: str,
        value: str = "",
        *,
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
        **kw_options: Any,
    ) -> list[dict[str, Any]]:
        """Send an autocomplete interaction for option ``focused`` typed as ``value``; return the choices."""
        values = {**(options or {}), **kw_options}
        data, label = self._command_interaction_data(
            channel, user, command, values, focused=focused, focused_value=value
        )
        record = self._new_interaction(AUTOCOMPLETE, f"{label} (autocomplete {focused})", channel, user, data)
        await self._run_interaction(record, timeout=timeout, expect_response=True, settle=True)
        if record.choices is None:
            raise AssertionError(f"{record.label}: answered with type {record.response_type}, not choices")
        return record.choices

    async def click(
        self,
        message: dict[str, Any] | StoredMessage,
        custom_id: str,
        user: Member | User,
        *,
        values: Iterable[str] | None = None,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Click a button (or pick select ``values``) on a message, as it is now; wait for the answer."""
        stored = self.stored(message)
        if stored.deleted:
            raise AssertionError(f"message {stored.id} was deleted")
        component = find_component(stored.data.get("components", []), custom_id)
        if component is None:
            known = custom_ids(stored.data.get("components", []))
            raise AssertionError(f"message {stored.id} has no component {custom_id!r}; it has {known}")
        if component.get("disabled"):
            raise AssertionError(f"component {custom_id!r} on message {stored.id} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            picked = list(values or [])
            if component["type"] == 3:
                offered = [o["value"] for o in component.get("options", [])]
                unknown = [v for v in picked if v not in offered]
                if unknown:
                    raise AssertionError(f"select {custom_id!r} offers {offered}, not {unknown}")
            data["values"] = picked
        record = self._new_interaction(
            MESSAGE_COMPONENT, f"click {custom_id!r}", stored.channel, user, data, source=stored
        )
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )

    async def submit_modal(
        self,
        result: InteractionResult,
        user: Member | User,
        values: dict[str, Any],
        *,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot opened in ``result`` with field values by custom_id."""
        if result.modal is None:
            raise AssertionError(f"{result.label} did not open a modal")
        modal = result.modal
        label = f"modal {modal.get('custom_id')!r}"
        components, resolved = modal_submission(modal, values, label)
        data: dict[str, Any] = {"custom_id": modal["custom_id"], "components": components}
        if resolved:
            data["resolved"] = resolved
        record = self._new_interaction(
            MODAL_SUBMIT, label, result.channel, user, data, source=result.source_message
        )
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )
