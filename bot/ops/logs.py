"""Logging: one line per record on stderr, carrying the campaign, scene and command being handled."""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator

# Never mutated in place (every change sets a new dict), so one shared empty default is safe.
_EMPTY: dict[str, object] = {}
_context: contextvars.ContextVar[dict[str, object]] = contextvars.ContextVar(
    "lorekeeper_log_context", default=_EMPTY
)

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s%(context)s"


class ContextFilter(logging.Filter):
    """Append ` [campaign=.. scene=.. command=..]` to every record from the current context."""

    def filter(self, record: logging.LogRecord) -> bool:
        values = _context.get()
        record.context = (" [" + " ".join(f"{k}={v}" for k, v in values.items()) + "]") if values else ""
        return True


@contextlib.contextmanager
def log_context(**values: object) -> Iterator[None]:
    """Add values (campaign, scene, command, ...) to every log record inside the block."""
    merged = {**_context.get(), **{k: v for k, v in values.items() if v is not None}}
    token = _context.set(merged)
    try:
        yield
    finally:
        _context.reset(token)


def bind_log_context(**values: object) -> None:
    """Add values to the log context of the current task until it ends (an interaction's own task)."""
    _context.set({**_context.get(), **{k: v for k, v in values.items() if v is not None}})


def current_log_context() -> dict[str, object]:
    """Return the values the current task's log records carry."""
    return dict(_context.get())


def install(level: str) -> None:
    """Configure the root logger for the bot process."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Libraries' DEBUG output drowns ours (aiosqlite logs every cursor call): they stay at INFO or above.
    for noisy in ("discord", "aiosqlite", "asyncio", "chromadb", "httpx", "httpcore", "openai"):
        logging.getLogger(noisy).setLevel(max(logging.INFO, logging.getLevelName(level)))
    logging.getLogger("sqlalchemy").setLevel(logging.WARNING)  # INFO would echo every statement
