"""Migrated databases made once per test process and copied for each test that needs one.

Running every Alembic migration for each test cost about a second on PostgreSQL and a quarter of one on SQLite,
hundreds of times a run. Instead the first test of a process migrates a template and every later one gets a
copy of it:

- SQLite: the migrated file, copied.
- PostgreSQL: the migrations run once in a schema of their own while every statement they send is recorded;
  a test's schema is then made by sending the same statements, in the same order and in one transaction, with
  the test's schema as the search path. That is the schema the migrations would have made (a test compares
  the two), without Alembic's Python work, and it stays a schema: `CREATE DATABASE ... TEMPLATE` would copy
  faster, but dropping a database forces a checkpoint of the whole shared server, once per test.

Each process (each pytest-xdist worker) has its own templates; everything made on PostgreSQL has a random
name, so workers and other runs sharing the server never meet. `drop_all` removes them at the session's end.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from bot.schema import database
from canon.storage import Database, create_engine

_SQLITE_FILE = "template.sqlite3"


@dataclass(frozen=True)
class _Statement:
    sql: str
    parameters: Any  # as the driver took them: a tuple, or a list of tuples for executemany
    many: bool


async def _admin(server_url: str, statement: str, *, lock_timeout: str | None = None) -> None:
    admin = create_async_engine(server_url)
    try:
        async with admin.begin() as conn:
            if lock_timeout is not None:
                await conn.execute(text(f"SET LOCAL lock_timeout = '{lock_timeout}'"))
            await conn.execute(text(statement))
    finally:
        await admin.dispose()


async def _record_migrations(server_url: str, schema: str) -> list[_Statement]:
    """Migrate `schema` (which exists, empty) and return every statement the migrations sent, in order."""
    db = Database.from_url(server_url, search_path=schema)
    sent: list[_Statement] = []

    def record(_conn: Any, _cursor: Any, sql: str, parameters: Any, _context: Any, many: bool) -> None:
        sent.append(_Statement(sql, parameters, many))

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        await database.upgrade(db)
    finally:
        await db.dispose()
    return sent


async def _replay(conn: AsyncConnection, statements: list[_Statement]) -> None:
    """Send recorded statements on a connection, consecutive ones without parameters as one script."""
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    script: list[str] = []
    for statement in statements:
        if not statement.parameters:
            script.append(statement.sql)
            continue
        if script:
            await driver.execute(";\n".join(script))
            script.clear()
        if statement.many:
            await driver.executemany(statement.sql, statement.parameters)
        else:
            await driver.execute(statement.sql, *statement.parameters)
    if script:
        await driver.execute(";\n".join(script))


# What a schema holds, as text that names no schema (queried with the schema as the search path): its
# relations, columns, indexes, constraints, triggers, sequences, views, functions and types (and `fingerprint`
# adds the Alembic revision it is at). A schema a test changed (a table altered, the revision rewritten) shows here.
_FINGERPRINT = """
WITH rel AS (
    SELECT oid, relname, relkind FROM pg_class WHERE relnamespace = current_schema()::regnamespace
)
SELECT 'relation ' || relname || ' ' || relkind::text
       || CASE WHEN relkind IN ('v', 'm') THEN ' ' || pg_get_viewdef(oid) ELSE '' END FROM rel
UNION ALL
SELECT 'column ' || rel.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' '
       || a.attnotnull::text || ' ' || a.attgenerated::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM rel JOIN pg_attribute a ON a.attrelid = rel.oid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'index ' || replace(pg_get_indexdef(i.indexrelid), current_schema() || '.', '')
  FROM rel JOIN pg_index i ON i.indrelid = rel.oid
UNION ALL
SELECT 'constraint ' || rel.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
  FROM rel JOIN pg_constraint k ON k.conrelid = rel.oid
UNION ALL
SELECT 'trigger ' || replace(pg_get_triggerdef(t.oid), current_schema() || '.', '')
  FROM rel JOIN pg_trigger t ON t.tgrelid = rel.oid WHERE NOT t.tgisinternal
