"""Live updates: every message change reaches the pages that may see it, as server-sent events."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bot.offline.emulator import DiscordEmulator, StoredMessage

from .views import message_view, visible_to
from .world import SandboxWorld

log = logging.getLogger(__name__)

#: Events a page may fall behind by before it is dropped (it reconnects and reloads the channel).
QUEUE_SIZE = 2000
#: Seconds between keep-alive comments, so that proxies and the browser keep the stream open.
KEEPALIVE_SECONDS = 15.0


@dataclass(eq=False)
class Subscriber:
    """One open page: whose eyes it looks through, and the events waiting to be sent to it."""

    user_id: int
    queue: asyncio.Queue[tuple[str, dict[str, Any]] | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_SIZE)
    )

    def push(self, event: str, data: dict[str, Any]) -> bool:
        """Queue an event; False when the page fell too far behind (it is then closed)."""
        try:
            self.queue.put_nowait((event, data))
        except asyncio.QueueFull:
            return False
        return True


class LiveHub:
    """Fan message changes and private notices out to the open pages, each seeing only what it may."""

    def __init__(self, emu: DiscordEmulator, world: SandboxWorld) -> None:
        self.emu = emu
        self.world = world
        self.subscribers: set[Subscriber] = set()

    def subscribe(self, user_id: int) -> Subscriber:
        """Open a stream for a page looking as ``user_id``."""
        subscriber = Subscriber(user_id)
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Forget a closed page."""
        self.subscribers.discard(subscriber)

    def on_message(self, event: str, message: StoredMessage) -> None:
        """Tell every page that may see it that a message was created, edited or deleted (an observer)."""
        if message.channel.guild is not self.world.guild:
            return
        if event == "MESSAGE_DELETE":
            payload: dict[str, Any] = {
                "op": "delete",
                "id": str(message.id),
                "channel_id": str(message.channel.id),
            }
        else:
            op = "create" if event == "MESSAGE_CREATE" else "update"
            payload = {"op": op, "message": message_view(message, self.emu, self.world)}
        for subscriber in list(self.subscribers):
            if visible_to(message, subscriber.user_id):
                self._send(subscriber, "message", payload)

    def notify(self, user_id: int, text: str, *, level: str = "info") -> None:
        """Show one person a notice from the sandbox itself (not from the bot): "the bot did not answer"."""
        for subscriber in list(self.subscribers):
            if subscriber.user_id == user_id:
                self._send(subscriber, "notice", {"text": text, "level": level})

    def broadcast(self, event: str, data: dict[str, Any]) -> None:
        """Tell every page something (the sample world finished loading)."""
        for subscriber in list(self.subscribers):
            self._send(subscriber, event, data)

    def close(self) -> None:
        """End every stream (the sandbox is stopping)."""
        for subscriber in list(self.subscribers):
            subscriber.queue.put_nowait(None)
        self.subscribers.clear()

    def _send(self, subscriber: Subscriber, event: str, data: dict[str, Any]) -> None:
        if not subscriber.push(event, data):
            log.warning("a page fell behind its live updates; it will reconnect and reload")
            self.unsubscribe(subscriber)
            subscriber.queue = asyncio.Queue(1)
            subscriber.queue.put_nowait(None)


async def event_stream(subscriber: Subscriber) -> AsyncIterator[bytes]:
    """Yield a subscriber's events in the server-sent events format, with keep-alive comments."""
    yield b"retry: 1000\n\n"
    while True:
        try:
            item = await asyncio.wait_for(subscriber.queue.get(), KEEPALIVE_SECONDS)
        except TimeoutError:
            yield b": keep-alive\n\n"
            continue
        if item is None:
            return
        event, data = item
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        yield f"event: {event}\ndata: {body}\n\n".encode()
