"""The migration history is one line, and migrations started together by several processes all succeed."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.schema import database
from tests.conftest import POSTGRES_URL


def test_the_history_has_exactly_one_head() -> None:
    script = ScriptDirectory.from_config(database.alembic_config())
    assert len(script.get_heads()) == 1, f"several heads: {script.get_heads()}"


UPGRADE = textwrap.dedent(
    """
    import asyncio, sys
    from bot.schema import database
    from canon.storage import Database

    async def main():
        db = Database.from_url(sys.argv[1], search_path=sys.argv[2] if len(sys.argv) > 2 else None)
        try:
            await database.upgrade(db)
            print(sorted(await database.current_revisions(db)))
        finally:
            await db.dispose()

    asyncio.run(main())
    """
)


async def _run_upgrades(count: int, *args: str) -> list[tuple[int, str, str]]:
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            UPGRADE,
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(count)
    ]
    results = []
    for process in processes:
        out, err = await asyncio.wait_for(process.communicate(), 120)
        results.append((process.returncode or 0, out.decode(), err.decode()))
    return results


@pytest.mark.postgres
async def test_concurrent_upgrades_of_a_fresh_postgres_schema_all_succeed() -> None:
    """Three processes migrate one fresh schema at once: one migrates, the others wait and find nothing to do.

    Without the advisory lock, one of them fails on a unique constraint (two CREATE TABLE alembic_version).
    """
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL tests need LOREKEEPER_TEST_POSTGRES_URL")
    schema = f"lk_mig_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(POSTGRES_URL)
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        results = await _run_upgrades(3, POSTGRES_URL, schema)
        for code, out, err in results:
            assert code == 0, err
            assert out.strip() == str(sorted(database.head_revisions())), out
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        await admin.dispose()


async def test_concurrent_upgrades_of_a_fresh_sqlite_file_all_succeed(tmp_path: Path) -> None:
    """SQLite's own write lock (the writer's BEGIN IMMEDIATE) serialises three processes migrating one file."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.sqlite3'}"
    for code, out, err in await _run_upgrades(3, url):
        assert code == 0, err
        assert out.strip() == str(sorted(database.head_revisions())), out
