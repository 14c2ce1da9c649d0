"""Export a whole campaign to one archive file, and import such an archive as a NEW campaign.

The archive is a zip file of a manifest, one JSON Lines member per table and the raw source files
(`bot.archive.file`). What it holds, by table family (each family is one function of `bot.archive.tables`,
`(session, campaign) -> {table: rows}`, so a branch-aware export can decide which rows a campaign has in one
place):

- knowledge: sources (class, enabled and hidden states, tags, always-include, notes, use count), their versions'
  metadata, and a map of the current chunks (id, source, index, hash); the raw files under `files/`;
- canon: changesets, entities, aliases, statements, status changes (retcons), evidence, dependencies;
- review: proposals (with their decisions) and recorded conflicts;
- narrative: scenes, turns and the turns' edit history;
- voice: NPC memories, scene digests, scene casts and narrations (with the exact prompt each was written from);
- structured: what each imported YAML file produced (so a re-import applies only the difference);
- journal: each completed scene's recap.

Derived data is NOT exported and is rebuilt on import: chunks, full-text rows and vectors (the sources are
re-imported from their bytes, so the same files give the same chunks and the same answers), and the NPC memory
collections. Left out on purpose: review-card message ids, answered-question records, token usage (all tied to
the old server or the old bill), and the vector index state.

Import restores into a NEW campaign and never reuses an id: every row gets a fresh id and every reference
(columns, and the ids inside JSON: proposal content and evidence, continuity findings, YAML bookkeeping, NPC
memory scopes and links) is remapped (`bot.archive.remap`, `bot.archive.restore`). A reference to something the archive does not hold (evidence of a chunk
replaced by a later version of its source, a warning about a statement that was only simulated) becomes empty
rather than pointing at another campaign's row. Discord message ids already used by another campaign's turns are
dropped, and an open scene whose channel already has an open scene is detached from it. The import is all or
nothing: if anything fails, the new campaign and its sources are removed again.

An archive with another `format` or `version` is refused with a message saying which versions this Lorekeeper
reads.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.archive.file import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    ArchiveContents,
    ArchiveError,
    check_manifest,
    read_archive,
    write_archive,
)
from bot.archive.libraries import library_entries, reattach
from bot.archive.remap import Ids
from bot.archive.restore import restore_rows
from bot.archive.tables import CHUNK_COLUMNS, FAMILIES, MODELS, Family, Rows, Tables
from canon import campaigns
from canon.campaigns import Campaign, CampaignRow
from canon.errors import Conflict, NotFound
from canon.storage import Database, utc_now
from canon.visibility import source_stored_hidden
from memory.knowledge.archive import ArchivedSource, KnowledgeArchive, restore_knowledge
from memory.knowledge.files import read_with_ocr
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.knowledge.source_models import ImportOutcome, ProgressCallback, SourceVersionInfo
from memory.knowledge.tables import (
    KnowledgeChunkRow,
    KnowledgeIndexStateRow,
    KnowledgeRetrievalRow,
    KnowledgeSourceRow,
    KnowledgeSourceVersionRow,
)

if TYPE_CHECKING:
    from bot.voice.service import VoiceService

log = logging.getLogger(__name__)

__all__ = ["CampaignArchive", "ExportReport", "RestoreReport"]


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    path: Path
    campaign: str
    tables: dict[str, int]
    files: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        """Return the report as JSON for the command line."""
        return {
            "path": str(self.path),
            "campaign": self.campaign,
            "tables": self.tables,
            "files": self.files,
            "bytes": self.bytes,
        }


@dataclass
class RestoreReport:
    """What an import restored: the new campaign, row counts, the id maps (old -> new) and warnings."""

    campaign: Campaign
    tables: dict[str, int] = field(default_factory=dict)
    ids: dict[str, dict[int, int]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the report as JSON for the command line (without the id maps)."""
        return {
            "campaign": self.campaign.name,
            "campaign_id": self.campaign.id,
            "tables": self.tables,
            "warnings": self.warnings,
        }


