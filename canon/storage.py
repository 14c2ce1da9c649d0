"""The SQL storage base every layer builds on: declarative base, column types, engine and sessions.

SQLite (through aiosqlite) is the default: WAL journal, foreign keys on, a busy timeout. PostgreSQL (through
asyncpg) works with the same models. The schema itself is created by Alembic migrations (`bot/migrations`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

import aiosqlite
import orjson
from sqlalchemy import BigInteger, DateTime, Dialect, Integer, MetaData, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

from canon.shown_writes import track

T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 10_000

# An autoincrementing 64-bit key: SQLite only autoincrements INTEGER PRIMARY KEY, PostgreSQL gets BIGINT.
BigIntPK = BigInteger().with_variant(Integer(), "sqlite")


def utc_now() -> dt.datetime:
    """Return the current time, timezone-aware, in UTC."""
    return dt.datetime.now(dt.UTC)


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite forgets the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use canon.storage.utc_now()")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """The declarative base of every Lorekeeper table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def is_sqlite(url: str) -> bool:
    """Return whether a database URL names SQLite."""
    return make_url(url).get_backend_name() == "sqlite"


class _OneTripCursor:
    """An aiosqlite-shaped cursor that runs a statement and fetches its rows in one trip to the driver's thread.

    aiosqlite makes four trips per statement (open a cursor, execute, fetch, close), each a hand-off to the
    connection's thread and back through the event loop. Under load every trip waited for a turn of a busy
    loop, so a write transaction of a few dozen statements held SQLite's one write lock for seconds while
    the turn log queued behind it.
    """

    arraysize = 1

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self._rows: list[Any] = []

    async def __aenter__(self) -> _OneTripCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def execute(self, sql: str, parameters: Any = None) -> _OneTripCursor:
        await self._run(sql, () if parameters is None else parameters, many=False)
        return self

    async def executemany(self, sql: str, parameters: Any) -> _OneTripCursor:
        await self._run(sql, parameters, many=True)
        return self

    async def _run(self, sql: str, parameters: Any, *, many: bool) -> None:
        connection = self._connection
        # aiosqlite's own queue to its thread (`_execute` is untyped): the statement and its rows, one trip.
        run: Callable[..., Awaitable[tuple[Any, int, int | None, list[Any]]]] = connection._execute
        result = await run(_run_statement, connection._conn, sql, parameters, many)
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
    connection: sqlite3.Connection, sql: str, parameters: Any, many: bool
) -> tuple[Any, int, int | None, list[Any]]:
    """Execute one statement and fetch all its rows (in the connection's own thread)."""
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


class _OneTripConnection(aiosqlite.Connection):
    """An aiosqlite connection whose cursors make one trip per statement (see `_OneTripCursor`)."""

    def cursor(self) -> _OneTripCursor:  # type: ignore[override]
        """Return a cursor (no trip: the driver's cursor is made with each statement)."""
        return _OneTripCursor(self)

    async def rollback(self) -> None:
        """Roll back; no trip when no transaction is open (the pool resets each connection it gets back)."""
        if self._conn.in_transaction:  # statements are awaited one by one: none is running now
            await super().rollback()


def _sqlite_engine(url: str, *, echo: bool, writer: bool) -> AsyncEngine:
    """Return a SQLite engine whose transactions begin with our own BEGIN (IMMEDIATE for the writer).

    The driver's implicit transactions are switched off (`isolation_level=None`) so that SAVEPOINTs work
    and each transaction starts with our BEGIN: the single writer connection takes the write lock up front
    (no lock upgrades that could fail), and readers, in WAL mode, never wait for it.
    """
    parsed = make_url(url)

    def connect() -> sqlite3.Connection:  # runs in the connection's own thread
        args, options = engine.dialect.create_connect_args(parsed)
        connection = sqlite3.connect(
            str(args[0]),
            timeout=SQLITE_BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            uri=bool(options.get("uri", False)),
        )
        for pragma in (
            "journal_mode=WAL",
            "synchronous=NORMAL",
            "foreign_keys=ON",
            f"busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
        ):
            connection.execute(f"PRAGMA {pragma}")
        return connection

    async def open_connection() -> aiosqlite.Connection:
        connection: aiosqlite.Connection = await _OneTripConnection(connect, 64)
        return connection

    engine = create_async_engine(
        url,
        echo=echo,
        json_serializer=json_text,
        async_creator=open_connection,
        # Readers stay open: an overflow connection is closed on return, and reopening one (a thread, the
        # PRAGMAs) for every burst of reads costs more than the idle connections.
        pool_size=1 if writer else 15,
        max_overflow=0 if writer else 5,
        pool_timeout=300,
    )

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    return engine


