"""Debounce: run an action once things have been quiet for a while (the narrator after a burst of turns)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)


class Debouncer:
    """Per key, run the last scheduled action `delay` seconds after the last `schedule` call.

    A new call for a key restarts its wait; an action already running is never cancelled by a new call (the
    next one waits its turn). `close` cancels what is still waiting.
    """

    def __init__(self) -> None:
        self._waiting: dict[Hashable, asyncio.Task[None]] = {}
        self._running: set[asyncio.Task[None]] = set()

    def schedule(self, key: Hashable, delay: float, action: Callable[[], Awaitable[None]]) -> None:
        """(Re)start the wait for `key`; when it ends, run `action`."""
        previous = self._waiting.pop(key, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.create_task(self._wait_then_run(key, delay, action), name=f"lorekeeper-debounce-{key}")
        self._waiting[key] = task

    async def _wait_then_run(
        self, key: Hashable, delay: float, action: Callable[[], Awaitable[None]]
    ) -> None:
        await asyncio.sleep(delay)
        current = asyncio.current_task()
        if self._waiting.get(key) is current:
            del self._waiting[key]
        if current is not None:
            self._running.add(current)
        try:
            await action()
        except Exception:
            log.exception("a debounced action for %s failed", key)
        finally:
            if current is not None:
                self._running.discard(current)

    def pending(self, key: Hashable) -> bool:
        """Return whether an action for `key` is waiting."""
        return key in self._waiting

    @property
    def busy(self) -> bool:
        """Return whether anything is waiting or running."""
        return bool(self._waiting or self._running)

    async def close(self) -> None:
        """Cancel every waiting action and wait for the running ones."""
        for task in list(self._waiting.values()):
            task.cancel()
        waiting = list(self._waiting.values())
        self._waiting.clear()
        for task in waiting:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
