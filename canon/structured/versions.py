"""What each YAML file produced in a campaign, kept by version, so that re-importing it writes only the difference.

A file's record (`StructuredFileRow`) is kept by version: one row per changeset that wrote for it, never updated.
A campaign sees its own latest version of a file, else that of its nearest ancestor among those written at or
before the fork, so a parent's re-import never changes what a branch inherited.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from canon.campaigns import lineage
from canon.forks import LineageStep
from canon.structured.tables import StructuredFileRow

# Ids, keys or names per query: a first import of a big file looks up every one of its keys, and each query is
# a round trip (SQLite and PostgreSQL bind about 32,000 values per statement; a query may bind a chunk twice).
CHUNK = 2000


@dataclass
class FileVersion:
    """What one file produced, as remembered: the version of its record the campaign sees."""

    file: str
    kind: str
    content_hash: str
    entries: dict[str, dict[str, Any]]
    statements: dict[str, list[Any]]
    dirty: bool = False


async def _visible_versions(
    session: AsyncSession, steps: Sequence[LineageStep], *columns: Any
) -> dict[str, Any]:
    """Return, per file name, the version of its record the campaign sees (a row of `id`, `file` and `columns`).

    A file's record is kept by version (one row per changeset that wrote it, never updated): a campaign sees
    its own latest version, else that of the nearest ancestor among those written at or before the fork.
    """
    table = StructuredFileRow.__table__.c
    query = select(table.id, table.campaign_id, table.file, table.changeset_id, *columns).where(
        or_(
            *(
                (table.campaign_id == step.campaign_id) & (table.changeset_id <= step.up_to_changeset)
                for step in steps
            )
        )
    )
    distance = {step.campaign_id: index for index, step in enumerate(steps)}
    found: dict[str, Any] = {}
    for row in (await session.execute(query)).all():
        current = found.get(row.file)
        if current is None or (distance[row.campaign_id], -row.changeset_id) < (
            distance[current.campaign_id],
            -current.changeset_id,
        ):
            found[row.file] = row
    return found


async def load_records(
    session: AsyncSession, steps: Sequence[LineageStep], *, statements: bool = True
) -> dict[str, FileVersion]:
    """Return what each YAML file produced in a campaign, as the campaign sees it (see `_visible_versions`).

    `statements=False` leaves out the (big) statement maps, for when only entries and hashes matter.
    """
    versions = await _visible_versions(session, steps)
    ids = sorted(row.id for row in versions.values())
    query = select(StructuredFileRow)
    if not statements:
        query = query.options(defer(StructuredFileRow.statements))
    found: dict[str, FileVersion] = {}
    for start in range(0, len(ids), CHUNK):
        chosen = query.where(StructuredFileRow.id.in_(ids[start : start + CHUNK]))
        for row in (await session.execute(chosen)).scalars():
            found[row.file] = FileVersion(
                file=row.file,
                kind=row.kind,
                content_hash=row.content_hash,
                entries=dict(row.entries or {}),
                statements=dict(row.statements or {}) if statements else {},
            )
    return found


async def known_hashes(session: AsyncSession, campaign_id: int) -> dict[str, str]:
    """Return the content hash of every YAML file the campaign remembers, by file name (a light query:
    the same versions as `load_records`, without reading what the files produced)."""
    steps = await lineage(session, campaign_id)
    table = StructuredFileRow.__table__.c
    versions = await _visible_versions(session, steps, table.content_hash)
    return {file: row.content_hash for file, row in versions.items()}
