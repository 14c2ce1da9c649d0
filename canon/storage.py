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
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

from canon.one_trip_sqlite import OneTripConnection
from canon.shown_writes import track
from canon.storage_faults import is_transient, storage_fault

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
        connection: aiosqlite.Connection = await OneTripConnection(connect, 64)
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
        if writer:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            # A reader's BEGIN (deferred: it reads nothing until the first statement) goes with that statement,
            # in its one trip to the connection's thread (`OneTripConnection.begin_with_next`).
            connection.connection.driver_connection.begin_with_next("BEGIN")

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
