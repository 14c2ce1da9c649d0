"""Records the emulator keeps (users, guilds, roles, channels) and their Discord payloads; messages are in
`messages`."""

from __future__ import annotations

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
