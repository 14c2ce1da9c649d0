"""aiosqlite connections whose statements make one trip each to the driver's thread.

`canon.storage` opens every SQLite connection as a `OneTripConnection`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import aiosqlite


class OneTripCursor:
    """An aiosqlite-shaped cursor that runs a statement and fetches its rows in one trip to the driver's thread.

    aiosqlite makes four trips per statement (open a cursor, execute, fetch, close), each a hand-off to the
    connection's thread and back through the event loop. Under load every trip waited for a turn of a busy
    loop, so a write transaction of a few dozen statements held SQLite's one write lock for seconds while
    the turn log queued behind it.
    """

    arraysize = 1

    def __init__(self, connection: OneTripConnection) -> None:
        self._connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self._rows: list[Any] = []

    async def __aenter__(self) -> OneTripCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def execute(self, sql: str, parameters: Any = None) -> OneTripCursor:
        await self._run(sql, () if parameters is None else parameters, many=False)
        return self

    async def executemany(self, sql: str, parameters: Any) -> OneTripCursor:
        await self._run(sql, parameters, many=True)
        return self

    async def _run(self, sql: str, parameters: Any, *, many: bool) -> None:
        connection = self._connection
        # aiosqlite's own queue to its thread (`_execute` is untyped): the statement and its rows, one trip.
        run: Callable[..., Awaitable[tuple[Any, int, int | None, list[Any]]]] = connection._execute
        begin, connection.pending_begin = connection.pending_begin, None
        result = await run(_run_statement, connection._conn, sql, parameters, many, begin)
        self.description, self.rowcount, self.lastrowid, self._rows = result

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        count = size or self.arraysize
        rows, self._rows = self._rows[:count], self._rows[count:]
        return rows

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def close(self) -> None:
        self._rows = []


def _run_statement(
    connection: sqlite3.Connection, sql: str, parameters: Any, many: bool, begin: str | None = None
) -> tuple[Any, int, int | None, list[Any]]:
    """Execute one statement and fetch all its rows (in the connection's own thread), after `begin` (the BEGIN
    of its transaction, when it is the transaction's first statement)."""
    if begin is not None:
        connection.execute(begin)
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, parameters)
        rows = cursor.fetchall() if cursor.description else []
        return cursor.description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


class OneTripConnection(aiosqlite.Connection):
    """An aiosqlite connection whose cursors make one trip per statement (see `OneTripCursor`)."""

    #: The BEGIN to run before the next statement, in its trip (`begin_with_next`); None: none waits.
    pending_begin: str | None = None

    def cursor(self) -> OneTripCursor:  # type: ignore[override]
        """Return a cursor (no trip: the driver's cursor is made with each statement)."""
        return OneTripCursor(self)

    def begin_with_next(self, begin: str) -> None:
        """Begin a transaction with the next statement, in its trip (no trip of its own): for a deferred BEGIN,
        which takes no lock and reads nothing until that statement, the same transaction as begun now."""
        self.pending_begin = begin

    async def commit(self) -> None:
        """Commit (a BEGIN still waiting for a statement is dropped: nothing was begun)."""
        self.pending_begin = None
        await super().commit()

    async def rollback(self) -> None:
        """Roll back; no trip when no transaction is open (the pool resets each connection it gets back)."""
        self.pending_begin = None
        if self._conn.in_transaction:  # statements are awaited one by one: none is running now
            await super().rollback()
