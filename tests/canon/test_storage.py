"""The storage base on a real SQLite file: the pragmas every live connection runs with, and what they enforce."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from canon.storage import Database
from memory.models import SceneRow


async def pragmas(engine: AsyncEngine) -> tuple[str, int, int]:
    async with engine.connect() as conn:
        journal = (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one()
        foreign_keys = (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar_one()
        busy_timeout = (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar_one()
    return journal, foreign_keys, busy_timeout


async def test_writer_and_readers_run_with_wal_foreign_keys_and_a_busy_timeout(sqlite_db: Database) -> None:
    assert sqlite_db.read_engine is not sqlite_db.engine  # SQLite: one writer connection, a pool of readers
    for engine in (sqlite_db.engine, sqlite_db.read_engine):
        journal, foreign_keys, busy_timeout = await pragmas(engine)
        assert journal == "wal" and foreign_keys == 1 and busy_timeout > 0


async def test_foreign_keys_are_enforced(sqlite_db: Database) -> None:
    async def orphan(session: AsyncSession) -> None:
        session.add(SceneRow(campaign_id=999_999, channel_id=1, title="Nowhere", story_order=1))
        await session.flush()

    with pytest.raises(IntegrityError, match="FOREIGN KEY"):
        await sqlite_db.run(orphan)
