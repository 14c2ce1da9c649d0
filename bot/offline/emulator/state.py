"""What every part of ``DiscordEmulator`` works on: the records it keeps, declared once for the type checker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from . import discord_rules as rules
from .errors import BotErrorCapture
from .messages import Attachment, StoredMessage, Webhook
from .models import Channel, Guild, SnowflakeFactory, User

if TYPE_CHECKING:
    from .gateway import GatewaySession
    from .interactions import InteractionResult
    from .rest import Fault, RequestRecord

#: Called with ("MESSAGE_CREATE" | "MESSAGE_UPDATE" | "MESSAGE_DELETE", message) for every message change,
#: ephemeral ones included (the gateway never carries those): a viewer such as the sandbox's page follows them.
MessageObserver = Callable[[str, StoredMessage], None]


class EmulatorState:
    """The state ``DiscordEmulator.__init__`` sets; its parts (world, delivery, users, interactions) share it."""

    token: str
    privileged_intents: set[str]
    bot_permissions: int
    recommended_shards: int
    heartbeat_interval_ms: int
    timeout: float
    attachment_size_limit: int
    ids: SnowflakeFactory
    bot_user: User
    application_id: int
    users: dict[int, User]
    guilds: dict[int, Guild]
    channels: dict[int, Channel]
    messages: dict[int, StoredMessage]
    blobs: dict[int, Attachment]
    webhooks: dict[int, Webhook]
    interactions: dict[int, InteractionResult]
    interactions_by_token: dict[str, InteractionResult]
    global_commands: list[dict[str, Any]]
    guild_commands: dict[int, list[dict[str, Any]]]
    requests: list[RequestRecord]
    unhandled_requests: list[RequestRecord]
    faults: list[Fault]
    sessions: list[GatewaySession]
    resumable: list[GatewaySession]
    gateway_log: list[dict[str, Any]]
    identify_log: list[dict[str, Any]]
    typing: list[int]
    errors: BotErrorCapture
    clock: rules.InteractionClock
    deprecations: list[str]
    command_creates: dict[int | None, int]
    observers: list[MessageObserver]
    port: int
    _dm_channels: dict[int, Channel]
    _bots: dict[discord.Client, asyncio.Task[None]]
    _bot_sessions: dict[discord.Client, list[GatewaySession]]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def observe(self, event: str, stored: StoredMessage) -> None:
        """Tell the observers a message was created, updated or deleted."""
        for observer in list(self.observers):
            observer(event, stored)

    def stored(self, message: dict[str, Any] | int | StoredMessage) -> StoredMessage:
        """Return the live record of a message (from its dict, id or record)."""
        if isinstance(message, StoredMessage):
            return message
        message_id = message if isinstance(message, int) else int(message["id"])
        try:
            return self.messages[message_id]
        except KeyError:
            raise AssertionError(f"the emulator knows no message {message_id}") from None
