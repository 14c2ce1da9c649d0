"""The load benchmark's report of the bot's errors: whole records, traceback included, counted by exception."""

from __future__ import annotations

import asyncio

from bench.load_process import BotProcess, error_types

STDERR = b"""2026-12-04 10:00:00,001 WARNING bot.client.client: database unavailable after retries
2026-12-04 10:00:01,002 ERROR   bot.client.client: unexpected error 1a2b3c4d [command=propose fact]
Traceback (most recent call last):
  File "/app/bot/services/proposal_service.py", line 10, in propose
    await self.db.run(work)
sqlalchemy.exc.TimeoutError: QueuePool limit of size 10 overflow 10 reached, connection timed out
2026-12-04 10:00:02,003 ERROR   memory.turn_log: could not log a turn
Traceback (most recent call last):
  File "/app/memory/turn_log.py", line 345, in _run_until_stored
sqlalchemy.exc.TimeoutError: QueuePool limit of size 10 overflow 10 reached
2026-12-04 10:00:03,004 ERROR   bot.ops.scheduler: the scheduler's wake-up failed
2026-12-04 10:00:04,005 INFO    bot.client.client: ready
"""


class Stderr:
    """The bot process's stderr, as asyncio's subprocess gives it: lines."""

    def __init__(self, data: bytes) -> None:
        self.lines = data.splitlines(keepends=True)

    def __aiter__(self) -> Stderr:
        return self

    async def __anext__(self) -> bytes:
        if not self.lines:
            raise StopAsyncIteration
        return self.lines.pop(0)


def test_errors_are_kept_whole_and_counted_by_exception() -> None:
    bot = BotProcess(emu=None, env={})  # type: ignore[arg-type]
    bot.proc = type("Proc", (), {"stderr": Stderr(STDERR)})()  # type: ignore[assignment]
    asyncio.run(bot._err())
    assert len(bot.errors) == 3  # the warning and the information are not errors
    first = bot.errors[0].splitlines()
    assert first[0].endswith("unexpected error 1a2b3c4d [command=propose fact]")
    assert first[-1].startswith("sqlalchemy.exc.TimeoutError: QueuePool limit")
    assert "proposal_service.py" in bot.errors[0]
    assert error_types(bot.errors) == {
        "sqlalchemy.exc.TimeoutError": 2,
        "the scheduler's wake-up failed": 1,
    }
