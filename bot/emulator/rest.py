"""The REST side (``/api/v10``): routing, request log, fault injection and the handlers."""

from __future__ import annotations

import copy
import json
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from aiohttp import web

from . import discord_rules as rules
from .discord_rules import ApiError, invalid
from .gateway import GUILDS
from .interactions import AUTOCOMPLETE, MODAL_SUBMIT, InteractionResult
from .models import (
    EPHEMERAL,
    LOADING,
    THREAD_TYPES,
    Channel,
    Guild,
    StoredMessage,
    Webhook,
    now_iso,
)

if TYPE_CHECKING:
    from .emulator import DiscordEmulator

_log = logging.getLogger(__name__)

IS_COMPONENTS_V2 = 1 << 15
SUPPRESS_EMBEDS = 1 << 2
_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


class _MessageFields(TypedDict):
    """The fields of a message the bot's body gives: ``message_payload``'s keyword arguments, plus a poll."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[dict[str, Any]]
    flags: int
    poll: NotRequired[dict[str, Any]]


class _InteractionFields(TypedDict):
    """What a message answering an interaction carries beside its body."""

    interaction_metadata: dict[str, Any]
    webhook_id: str
    application_id: str


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


def unknown(kind: str) -> ApiError:
    codes = {
        "Channel": 10003,
        "Guild": 10004,
        "Member": 10007,
        "Message": 10008,
        "User": 10013,
        "Webhook": 10015,
        "interaction": 10062,
    }
    return ApiError(404, codes[kind], f"Unknown {kind}")


@dataclass
class ApiRequest:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    uploads: dict[int, tuple[str, bytes]]


Handler = Callable[[ApiRequest], Awaitable[tuple[int, Any]]]


# ---------------------------------------------------------------------- validation


def _check_component(comp: dict[str, Any], path: str, errors: dict[str, str]) -> None:
    if len(comp.get("custom_id") or "") > 100:
        errors[f"{path}.custom_id"] = "Must be 100 or fewer in length."
    if comp.get("type") == 2 and len(comp.get("label") or "") > 80:
        errors[f"{path}.label"] = "Must be 80 or fewer in length."
    if comp.get("type") in rules.SELECT_TYPES:
        rules.check_select(comp, path, errors)
    if len(comp.get("placeholder") or "") > 150:
        errors[f"{path}.placeholder"] = "Must be 150 or fewer in length."
    for key in ("components",):
        for i, child in enumerate(comp.get(key) or []):
            _check_component(child, f"{path}.{key}.{i}", errors)
    if isinstance(comp.get("accessory"), dict):
        _check_component(comp["accessory"], f"{path}.accessory", errors)


def validate_message(data: Mapping[str, Any], *, allow_empty: bool = False) -> None:
    """Apply Discord's message limits; raise 400 like Discord would."""
    errors: dict[str, str] = {}
    content = data.get("content") or ""
    if len(content) > 2000:
        errors["content"] = "Must be 2000 or fewer in length."
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        errors["embeds"] = "Must be 10 or fewer in length."
    total = 0
    for i, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                errors[f"embeds.{i}.{key}"] = f"Must be {limit} or fewer in length."
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors[f"embeds.{i}.fields"] = "Must be 25 or fewer in length."
        for j, fld in enumerate(fields):
            name, value = fld.get("name") or "", fld.get("value") or ""
            total += len(name) + len(value)
            if not 1 <= len(name) <= 256:
                errors[f"embeds.{i}.fields.{j}.name"] = "Must be between 1 and 256 in length."
            if not 1 <= len(value) <= 1024:
                errors[f"embeds.{i}.fields.{j}.value"] = "Must be between 1 and 1024 in length."
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            errors[f"embeds.{i}.footer.text"] = "Must be 2048 or fewer in length."
        if len(author) > 256:
            errors[f"embeds.{i}.author.name"] = "Must be 256 or fewer in length."
    if total > 6000:
        errors["embeds"] = "Embed size exceeds maximum size of 6000"
    components = data.get("components") or []
    if not data.get("flags", 0) & IS_COMPONENTS_V2:
        if len(components) > 5:
            errors["components"] = "Must be 5 or fewer in length."
        for i, row in enumerate(components):
            if row.get("type") == 1 and len(row.get("components", [])) > 5:
                errors[f"components.{i}.components"] = "Must be 5 or fewer in length."
        rules.check_action_rows(components, errors)
    for i, comp in enumerate(components):
        _check_component(comp, f"components.{i}", errors)
    if errors:
        raise invalid(errors)
    has_body = content or embeds or data.get("attachments") or components or data.get("poll")
    if not allow_empty and not has_body:
        raise ApiError(400, 50006, "Cannot send an empty message")


