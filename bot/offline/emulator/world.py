"""Building the world: users, guilds, roles, members, channels and files."""

from __future__ import annotations

from collections.abc import Iterable

import discord
import discord.gateway
import discord.http

from .downloads import FAULTS
from .messages import Attachment, guess_content_type
from .models import (
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    GUILD_CATEGORY,
    GUILD_TEXT,
    Channel,
    Guild,
    Member,
    Role,
    User,
)
from .state import EmulatorState


def _permission_bits(permissions: int | discord.Permissions) -> int:
    """Return the bits of permissions given as an int or a ``discord.Permissions``."""
    return permissions.value if isinstance(permissions, discord.Permissions) else int(permissions)


class WorldBuilding(EmulatorState):
    """Create the records a test or the sandbox plays in."""

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

    def fail_download(self, attachment: Attachment, how: str | None = "refuse", *, status: int = 403) -> None:
        """Make downloads of `attachment` fail: "refuse" answers `status`, "cut" stops halfway; None heals it."""
        if how not in (*FAULTS, None):
            raise ValueError(f"a download fails by one of {FAULTS}, not {how!r}")
        self.blobs[attachment.id].fault = how
        self.blobs[attachment.id].fault_status = status
