"""This database's installation id: made once, on first use, and kept in the database (`installation`).

Chroma collections carry it in their names (`memory.chroma_client`), so two databases sharing one Chroma server
never write into each other's collections. A copied database carries the same id; `renew` gives a copy its own
(its vectors are then rebuilt by `lorekeeper reindex`).
"""

from __future__ import annotations

import secrets

from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema.installation_table import InstallationRow
from canon.storage import Database, utc_now
from memory.chroma_client import Owner

__all__ = ["Installation"]


def _new_id() -> str:
    return secrets.token_hex(6)  # 12 hex digits: a collection name stays short


class Installation:
    """The installation id of one database, read once and cached."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._id: str | None = None

    async def id(self) -> str:
        """Return the installation id, making it when the database has none yet (exactly one ever wins)."""
        if self._id is not None:
            return self._id
        async with self.db.session() as session:
            found = await session.scalar(select(InstallationRow.installation_id))
        if found is None:

            async def make(session: AsyncSession) -> str:
                existing = await session.scalar(select(InstallationRow.installation_id))
                if existing is not None:
                    return str(existing)
                made = _new_id()
                session.add(InstallationRow(singleton=1, installation_id=made, created_at=utc_now()))
                await session.flush()
                return made

            try:
                found = await self.db.run(make, attempts=1)
            except IntegrityError:  # another process made it first: theirs stands
                async with self.db.session() as session:
                    found = await session.scalar(select(InstallationRow.installation_id))
        assert found is not None
        self._id = str(found)
        return self._id

    async def owner(self) -> Owner:
        """Return who owns this database's Chroma collections: the installation and the database's address."""
        return Owner(await self.id(), await self.address())

    async def address(self) -> str:
        """Return which database this is, as the database itself says: a SQLite file's path, or a PostgreSQL
        server's system identifier, the database's name and number and the schema. A copy (a restored dump, a
        cloned file) has another; the same database reached by another host name does not. No password."""
        async with self.db.session() as session:
            if self.db.is_sqlite:
                rows = (await session.execute(text("PRAGMA database_list"))).all()
                return "SQLite file " + next((str(r[2]) for r in rows if r[1] == "main"), "")
            row = (
                await session.execute(
                    text(
                        "SELECT (SELECT system_identifier FROM pg_control_system()), current_database(), "
                        "(SELECT oid FROM pg_database WHERE datname = current_database()), current_schema()"
                    )
                )
            ).one()
        server, name, number, schema = row
        return f"PostgreSQL database {name} (number {number}, schema {schema}) on server {server}"

    async def renew(self) -> str:
        """Give this database a new installation id (a copy's own); return it. Its vectors need a reindex."""

        async def work(session: AsyncSession) -> str:
            await session.execute(delete(InstallationRow))
            made = _new_id()
            session.add(InstallationRow(singleton=1, installation_id=made, created_at=utc_now()))
            return made

        self._id = await self.db.run(work, attempts=1)
        return self._id