def json_text(value: Any) -> str:
    """Serialise a JSON column's value (orjson: a big import's file records cost a fifth of `json.dumps`).

    As `json.dumps` reads them, but compact and in UTF-8; keys that are not strings (ids) become strings.
    """
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def split_search_path(url: str) -> tuple[str, str | None]:
    """Return a PostgreSQL URL without its `search_path` query parameter, and that parameter (or None).

    `postgresql+asyncpg://user@host/db?search_path=lorekeeper` keeps Lorekeeper's tables in the schema
    `lorekeeper` (it must exist) of a database shared with others, as asyncpg's own DSNs read it. The
    driver takes no such argument: the engine gets the URL without it and sets it on each connection.
    """
    parsed = make_url(url)
    schema = parsed.query.get("search_path")
    if schema is None:
        return url, None
    if not isinstance(schema, str) or not schema.strip():
        raise ValueError("search_path must be given once, with a schema name: ?search_path=lorekeeper")
    bare = parsed.difference_update_query(["search_path"])
    return bare.render_as_string(hide_password=False), schema


#: Connections of PostgreSQL's pool for everything, and of the small one kept for urgent writes (the turn log's
#: group commits), so that turns never queue behind commands holding every connection of the first.
PG_POOL = (10, 10)
PG_URGENT_POOL = (2, 0)


def create_engine(
    url: str,
    *,
    echo: bool = False,
    search_path: str | None = None,
    writer: bool = True,
    pool: tuple[int, int] = PG_POOL,
    pool_timeout: float = 30,
) -> AsyncEngine:
    """Create an async engine for SQLite or PostgreSQL with Lorekeeper's connection settings.

    On SQLite, `writer=True` gives the one-connection engine all writes go through, else a pool of readers.
    `search_path` puts a PostgreSQL connection in one schema; so does a `?search_path=` in the URL (see
    `split_search_path`), which the argument overrides.
    """
    if is_sqlite(url):
        return _sqlite_engine(url, echo=echo, writer=writer)
    url, in_url = split_search_path(url)
    search_path = search_path or in_url
    connect_args: dict[str, Any] = {}
    if search_path:
        connect_args["server_settings"] = {"search_path": search_path}
    return create_async_engine(
        url,
        echo=echo,
        json_serializer=json_text,
        pool_pre_ping=True,
        pool_size=pool[0],
        max_overflow=pool[1],
        pool_timeout=pool_timeout,
        connect_args=connect_args,
    )


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


class _WriterTurns:
    """Who takes SQLite's one writer connection next: urgent writes (group commits) before the others.

    The pool alone queues writers first come, first served, so a batch of turns waited behind every command
    already queued; now it waits for the one transaction holding the connection at most.
    """

    def __init__(self) -> None:
        self._busy = False
        self._waiting: tuple[deque[asyncio.Future[None]], deque[asyncio.Future[None]]] = (deque(), deque())

    async def acquire(self, *, urgent: bool) -> None:
        """Wait for the writer's turn."""
        if not self._busy:
            self._busy = True
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting[0 if urgent else 1]
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed the turn just as we were cancelled: pass it on
            elif turn in queue:
                queue.remove(turn)
            raise

    def release(self) -> None:
        """Hand the writer to the next in line (urgent first)."""
        for queue in self._waiting:
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._busy = False


class _ProbeWritten(Exception):
    """A write probe went through (raised to roll it back)."""