UNION ALL
SELECT 'sequence ' || rel.relname || ' ' || format_type(s.seqtypid, NULL) || ' ' || s.seqstart::text || ' '
       || s.seqincrement::text
  FROM rel JOIN pg_sequence s ON s.seqrelid = rel.oid
UNION ALL
SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
 WHERE p.pronamespace = current_schema()::regnamespace
UNION ALL
SELECT 'type ' || t.typname || ' ' || t.typtype::text || ' '
       || coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e
                    WHERE e.enumtypid = t.oid), '')
  FROM pg_type t WHERE t.typnamespace = current_schema()::regnamespace
ORDER BY 1
"""


# Every sequence back at its start, as a new one: the next id is the first again.
_RESTART_SEQUENCES = """
SELECT setval(c.oid, s.seqstart, false) FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
 WHERE c.relnamespace = current_schema()::regnamespace
"""


async def fingerprint(conn: AsyncConnection) -> list[str]:
    """Return what the schema of the connection's search path holds, as sorted lines naming no schema."""
    lines = list((await conn.execute(text(_FINGERPRINT))).scalars())
    if "relation alembic_version r" in lines:
        revisions = await conn.execute(text("SELECT version_num FROM alembic_version ORDER BY 1"))
        lines.extend(f"revision {revision}" for revision in revisions.scalars())
    return lines