def _check_name(name: Any, path: str, errors: dict[str, str], *, lowercase: bool = True) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        errors[f"{path}.name"] = f"Invalid name {name!r}: 1-32 letters, digits, - or _."
    elif lowercase and name != name.lower():
        errors[f"{path}.name"] = f"Invalid name {name!r}: must be lowercase."


def _check_options(options: list[dict[str, Any]], path: str, errors: dict[str, str]) -> None:
    if len(options) > 25:
        errors[f"{path}.options"] = "Must be 25 or fewer in length."
    seen: set[str] = set()
    optional_seen = False
    for i, opt in enumerate(options):
        here = f"{path}.options.{i}"
        _check_name(opt.get("name"), here, errors)
        if opt.get("name") in seen:
            errors[f"{here}.name"] = f"Duplicate option name {opt.get('name')!r}"
        seen.add(opt.get("name", ""))
        if not 1 <= len(opt.get("description") or "") <= 100:
            errors[f"{here}.description"] = "Must be between 1 and 100 in length."
        if opt.get("type") in (1, 2):
            _check_options(opt.get("options") or [], here, errors)
            continue
        if opt.get("required"):
            if optional_seen:
                errors[f"{here}.required"] = "Required options must be placed before non-required options"
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            errors[f"{here}.choices"] = "Must be 25 or fewer in length."
        for j, choice in enumerate(choices):
            if not 1 <= len(choice.get("name") or "") <= 100:
                errors[f"{here}.choices.{j}.name"] = "Must be between 1 and 100 in length."
            value = choice.get("value")
            if isinstance(value, str) and len(value) > 100:
                errors[f"{here}.choices.{j}.value"] = "Must be 100 or fewer in length."


def validate_commands(commands: list[dict[str, Any]]) -> None:
    """Apply Discord's command registration rules; raise 400 like Discord would."""
    errors: dict[str, str] = {}
    seen: set[tuple[str, int]] = set()
    for i, cmd in enumerate(commands):
        kind = cmd.get("type", 1)
        _check_name(cmd.get("name"), str(i), errors, lowercase=kind == 1)
        key = (cmd.get("name", ""), kind)
        if key in seen:
            errors[f"{i}.name"] = f"Application command names must be unique: {key[0]!r}"
        seen.add(key)
        if kind == 1:
            if not 1 <= len(cmd.get("description") or "") <= 100:
                errors[f"{i}.description"] = "Must be between 1 and 100 in length."
            _check_options(cmd.get("options") or [], str(i), errors)
    if sum(1 for c in commands if c.get("type", 1) == 1) > 100:
        errors["_"] = "Maximum number of application commands reached (100)"
    rules.check_command_size(commands, errors)
    if errors:
        raise invalid(errors)


# ---------------------------------------------------------------------- the API


