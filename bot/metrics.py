"""Command latencies: from an interaction's receipt to the command's completion, in a ring buffer per command."""

from __future__ import annotations

import threading
from collections import deque

WINDOW = 500


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (0-100) by the nearest rank of sorted values (0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


class CommandLatencies:
    """The last `WINDOW` latencies (seconds) of each command and of all commands together."""

    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self._by_command: dict[str, deque[float]] = {}
        self._all: deque[float] = deque(maxlen=window * 4)
        self.errors = 0
        self._lock = threading.Lock()

    def record(self, command: str, seconds: float, *, failed: bool = False) -> None:
        """Record one command's latency."""
        with self._lock:
            self._by_command.setdefault(command, deque(maxlen=self.window)).append(seconds)
            self._all.append(seconds)
            if failed:
                self.errors += 1

    def summary(self) -> dict[str, dict[str, float]]:
        """Return count, p50 and p95 (milliseconds) per command and for `*` (all)."""
        with self._lock:
            series = {name: list(values) for name, values in self._by_command.items()}
            series["*"] = list(self._all)
        return {
            name: {
                "count": len(values),
                "p50_ms": round(percentile(values, 50) * 1000, 1),
                "p95_ms": round(percentile(values, 95) * 1000, 1),
            }
            for name, values in series.items()
            if values
        }
