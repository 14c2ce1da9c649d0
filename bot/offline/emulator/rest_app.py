"""The application, its commands, guilds and users."""

from __future__ import annotations

import copy
from typing import Any

from . import discord_rules as rules
from .discord_rules import ApiError
from .models import THREAD_TYPES
from .rest_base import ApiRequest, RestContext, unknown
from .validation import validate_commands


class ApplicationRoutes(RestContext):
    """``/users``, ``/oauth2``, ``/gateway``, ``/applications/.../commands`` and ``/guilds``."""

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
