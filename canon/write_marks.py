"""Whether anything was written to the database since: a mark read before a read, compared later.

`WriteMarks.mark()` returns a value that changes whenever any connection, of this process or of another, commits
a write to the database:

- SQLite: `PRAGMA data_version` of a connection of its own that never writes (it moves with every commit made
  by any other connection to the file);
- PostgreSQL: the current transaction snapshot (the next transaction id and the ids in progress): a write takes
  a transaction id, so it moves the next id when it begins and leaves the list in progress when it ends.

Equal marks read at two moments mean nothing was committed in between, so whatever was read from the database
after the first mark still holds at the second. The mark moves with writes to any table of any campaign (it
tells nothing about which): a cache keyed by it is never stale, only sometimes rebuilt for nothing. A mark that
cannot be read (an in-memory database, a locked file, a lost connection, PostgreSQL before 13) is None: nothing
read then may be kept under it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable

from sqlalchemy import text
from sqlalchemy.engine import make_url

from canon.storage import Database

#: How long the SQLite mark waits for a lock before it gives up (no mark: nothing is kept).
SQLITE_MARK_TIMEOUT_S = 0.05
PG_SNAPSHOT = text("SELECT pg_current_snapshot()::text")


class WriteMarks:
    """The database's write mark (see the module's doc), for one `Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._connection: sqlite3.Connection | None = None
        #: Bumped each time the SQLite connection is opened again: marks of two connections never compare equal.
        self._opened = 0
        self._path = _sqlite_file(db)

    async def mark(self) -> Hashable | None:
        """Return the database's write mark now (read it before the reads it vouches for), or None when it
        cannot be read (keep nothing then)."""
        if self.db.is_sqlite:
            return self._sqlite_mark()
        try:
            async with self.db.read_engine.connect() as connection:
                return str((await connection.execute(PG_SNAPSHOT)).scalar_one())
        except Exception:  # no mark: the caller reads afresh and keeps nothing
            return None

    def _sqlite_mark(self) -> Hashable | None:
        if self._path is None:
            return None
        try:
            if self._connection is None:
                self._opened += 1
                self._connection = sqlite3.connect(
                    self._path,
                    timeout=SQLITE_MARK_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
            # A few microseconds (the WAL index in shared memory): read in the event loop's own thread.
            version = self._connection.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            self.close()
            return None
        return (self._opened, int(version))

    def close(self) -> None:
        """Close the SQLite connection (the next mark opens another, and compares equal to no earlier one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _sqlite_file(db: Database) -> str | None:
    """Return the SQLite database file a mark connection opens, or None (not SQLite, or in memory)."""
    if not db.is_sqlite:
        return None
    url = make_url(str(db.read_engine.url))
    database = url.database or ""
    if url.query.get("uri") or not database or database == ":memory:" or "mode=memory" in database:
        return None
    return database
