"""Records the emulator keeps (users, guilds, roles, channels, messages) and their Discord payloads."""

from __future__ import annotations

import mimetypes
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

DISCORD_EPOCH_MS = 1420070400000

# Channel types (Discord API values) the emulator creates.
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (PUBLIC_THREAD, PRIVATE_THREAD)

EPHEMERAL = 1 << 6
LOADING = 1 << 7

ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    read_message_history=True,
    add_reactions=True,
    embed_links=True,
    attach_files=True,
    use_external_emojis=True,
    use_application_commands=True,
    change_nickname=True,
    create_instant_invite=True,
    connect=True,
    speak=True,
).value


def now_iso() -> str:
    """Return the current UTC time in Discord's ISO 8601 format."""
    return datetime.now(UTC).isoformat()


class SnowflakeFactory:
    """Hand out unique, strictly increasing snowflakes (one millisecond apart)."""

    def __init__(self) -> None:
        self._last_ms = 0

    def next(self, *, shard: tuple[int, int] | None = None) -> int:
        """Return a new snowflake; with ``shard=(shard_id, shard_count)`` one that maps to that shard."""
        ms = max(int(time.time() * 1000) - DISCORD_EPOCH_MS, self._last_ms + 1)
        if shard is not None:
            shard_id, shard_count = shard
            if not 0 <= shard_id < shard_count:
                raise ValueError(f"shard id {shard_id} is not in range for {shard_count} shards")
            while ms % shard_count != shard_id:
                ms += 1
        self._last_ms = ms
        return ms << 22

    def skip_past(self, snowflake: int) -> None:
        """Make every later id greater than ``snowflake`` (for ids restored from a saved state)."""
        self._last_ms = max(self._last_ms, snowflake >> 22)


def shard_of(guild_id: int, shard_count: int) -> int:
    """Return the shard Discord routes a guild to."""
    return (guild_id >> 22) % shard_count


@dataclass(eq=False)
class User:
    """A Discord user, shared across guilds."""

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class Role:
    """A guild role; ``permissions`` is the integer bit set."""

    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": self.hoist,
            "managed": self.managed,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass(eq=False)
class Member:
    """A user's membership of one guild."""

    user: User
    guild: Guild
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=now_iso)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def bot(self) -> bool:
        return self.user.bot

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def permissions(self) -> int:
        return self.guild.permissions_of(self)

    def payload(self, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class Channel:
    """A guild channel, category, thread or DM channel."""

    id: int
    name: str
    type: int
    guild: Guild | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipients: list[User] = field(default_factory=list)
    owner_id: int | None = None
    deleted: bool = False

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def guild_id(self) -> int | None:
        return None if self.guild is None else self.guild.id

    def payload(self) -> dict[str, Any]:
        if self.type == DM:
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": None,
                "recipients": [u.payload() for u in self.recipients],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "parent_id": None if self.parent_id is None else str(self.parent_id),
            "permission_overwrites": [],
            "nsfw": False,
            "flags": 0,
        }
        if self.type == GUILD_TEXT or self.type in THREAD_TYPES:
            data.update(topic=self.topic, rate_limit_per_user=0, last_message_id=None)
        if self.type in THREAD_TYPES:
            data.update(
                owner_id=None if self.owner_id is None else str(self.owner_id),
                member_count=1,
                message_count=0,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": now_iso(),
                    "locked": False,
                },
            )
        return data


@dataclass(eq=False)
class Guild:
    """A guild with its roles, channels and members (the bot's member included)."""

    id: int
    name: str
    owner_id: int = 0
    roles: dict[int, Role] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)

    @property
    def owner(self) -> Member:
        return self.members[self.owner_id]

    @property
    def everyone(self) -> Role:
        return self.roles[self.id]

    def permissions_of(self, member: Member) -> int:
        """Compute a member's guild permissions: owner and administrators get everything."""
        if member.id == self.owner_id:
            return ALL_PERMISSIONS
        value = self.everyone.permissions
        for role_id in member.role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        if value & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value

    def payload(self, *, members: list[Member] | None = None) -> dict[str, Any]:
        """Return the GUILD_CREATE payload; ``members`` defaults to all of them."""
        sent = list(self.members.values()) if members is None else members
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "features": [],
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "channels": [
                c.payload() for c in self.channels.values() if not c.deleted and c.type not in THREAD_TYPES
            ],
            "threads": [
                c.payload() for c in self.channels.values() if not c.deleted and c.type in THREAD_TYPES
            ],
            "members": [m.payload() for m in sent],
            "member_count": len(self.members),
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "unavailable": False,
            "joined_at": now_iso(),
            "max_members": 250000,
            "premium_progress_bar_enabled": False,
        }


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


def find_component(components: list[dict[str, Any]], custom_id: str) -> dict[str, Any] | None:
    """Find a component by ``custom_id`` anywhere in a message's component tree."""
    for comp in components:
        if comp.get("custom_id") == custom_id:
            return comp
        for key in ("components", "accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                child = [child]
            if isinstance(child, list):
                found = find_component(child, custom_id)
                if found is not None:
                    return found
    return None


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    """List every ``custom_id`` in a component tree (for error messages)."""
    result: list[str] = []
    for comp in components:
        if "custom_id" in comp:
            result.append(comp["custom_id"])
        for key in ("components", "accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                child = [child]
            if isinstance(child, list):
                result.extend(custom_ids(child))
    return result
