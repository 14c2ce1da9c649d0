"""Schema management: Alembic migrations applied at startup and by `lorekeeper db upgrade`."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, MetaData

from canon.storage import Base, Database

MIGRATIONS = Path(__file__).with_name("migrations")


def metadata() -> MetaData:
    """Return the metadata of every table, importing each layer's models so they register."""
    import canon.campaigns  # noqa: F401
    import canon.models  # noqa: F401
    import memory.models  # noqa: F401

    return Base.metadata


def alembic_config(connection: Connection | None = None) -> Config:
    """Return an Alembic configuration pointing at the bundled migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """Return the newest migration's revision id."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


async def current_revision(db: Database) -> str | None:
    """Return the revision the database is at (None when it has no schema yet)."""
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda sync: MigrationContext.configure(sync).get_current_revision())


async def upgrade(db: Database, revision: str = "head") -> None:
    """Apply every pending migration in one transaction."""
    async with db.engine.begin() as conn:
        await conn.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))
