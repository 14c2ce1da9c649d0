"""Collect ERROR log records so a test fails when a bot handler broke silently.

discord.py only logs exceptions raised in commands, Views and event listeners, and drops unknown
commands and custom ids without a word; a broken handler then shows only as a timeout. Install
the capture in a fixture and fail at teardown when it is not empty::

    @pytest.fixture
    def bot_errors():
        with capture_bot_errors() as errors:
            yield errors
        errors.assert_no_errors()

A test that provokes an error on purpose checks it, then calls ``errors.clear()``.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterator
from contextlib import contextmanager


class BotErrorCapture(logging.Handler):
    """A logging handler that keeps every record at ERROR or above."""

    def __init__(self, level: int = logging.ERROR) -> None:
        super().__init__(level)
        self.records: list[logging.LogRecord] = []
        self._seen: set[int] = set()
        self._loggers: list[logging.Logger] = []

    def emit(self, record: logging.LogRecord) -> None:
        # Installed on the root logger and on "discord": a record propagating through both arrives twice.
        if id(record) in self._seen:
            return
        self._seen.add(id(record))
        self.records.append(record)

    def install(self, *logger_names: str) -> None:
        """Attach to the root logger and to the named loggers (ones that may not propagate)."""
        for name in ("", "discord", *logger_names):
            logger = logging.getLogger(name)
            logger.addHandler(self)
            self._loggers.append(logger)

    def uninstall(self) -> None:
        """Detach from every logger this handler was installed on."""
        for logger in self._loggers:
            logger.removeHandler(self)
        self._loggers.clear()

    def clear(self) -> None:
        """Forget the records collected so far (after a test checked an expected error)."""
        self.records.clear()
        self._seen.clear()

    def messages(self) -> list[str]:
        """Return each record's message, for assertions."""
        return [r.getMessage() for r in self.records]

    def format_records(self, records: list[logging.LogRecord] | None = None) -> str:
        """Format records with their tracebacks, for failure messages."""
        parts = []
        for record in self.records if records is None else records:
            text = f"[{record.name}] {record.levelname}: {record.getMessage()}"
            if record.exc_info and record.exc_info[1] is not None:
                text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
            parts.append(text)
        return "\n".join(parts)

    def assert_no_errors(self) -> None:
        """Raise AssertionError listing every collected record, if there is any."""
        if self.records:
            raise AssertionError(
                f"{len(self.records)} error(s) were logged during the test:\n{self.format_records()}"
            )


@contextmanager
def capture_bot_errors(*logger_names: str, level: int = logging.ERROR) -> Iterator[BotErrorCapture]:
    """Record every log record at ``level`` or above from any logger while the block runs."""
    capture = BotErrorCapture(level)
    capture.install(*logger_names)
    try:
        yield capture
    finally:
        capture.uninstall()
