"""Messages as the emulator keeps them: their files, the webhooks that post them, the mentions that really
ping and the components a test clicks."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .models import EPHEMERAL, Channel, Member, User


@dataclass(eq=False)
class Attachment:
    """A file the emulator serves over HTTP, so ``discord.Attachment.read()`` works."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None
    ephemeral: bool = False
    #: A download fault (`DiscordEmulator.fail_download`): "refuse" (an HTTP error) or "cut" (half, then closed).
    fault: str | None = None
    fault_status: int = 403

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            data["description"] = self.description
        if self.ephemeral:
            data["ephemeral"] = True
        return data


def guess_content_type(filename: str) -> str | None:
    """Guess a MIME type from a file name, as Discord does for uploads."""
    guessed, _ = mimetypes.guess_type(filename)
    if guessed is None and filename.endswith(".md"):
        return "text/markdown"
    return guessed


@dataclass(eq=False)
class Webhook:
    """A channel webhook created through REST."""

    id: int
    token: str
    channel: Channel
    name: str
    creator: User

    def payload(self, *, with_token: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": 1,
            "guild_id": None if self.channel.guild is None else str(self.channel.guild.id),
            "channel_id": str(self.channel.id),
            "name": self.name,
            "avatar": None,
            "application_id": None,
            "user": self.creator.payload(),
        }
        if with_token:
            data["token"] = self.token
        return data


@dataclass(eq=False)
class StoredMessage:
    """A message as Discord holds it, plus what tests want to assert on (files, allowed mentions)."""

    data: dict[str, Any]
    channel: Channel
    blobs: dict[int, Attachment]
    allowed_mentions: dict[str, Any] | None = None
    avatar_url: str | None = None
    deleted: bool = False
    from_bot: bool = False
    #: What an edit without ``allowed_mentions`` parses (regular messages: all; interactions, webhooks: users).
    default_parse: tuple[str, ...] = ("users", "roles", "everyone")
    #: The member whose permissions decide which role and @everyone mentions ping (None: nobody's).
    mentioner: Member | None = None

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def ephemeral(self) -> bool:
        return bool(self.data.get("flags", 0) & EPHEMERAL)

    @property
    def files(self) -> dict[str, bytes]:
        result: dict[str, bytes] = {}
        for att in self.data.get("attachments", []):
            blob = self.blobs.get(int(att["id"]))
            if blob is not None:
                result[att["filename"]] = blob.data
        return result

    def view(self) -> dict[str, Any]:
        """Return a detached copy: the Discord payload plus ``files``, ``allowed_mentions``, ``avatar_url``."""
        data: dict[str, Any] = json_copy(self.data)
        data["files"] = self.files
        data["allowed_mentions"] = json_copy(self.allowed_mentions)
        data["avatar_url"] = self.avatar_url
        data["deleted"] = self.deleted
        return data


def json_copy(value: Any) -> Any:
    """Return a deep copy of JSON-shaped data (dicts, lists, scalars): `copy.deepcopy` without its memo, faster."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def parse_mentions(content: str, allowed: dict[str, Any] | None) -> tuple[list[int], list[int], bool]:
    """Return (user ids, role ids, everyone) that ``content`` really pings under ``allowed`` mentions."""
    users = [int(x) for x in _USER_MENTION.findall(content)]
    roles = [int(x) for x in _ROLE_MENTION.findall(content)]
    everyone = "@everyone" in content or "@here" in content
    if allowed is None:
        return users, roles, everyone
    parse = allowed.get("parse", [])
    allowed_users = {int(x) for x in allowed.get("users", [])}
    allowed_roles = {int(x) for x in allowed.get("roles", [])}
    users = [u for u in users if "users" in parse or u in allowed_users]
    roles = [r for r in roles if "roles" in parse or r in allowed_roles]
    return users, roles, everyone and "everyone" in parse


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Yield every component of a message's component tree, each before its children (rows, sections,
    containers), in order."""
    for comp in components:
        yield comp
        for key in ("components", "accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                child = [child]
            if isinstance(child, list):
                yield from walk_components(child)


def find_component(components: list[dict[str, Any]], custom_id: str) -> dict[str, Any] | None:
    """Find a component by ``custom_id`` anywhere in a message's component tree."""
    return next((comp for comp in walk_components(components) if comp.get("custom_id") == custom_id), None)


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    """List every ``custom_id`` in a component tree (for error messages)."""
    return [comp["custom_id"] for comp in walk_components(components) if "custom_id" in comp]
