"""Keep the sandbox's Discord side in its data folder, so that a session can be continued after a restart.

The bot's own state (canon, scenes, sources) is in its database as usual. What Discord would keep is written
here: the server, its people and channels (their ids, which the campaign is bound to), the messages with their
files, the webhooks NPCs speak through and the synced commands. Ephemeral messages are not kept: Discord's
client forgets them too when it reloads.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from bot.offline.emulator import (
    Attachment,
    Channel,
    DiscordEmulator,
    Guild,
    Member,
    Role,
    StoredMessage,
    User,
    Webhook,
)
from bot.offline.emulator.models import LOADING

from .world import SandboxWorld

log = logging.getLogger(__name__)

STATE_FILE = "discord.json"
FILES_DIR = "discord-files"
FORMAT = 1


class SandboxStateError(Exception):
    """The saved state cannot be read; the message says what to do."""


def _user(data: dict[str, Any]) -> User:
    return User(int(data["id"]), data["name"], bot=bool(data.get("bot")), global_name=data.get("global_name"))


class SandboxStore:
    """Read and write the sandbox's Discord state in ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / STATE_FILE
        self.files = data_dir / FILES_DIR

    def exists(self) -> bool:
        """Return whether a previous session left its state here."""
        return self.path.is_file()

    # -- saving -----------------------------------------------------------------------------------------

    def save(self, emu: DiscordEmulator, world: SandboxWorld) -> None:
        """Write the whole state (atomically: a crash leaves the previous file whole) and any new files."""
        self.files.mkdir(parents=True, exist_ok=True)
        kept = [m for m in emu.messages.values() if self._keeps(m)]
        for message in kept:
            for attachment in message.data.get("attachments", []):
                blob = emu.blobs.get(int(attachment["id"]))
                target = self.files / str(attachment["id"])
                if blob is not None and not target.exists():
                    target.write_bytes(blob.data)
        guild = world.guild
        state = {
            "format": FORMAT,
            "bot_user": _user_payload(emu.bot_user),
            "users": [_user_payload(u) for u in emu.users.values() if u is not emu.bot_user],
            "guild": {
                "id": guild.id,
                "name": guild.name,
                "owner_id": guild.owner_id,
                "roles": [_role_payload(r) for r in guild.roles.values()],
                "members": [
                    {"user_id": m.id, "role_ids": m.role_ids, "nick": m.nick} for m in guild.members.values()
                ],
                "channels": [_channel_payload(c) for c in guild.channels.values() if not c.deleted],
            },
            "people": {key: m.id for key, m in world.people.items()},
            "channels": {key: c.id for key, c in world.channels.items()},
            "gm_role_id": world.gm_role.id,
            "sample_loaded": world.sample_loaded,
            "lore_imported": world.lore_imported,
            "messages": [self._message_payload(m, world) for m in sorted(kept, key=lambda m: m.id)],
            "webhooks": [
                {"id": w.id, "token": w.token, "channel_id": w.channel.id, "name": w.name}
                for w in emu.webhooks.values()
            ],
            "global_commands": emu.global_commands,
            "guild_commands": {str(k): v for k, v in emu.guild_commands.items()},
        }
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, self.path)

    @staticmethod
    def _keeps(message: StoredMessage) -> bool:
        flags = int(message.data.get("flags", 0))
        return not message.deleted and not message.ephemeral and not flags & LOADING

    @staticmethod
    def _message_payload(message: StoredMessage, world: SandboxWorld) -> dict[str, Any]:
        return {
            "data": message.data,
            "channel_id": message.channel.id,
            "allowed_mentions": message.allowed_mentions,
            "avatar_url": message.avatar_url,
            "from_bot": message.from_bot,
            "default_parse": list(message.default_parse),
            "mentioner_id": None if message.mentioner is None else message.mentioner.id,
            "label": world.labels.get(message.id),
        }

    # -- loading ----------------------------------------------------------------------------------------

    def load(self, emu: DiscordEmulator) -> SandboxWorld:
        """Put a saved state into a fresh emulator (started, not yet running a bot); return the world."""
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
            if state.get("format") != FORMAT:
                raise ValueError(f"format {state.get('format')!r}, expected {FORMAT}")
            return self._restore(emu, state)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise SandboxStateError(
                f"The sandbox's saved Discord state ({self.path}) cannot be read: {error}. Start with another "
                "--data-dir, or move that folder away to begin anew."
            ) from error

    def _restore(self, emu: DiscordEmulator, state: dict[str, Any]) -> SandboxWorld:
        bot = _user(state["bot_user"])
        emu.bot_user, emu.application_id = bot, bot.id
        emu.users = {bot.id: bot, **{int(u["id"]): _user(u) for u in state["users"]}}
        guild = self._restore_guild(emu, state["guild"])
        for hook in state["webhooks"]:
            channel = emu.channels[int(hook["channel_id"])]
            emu.webhooks[int(hook["id"])] = Webhook(
                int(hook["id"]), hook["token"], channel, hook["name"], bot
            )
        emu.global_commands = state["global_commands"]
        emu.guild_commands = {int(k): v for k, v in state["guild_commands"].items()}
        labels: dict[int, str] = {}
        for raw in state["messages"]:
            stored = self._restore_message(emu, guild, raw)
            if raw.get("label"):
                labels[stored.id] = raw["label"]
        highest = max([*emu.users, *emu.channels, *emu.messages, *emu.blobs, *emu.webhooks, guild.id])
        emu.ids.skip_past(highest)
        roles = guild.roles
        return SandboxWorld(
            guild=guild,
            gm_role=roles[int(state["gm_role_id"])],
            people={key: guild.members[int(uid)] for key, uid in state["people"].items()},
            channels={key: emu.channels[int(cid)] for key, cid in state["channels"].items()},
            sample_loaded=bool(state["sample_loaded"]),
            lore_imported=bool(state.get("lore_imported")),
            labels=labels,
        )

    @staticmethod
    def _restore_guild(emu: DiscordEmulator, data: dict[str, Any]) -> Guild:
        guild = Guild(int(data["id"]), data["name"], owner_id=int(data["owner_id"]))
        for role in data["roles"]:
            guild.roles[int(role["id"])] = Role(
                int(role["id"]),
                guild.id,
                role["name"],
                int(role["permissions"]),
                position=role["position"],
                color=role["color"],
                mentionable=role["mentionable"],
                managed=role["managed"],
            )
        for member in data["members"]:
            user = emu.users[int(member["user_id"])]
            guild.members[user.id] = Member(
                user, guild, role_ids=list(member["role_ids"]), nick=member["nick"]
            )
        for raw in data["channels"]:
            channel = Channel(
                int(raw["id"]),
                raw["name"],
                int(raw["type"]),
                guild,
                parent_id=raw["parent_id"],
                position=raw["position"],
                topic=raw["topic"],
                owner_id=raw["owner_id"],
            )
            guild.channels[channel.id] = channel
            emu.channels[channel.id] = channel
        emu.guilds[guild.id] = guild
        return guild

    def _restore_message(self, emu: DiscordEmulator, guild: Guild, raw: dict[str, Any]) -> StoredMessage:
        data = raw["data"]
        for attachment in data.get("attachments", []):
            attachment_id = int(attachment["id"])
            if attachment_id not in emu.blobs:
                content = (self.files / str(attachment_id)).read_bytes()
                url = f"{emu.base_url}/attachments/{attachment_id}/{attachment['filename']}"
                emu.blobs[attachment_id] = Attachment(
                    attachment_id,
                    attachment["filename"],
                    content,
                    url=url,
                    content_type=attachment.get("content_type"),
                    description=attachment.get("description"),
                )
            attachment["url"] = attachment["proxy_url"] = emu.blobs[attachment_id].url
        mentioner = raw.get("mentioner_id")
        stored = StoredMessage(
            data,
            emu.channels[int(raw["channel_id"])],
            emu.blobs,
            allowed_mentions=raw["allowed_mentions"],
            avatar_url=raw["avatar_url"],
            from_bot=bool(raw["from_bot"]),
            default_parse=tuple(raw["default_parse"]),
            mentioner=None if mentioner is None else guild.members.get(int(mentioner)),
        )
        emu.messages[stored.id] = stored
        return stored


def _user_payload(user: User) -> dict[str, Any]:
    return {"id": user.id, "name": user.name, "bot": user.bot, "global_name": user.global_name}


def _role_payload(role: Role) -> dict[str, Any]:
    return {
        "id": role.id,
        "name": role.name,
        "permissions": role.permissions,
        "position": role.position,
        "color": role.color,
        "mentionable": role.mentionable,
        "managed": role.managed,
    }


def _channel_payload(channel: Channel) -> dict[str, Any]:
    return {
        "id": channel.id,
        "name": channel.name,
        "type": channel.type,
        "parent_id": channel.parent_id,
        "position": channel.position,
        "topic": channel.topic,
        "owner_id": channel.owner_id,
    }
