"""What is wrong with the storage, in plain words: a database error read as a fault of the disk or the server.

`is_transient` says whether an error is worth retrying (`canon.storage.Database.run` retries those);
`storage_fault` names the fault for the GM and the logs, or None when the error is not the storage's.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout


def is_transient(error: BaseException) -> bool:
    """Return whether a database error is worth retrying (a locked SQLite file, a dropped connection)."""
    if isinstance(error, OperationalError):
        text = str(error.orig).lower() if error.orig is not None else str(error).lower()
        return "locked" in text or "busy" in text or "connection" in text or "closed" in text
    if isinstance(error, DBAPIError):
        return bool(error.connection_invalidated)
    return isinstance(error, ConnectionError | OSError)


#: Storage faults in plain words, for the GM and the logs (`storage_fault`).
DISK_FULL = "the disk is full"
READ_ONLY = "the database is read-only"
DISK_ERROR = "the disk could not be read or written"
UNREACHABLE = "the database is unreachable"
BUSY = "the database is busy"

_SQLITE_FAULTS = {
    "SQLITE_FULL": DISK_FULL,
    "SQLITE_READONLY": READ_ONLY,
    "SQLITE_IOERR": DISK_ERROR,
    "SQLITE_CANTOPEN": DISK_ERROR,
    "SQLITE_BUSY": BUSY,
    "SQLITE_LOCKED": BUSY,
}
_SQLITE_TEXTS = (
    ("disk is full", DISK_FULL),
    ("readonly database", READ_ONLY),
    ("read-only", READ_ONLY),
    ("disk i/o error", DISK_ERROR),
    ("unable to open database", DISK_ERROR),
    ("locked", BUSY),
    ("busy", BUSY),
)
# PostgreSQL SQLSTATE classes and codes: 53100 disk_full, 25006 read_only_sql_transaction, 58030 io_error,
# class 08 connection exceptions, 57P01-57P03 shutting down or starting up, 53xxx other resources.
_PG_FAULTS = {"53100": DISK_FULL, "25006": READ_ONLY, "58030": DISK_ERROR}
_PG_CLASSES = {"08": UNREACHABLE, "57": UNREACHABLE, "53": BUSY}
_OS_FAULTS = {28: DISK_FULL, 30: READ_ONLY, 5: DISK_ERROR, 13: READ_ONLY}


def storage_fault(error: BaseException) -> str | None:
    """Return what is wrong with the storage in plain words (`DISK_FULL`, `READ_ONLY`, ...), or None.

    None means the error is not the storage's fault (a bug, a constraint): retrying would not help.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _fault_of(current)
        if found is not None:
            return found
        current = getattr(current, "orig", None) or current.__cause__
    return None


def _fault_of(error: BaseException) -> str | None:
    name = getattr(error, "sqlite_errorname", None)
    if isinstance(name, str):
        for prefix, fault in _SQLITE_FAULTS.items():
            if name.startswith(prefix):
                return fault
    state = getattr(error, "sqlstate", None)
    if isinstance(state, str) and state:
        return _PG_FAULTS.get(state) or _PG_CLASSES.get(state[:2])
    if isinstance(error, sqlite3.Error):
        text = str(error).lower()
        return next((fault for words, fault in _SQLITE_TEXTS if words in text), None)
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return UNREACHABLE
    if isinstance(error, PoolTimeout):  # every connection of the pool stayed busy for its whole timeout
        return BUSY
    if isinstance(error, ConnectionError | TimeoutError):
        return UNREACHABLE
    if isinstance(error, OSError):
        return _OS_FAULTS.get(error.errno or 0, UNREACHABLE if error.errno is None else None)
    return None
