"""`Database.write_fault`: whether the database takes a write now, in plain words, changing nothing."""

from __future__ import annotations

from sqlalchemy import text

from canon.storage_faults import READ_ONLY
from tests.conftest import DatabaseTarget
from tests.helpers.storage_faults import make_read_only, make_writable


async def test_the_database_says_when_it_takes_no_writes(db_target: DatabaseTarget) -> None:
    db = db_target.open()
    try:
        async with db.session() as session:
            before = list((await session.execute(text("SELECT version_num FROM alembic_version"))).scalars())
        assert await db.write_fault() is None
        await make_read_only(db)
        assert await db.write_fault() == READ_ONLY
        await make_writable(db)
        assert await db.write_fault() is None
        async with db.session() as session:
            after = list((await session.execute(text("SELECT version_num FROM alembic_version"))).scalars())
        assert after == before
    finally:
        await db.dispose()