class RestApi:
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
        _log.error("Discord emulator: no handler for %s %s (add one to bot/emulator/rest.py)", method, path)
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

    # -------------------------------------------------------------- lookups

    def _channel(self, req: ApiRequest) -> Channel:
        channel = self.emu.channels.get(int(req.params["channel_id"]))
        if channel is None or channel.deleted:
            raise unknown("Channel")
        return channel

    def _guild(self, req: ApiRequest) -> Guild:
        guild = self.emu.guilds.get(int(req.params["guild_id"]))
        if guild is None or self.emu.bot_user.id not in guild.members:
            raise unknown("Guild")
        return guild

    def _message(self, req: ApiRequest, channel: Channel) -> StoredMessage:
        stored = self.emu.messages.get(int(req.params["message_id"]))
        if stored is None or stored.deleted or stored.channel is not channel or stored.ephemeral:
            raise unknown("Message")
        return stored

    def _webhook_target(self, req: ApiRequest) -> InteractionResult | Webhook:
        webhook_id, token = int(req.params["webhook_id"]), req.params["token"]
        if webhook_id == self.emu.application_id:
            record = self.emu.interactions_by_token.get(token)
            if record is not None:
                rules.check_token_alive(record.created_at, self.emu.clock.now(), responded=record.responded)
                return record
        webhook = self.emu.webhooks.get(webhook_id)
        if webhook is None or webhook.token != token:
            raise unknown("Webhook")
        return webhook

    # -------------------------------------------------------------- message building

    def _store_upload(self, upload: tuple[str, bytes], entry: dict[str, Any]) -> dict[str, Any]:
        filename, data = upload
        if len(data) > self.emu.attachment_size_limit:
            raise ApiError(413, 40005, "Request entity too large")
        att = self.emu.make_attachment(
            entry.get("filename") or filename, data, description=entry.get("description")
        )
        return att.payload()

    def _attachments(
        self,
        body: dict[str, Any],
        uploads: dict[int, tuple[str, bytes]],
        existing: list[dict[str, Any]] | None,
    ) -> list[dict[str, Any]] | None:
        """Resolve the attachments of a create or edit: kept ones by id, new ones by upload index."""
        if body.get("attachments") is not None:
            kept = {str(a["id"]): a for a in existing or []}
            result = []
            for i, entry in enumerate(body["attachments"]):
                key = str(entry.get("id"))
                if key in kept:
                    result.append(kept[key])
                elif key.isdigit() and int(key) in uploads:
                    result.append(self._store_upload(uploads[int(key)], entry))
                else:
                    raise invalid({f"attachments.{i}.id": f"Unknown attachment or upload {key}"})
            return result
        if uploads:
            return list(existing or []) + [self._store_upload(uploads[i], {}) for i in sorted(uploads)]
        return None

    def build_bot_message(
        self,
        channel: Channel,
        body: dict[str, Any],
        uploads: dict[int, tuple[str, bytes]],
        *,
        author: dict[str, Any] | None = None,
        with_member: bool = True,
        flags: int | None = None,
        allow_empty: bool = False,
        avatar_url: str | None = None,
        **extra: Any,
    ) -> StoredMessage:
        """Create (and store) a message the bot, its interactions or a webhook posted."""
        emu = self.emu
        body = body or {}
        allowed = body.get("allowed_mentions")
        rules.check_allowed_mentions(allowed)
        ref = body.get("message_reference")
        fields: _MessageFields = {
            "content": body.get("content") or "",
            "embeds": [{"type": "rich", **e} for e in body.get("embeds") or []],
            "components": body.get("components") or [],
            "attachments": self._attachments(body, uploads, None) or [],
            "flags": int(body.get("flags") or 0) if flags is None else flags,
        }
        if body.get("poll"):
            fields["poll"] = body["poll"]
        validate_message(fields, allow_empty=allow_empty)
        rules.check_file_count(len(fields["attachments"]))
        bot_member = channel.guild.members.get(emu.bot_user.id) if channel.guild is not None else None
        member = bot_member if with_member else None
        # Interaction responses and webhook messages parse users only when allowed_mentions is absent.
        webhook_like = "interaction_metadata" in extra or "webhook_id" in extra
        default_parse = rules.INTERACTION_DEFAULT_PARSE if webhook_like else rules.MESSAGE_DEFAULT_PARSE
        data = emu.message_payload(
            channel,
            author=author or emu.bot_user.payload(),
            member=member,
            allowed_mentions=allowed,
            message_type=19 if ref else 0,
            message_reference=ref,
            default_parse=default_parse,
            mentioner=bot_member,
            **fields,
            **extra,
        )
        if body.get("nonce") is not None:
            data["nonce"] = body["nonce"]
        stored = StoredMessage(
            data,
            channel,
            emu.blobs,
            allowed_mentions=allowed,
            avatar_url=avatar_url,
            from_bot=True,
            default_parse=default_parse,
            mentioner=bot_member,
        )
        emu.messages[stored.id] = stored
        return stored

    def apply_edit(
        self, stored: StoredMessage, body: dict[str, Any], uploads: dict[int, tuple[str, bytes]]
    ) -> None:
        """Apply a PATCH body to a stored message, as Discord merges edits."""
        body = body or {}
        data = copy.deepcopy(stored.data)
        if "content" in body:
            data["content"] = body["content"] or ""
        if "embeds" in body:
            data["embeds"] = [{"type": "rich", **e} for e in body["embeds"] or []]
        if "components" in body:
            data["components"] = body["components"] or []
        attachments = self._attachments(body, uploads, data.get("attachments"))
        if attachments is not None:
            data["attachments"] = attachments
        was_loading = bool(data.get("flags", 0) & LOADING)
        flags = data.get("flags", 0) & ~LOADING
        if body.get("flags") is not None:
            flags = (flags & ~SUPPRESS_EMBEDS) | (int(body["flags"]) & SUPPRESS_EMBEDS) | (flags & EPHEMERAL)
        data["flags"] = flags
        if body.get("poll"):
            data["poll"] = body["poll"]
        validate_message(data)
        rules.check_file_count(len(data.get("attachments") or []))
        if "content" in body or "allowed_mentions" in body:
            rules.check_allowed_mentions(body.get("allowed_mentions"))
            # resources/message#edit-message: an edit of the content re-parses its mentions under the edit's
            # allowed_mentions, or, when it has none, under the default allowances.
            stored.allowed_mentions = body.get("allowed_mentions")
        self.emu.set_mentions(stored, data)
        # Filling in a deferred "thinking" message does not show as an edit.
        data["edited_timestamp"] = None if was_loading else now_iso()
        stored.data = data

    async def announce(self, event: str, stored: StoredMessage) -> None:
        """Echo a bot-side change on the gateway (ephemeral messages stay private)."""
        if stored.ephemeral:
            return
        if event == "MESSAGE_DELETE":
            await self.emu.broadcast_delete(stored)
        else:
            await self.emu.broadcast_message(event, stored)

    def _complete_deferred_update(self, stored: StoredMessage) -> None:
        """A channel edit of the clicked message finishes a deferred component update (type 6)."""
        for record in self.emu.interactions.values():
            if not record.done.is_set() and record.response_type == 6 and record.source_message is stored:
                record.finish(stored)

    # -------------------------------------------------------------- identity

    async def get_me(self, req: ApiRequest) -> tuple[int, Any]:
        user = self.emu.bot_user.payload()
        user.update(verified=True, mfa_enabled=False, email=None, locale="en-US")
        return 200, user

    async def get_application(self, req: ApiRequest) -> tuple[int, Any]:
        owner = {**self.emu.bot_user.payload(), "bot": False, "username": "app-owner"}
        return 200, {
            "id": str(self.emu.application_id),
            "name": self.emu.bot_user.name,
            "description": "",
            "icon": None,
            "rpc_origins": [],
            "bot_public": False,
            "bot_require_code_grant": False,
            "owner": owner,
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": self.emu.bot_user.payload(),
        }

    async def get_gateway_bot(self, req: ApiRequest) -> tuple[int, Any]:
        return 200, {
            "url": self.emu.gateway_url,
            "shards": self.emu.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
        }

    async def get_gateway(self, req: ApiRequest) -> tuple[int, Any]:
        return 200, {"url": self.emu.gateway_url}

    # -------------------------------------------------------------- application commands

    def _command_scope(self, req: ApiRequest) -> tuple[int | None, list[dict[str, Any]]]:
        if int(req.params["app_id"]) != self.emu.application_id:
            raise ApiError(403, 50001, "Missing Access")
        guild_id = req.params.get("guild_id")
        if guild_id is None:
            return None, self.emu.global_commands
        guild = self.emu.guilds.get(int(guild_id))
        if guild is None or self.emu.bot_user.id not in guild.members:
            raise ApiError(403, 50001, "Missing Access")
        return guild.id, self.emu.guild_commands.get(guild.id, [])

    def _normalize_command(
        self, body: dict[str, Any], guild_id: int | None, existing: list[dict[str, Any]]
    ) -> dict[str, Any]:
        kind = body.get("type", 1)
        prior = next((c for c in existing if c["name"] == body["name"] and c.get("type", 1) == kind), None)
        cmd = copy.deepcopy(body)
        cmd["id"] = prior["id"] if prior else str(self.emu.ids.next())
        cmd["application_id"] = str(self.emu.application_id)
        cmd["version"] = str(self.emu.ids.next())
        cmd["type"] = kind
        cmd.setdefault("description", "")
        cmd.setdefault("nsfw", False)
        permissions = body.get("default_member_permissions")
        cmd["default_member_permissions"] = None if permissions is None else str(permissions)
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    async def get_commands(self, req: ApiRequest) -> tuple[int, Any]:
        _, existing = self._command_scope(req)
        return 200, copy.deepcopy(existing)

    def _count_creates(
        self, guild_id: int | None, body: list[dict[str, Any]], existing: list[dict[str, Any]]
    ) -> None:
        """Count the commands a sync creates (those that did not exist); refuse past Discord's 200 a day."""
        known = {(c["name"], c.get("type", 1)) for c in existing}
        created = sum(1 for c in body if (c.get("name"), c.get("type", 1)) not in known)
        total = self.emu.command_creates.get(guild_id, 0) + created
        if total > rules.DAILY_COMMAND_CREATES:
            raise ApiError(
                429, 30034, "Max number of daily application command creates has been reached (200)"
            )
        self.emu.command_creates[guild_id] = total

    async def put_commands(self, req: ApiRequest) -> tuple[int, Any]:
        guild_id, existing = self._command_scope(req)
        body = req.json or []
        validate_commands(body)
        self._count_creates(guild_id, body, existing)
        rules.check_command_contexts(body, self.emu.deprecations)
        commands = [self._normalize_command(c, guild_id, existing) for c in body]
        if guild_id is None:
            self.emu.global_commands = commands
        else:
            self.emu.guild_commands[guild_id] = commands
        return 200, copy.deepcopy(commands)

    async def post_command(self, req: ApiRequest) -> tuple[int, Any]:
        guild_id, existing = self._command_scope(req)
        validate_commands([req.json])
        self._count_creates(guild_id, [req.json], existing)
        rules.check_command_contexts([req.json], self.emu.deprecations)
        cmd = self._normalize_command(req.json, guild_id, existing)
        updated = [c for c in existing if c["id"] != cmd["id"]] + [cmd]
        if guild_id is None:
            self.emu.global_commands = updated
        else:
            self.emu.guild_commands[guild_id] = updated
        return 200, copy.deepcopy(cmd)

    # -------------------------------------------------------------- interactions

    def _interaction_fields(self, record: InteractionResult) -> _InteractionFields:
        return {
            "interaction_metadata": {
                "id": str(record.id),
                "type": record.type,
                "user": record.user.payload(),
                "authorizing_integration_owners": record.payload.get("authorizing_integration_owners", {}),
            },
            "webhook_id": str(self.emu.application_id),
            "application_id": str(self.emu.application_id),
        }

    async def callback(self, req: ApiRequest) -> tuple[int, Any]:
        record = self.emu.interactions.get(int(req.params["interaction_id"]))
        if record is None or record.token != req.params["token"]:
            raise unknown("interaction")
        rules.check_callback_in_time(record.created_at, self.emu.clock.now())
        if record.responded:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = req.json or {}
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        if (record.type == AUTOCOMPLETE) != (kind == 8):
            raise invalid({"type": f"Callback type {kind} is not valid for interaction type {record.type}"})
        if kind in (6, 7) and record.source_message is None:
            raise invalid({"type": f"Callback type {kind} needs a component message"})
        if kind == 9 and record.type == MODAL_SUBMIT:
            raise invalid({"type": "A modal cannot answer a modal submit"})
        message: StoredMessage | None = None
        channel = record.channel
        metadata = self._interaction_fields(record)
        if kind == 4:
            message = self.build_bot_message(channel, data, req.uploads, **metadata)
            record.original = message
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_CREATE", message)
            record.finish(message)
        elif kind == 5:
            flags = (int(data.get("flags") or 0) & EPHEMERAL) | LOADING
            message = self.build_bot_message(channel, {}, {}, flags=flags, allow_empty=True, **metadata)
            record.original = message
            record.deferred = True
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_CREATE", message)
            record.touch()
        elif kind == 6:
            record.original = record.source_message
            record.deferred = True
            record.response_type = kind
            record.callbacks.append(body)
            record.touch()
        elif kind == 7:
            message = record.source_message
            assert message is not None
            self.apply_edit(message, data, req.uploads)
            record.original = message
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_UPDATE", message)
            record.finish(message)
        elif kind == 8:
            choices = data.get("choices") or []
            errors: dict[str, str] = {}
            if len(choices) > 25:
                errors["data.choices"] = "Must be 25 or fewer in length."
            for i, choice in enumerate(choices):
                if not 1 <= len(choice.get("name") or "") <= 100:
                    errors[f"data.choices.{i}.name"] = "Must be between 1 and 100 in length."
                if isinstance(choice.get("value"), str) and len(choice["value"]) > 100:
                    errors[f"data.choices.{i}.value"] = "Must be 100 or fewer in length."
            if errors:
                raise invalid(errors)
            record.choices = choices
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        elif kind == 9:
            rules.check_modal(data, self.emu.deprecations)
            record.modal = data
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        elif kind == 1:
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        else:
            raise invalid({"type": f"Unsupported interaction callback type {kind}"})
        if req.query.get("with_response") not in ("1", "true", "True"):
            return 204, None
        shown = message or record.original
        answer: dict[str, Any] = {
            "interaction": {
                "id": str(record.id),
                "type": record.type,
                "activity_instance_id": None,
                "response_message_id": None if shown is None else str(shown.id),
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(shown is not None and shown.ephemeral),
            },
            "resource": {"type": kind},
        }
        if message is not None:
            answer["resource"]["message"] = copy.deepcopy(message.data)
        return 200, answer

    # -------------------------------------------------------------- webhooks

    async def execute_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        target = self._webhook_target(req)
        body = req.json or {}
        wait = req.query.get("wait") in ("1", "true", "True")
        if isinstance(target, InteractionResult):
            return await self._followup(target, body, req.uploads)
        channel = target.channel
        if "thread_id" in req.query:
            channel = self.emu.channels.get(int(req.query["thread_id"])) or channel
        if channel.deleted:
            raise unknown("Channel")
        if body.get("username") is not None:
            rules.check_webhook_name(body["username"], "username", username=True)
        username = (body.get("username") or target.name).strip()
        author = {
            "id": str(target.id),
            "username": username,
            "discriminator": "0000",
            "global_name": None,
            "avatar": None,
            "bot": True,
        }
        stored = self.build_bot_message(
            channel,
            body,
            req.uploads,
            author=author,
            with_member=False,
            avatar_url=body.get("avatar_url"),
            webhook_id=str(target.id),
        )
        await self.announce("MESSAGE_CREATE", stored)
        return (200, copy.deepcopy(stored.data)) if wait else (204, None)

    async def _followup(
        self, record: InteractionResult, body: dict[str, Any], uploads: dict[int, tuple[str, bytes]]
    ) -> tuple[int, Any]:
        if not record.responded:
            raise unknown("Webhook")
        original = record.original
        loading = original is not None and not original.deleted and original.data.get("flags", 0) & LOADING
        if (
            record.response_type == 5
            and original is not None
            and original.deleted
            and not record.done.is_set()
        ):
            rules.deprecated(
                self.emu.deprecations,
                f"{record.label}: a followup after the deferral's loading message was deleted (undocumented: "
                "interactions/receiving-and-responding#create-followup-message says nothing of it)",
            )
        if record.response_type == 5 and original is not None and loading:
            # interactions/receiving-and-responding#create-followup-message: "When using this endpoint directly
            # after responding to an interaction with DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, this endpoint will
            # function as Edit Original Interaction Response ... The ephemeral flag will be ignored ... This
            # behavior is deprecated". Deleted, the loading message is withdrawn: the followup is a new message.
            rules.deprecated(
                self.emu.deprecations,
                f"{record.label}: the first message after a thinking deferral was a followup "
                "(deprecated: edit the original response)",
            )
            self.apply_edit(original, {k: v for k, v in body.items() if k != "flags"}, uploads)
            record.followup_messages.append(original)
            await self.announce("MESSAGE_UPDATE", original)
            record.finish(original)
            return 200, copy.deepcopy(original.data)
        metadata = self._interaction_fields(record)
        stored = self.build_bot_message(record.channel, body, uploads, **metadata)
        record.followup_messages.append(stored)
        await self.announce("MESSAGE_CREATE", stored)
        record.finish(stored)
        return 200, copy.deepcopy(stored.data)

    def _webhook_message(self, req: ApiRequest) -> tuple[InteractionResult | Webhook, StoredMessage]:
        target = self._webhook_target(req)
        raw_id = req.params["message_id"]
        if isinstance(target, InteractionResult):
            if raw_id == "@original":
                stored = target.original
            else:
                candidates = [target.original, *target.followup_messages]
                stored = next((m for m in candidates if m is not None and m.id == int(raw_id)), None)
        else:
            if raw_id == "@original":
                raise unknown("Message")
            stored = self.emu.messages.get(int(raw_id))
            if stored is not None and stored.data.get("webhook_id") != str(target.id):
                stored = None
        if stored is None or stored.deleted:
            raise unknown("Message")
        return target, stored

    async def get_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        _, stored = self._webhook_message(req)
        return 200, copy.deepcopy(stored.data)

    async def edit_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        target, stored = self._webhook_message(req)
        self.apply_edit(stored, req.json or {}, req.uploads)
        await self.announce("MESSAGE_UPDATE", stored)
        if isinstance(target, InteractionResult):
            target.finish(stored)
        return 200, copy.deepcopy(stored.data)

    async def delete_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        target, stored = self._webhook_message(req)
        withdrawn = bool(stored.data.get("flags", 0) & LOADING)
        stored.deleted = True
        await self.announce("MESSAGE_DELETE", stored)
        # Deleting the "thinking" message withdraws it: the interaction waits for its followup still.
        if isinstance(target, InteractionResult) and not withdrawn:
            target.finish(None)
        return 204, None

    async def create_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        name = (req.json or {}).get("name") or ""
        rules.check_webhook_name(name, "name", username=False)
        webhook = Webhook(self.emu.ids.next(), secrets.token_urlsafe(32), channel, name, self.emu.bot_user)
        self.emu.webhooks[webhook.id] = webhook
        return 200, webhook.payload()

    async def list_channel_webhooks(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        return 200, [w.payload() for w in self.emu.webhooks.values() if w.channel is channel]

    async def list_guild_webhooks(self, req: ApiRequest) -> tuple[int, Any]:
        guild = self._guild(req)
        return 200, [w.payload() for w in self.emu.webhooks.values() if w.channel.guild is guild]

    async def get_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        webhook = self.emu.webhooks.get(int(req.params["webhook_id"]))
        if webhook is None or ("token" in req.params and req.params["token"] != webhook.token):
            raise unknown("Webhook")
        return 200, webhook.payload(with_token="token" not in req.params)

    async def delete_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        webhook = self.emu.webhooks.get(int(req.params["webhook_id"]))
        if webhook is None or ("token" in req.params and req.params["token"] != webhook.token):
            raise unknown("Webhook")
        del self.emu.webhooks[webhook.id]
        return 204, None

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

    # -------------------------------------------------------------- guilds and users

    async def get_guild(self, req: ApiRequest) -> tuple[int, Any]:
        data = self._guild(req).payload()
        for key in ("channels", "threads", "members", "presences", "voice_states"):
            data.pop(key, None)
        return 200, data

    async def get_guild_channels(self, req: ApiRequest) -> tuple[int, Any]:
        guild = self._guild(req)
        return 200, [
            c.payload() for c in guild.channels.values() if not c.deleted and c.type not in THREAD_TYPES
        ]

    async def get_guild_roles(self, req: ApiRequest) -> tuple[int, Any]:
        return 200, [r.payload() for r in self._guild(req).roles.values()]

    async def list_members(self, req: ApiRequest) -> tuple[int, Any]:
        guild = self._guild(req)
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return 200, [m.payload() for m in members[:limit]]

    async def get_member(self, req: ApiRequest) -> tuple[int, Any]:
        member = self._guild(req).members.get(int(req.params["user_id"]))
        if member is None:
            raise unknown("Member")
        return 200, member.payload()

    async def get_user(self, req: ApiRequest) -> tuple[int, Any]:
        user = self.emu.users.get(int(req.params["user_id"]))
        if user is None:
            raise unknown("User")
        return 200, user.payload()

    async def create_dm(self, req: ApiRequest) -> tuple[int, Any]:
        user = self.emu.users.get(int((req.json or {}).get("recipient_id", 0)))
        if user is None:
            raise unknown("User")
        return 200, self.emu.dm_channel(user).payload()
