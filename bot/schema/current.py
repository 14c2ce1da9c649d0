"""Whether a database is at the newest migration, read without loading Alembic (a cold command's shortcut).

The migrations form one line (`bot/migrations/versions`, numbered in their file names, each `down_revision` the
one before), so the newest is the last file's `revision`. A database holding exactly that revision needs no
migrating; any other answer (no schema yet, an older or unknown revision, two heads) says "migrate first".
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import text

from canon.storage import Database

__all__ = ["newest_revision", "schema_current"]

VERSIONS = Path(__file__).resolve().parents[1] / "migrations" / "versions"
_REVISION = re.compile(r"^revision\s*(?::\s*str\s*)?=\s*[\"']([^\"']+)[\"']", re.MULTILINE)


def newest_revision(versions: Path = VERSIONS) -> str | None:
    """Return the newest migration's revision, or None when there is none."""
    files = sorted(versions.glob("[0-9]*.py"))
    if not files:
        return None
    match = _REVISION.search(files[-1].read_text(encoding="utf-8"))
    return match.group(1) if match else None


async def schema_current(db: Database) -> bool:
    """Return whether the database is at the newest migration (False when it has no schema yet). Read by a
    reader connection: on SQLite the writer's (BEGIN IMMEDIATE) would wait for a bot writing meanwhile."""
    try:
        async with db.read_engine.connect() as conn:
            found = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars().all()
    except Exception:  # no table yet, or any reason: the full path migrates and says what is wrong
        return False
    newest = newest_revision()
    return newest is not None and list(found) == [newest]
