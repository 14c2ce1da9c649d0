"""The database's write mark: unchanged while nothing is written, moved by any commit (any connection, any
process), None when it cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from canon.campaigns import create_campaign
from canon.storage import Database
from canon.write_marks import WriteMarks
from tests.conftest import BACKENDS, drop_target, make_target


async def _write(db: Database, name: str) -> None:
    await db.run(lambda session: create_campaign(session, name))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_mark_moves_with_every_commit_and_only_then(backend: str, tmp_path: Path) -> None:
    target = await make_target(backend, tmp_path)
    db = target.open()
    other = target.open()  # another process's connections to the same database
    marks = WriteMarks(db)
    try:
        first = await marks.mark()
        async with db.session() as session:  # reading writes nothing
            await session.execute(text("SELECT count(*) FROM campaigns"))
        assert await marks.mark() == first
        await _write(db, "Ours")
        second = await marks.mark()
        assert second != first
        assert await marks.mark() == second
        await _write(other, "Theirs")
        assert await marks.mark() != second
    finally:
        marks.close()
        await db.dispose()
        await other.dispose()
        await drop_target(target)


async def test_a_reopened_connection_matches_no_earlier_mark(
    tmp_path: Path,
) -> None:
    target = await make_target("sqlite", tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    try:
        before = await marks.mark()
        marks.close()
        assert await marks.mark() != before
    finally:
        marks.close()
        await db.dispose()


async def test_an_in_memory_database_has_no_mark() -> None:
    db = Database(create_async_engine("sqlite+aiosqlite:///:memory:"))
    marks = WriteMarks(db)
    try:
        assert await marks.mark() is None
    finally:
        await db.dispose()


async def test_a_mark_that_cannot_be_read_is_none(tmp_path: Path) -> None:
    target = await make_target("sqlite", tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    try:
        marks._path = str(tmp_path / "missing" / "no.sqlite3")  # a file that cannot be opened
        assert await marks.mark() is None
    finally:
        marks.close()
        await db.dispose()


async def test_a_database_that_cannot_tell_its_snapshot_has_no_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = await make_target("sqlite", tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    try:
        # Asked as PostgreSQL: no pg_current_snapshot here (as PostgreSQL before 13), the query fails.
        monkeypatch.setattr(Database, "is_sqlite", property(lambda _self: False))
        assert await marks.mark() is None
    finally:
        marks.close()
        await db.dispose()
