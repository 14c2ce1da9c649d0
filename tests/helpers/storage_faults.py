"""Storage faults for tests, as the database itself reports them: a full disk and a read-only database.

SQLite: the database lives on a small file system of its own (`small_disk`), filled to the last byte by a
filler file, so SQLite's writes fail with SQLITE_FULL as on a full disk; `query_only` makes the writer refuse
writes with SQLITE_READONLY; a `mode=ro` URI opens a file read-only. PostgreSQL: a trigger raises `disk_full` (SQLSTATE 53100) where the server would; a connection
whose transactions are read-only (`default_transaction_read_only`) refuses writes with SQLSTATE 25006, and a
role can be made so for good.
"""

from __future__ import annotations

import asyncio
import errno
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

from canon.storage import Database
from tests.conftest import DatabaseTarget

_PG_DISK_FULL = (
    "CREATE OR REPLACE FUNCTION lk_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION "
    "'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$"
)


FILLER = "lk-filler"


@contextmanager
def small_disk(folder: Path, megabytes: int = 32) -> Iterator[Path]:
    """Mount a small file system of its own at `folder` (skip the test where mounting is not allowed)."""
    assert shutil.which("mount"), "mount is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode:
        pytest.skip(f"a small disk of its own needs mounting a file system, refused here: {mounted.stderr!r}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(path: Path) -> None:
    """Write `path` until the disk has not one byte left."""
    with path.open("wb", buffering=0) as filler:
        for size in (1 << 20, 4096, 1):
            try:
                while True:
                    filler.write(b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error


def _sqlite_folder(db: Database) -> Path:
    database = db.engine.url.database
    assert database, "an in-memory SQLite database has no disk to fill"
    return Path(database.removeprefix("file:")).parent


async def fill_disk(db: Database, tables: Sequence[str]) -> None:
    """Make writes fail as on a full disk: all of them on SQLite (on `small_disk`), inserts into `tables` on
    PostgreSQL."""
    if db.is_sqlite:
        await asyncio.to_thread(_fill, _sqlite_folder(db) / FILLER)
        return
    async with db.engine.begin() as conn:
        await conn.exec_driver_sql(_PG_DISK_FULL)
        for table in tables:
            await conn.exec_driver_sql(
                f"CREATE TRIGGER lk_disk_full BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION lk_disk_full()"
            )


async def free_disk(db: Database, tables: Sequence[str]) -> None:
    """Undo `fill_disk`."""
    if db.is_sqlite:
        await asyncio.to_thread((_sqlite_folder(db) / FILLER).unlink)
        return
    async with db.engine.begin() as conn:
        for table in tables:
            await conn.exec_driver_sql(f"DROP TRIGGER lk_disk_full ON {table}")


def _read_only_connection(dbapi_connection: Any, _record: Any) -> None:
    # On the driver's connection, outside any transaction (a SET in one would be undone by its rollback).
    dbapi_connection.run_async(lambda conn: conn.execute("SET default_transaction_read_only = on"))


async def make_read_only(db: Database) -> None:
    """Make the database refuse every write from now on (reads go on)."""
    if db.is_sqlite:
        await db.run(lambda s: s.execute(text("PRAGMA query_only = ON")))
        return
    for engine in {db.engine, db.urgent_engine}:  # PostgreSQL: the turn log's own pool as well
        event.listen(engine.sync_engine, "connect", _read_only_connection)
        await engine.dispose()  # the pool's connections are opened again, read-only


async def make_writable(db: Database) -> None:
    """Undo `make_read_only`."""
    if db.is_sqlite:  # on the driver's connection: a transaction of the writer would begin with a write
        async with db.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            await raw.driver_connection.execute("PRAGMA query_only = OFF")
        return
    for engine in {db.engine, db.urgent_engine}:
        event.remove(engine.sync_engine, "connect", _read_only_connection)
        await engine.dispose()


@asynccontextmanager
async def read_only_url(target: DatabaseTarget) -> AsyncIterator[str]:
    """Yield a URL (as the settings take it) that opens the target's database read-only for good."""
    if target.is_sqlite:
        path = make_url(target.url).database
        yield f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true"
        return
    assert target.search_path is not None
    role = f"lk_ro_{target.search_path}"[:63]
    admin = target.open()
    statements = [
        f'CREATE ROLE "{role}" LOGIN',
        f'GRANT USAGE ON SCHEMA "{target.search_path}" TO "{role}"',
        f'GRANT SELECT, UPDATE ON ALL TABLES IN SCHEMA "{target.search_path}" TO "{role}"',
        f'ALTER ROLE "{role}" SET default_transaction_read_only = on',
    ]
    try:
        async with admin.engine.begin() as conn:
            for statement in statements:
                await conn.exec_driver_sql(statement)
        yield make_url(target.database_url).set(username=role).render_as_string(hide_password=False)
    finally:
        async with admin.engine.begin() as conn:
            await conn.exec_driver_sql(f'DROP OWNED BY "{role}"')
            await conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{role}"')
        await admin.dispose()
