"""The SQL storage base every layer builds on: declarative base, column types, engine and sessions.

SQLite (through aiosqlite) is the default: WAL journal, foreign keys on, a busy timeout. PostgreSQL (through
asyncpg) works with the same models. The schema itself is created by Alembic migrations (`bot/migrations`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from sqlalchemy import BigInteger, DateTime, Dialect, Integer, MetaData, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

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

    The driver's implicit transactions are switched off (`isolation_level = None`) so that SAVEPOINTs work
    and each transaction starts with our BEGIN: the single writer connection takes the write lock up front
    (no lock upgrades that could fail), and readers, in WAL mode, never wait for it.
    """
    engine = create_async_engine(
        url,
        echo=echo,
        pool_size=1 if writer else 5,
        max_overflow=0 if writer else 10,
        pool_timeout=300,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    return engine


def create_engine(
    url: str, *, echo: bool = False, search_path: str | None = None, writer: bool = True
) -> AsyncEngine:
    """Create an async engine for SQLite or PostgreSQL with Lorekeeper's connection settings.

    On SQLite, `writer=True` gives the one-connection engine all writes go through, else a pool of readers.
    `search_path` puts a PostgreSQL connection in one schema (the tests give each test its own).
    """
    if is_sqlite(url):
        return _sqlite_engine(url, echo=echo, writer=writer)
    connect_args: dict[str, Any] = {}
    if search_path:
        connect_args["server_settings"] = {"search_path": search_path}
    return create_async_engine(
        url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=10, connect_args=connect_args
    )


def is_transient(error: BaseException) -> bool:
    """Return whether a database error is worth retrying (a locked SQLite file, a dropped connection)."""
    if isinstance(error, OperationalError):
        text = str(error.orig).lower() if error.orig is not None else str(error).lower()
        return "locked" in text or "busy" in text or "connection" in text or "closed" in text
    if isinstance(error, DBAPIError):
        return bool(error.connection_invalidated)
    return isinstance(error, ConnectionError | OSError)


class Database:
    """The engines and session factories; services open sessions and own their transactions.

    Writes go through `run()` (on SQLite: the single writer connection, BEGIN IMMEDIATE); reads through
    `session()` (a pool of readers). On PostgreSQL both use the same pooled engine.
    """

    def __init__(self, engine: AsyncEngine, read_engine: AsyncEngine | None = None) -> None:
        self.engine = engine
        self.read_engine = read_engine or engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        self.read_sessions = async_sessionmaker(self.read_engine, expire_on_commit=False)

    @classmethod
    def from_url(cls, url: str, *, echo: bool = False, search_path: str | None = None) -> Database:
        """Create a database for a URL."""
        writer = create_engine(url, echo=echo, search_path=search_path)
        reader = create_engine(url, echo=echo, writer=False) if is_sqlite(url) else None
        return cls(writer, reader)

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
    ) -> T:
        """Run `work` in one transaction, retrying the whole transaction on transient errors."""
        for attempt in range(1, attempts + 1):
            try:
                async with self.sessions() as session, session.begin():
                    return await work(session)
            except (OperationalError, DBAPIError, ConnectionError) as error:
                if attempt == attempts or not is_transient(error):
                    raise
                await asyncio.sleep(backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable")  # pragma: no cover

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
        if self.read_engine is not self.engine:
            await self.read_engine.dispose()
