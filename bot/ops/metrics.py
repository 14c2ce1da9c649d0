"""Command latencies: from an interaction's receipt to the command's completion, a ring buffer per server and
command (a server's admin sees their own server's commands only)."""

from __future__ import annotations

import threading
from collections import deque

from pydantic import BaseModel, ConfigDict

WINDOW = 500


class Latency(BaseModel):
    """A command's recent latency in one server: how many calls, their median and 95th percentile."""

    model_config = ConfigDict(frozen=True)

    count: int
    p50_ms: float
    p95_ms: float


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (0-100) by the nearest rank of sorted values (0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


class CommandLatencies:
    """The last `WINDOW` latencies (seconds) of each command of each server, and of all its commands together."""

    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self._by_command: dict[tuple[int | None, str], deque[float]] = {}
        self._all: dict[int | None, deque[float]] = {}
        self.errors = 0
        self._lock = threading.Lock()

    def record(
        self, command: str, seconds: float, *, guild_id: int | None = None, failed: bool = False
    ) -> None:
        """Record one command's latency in a server (None: a direct message)."""
        with self._lock:
            self._by_command.setdefault((guild_id, command), deque(maxlen=self.window)).append(seconds)
            self._all.setdefault(guild_id, deque(maxlen=self.window * 4)).append(seconds)
            if failed:
                self.errors += 1

    def summary(self, guild_id: int | None = None) -> dict[str, Latency]:
        """Return count, p50 and p95 (milliseconds) per command of one server, and for `*` (all of them)."""
        with self._lock:
            series = {name: list(v) for (guild, name), v in self._by_command.items() if guild == guild_id}
            series["*"] = list(self._all.get(guild_id, ()))
        return {
            name: Latency(
                count=len(values),
                p50_ms=round(percentile(values, 50) * 1000, 1),
                p95_ms=round(percentile(values, 95) * 1000, 1),
            )
            for name, values in series.items()
            if values
        }
