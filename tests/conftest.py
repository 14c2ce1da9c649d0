"""Shared fixtures: a migrated database on a real SQLite file and, when configured, on PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
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
        pytest.skip(f"shared material not found at {path} (tests read ../shared in place; it is not in the repo)")
    return path


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for a test: data in tmp_path, no token, no LLM, embedded defaults."""
    return Settings(_env_file=None, data_dir=tmp_path / "data", gm_role="GM")  # type: ignore[call-arg]


async def make_database(kind: str, tmp_path: Path) -> tuple[Database, str | None]:
    """Create and migrate an empty database of a kind; for PostgreSQL, in a fresh schema."""
    if kind == "sqlite":
        db = Database.from_url(f"sqlite+aiosqlite:///{tmp_path}/lorekeeper-test.sqlite3")
        await database.upgrade(db)
        return db, None
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL tests need LOREKEEPER_TEST_POSTGRES_URL (.ci/run sets it when 127.0.0.1:5432 answers)")
    schema = f"lk_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    await admin.dispose()
    db = Database.from_url(POSTGRES_URL, search_path=schema)
    await database.upgrade(db)
    return db, schema


async def drop_database(db: Database, schema: str | None) -> None:
    """Dispose of a test database (dropping its PostgreSQL schema)."""
    await db.dispose()
    if schema and POSTGRES_URL:
        admin = create_async_engine(POSTGRES_URL)
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty database: a SQLite file, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set."""
    made, schema = await make_database(request.param, tmp_path)
    try:
        yield made
    finally:
        await drop_database(made, schema)


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty SQLite database file (for tests about SQLite itself)."""
    made, _ = await make_database("sqlite", tmp_path)
    try:
        yield made
    finally:
        await made.dispose()
