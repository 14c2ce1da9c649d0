"""The vault against the database: originals no source names (orphans), sources whose original is gone.

An orphan is what a crash between storing an original and writing its source leaves (see `memory.vault`): it is
never shown and costs only disk space. `check_vault` counts orphans and finds missing originals (`lorekeeper
doctor`, `lorekeeper vault check`); `prune_vault` removes orphans older than a grace period, so that an import
that stored its bytes a moment ago and is still writing its rows keeps them (`lorekeeper vault prune`).
"""

from __future__ import annotations

import asyncio
import datetime as dt

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import CampaignRow
from canon.storage import Database, utc_now
from memory.knowledge.repository import file_in_use
from memory.knowledge.tables import KnowledgeSourceRow, KnowledgeSourceVersionRow
from memory.vault import StoredOriginal, Vault

__all__ = ["MissingOriginalInfo", "PruneReport", "VaultReport", "check_vault", "prune_vault"]

#: An orphan younger than this may belong to an import still writing its rows: prune leaves it.
PRUNE_GRACE = dt.timedelta(hours=1)


class MissingOriginalInfo(BaseModel):
    """A source whose original the vault no longer has (it still answers; it cannot be re-read or exported)."""

    model_config = ConfigDict(frozen=True)

    campaign: str
    filename: str
    file_hash: str


class VaultReport(BaseModel):
    """The vault as the database sees it."""

    model_config = ConfigDict(frozen=True)

    where: str
    originals: int
    bytes: int
    orphans: int
    orphan_bytes: int
    missing: list[MissingOriginalInfo]


class PruneReport(BaseModel):
    """What a prune removed, and the recent orphans it left for an import that may still be writing."""

    model_config = ConfigDict(frozen=True)

    removed: int
    bytes: int
    kept_recent: int


async def _named(session: AsyncSession) -> dict[str, tuple[str, str]]:
    """Return every file hash a source or a version names, with (campaign name, file name) of one of them."""
    source, version = KnowledgeSourceRow, KnowledgeSourceVersionRow
    queries = (
        select(source.file_hash, source.filename, CampaignRow.name).join(
            CampaignRow, CampaignRow.id == source.campaign_id
        ),
        select(version.file_hash, version.filename, CampaignRow.name)
        .join(source, source.id == version.source_id)
        .join(CampaignRow, CampaignRow.id == source.campaign_id),
    )
    named: dict[str, tuple[str, str]] = {}
    for query in queries:
        for file_hash, filename, name in (await session.execute(query)).all():
            named.setdefault(file_hash, (name, filename))
    return named


async def check_vault(db: Database, vault: Vault) -> VaultReport:
    """Compare the vault's originals with what the sources name: orphans (harmless) and missing (a problem)."""
    stored = await asyncio.to_thread(lambda: list(vault.originals()))
    async with db.session() as session:
        named = await _named(session)
    kept = {item.digest for item in stored}
    orphans = [item for item in stored if item.digest not in named]
    missing = [
        MissingOriginalInfo(campaign=campaign, filename=filename, file_hash=digest)
        for digest, (campaign, filename) in named.items()
        if digest not in kept
    ]
    return VaultReport(
        where=vault.describe(),
        originals=len(stored),
        bytes=sum(item.size for item in stored),
        orphans=len(orphans),
        orphan_bytes=sum(item.size for item in orphans),
        missing=missing,
    )


async def prune_vault(db: Database, vault: Vault, *, grace: dt.timedelta = PRUNE_GRACE) -> PruneReport:
    """Remove the originals no source or version names, except those stored within `grace`."""
    stored: list[StoredOriginal] = await asyncio.to_thread(lambda: list(vault.originals()))
    async with db.session() as session:
        named = await _named(session)
    cutoff = utc_now() - grace
    removed = size = recent = 0
    for item in stored:
        if item.digest in named:
            continue
        if item.stored_at > cutoff:
            recent += 1
            continue
        async with db.session() as session:  # named since the listing: an import finished meanwhile
            if await file_in_use(session, item.digest):
                continue
        if await asyncio.to_thread(vault.delete, item.digest):
            removed += 1
            size += item.size
    return PruneReport(removed=removed, bytes=size, kept_recent=recent)
