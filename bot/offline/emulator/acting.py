"""Users acting: messages posted, edited and deleted as Discord builds and dispatches them."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from . import discord_rules as rules
from .delivery import GatewayDelivery
from .gateway import GUILD_MEMBERS, GUILDS
from .messages import Attachment, StoredMessage, parse_mentions
from .models import Channel, Member, Role, User, now_iso


class UsersActing(GatewayDelivery):
    """What people do in channels (post, edit, delete), and the message objects Discord makes of it."""

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
        self.observe("MESSAGE_CREATE", stored)
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
        self.observe("MESSAGE_UPDATE", stored)
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
        self.observe("MESSAGE_DELETE", stored)
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
            self.observe("MESSAGE_DELETE", message)
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

    async def remove_member(
        self, member: Member, *, settle: bool = True, timeout: float | None = None
    ) -> None:
        """A member leaves the server (or is kicked): GUILD_MEMBER_REMOVE, as Discord sends it, only to the
        sessions with the GUILD_MEMBERS intent (`guild_id` and the `user`); they act there no more."""
        guild = member.guild
        if guild.members.get(member.id) is not member:
            raise AssertionError(f"{member.name} is not a member of guild {guild.name!r}")
        if member.id == self.bot_user.id:
            raise AssertionError("the bot leaving a guild is GUILD_DELETE, not a member leaving")
        del guild.members[member.id]
        data = {"guild_id": str(guild.id), "user": member.user.payload()}
        await self._deliver(
            "remove_member",
            lambda: self.broadcast("GUILD_MEMBER_REMOVE", data, guild_id=guild.id, intents=GUILD_MEMBERS),
            settle=settle,
            timeout=timeout,
        )

    async def update_member(
        self, member: Member, *, roles: Iterable[Role], settle: bool = True, timeout: float | None = None
    ) -> None:
        """Give a member these roles (a role added or taken away): GUILD_MEMBER_UPDATE, as Discord sends it,
        only to the sessions with the GUILD_MEMBERS intent (`guild_id`, the `user` and the member's fields)."""
        guild = member.guild
        if guild.members.get(member.id) is not member:
            raise AssertionError(f"{member.name} is not a member of guild {guild.name!r}")
        member.role_ids = [r.id for r in roles]
        data = {"guild_id": str(guild.id), **member.payload()}
        await self._deliver(
            "update_member",
            lambda: self.broadcast("GUILD_MEMBER_UPDATE", data, guild_id=guild.id, intents=GUILD_MEMBERS),
            settle=settle,
            timeout=timeout,
        )
