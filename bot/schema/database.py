"""Schema management: Alembic migrations applied at startup and by `lorekeeper db upgrade`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, MetaData, text

from canon.storage import Base, Database

MIGRATIONS = Path(__file__).parent.parent / "migrations"


def metadata() -> MetaData:
    """Return the metadata of every table, importing each layer's models so they register."""
    import bot.schema.branch_tables
    import bot.schema.installation_table
    import bot.schema.ops_tables
    import bot.schema.review_cards
    import bot.schema.wiki_tables  # noqa: F401
    import canon.campaigns
    import canon.knowledge.tables
    import canon.structured.tables
    import canon.tables
    import canon.write_marks  # noqa: F401
    import memory.journal
    import memory.knowledge.tables
    import memory.notes.tables
    import memory.scene_tables
    import memory.voice_tables  # noqa: F401

    return Base.metadata


# Full-text objects made by raw SQL in migration 0003, outside the ORM: the SQLite FTS5 table (and the shadow
# tables FTS5 makes for it) and PostgreSQL's generated tsvector column and its GIN index.
_FTS_TABLE_PREFIX = "knowledge_fts"
_FTS_COLUMNS = {("knowledge_chunks", "search_vector")}
_FTS_INDEXES = {"ix_knowledge_chunks_search_vector"}


def include_name(name: str | None, type_: str, parent_names: Mapping[Any, str | None]) -> bool:
    """Return whether a reflected object takes part in schema comparison (the full-text objects do not).

    Pass it as `include_name` to Alembic (env.py and any `compare_metadata` context).
    """
    if name is None:
        return True
    if type_ == "table":
        return not name.startswith(_FTS_TABLE_PREFIX)
    if type_ == "column":
        return (parent_names.get("table_name"), name) not in _FTS_COLUMNS
    if type_ == "index":
        return name not in _FTS_INDEXES
    return True


def alembic_config(connection: Connection | None = None) -> Config:
    """Return an Alembic configuration pointing at the bundled migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revisions() -> set[str]:
    """Return the newest migration of each branch of the migration tree."""
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def known_revisions() -> set[str]:
    """Return every revision of the migration tree (a backup at any of them can be restored and upgraded)."""
    return {script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()}


async def current_revisions(db: Database) -> set[str]:
    """Return the revisions the database is at (empty when it has no schema yet)."""
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda sync: set(MigrationContext.configure(sync).get_current_heads()))


#: The PostgreSQL advisory lock migrations hold, per schema (so tests in their own schemas do not wait on each
#: other): `hashtext` of this and the schema's name.
MIGRATION_LOCK = "lorekeeper.migrate:"


async def upgrade(db: Database, revision: str = "heads") -> None:
    """Apply every pending migration in one transaction, one process at a time.

    Two processes starting together (two bots, or `db upgrade` beside a starting bot) would both find the
    schema missing and both create it; the second failed on a unique constraint. So the transaction first
    takes a lock every other migrating process waits on: on PostgreSQL a transaction-scoped advisory lock
    (released at commit), on SQLite the write lock (`BEGIN IMMEDIATE` of the writer connection). Alembic reads
    the current revision only after the lock is held, so a process that waited finds nothing left to do.
    """
    async with db.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:key || current_schema()))"),
                {"key": MIGRATION_LOCK},
            )
        await conn.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))