class CampaignArchive:
    """Export a campaign to an archive file; import an archive as a new campaign (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        knowledge: KnowledgeService,
        *,
        voice: VoiceService | None = None,
        families: Sequence[Family] = FAMILIES,
    ) -> None:
        self.db = db
        self.knowledge = knowledge
        self.voice = voice
        self.families = tuple(families)

    # -- export ------------------------------------------------------------------------------------

    async def export_campaign(
        self, campaign_id: int, path: Path, *, with_library: bool = False
    ) -> ExportReport:
        """Write the campaign to one archive file (replacing `path` only once the archive is complete).

        The shared library sources it attaches are named; `with_library` adds their originals.
        """
        async with self.db.session() as session:
            if not self.db.is_sqlite:  # every table read from one snapshot
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            campaign = await campaigns.get_campaign(session, campaign_id)
            tables: Tables = {}
            for family in self.families:
                tables.update(await family(session, campaign))
            if campaign.is_branch:
                # A what-if branch's archive stands alone: the same tables, with what it inherits of its
                # ancestors up to its fork points (`bot.services.branches.lineage_rows`).
                from bot.services.branches.lineage_rows import lineage_tables

                tables = await lineage_tables(
                    session, campaign.id, list(tables), columns={"knowledge_chunks": CHUNK_COLUMNS}
                )
        hashes = sorted(
            {r["file_hash"] for r in tables.get("knowledge_sources", [])}
            | {r["file_hash"] for r in tables.get("knowledge_source_versions", [])}
        )
        current = {r["file_hash"]: r["filename"] for r in tables.get("knowledge_sources", [])}
        files: dict[str, bytes] = {}
        for digest in hashes:
            data = await asyncio.to_thread(self._read_stored, digest)
            if data is None:
                if digest in current:
                    raise NotFound(f"The stored copy of {current[digest]} is missing; it cannot be exported.")
                continue  # an older version's bytes are gone: its metadata is still exported
            files[digest] = data
        libraries, library_files = await library_entries(self.knowledge, campaign.id, include=with_library)
        files.update(library_files)
        counts = {name: len(rows) for name, rows in tables.items()}
        manifest = {
            "format": ARCHIVE_FORMAT,
            "version": ARCHIVE_VERSION,
            "exported_at": utc_now().isoformat(),
            "campaign": {
                "id": campaign.id,
                "name": campaign.name,
                "guild_id": campaign.guild_id,
                "parent_id": campaign.parent_id,
                "status": campaign.status.value,
                "settings": campaign.settings,
                "created_at": campaign.created_at.isoformat(),
            },
            "tables": counts,
            "files": sorted(files),
            "libraries": libraries,
        }
        size = await asyncio.to_thread(write_archive, path, manifest, tables, files)
        return ExportReport(path=path, campaign=campaign.name, tables=counts, files=len(files), bytes=size)

    def _read_stored(self, digest: str) -> bytes | None:
        return self.knowledge.files.read_if_kept(digest)

    # -- import ------------------------------------------------------------------------------------

    async def import_campaign(
        self,
        path: Path,
        *,
        name: str | None = None,
        guild_id: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> RestoreReport:
        """Restore an archive into a new campaign named `name` (default: the archived name); all or nothing."""
        contents = await asyncio.to_thread(read_archive, path)
        return await self.import_contents(contents, name=name, guild_id=guild_id, progress=progress)

    async def import_contents(
        self,
        contents: ArchiveContents,
        *,
        name: str | None = None,
        guild_id: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> RestoreReport:
        """Restore archive contents already read (see `import_campaign`)."""
        check_manifest(contents.manifest)
        archived = contents.manifest["campaign"]
        new_name = name or str(archived.get("name") or "")
        sources = self._archived_sources(contents)
        settings = archived.get("settings") if isinstance(archived.get("settings"), dict) else {}

        async def create(session: AsyncSession) -> Campaign:
            try:
                return await campaigns.create_campaign(
                    session, new_name, guild_id=guild_id, settings=settings
                )
            except Conflict:
                raise Conflict(
                    f"A campaign named {new_name!r} already exists; import under another name with --as NAME."
                ) from None

        campaign = await self.db.run(create)
        report = RestoreReport(campaign=campaign)
        if guild_id is not None:
            report.warnings += await self._server_taken(campaign, guild_id)
        ids = Ids()
        try:
            restored = await restore_knowledge(
                self.knowledge,
                campaign.id,
                KnowledgeArchive(
                    exported_at=utc_now(), campaign_id=int(archived.get("id") or 0), sources=sources
                ),
                progress=progress,
            )
            old_sources = [int(r["id"]) for r in contents.tables.get("knowledge_sources", [])]
            ids.put("knowledge_sources", old_sources, [r.source.id for r in restored])
            report.warnings += [
                f"{r.filename}: the same text as another source of the archive; kept once."
                for r in restored
                if r.outcome == ImportOutcome.DUPLICATE
            ]
            chunks = await self._chunk_map(campaign.id, contents.tables.get("knowledge_chunks", []), ids)

            async def rows(session: AsyncSession) -> None:
                await restore_rows(session, campaign.id, contents.tables, ids, chunks, report.warnings)

            await self.db.run(rows, attempts=1)
            libraries = contents.manifest.get("libraries")
            report.warnings += await reattach(self.knowledge, campaign.id, libraries, contents.files)
        except BaseException:
            await self._discard(campaign.id)
            raise
        report.tables = {
            "knowledge_sources": len(restored),
            **{name: len(ids.maps.get(name, {})) for name in MODELS if name in contents.tables},
        }
        report.tables.pop("knowledge_source_versions", None)
        report.tables.pop("knowledge_chunks", None)
        report.ids = ids.maps
        if self.voice is not None and contents.tables.get("npc_memories"):
            try:
                await self.voice.rebuild_indexes(campaign.id)
            except Exception as error:  # the memories are in SQL; `lorekeeper voice reindex` repairs this
                log.warning("could not rebuild the NPC memory indexes of campaign %s: %s", campaign.id, error)
                report.warnings.append(
                    f"NPC memories are restored but not yet searchable by meaning ({error}); "
                    "run `lorekeeper voice reindex`."
                )
        return report

    def _archived_sources(self, contents: ArchiveContents) -> list[ArchivedSource]:
        versions: dict[int, list[SourceVersionInfo]] = {}
        try:
            for row in contents.tables.get("knowledge_source_versions", []):
                versions.setdefault(int(row["source_id"]), []).append(SourceVersionInfo.model_validate(row))
            sources = []
            for row in contents.tables.get("knowledge_sources", []):
                own = sorted(versions.get(int(row["id"]), []), key=lambda v: v.version)
                hashes = {row["file_hash"], *(v.file_hash for v in own)}
                files = {
                    h: base64.b64encode(contents.files[h]).decode("ascii")
                    for h in hashes
                    if h in contents.files
                }
                if row["file_hash"] not in files:
                    raise ArchiveError(
                        f"The archive is incomplete: the file of {row['filename']} is missing."
                    )
                sources.append(
                    ArchivedSource(
                        filename=row["filename"],
                        title=row["title"],
                        knowledge_class=KnowledgeClass(row["knowledge_class"]),
                        enabled=bool(row["enabled"]),
                        hidden=source_stored_hidden(row.get("visibility")),
                        tags=list(row.get("tags") or []),
                        always_include=bool(row.get("always_include")),
                        notes=row.get("notes"),
                        times_used=int(row.get("times_used") or 0),
                        imported_at=dt.datetime.fromisoformat(row["imported_at"]),
                        version=int(row["version"]),
                        versions=own,
                        files=files,
                        file_hash=row["file_hash"],
                        section_choices=list(row.get("section_choices") or []),
                        ocr=read_with_ocr(str(row.get("parser_version") or "")),
                    )
                )
        except (KeyError, ValueError, ValidationError) as error:
            raise ArchiveError(f"The archive's knowledge sources are damaged: {error}") from None
        return sources

    async def _chunk_map(self, campaign_id: int, archived: Rows, ids: Ids) -> dict[int, int]:
        """Return old chunk id -> new chunk id, matched by (source, index) when the chunk's text hash agrees."""
        async with self.db.session() as session:
            rows = (
                await session.execute(
                    select(
                        KnowledgeChunkRow.id,
                        KnowledgeChunkRow.source_id,
                        KnowledgeChunkRow.chunk_index,
                        KnowledgeChunkRow.content_hash,
                    ).where(KnowledgeChunkRow.campaign_id == campaign_id)
                )
            ).all()
        new = {(source, index): (chunk, digest) for chunk, source, index, digest in rows}
        mapping: dict[int, int] = {}
        for row in archived:
            source = ids.get("knowledge_sources", row["source_id"])
            found = new.get((source, row["chunk_index"])) if source is not None else None
            if found is not None and found[1] == row.get("content_hash", found[1]):
                mapping[int(row["id"])] = found[0]
        ids.put("knowledge_chunks", mapping.keys(), mapping.values())
        return mapping

    async def _discard(self, campaign_id: int) -> None:
        """Remove what a failed import created: its sources (chunks, vectors, stored files) and the campaign."""
        try:
            sources = await self.knowledge.list_sources(campaign_id)
        except Exception:
            log.warning("could not list the sources of a failed import", exc_info=True)
            sources = []
        for source in sources:
            try:
                await self.knowledge.delete_source(campaign_id, source.id)
            except Exception:
                log.warning("could not remove source %s of a failed import", source.id, exc_info=True)
        if self.knowledge.vectors is not None:
            try:
                await self.knowledge.vectors.reset(campaign_id)
            except Exception:
                log.warning("could not drop the vectors of a failed import", exc_info=True)

        async def work(session: AsyncSession) -> None:
            # Whatever `delete_source` could not reach, then the campaign itself.
            source_rows = select(KnowledgeSourceRow.id).where(KnowledgeSourceRow.campaign_id == campaign_id)
            await session.execute(
                delete(KnowledgeChunkRow).where(KnowledgeChunkRow.campaign_id == campaign_id)
            )
            await session.execute(
                delete(KnowledgeSourceVersionRow).where(KnowledgeSourceVersionRow.source_id.in_(source_rows))
            )
            for model in (KnowledgeSourceRow, KnowledgeIndexStateRow, KnowledgeRetrievalRow):
                await session.execute(delete(model).where(model.campaign_id == campaign_id))
            await session.execute(delete(CampaignRow).where(CampaignRow.id == campaign_id))

        try:
            await self.db.run(work)
        except Exception:
            log.exception("could not remove campaign %s after its import failed", campaign_id)

    async def _server_taken(self, campaign: Campaign, guild_id: int) -> list[str]:
        """Return a warning when the server already plays an older root campaign (which stays its campaign)."""
        async with self.db.session() as session:
            others = [
                c
                for c in await campaigns.list_campaigns(session, guild_id=guild_id)
                if c.id != campaign.id and c.parent_id is None
            ]
        if others and others[0].id < campaign.id:
            return [
                f"That server already plays “{others[0].name}”, which stays its campaign; "
                "this one is bound to it but not used there."
            ]
        return []
