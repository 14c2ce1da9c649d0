"""The REST side (``/api/v10``): the route table, request log, fault injection, channels and messages.

The other handlers live beside it: interactions and webhooks in ``rest_interactions``, the application, its
commands, guilds and users in ``rest_app``; what they share (lookups, building messages) in ``rest_base``.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .discord_rules import ApiError, invalid
from .gateway import GUILDS
from .models import THREAD_TYPES, Channel
from .rest_app import ApplicationRoutes
from .rest_base import ApiRequest
from .rest_interactions import InteractionRoutes

if TYPE_CHECKING:
    from .emulator import DiscordEmulator

_log = logging.getLogger(__name__)


@dataclass
class RequestRecord:
    """One REST request the client made (path relative to ``/api/v10``)."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: dict[str, bytes] = field(default_factory=dict)
    status: int = 0


@dataclass
class Fault:
    """An injected failure for the next ``count`` requests matching ``method`` and ``path_regex``."""

    method: str
    path_regex: str
    status: int
    count: int
    retry_after: float
    is_global: bool
    code: int

    def matches(self, method: str, path: str) -> bool:
        return (
            self.count > 0 and self.method in (method, "*") and re.search(self.path_regex, path) is not None
        )

    def response(self) -> web.Response:
        if self.status == 429:
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(self.retry_after))),
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
            }
            return json_response(body, status=429, headers=headers)
        return json_response(
            {"message": f"{self.status}: injected by the emulator", "code": self.code}, self.status
        )


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """Answer JSON with ``Content-Type: application/json`` exactly (a charset suffix breaks discord.py)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


Handler = Callable[[ApiRequest], Awaitable[tuple[int, Any]]]


# ---------------------------------------------------------------------- the API


class RestApi(InteractionRoutes, ApplicationRoutes):
    """Route ``/api/v10`` requests to handlers working on the emulator's state."""

    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        app = r"/applications/(?P<app_id>\d+)"
        chan = r"/channels/(?P<channel_id>\d+)"
        msg = chan + r"/messages/(?P<message_id>\d+)"
        hook = r"/webhooks/(?P<webhook_id>\d+)/(?P<token>[^/]+)"
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", r"/users/@me", self.get_me, True),
            ("GET", r"/oauth2/applications/@me", self.get_application, True),
            ("GET", r"/gateway/bot", self.get_gateway_bot, True),
            ("GET", r"/gateway", self.get_gateway, False),
            ("GET", app + r"/commands", self.get_commands, True),
            ("PUT", app + r"/commands", self.put_commands, True),
            ("POST", app + r"/commands", self.post_command, True),
            ("GET", app + r"/guilds/(?P<guild_id>\d+)/commands", self.get_commands, True),
            ("PUT", app + r"/guilds/(?P<guild_id>\d+)/commands", self.put_commands, True),
            ("POST", app + r"/guilds/(?P<guild_id>\d+)/commands", self.post_command, True),
            (
                "POST",
                r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback",
                self.callback,
                False,
            ),
            ("POST", hook, self.execute_webhook, False),
            ("GET", hook, self.get_webhook, False),
            ("DELETE", hook, self.delete_webhook, False),
            ("GET", hook + r"/messages/(?P<message_id>@original|\d+)", self.get_webhook_message, False),
            ("PATCH", hook + r"/messages/(?P<message_id>@original|\d+)", self.edit_webhook_message, False),
            ("DELETE", hook + r"/messages/(?P<message_id>@original|\d+)", self.delete_webhook_message, False),
            ("GET", r"/webhooks/(?P<webhook_id>\d+)", self.get_webhook, True),
            ("DELETE", r"/webhooks/(?P<webhook_id>\d+)", self.delete_webhook, True),
            ("POST", chan + r"/webhooks", self.create_webhook, True),
            ("GET", chan + r"/webhooks", self.list_channel_webhooks, True),
            ("GET", chan, self.get_channel, True),
            ("GET", chan + r"/messages", self.list_messages, True),
            ("POST", chan + r"/messages", self.create_message, True),
            ("GET", msg, self.get_message, True),
            ("PATCH", msg, self.edit_message, True),
            ("DELETE", msg, self.delete_message, True),
            ("PUT", msg + r"/reactions/(?P<emoji>[^/]+)/@me", self.add_reaction, True),
            ("DELETE", msg + r"/reactions/(?P<emoji>[^/]+)/@me", self.remove_reaction, True),
            ("POST", chan + r"/typing", self.typing, True),
            ("POST", chan + r"/threads", self.create_thread, True),
            ("POST", msg + r"/threads", self.create_thread, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)", self.get_guild, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/channels", self.get_guild_channels, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/roles", self.get_guild_roles, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/webhooks", self.list_guild_webhooks, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members", self.list_members, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", self.get_member, True),
            ("POST", r"/users/@me/channels", self.create_dm, True),
            ("GET", r"/users/(?P<user_id>\d+)", self.get_user, True),
        ]
        self.routes = [(m, re.compile(p), h, auth) for m, p, h, auth in table]

    # -------------------------------------------------------------- plumbing

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method.upper()
        body, uploads = await self._parse_body(request)
        record = RequestRecord(
            method, path, dict(request.query), body, {name: data for name, data in uploads.values()}
        )
        self.emu.requests.append(record)
        fault = next((f for f in self.emu.faults if f.matches(method, path)), None)
        if fault is not None:
            fault.count -= 1
            if fault.count <= 0:
                self.emu.faults.remove(fault)
            record.status = fault.status
            return fault.response()
        path_known = False
        for route_method, pattern, handler, auth in self.routes:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            path_known = True
            if route_method != method:
                continue
            try:
                if auth and request.headers.get("Authorization") != f"Bot {self.emu.token}":
                    raise ApiError(401, 0, "401: Unauthorized")
                req = ApiRequest(method, path, match.groupdict(), dict(request.query), body, uploads)
                status, data = await handler(req)
            except ApiError as exc:
                record.status = exc.status
                return json_response(exc.body(), exc.status)
            record.status = status
            if data is None:
                return web.Response(status=status)
            return json_response(data, status)
        record.status = 405 if path_known else 404
        self.emu.unhandled_requests.append(record)
        # An unknown route is a gap in the emulator, not the bot's fault: make the test fail loudly.
        _log.error(
            "Discord emulator: no handler for %s %s (add one to bot/offline/emulator/rest.py)", method, path
        )
        return json_response(
            {"message": f"{record.status}: Not handled by the emulator", "code": 0}, record.status
        )

    @staticmethod
    async def _parse_body(request: web.Request) -> tuple[Any, dict[int, tuple[str, bytes]]]:
        uploads: dict[int, tuple[str, bytes]] = {}
        if request.content_type == "multipart/form-data":
            body: Any = None
            reader = await request.multipart()
            async for part in reader:
                name = getattr(part, "name", None) or ""
                if name == "payload_json":
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                elif name.startswith("files["):
                    index = int(name[len("files[") : -1])
                    uploads[index] = (part.filename or f"file{index}", bytes(await part.read()))  # type: ignore[union-attr]
            return body, uploads
        raw = await request.read()
        return (json.loads(raw) if raw else None), uploads

    # -------------------------------------------------------------- channels and messages

    async def get_channel(self, req: ApiRequest) -> tuple[int, Any]:
        return 200, self._channel(req).payload()

    async def list_messages(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        messages = sorted(
            (
                m
                for m in self.emu.messages.values()
                if m.channel is channel and not m.deleted and not m.ephemeral
            ),
            key=lambda m: m.id,
        )
        if "before" in req.query:
            before = int(req.query["before"])
            picked = [m for m in messages if m.id < before][-limit:]
        elif "after" in req.query:
            after = int(req.query["after"])
            picked = [m for m in messages if m.id > after][:limit]
        else:
            picked = messages[-limit:]
        return 200, [copy.deepcopy(m.data) for m in reversed(picked)]

    async def get_message(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        return 200, copy.deepcopy(self._message(req, channel).data)

    async def create_message(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        stored = self.build_bot_message(channel, req.json or {}, req.uploads)
        await self.announce("MESSAGE_CREATE", stored)
        return 200, copy.deepcopy(stored.data)

    async def edit_message(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        stored = self._message(req, channel)
        if int(stored.data["author"]["id"]) != self.emu.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self.apply_edit(stored, req.json or {}, req.uploads)
        await self.announce("MESSAGE_UPDATE", stored)
        self._complete_deferred_update(stored)
        return 200, copy.deepcopy(stored.data)

    async def delete_message(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        stored = self._message(req, channel)
        stored.deleted = True
        await self.announce("MESSAGE_DELETE", stored)
        return 204, None

    @staticmethod
    def _emoji(raw: str) -> dict[str, Any]:
        if ":" in raw:
            name, emoji_id = raw.split(":", 1)
            return {"id": emoji_id, "name": name}
        return {"id": None, "name": raw}

    async def add_reaction(self, req: ApiRequest) -> tuple[int, Any]:
        stored = self._message(req, self._channel(req))
        emoji = self._emoji(req.params["emoji"])
        reactions = stored.data.setdefault("reactions", [])
        entry = next((r for r in reactions if r["emoji"] == emoji), None)
        if entry is None:
            entry = {
                "emoji": emoji,
                "count": 0,
                "me": False,
                "me_burst": False,
                "burst_colors": [],
                "count_details": {"burst": 0, "normal": 0},
            }
            reactions.append(entry)
        if not entry["me"]:
            entry["me"] = True
            entry["count"] += 1
            entry["count_details"]["normal"] += 1
        return 204, None

    async def remove_reaction(self, req: ApiRequest) -> tuple[int, Any]:
        stored = self._message(req, self._channel(req))
        emoji = self._emoji(req.params["emoji"])
        reactions = stored.data.get("reactions", [])
        entry = next((r for r in reactions if r["emoji"] == emoji), None)
        if entry is not None and entry["me"]:
            entry["me"] = False
            entry["count"] -= 1
            entry["count_details"]["normal"] -= 1
            if entry["count"] <= 0:
                reactions.remove(entry)
        return 204, None

    async def typing(self, req: ApiRequest) -> tuple[int, Any]:
        self.emu.typing.append(self._channel(req).id)
        return 204, None

    async def create_thread(self, req: ApiRequest) -> tuple[int, Any]:
        parent = self._channel(req)
        if parent.guild is None or parent.type in THREAD_TYPES:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = req.json or {}
        name = body.get("name") or ""
        if not 1 <= len(name) <= 100:
            raise invalid({"name": "Must be between 1 and 100 in length."})
        if "message_id" in req.params:
            self._message(req, parent)
            thread_id, kind = int(req.params["message_id"]), 11
        else:
            thread_id, kind = self.emu.ids.next(), int(body.get("type") or 12)
        thread = Channel(
            thread_id, name, kind, parent.guild, parent_id=parent.id, owner_id=self.emu.bot_user.id
        )
        parent.guild.channels[thread.id] = thread
        self.emu.channels[thread.id] = thread
        await self.emu.broadcast(
            "THREAD_CREATE",
            {**thread.payload(), "newly_created": True},
            guild_id=parent.guild.id,
            intents=GUILDS,
        )
        return 201, thread.payload()
