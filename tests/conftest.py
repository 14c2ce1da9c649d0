"""Shared fixtures: a migrated database on a real SQLite file and, when configured, on PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot import database
from canon.storage import Database
from config.settings import Settings

POSTGRES_URL = os.environ.get("LOREKEEPER_TEST_POSTGRES_URL")
SHARED = Path(__file__).resolve().parents[2] / "shared"
SRD = SHARED / "corpora" / "srd"


def require_shared(path: Path) -> Path:
    """Return a path under ../shared, or skip the test with a clear message when it is absent."""
    if not path.exists():
        pytest.skip(
            f"shared material not found at {path} (tests read ../shared in place; it is not in the repo)"
        )
    return path


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for a test: data in tmp_path, no token, no LLM, embedded defaults."""
    return Settings(_env_file=None, data_dir=tmp_path / "data", gm_role="GM")  # type: ignore[call-arg]


@dataclass(frozen=True)
class DatabaseTarget:
    """Where a test database lives; `open()` returns a new `Database` on it (a restarted bot opens its own)."""

    url: str
    search_path: str | None = None

    def open(self) -> Database:
        return Database.from_url(self.url, search_path=self.search_path)


async def make_target(kind: str, tmp_path: Path) -> DatabaseTarget:
    """Create and migrate an empty database of a kind; for PostgreSQL, in a fresh schema."""
    if kind == "sqlite":
        target = DatabaseTarget(f"sqlite+aiosqlite:///{tmp_path}/lorekeeper-test.sqlite3")
    else:
        if not POSTGRES_URL:
            pytest.skip(
                "PostgreSQL tests need LOREKEEPER_TEST_POSTGRES_URL (.ci/run sets it when 127.0.0.1:5432 answers)"
            )
        schema = f"lk_{uuid.uuid4().hex[:12]}"
        admin = create_async_engine(POSTGRES_URL)
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        await admin.dispose()
        target = DatabaseTarget(POSTGRES_URL, schema)
    db = target.open()
    await database.upgrade(db)
    await db.dispose()
    return target


async def drop_target(target: DatabaseTarget) -> None:
    """Drop a test database's PostgreSQL schema (SQLite files go with tmp_path)."""
    if target.search_path and POSTGRES_URL:
        admin = create_async_engine(POSTGRES_URL)
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{target.search_path}" CASCADE'))
        await admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DatabaseTarget]:
    """A migrated, empty database: a SQLite file, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set."""
    target = await make_target(request.param, tmp_path)
    try:
        yield target
    finally:
        await drop_target(target)


@pytest.fixture
async def db(db_target: DatabaseTarget) -> AsyncIterator[Database]:
    """An open `Database` on the test database (SQLite, then PostgreSQL when configured)."""
    opened = db_target.open()
    try:
        yield opened
    finally:
        await opened.dispose()


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty SQLite database file (for tests about SQLite itself)."""
    opened = (await make_target("sqlite", tmp_path)).open()
    try:
        yield opened
    finally:
        await opened.dispose()
