"""The storage base on a real SQLite file: the pragmas every live connection runs with, and what they enforce."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from canon.storage import Database
from memory.scene_tables import SceneRow


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


async def test_a_readers_transaction_begins_with_its_first_statement(sqlite_db: Database) -> None:
    """A reader's BEGIN travels with its first statement: everything it reads after is of one snapshot, a write
    committed meanwhile unseen until the next transaction."""

    async def create(session: AsyncSession) -> None:
        await session.execute(text("CREATE TABLE lanterns (name TEXT)"))
        await session.execute(text("INSERT INTO lanterns (name) VALUES ('amber')"))

    async def light(session: AsyncSession) -> None:
        await session.execute(text("INSERT INTO lanterns (name) VALUES ('cobalt')"))

    count = text("SELECT count(*) FROM lanterns")
    await sqlite_db.run(create)
    async with sqlite_db.session() as session:
        assert (await session.execute(count)).scalar_one() == 1
        await sqlite_db.run(light)
        assert (await session.execute(count)).scalar_one() == 1  # the snapshot its first statement began
    async with sqlite_db.session() as session:
        assert (await session.execute(count)).scalar_one() == 2
        await session.commit()  # nothing waits to begin after a commit: the next statement begins anew
        assert (await session.execute(count)).scalar_one() == 2


async def test_an_urgent_write_goes_before_the_writes_already_waiting(sqlite_db: Database) -> None:
    order: list[str] = []
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold(session: AsyncSession) -> None:
        await session.execute(text("SELECT 1"))
        holding.set()
        await release.wait()
        order.append("holder")

    def write(name: str) -> Callable[[AsyncSession], Awaitable[None]]:
        async def work(session: AsyncSession) -> None:
            await session.execute(text("SELECT 1"))
            order.append(name)

        return work

    holder = asyncio.create_task(sqlite_db.run(hold))
    await holding.wait()
    first = asyncio.create_task(sqlite_db.run(write("command 1")))
    gone = asyncio.create_task(sqlite_db.run(write("cancelled")))
    second = asyncio.create_task(sqlite_db.run(write("command 2")))
    urgent = asyncio.create_task(sqlite_db.run(write("turns"), urgent=True))
    await asyncio.sleep(0.05)  # every one of them is waiting for the writer now
    gone.cancel()
    release.set()
    await asyncio.gather(holder, first, second, urgent)
    assert order == ["holder", "turns", "command 1", "command 2"]
    assert gone.cancelled()


async def test_a_statement_is_one_trip_to_the_driver_thread(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    trips: list[str] = []
    original = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await original(self, fn, *args, **kwargs)

    async with sqlite_db.session() as session:  # the pool's connection is open before counting
        await session.execute(text("SELECT 1"))
    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    async with sqlite_db.session() as session:
        rows = (await session.execute(text("SELECT value FROM json_each('[1, 2, 3]')"))).scalars().all()
    assert rows == [1, 2, 3]
    # The SELECT with its rows (and the reader's BEGIN before it), the ROLLBACK: aiosqlite alone made nine
    # (BEGIN; cursor, execute, fetch, close; ROLLBACK).
    assert len(trips) == 2, trips

    async def many(session: AsyncSession) -> list[int]:
        await session.execute(text("CREATE TEMP TABLE t (x INTEGER)"))
        await session.execute(text("INSERT INTO t (x) VALUES (:x)"), [{"x": 1}, {"x": 2}])
        return list((await session.execute(text("SELECT x FROM t ORDER BY x"))).scalars())

    assert await sqlite_db.run(many) == [1, 2]