class _PostgresTemplate:
    """The statements that migrate a schema on one server, and the emptied schemas waiting for a test."""

    def __init__(self, server_url: str, statements: list[_Statement]) -> None:
        self.server_url = server_url
        self.statements = statements
        self.fingerprint: list[str] = []
        self.tables: list[str] = []
        self.free: list[str] = []  # emptied, ready for the next test
        self.left: list[str] = []  # the template's own, and those a test's open transaction kept busy

    @classmethod
    async def make(cls, server_url: str) -> _PostgresTemplate:
        schema = f"lk_template_{uuid.uuid4().hex[:12]}"
        await _admin(server_url, f'CREATE SCHEMA "{schema}"')
        template = cls(server_url, await _record_migrations(server_url, schema))
        template.left.append(schema)
        engine = create_engine(server_url, search_path=schema)
        try:
            async with engine.connect() as conn:
                template.fingerprint = await fingerprint(conn)
                tables = await conn.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
                )
                template.tables = sorted(name for name in tables.scalars() if name != "alembic_version")
        finally:
            await engine.dispose()
        return template

    async def create(self) -> str:
        """Return the name of a migrated, empty schema: an emptied one renamed, or a new one."""
        schema = f"lk_{uuid.uuid4().hex[:12]}"
        if self.free:
            # A new name for each test: a connection an earlier test left open finds nothing under the old one.
            await _admin(self.server_url, f'ALTER SCHEMA "{self.free.pop()}" RENAME TO "{schema}"')
            return schema
        engine = create_engine(self.server_url, search_path=schema)
        try:
            async with engine.begin() as conn:
                await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
                await _replay(conn, self.statements)
        finally:
            await engine.dispose()
        return schema

    async def release(self, schema: str) -> None:
        """Empty a test's schema for the next test, or drop it when the test changed more than its rows."""
        engine = create_engine(self.server_url, search_path=schema)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("SET LOCAL lock_timeout = '10s'"))
                if await fingerprint(conn) != self.fingerprint:
                    await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                    return
                # One statement empties every table: its foreign keys are checked at its end, when every row
                # is gone, so the order of the tables does not matter.
                deletes = [f'DELETE FROM "{table}"' for table in self.tables]
                ctes = ", ".join(f"d{n} AS ({delete})" for n, delete in enumerate(deletes[1:]))
                await conn.execute(text(f"WITH {ctes} {deletes[0]}"))
                await conn.execute(text(_RESTART_SEQUENCES))
            self.free.append(schema)
        except DBAPIError:
            self.left.append(schema)  # locked by a transaction the test left open: dropped at the end
        finally:
            await engine.dispose()

    async def drop_all(self) -> None:
        """Drop the template's schemas."""
        for schema in [*self.left, *self.free]:
            # A transaction a test left open could hold one past the session's end: leave that one, never hang.
            with contextlib.suppress(DBAPIError):
                await _admin(self.server_url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', lock_timeout="10s")
        self.free.clear()
        self.left.clear()


class Templates:
    """This process's migrated templates, made on first use."""

    def __init__(self) -> None:
        self._dir: Path | None = None
        self._postgres: dict[str, _PostgresTemplate] = {}

    async def copy_sqlite(self, dest: Path) -> None:
        """Write a migrated, empty SQLite database at `dest`."""
        if self._dir is None:
            folder = Path(tempfile.mkdtemp(prefix="lorekeeper-templates-"))
            db = Database.from_url(f"sqlite+aiosqlite:///{folder / _SQLITE_FILE}")
            try:
                await database.upgrade(db)
            finally:
                await db.dispose()
            # Closing the last connection checkpointed the write-ahead log into the file and removed it.
            assert not (folder / f"{_SQLITE_FILE}-wal").exists(), "the template's WAL was not checkpointed"
            self._dir = folder
        shutil.copyfile(self._dir / _SQLITE_FILE, dest)

    async def create_postgres(self, server_url: str, *, migrated: bool = True) -> str:
        """Create a schema on the server, migrated unless told not, and return its name."""
        if not migrated:
            schema = f"lk_{uuid.uuid4().hex[:12]}"
            await _admin(server_url, f'CREATE SCHEMA "{schema}"')
            return schema
        if server_url not in self._postgres:
            self._postgres[server_url] = await _PostgresTemplate.make(server_url)
        return await self._postgres[server_url].create()

    def drop_at_end(self, server_url: str, schema: str) -> None:
        """Keep a schema made by `create_postgres` until `drop_all` (a test's world built once, copied after)."""
        self._postgres[server_url].left.append(schema)

    async def copy_postgres_rows(self, server_url: str, source: str, dest: str) -> None:
        """Make a migrated schema's rows those of another (what its migrations wrote, such as a first row, goes),
        and its sequences stand where the source's do. One statement empties every table and one writes every
        table: foreign keys are checked at the end of each, in any order."""
        template = self._postgres[server_url]
        engine = create_engine(server_url, search_path=source)
        try:
            async with engine.begin() as conn:
                deletes = [f'DELETE FROM "{dest}"."{table}"' for table in template.tables]
                ctes = ", ".join(f"d{n} AS ({delete})" for n, delete in enumerate(deletes[1:]))
                await conn.execute(text(f"WITH {ctes} {deletes[0]}"))
                found = await conn.execute(
                    text(
                        "SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                        "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' "
                        "AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum"
                    )
                )
                columns: dict[str, list[str]] = {}
                for table, column in found.all():
                    columns.setdefault(table, []).append(f'"{column}"')
                inserts = [
                    f'INSERT INTO "{dest}"."{table}" ({", ".join(columns[table])}) OVERRIDING SYSTEM VALUE '
                    f'SELECT {", ".join(columns[table])} FROM "{source}"."{table}"'
                    for table in template.tables
                ]
                ctes = ", ".join(f"i{n} AS ({insert})" for n, insert in enumerate(inserts[1:]))
                await conn.execute(text(f"WITH {ctes} {inserts[0]}"))
                await conn.execute(
                    text(
                        "SELECT setval(format('%I.%I', CAST(:dest AS text), sequencename), last_value) "
                        "FROM pg_sequences WHERE schemaname = :source AND last_value IS NOT NULL"
                    ),
                    {"dest": dest, "source": source},
                )
        finally:
            await engine.dispose()

    def postgres_fingerprint(self, server_url: str) -> list[str]:
        """Return what a migrated schema on the server holds (see `fingerprint`)."""
        return self._postgres[server_url].fingerprint

    async def drop_postgres(self, server_url: str, schema: str) -> None:
        """Drop a test's schema, or keep it, emptied, for the next test."""
        template = self._postgres.get(server_url)
        if template is None:
            await _admin(server_url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        else:
            await template.release(schema)

    async def drop_all(self) -> None:
        """Remove this process's templates and the schemas kept for reuse."""
        while self._postgres:
            await self._postgres.popitem()[1].drop_all()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


#: The templates of this test process.
TEMPLATES = Templates()