class Database:
    """The engines and session factories; services open sessions and own their transactions.

    Writes go through `run()` (on SQLite: the single writer connection, BEGIN IMMEDIATE); reads through
    `session()` (a pool of readers). On PostgreSQL both use the same pooled engine.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        read_engine: AsyncEngine | None = None,
        urgent_engine: AsyncEngine | None = None,
    ) -> None:
        self.engine = engine
        self.read_engine = read_engine or engine
        #: PostgreSQL: a small pool of its own for urgent writes (the turn log), never starved by commands.
        self.urgent_engine = urgent_engine or engine
        for each in (self.engine, self.read_engine, self.urgent_engine):
            track(
                each
            )  # every commit of what readers are shown moves the content mark (`canon.shown_writes`)
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        self.read_sessions = async_sessionmaker(self.read_engine, expire_on_commit=False)
        self.urgent_sessions = async_sessionmaker(self.urgent_engine, expire_on_commit=False)
        # SQLite has one writer; PostgreSQL's writers run side by side and need no turns.
        self._writer = _WriterTurns() if self.is_sqlite else None
        #: The URL and schema it was made from (`from_url`): another loop opens its own engines from them.
        self.source: tuple[str, str | None] | None = None

    @classmethod
    def from_url(
        cls, url: str, *, echo: bool = False, search_path: str | None = None, pool_timeout: float = 30
    ) -> Database:
        """Create a database for a URL (a PostgreSQL URL may name its schema: `?search_path=NAME`).

        `pool_timeout`: how long a PostgreSQL command waits for a free connection before it is told the
        database is busy (the turn log waits on, never dropping a turn).
        """
        if is_sqlite(url):
            made = cls(create_engine(url, echo=echo), create_engine(url, echo=echo, writer=False))
        else:
            writer = create_engine(url, echo=echo, search_path=search_path, pool_timeout=pool_timeout)
            urgent = create_engine(
                url, echo=echo, search_path=search_path, pool=PG_URGENT_POOL, pool_timeout=pool_timeout
            )
            made = cls(writer, None, urgent)
        made.source = (url, search_path)
        return made

    @property
    def url(self) -> str:
        """Return the database URL, password hidden."""
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def is_sqlite(self) -> bool:
        """Return whether this database is SQLite."""
        return self.engine.dialect.name == "sqlite"

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """Open a session for reading (writes go through `run`)."""
        async with self.read_sessions() as session:
            yield session

    async def run(
        self,
        work: Callable[[AsyncSession], Awaitable[T]],
        *,
        attempts: int = 5,
        backoff: float = 0.05,
        urgent: bool = False,
    ) -> T:
        """Run `work` in one transaction, retrying the whole transaction on transient errors.

        `urgent` writes (short group commits that many callers wait for, like the turn log's) take SQLite's
        writer before the others waiting for it.
        """
        sessions = self.urgent_sessions if urgent else self.sessions
        for attempt in range(1, attempts + 1):
            try:
                async with self._writer_turn(urgent), sessions() as session, session.begin():
                    return await work(session)
            except (OperationalError, DBAPIError, ConnectionError) as error:
                if attempt == attempts or not is_transient(error):
                    raise
                await asyncio.sleep(backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def writer_turn(self) -> AbstractAsyncContextManager[None]:
        """Hold SQLite's writer turn (no-op on PostgreSQL): for a write made through engines of its own."""
        return self._writer_turn(False)

    @asynccontextmanager
    async def _writer_turn(self, urgent: bool) -> AsyncIterator[None]:
        if self._writer is None:
            yield
            return
        await self._writer.acquire(urgent=urgent)
        try:
            yield
        finally:
            self._writer.release()

    async def write_fault(self) -> str | None:
        """Return why the database takes no write now, in plain words (`READ_ONLY`, `DISK_FULL`, ...), or None.

        The probe rewrites the migration mark onto itself in a transaction it rolls back: nothing changes. An
        error that is not the storage's (no schema yet, say) is raised.
        """

        async def probe(session: AsyncSession) -> None:
            await session.execute(text("UPDATE alembic_version SET version_num = version_num"))
            raise _ProbeWritten  # the write went through: roll it back

        try:
            await self.run(probe, attempts=1)
        except _ProbeWritten:
            return None
        except Exception as error:
            fault = storage_fault(error)
            if fault is None:
                raise
            return fault
        raise AssertionError("unreachable")  # pragma: no cover

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
        if self.read_engine is not self.engine:
            await self.read_engine.dispose()
        if self.urgent_engine is not self.engine:
            await self.urgent_engine.dispose()
