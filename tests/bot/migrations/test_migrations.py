"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from bot.schema import database
from canon.storage import Database


async def test_migrated_schema_matches_the_models(db: Database) -> None:
    def diff(sync_conn):
        context = MigrationContext.configure(
            sync_conn, opts={"compare_type": True, "include_name": database.include_name}
        )
        return compare_metadata(context, database.metadata())

    async with db.engine.connect() as conn:
        differences = await conn.run_sync(diff)
    assert differences == []
    assert await database.current_revisions(db) == database.head_revisions()


async def test_upgrade_is_idempotent_and_downgrade_round_trips(db: Database) -> None:
    await database.upgrade(db)  # already at head: nothing to do, no error
    async with db.engine.begin() as conn:
        await conn.run_sync(
            lambda sync: __import__("alembic.command").command.downgrade(
                database.alembic_config(sync), "base"
            )
        )
    async with db.engine.connect() as conn:
        tables = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    assert tables <= {"alembic_version"}
    await database.upgrade(db)
    async with db.engine.connect() as conn:
        tables = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    assert {"campaigns", "scenes", "turns", "entities", "statements", "proposals"} <= tables
