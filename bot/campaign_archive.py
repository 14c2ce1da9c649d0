"""Export a whole campaign to one archive file, and import such an archive as a NEW campaign.

The archive is a zip file:

    manifest.json               {"format": "lorekeeper-campaign", "version": 1, "exported_at", "campaign": {...},
                                 "tables": {table: row count}, "files": [sha256, ...]}
    tables/<table>.jsonl        one JSON object per row, column name -> value (datetimes as ISO 8601 UTC),
                                in id order
    files/<sha256>              the raw bytes of every imported source version still stored

What it holds, by table family (each family is one function below, `(session, campaign) -> {table: rows}`, so a
branch-aware export can decide which rows a campaign has in one place):

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
memory scopes and links) is remapped. A reference to something the archive does not hold (evidence of a chunk
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
import hashlib
import io
import json
import logging
import os
import re
import secrets
import tempfile
import zipfile
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import delete, insert, select, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import bindparam

from canon import campaigns
from canon.campaigns import Campaign, CampaignRow, ChangesetRow
from canon.continuity import ConflictKind, fingerprint
from canon.domain import Validity
from canon.errors import Conflict, InvalidInput, NotFound
from canon.models import (
    AliasRow,
    ConflictRow,
    DependencyRow,
    EntityRow,
    EvidenceRow,
    ProposalRow,
    StatementRow,
    StatusChangeRow,
)
from canon.storage import Base, Database, UTCDateTime, utc_now
from canon.structured.facts import statement_fingerprint
from canon.structured.models import StructuredFileRow
from memory.journal import JournalEntryRow
from memory.knowledge.archive import ArchivedSource, KnowledgeArchive, restore_knowledge
from memory.knowledge.models import ImportOutcome, KnowledgeClass, ProgressCallback, SourceVersionInfo
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import (
    KnowledgeChunkRow,
    KnowledgeIndexStateRow,
    KnowledgeRetrievalRow,
    KnowledgeSourceRow,
    KnowledgeSourceVersionRow,
)
from memory.scene_tables import SceneRow, TurnRevisionRow, TurnRow
from memory.voice_tables import NarrationRow, NpcMemoryRow, SceneCastRow, SceneDigestRow

if TYPE_CHECKING:
    from bot.voice.service import VoiceService

log = logging.getLogger(__name__)

__all__ = [
    "ARCHIVE_FORMAT",
    "ARCHIVE_VERSION",
    "FAMILIES",
    "ArchiveContents",
    "CampaignArchive",
    "ExportReport",
    "RestoreReport",
    "read_archive",
]

ARCHIVE_FORMAT = "lorekeeper-campaign"
ARCHIVE_VERSION = 1
#: Versions this code reads (an older one would be converted here when version 2 exists).
READABLE_VERSIONS = frozenset({1})
#: A member of an archive larger than this is refused (a zip bomb, or not our archive).
MAX_MEMBER_BYTES = 2 * 1024**3
_BATCH = 500

Rows = list[dict[str, Any]]
Tables = dict[str, Rows]
#: One table family: the rows a campaign has in those tables, in id order, as column -> value dicts.
Family = Callable[[AsyncSession, Campaign], Awaitable[Tables]]

MODELS: dict[str, type[Base]] = {
    "knowledge_sources": KnowledgeSourceRow,
    "knowledge_source_versions": KnowledgeSourceVersionRow,
    "knowledge_chunks": KnowledgeChunkRow,
    "scenes": SceneRow,
    "turns": TurnRow,
    "turn_revisions": TurnRevisionRow,
    "changesets": ChangesetRow,
    "entities": EntityRow,
    "entity_aliases": AliasRow,
    "statements": StatementRow,
    "status_changes": StatusChangeRow,
    "evidence": EvidenceRow,
    "dependencies": DependencyRow,
    "proposals": ProposalRow,
    "conflicts": ConflictRow,
    "structured_files": StructuredFileRow,
    "npc_memories": NpcMemoryRow,
    "scene_digests": SceneDigestRow,
    "scene_cast": SceneCastRow,
    "narrations": NarrationRow,
    "journal_entries": JournalEntryRow,
}
#: Of a chunk only its identity is exported: the text is rebuilt from the source's bytes.
CHUNK_COLUMNS = ("id", "source_id", "chunk_index", "content_hash")


class ArchiveError(InvalidInput):
    """An archive that cannot be read or imported (the message says why, for people)."""


# ------------------------------------------------------------------------------------------------ rows


def _columns(model: type[Base]) -> list[tuple[str, Any]]:
    """Return (attribute name, column) of a model's mapped columns."""
    return [(attr.key, attr.columns[0]) for attr in sa_inspect(model).column_attrs]


def dump_row(row: Base, only: Sequence[str] | None = None) -> dict[str, Any]:
    """Return a row as JSON-ready column -> value (datetimes as ISO 8601)."""
    out: dict[str, Any] = {}
    for key, _column in _columns(type(row)):
        if only is not None and key not in only:
            continue
        value = getattr(row, key)
        out[key] = value.isoformat() if isinstance(value, dt.datetime) else value
    return out


def load_row(model: type[Base], data: dict[str, Any]) -> dict[str, Any]:
    """Return an archived row's values as the model's columns expect them (ISO strings back to datetimes)."""
    out: dict[str, Any] = {}
    for key, column in _columns(model):
        if key not in data:
            default = column.default
            if default is not None and getattr(default, "is_callable", False):
                out[key] = default.arg(None)
            elif default is not None and getattr(default, "is_scalar", False):
                out[key] = default.arg
            else:
                out[key] = None
            continue
        value = data[key]
        if isinstance(column.type, UTCDateTime) and isinstance(value, str):
            value = dt.datetime.fromisoformat(value)
            value = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        out[key] = value
    return out


async def _all(session: AsyncSession, model: Any, *where: Any) -> list[Any]:
    return list((await session.execute(select(model).where(*where).order_by(model.id))).scalars())


def _dump(rows: Iterable[Base]) -> Rows:
    return [dump_row(r) for r in rows]


# ------------------------------------------------------------------------------------------------ families


async def knowledge_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's own knowledge sources, their versions and the identity of their chunks."""
    sources = await _all(session, KnowledgeSourceRow, KnowledgeSourceRow.campaign_id == campaign.id)
    ids = [s.id for s in sources]
    versions: list[Any] = []
    chunks: list[Any] = []
    for start in range(0, len(ids), _BATCH):
        part = ids[start : start + _BATCH]
        versions += await _all(
            session, KnowledgeSourceVersionRow, KnowledgeSourceVersionRow.source_id.in_(part)
        )
        chunks += await _all(session, KnowledgeChunkRow, KnowledgeChunkRow.source_id.in_(part))
    return {
        "knowledge_sources": _dump(sources),
        "knowledge_source_versions": _dump(versions),
        "knowledge_chunks": [dump_row(c, CHUNK_COLUMNS) for c in chunks],
    }


async def narrative_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's scenes, turns and the turns' edit history."""
    scenes = await _all(session, SceneRow, SceneRow.campaign_id == campaign.id)
    turns = await _all(session, TurnRow, TurnRow.campaign_id == campaign.id)
    revisions = await _all(
        session,
        TurnRevisionRow,
        TurnRevisionRow.turn_id.in_(select(TurnRow.id).where(TurnRow.campaign_id == campaign.id)),
    )
    return {"scenes": _dump(scenes), "turns": _dump(turns), "turn_revisions": _dump(revisions)}


async def canon_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's canon graph: changesets and every row they wrote."""
    out: Tables = {
        "changesets": _dump(await _all(session, ChangesetRow, ChangesetRow.campaign_id == campaign.id))
    }
    for name in ("entities", "entity_aliases", "statements", "status_changes", "evidence", "dependencies"):
        model: Any = MODELS[name]
        out[name] = _dump(await _all(session, model, model.campaign_id == campaign.id))
    return out


async def review_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's proposals (pending and decided) and recorded continuity conflicts."""
    return {
        "proposals": _dump(await _all(session, ProposalRow, ProposalRow.campaign_id == campaign.id)),
        "conflicts": _dump(await _all(session, ConflictRow, ConflictRow.campaign_id == campaign.id)),
    }


async def structured_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return what each imported YAML file produced in the campaign."""
    return {
        "structured_files": _dump(
            await _all(session, StructuredFileRow, StructuredFileRow.campaign_id == campaign.id)
        )
    }


async def voice_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's NPC memories, scene digests, scene casts and narrations."""
    digests = (
        await session.execute(
            select(SceneDigestRow)
            .where(SceneDigestRow.campaign_id == campaign.id)
            .order_by(SceneDigestRow.scene_id)
        )
    ).scalars()
    casts = await _all(
        session,
        SceneCastRow,
        SceneCastRow.scene_id.in_(select(SceneRow.id).where(SceneRow.campaign_id == campaign.id)),
    )
    return {
        "npc_memories": _dump(await _all(session, NpcMemoryRow, NpcMemoryRow.campaign_id == campaign.id)),
        "scene_digests": _dump(digests),
        "scene_cast": _dump(casts),
        "narrations": _dump(await _all(session, NarrationRow, NarrationRow.campaign_id == campaign.id)),
    }


async def journal_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign journal: each completed scene's recap."""
    entries = (
        await session.execute(
            select(JournalEntryRow)
            .where(JournalEntryRow.campaign_id == campaign.id)
            .order_by(JournalEntryRow.scene_id)
        )
    ).scalars()
    return {"journal_entries": _dump(entries)}


#: Every family, in the order they are read.
FAMILIES: tuple[Family, ...] = (
    knowledge_family,
    narrative_family,
    canon_family,
    review_family,
    structured_family,
    voice_family,
    journal_family,
)


# ------------------------------------------------------------------------------------------------ reports


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


@dataclass(frozen=True)
class ArchiveContents:
    """An archive read into memory."""

    manifest: dict[str, Any]
    tables: Tables
    files: dict[str, bytes]


# ------------------------------------------------------------------------------------------------ the file


def write_archive(path: Path, manifest: dict[str, Any], tables: Tables, files: dict[str, bytes]) -> int:
    """Write an archive atomically (a temporary file renamed into place); return its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".export-", suffix=".zip")
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(
                "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True)
            )
            for name, rows in tables.items():
                text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
                archive.writestr(f"tables/{name}.jsonl", text)
            for digest, data in sorted(files.items()):
                archive.writestr(f"files/{digest}", data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise ArchiveError(f"The archive's {name} is {info.file_size:,} bytes: too large to be ours.")
    return archive.read(info)


def read_archive(path: Path) -> ArchiveContents:
    """Read and check an archive: its format and version, every table it names and every file's hash."""
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArchiveError(f"{path} does not exist.") from None
    except (zipfile.BadZipFile, OSError):
        raise ArchiveError(
            f"{path} is not a Lorekeeper campaign archive (not a zip file made by `lorekeeper export`)."
        ) from None
    with archive:
        names = set(archive.namelist())
        if "manifest.json" not in names:
            raise ArchiveError(f"{path} is not a Lorekeeper campaign archive: it has no manifest.json.")
        try:
            manifest = json.loads(_member(archive, "manifest.json"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ArchiveError(f"{path}: its manifest.json is not JSON.") from None
        check_manifest(manifest)
        tables: Tables = {}
        for name in manifest.get("tables", {}):
            if name not in MODELS:
                raise ArchiveError(f"The archive holds a table this Lorekeeper does not know: {name}.")
            member = f"tables/{name}.jsonl"
            if member not in names:
                raise ArchiveError(f"The archive is incomplete: {member} is missing.")
            try:
                lines = _member(archive, member).decode("utf-8").splitlines()
                tables[name] = [json.loads(line) for line in lines if line.strip()]
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise ArchiveError(f"The archive's {member} is damaged: {error}.") from None
        files: dict[str, bytes] = {}
        for digest in manifest.get("files", []):
            member = f"files/{digest}"
            if member not in names:
                raise ArchiveError(f"The archive is incomplete: {member} is missing.")
            data = _member(archive, member)
            if hashlib.sha256(data).hexdigest() != digest:
                raise ArchiveError(f"The archive's copy of {member} is damaged (its hash does not match).")
            files[digest] = data
    return ArchiveContents(manifest=manifest, tables=tables, files=files)


def check_manifest(manifest: Any) -> None:
    """Refuse a manifest of another format or of a version this code does not read, saying why."""
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise ArchiveError(
            f"This is not a Lorekeeper campaign archive (format {found!r}, expected {ARCHIVE_FORMAT!r})."
        )
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in READABLE_VERSIONS:
        readable = ", ".join(str(v) for v in sorted(READABLE_VERSIONS))
        newer = isinstance(version, int) and version > max(READABLE_VERSIONS)
        hint = " It was made by a newer Lorekeeper: update this one to import it." if newer else ""
        raise ArchiveError(
            f"This campaign archive is version {version!r}; this Lorekeeper reads version {readable} only.{hint}"
        )
    if not isinstance(manifest.get("campaign"), dict) or not isinstance(manifest.get("tables", {}), dict):
        raise ArchiveError("The archive's manifest.json is damaged: it has no campaign or table list.")


# ------------------------------------------------------------------------------------------------ remapping


class _Ids:
    """Old id -> new id, per table; a required reference that is missing makes the archive inconsistent."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[int, int]] = {}

    def put(self, table: str, old: Iterable[int], new: Iterable[int]) -> None:
        self.maps.setdefault(table, {}).update(zip(old, new, strict=True))

    def get(self, table: str, old: Any) -> int | None:
        if old is None:
            return None
        return self.maps.get(table, {}).get(int(old))

    def need(self, table: str, old: Any, what: str) -> int:
        found = self.get(table, old)
        if found is None:
            raise ArchiveError(
                f"The archive is inconsistent: {what} refers to {table} #{old}, which it does not contain."
            )
        return found

    def target(self, kind: str, old: Any, what: str, *, required: bool = True) -> int | None:
        """Map the id of an `entity` or a `statement` (columns named target_kind/target_id and the like)."""
        table = {"entity": "entities", "statement": "statements"}.get(kind)
        if table is None:
            raise ArchiveError(f"The archive is inconsistent: {what} has an unknown target kind {kind!r}.")
        return self.need(table, old, what) if required else self.get(table, old)


def _evidence_json(item: dict[str, Any], ids: _Ids, chunks: dict[int, int]) -> dict[str, Any]:
    """Return one evidence dict (in proposals and findings) with its ids remapped (unknown ones emptied)."""
    out = dict(item)
    if out.get("scene_id") is not None:
        out["scene_id"] = ids.get("scenes", out["scene_id"])
    if out.get("source_id") is not None:
        out["source_id"] = ids.get("knowledge_sources", out["source_id"])
    if out.get("chunk_id") is not None:
        out["chunk_id"] = chunks.get(int(out["chunk_id"]))
    if out.get("proposal_id") is not None:
        out["proposal_id"] = ids.get("proposals", out["proposal_id"])
    return out


def _finding_json(item: dict[str, Any], ids: _Ids, chunks: dict[int, int]) -> dict[str, Any]:
    """Return a continuity finding (a conflict's details, a proposal's warning) with its ids remapped.

    Unknown ids (a warning about a statement that was only simulated) are left out of the id lists; a side
    about one keeps its sentence with id 0, which no row has.
    """
    out = dict(item)
    out["entity_ids"] = [n for n in (ids.get("entities", i) for i in item.get("entity_ids") or []) if n]
    out["statement_ids"] = [
        n for n in (ids.get("statements", i) for i in item.get("statement_ids") or []) if n
    ]
    if item.get("prevailing_id") is not None:
        out["prevailing_id"] = ids.get("statements", item["prevailing_id"])
    sides = []
    for side in item.get("sides") or []:
        new = dict(side)
        if side.get("statement_id") is not None:
            new["statement_id"] = ids.get("statements", side["statement_id"]) or 0
        if side.get("entity_id") is not None:
            new["entity_id"] = ids.get("entities", side["entity_id"]) or 0
        new["evidence"] = [_evidence_json(e, ids, chunks) for e in side.get("evidence") or []]
        sides.append(new)
    if "sides" in item:
        out["sides"] = sides
    kind = item.get("kind")
    if "fingerprint" in item and kind in ConflictKind._value2member_map_:
        out["fingerprint"] = fingerprint(ConflictKind(str(kind)), out["statement_ids"], out["entity_ids"])
    return out


def _refs_json(value: Any, ids: _Ids, *, proposals: bool) -> Any:
    """Return proposal content with every entity reference (`{name, entity_id, proposal_id}`) remapped.

    With `proposals=False` references to other proposals are left for the second pass (their new ids are not
    known yet).
    """
    if isinstance(value, list):
        return [_refs_json(v, ids, proposals=proposals) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _refs_json(v, ids, proposals=proposals) for k, v in value.items()}
    if "name" in value and ("entity_id" in value or "proposal_id" in value):
        if value.get("entity_id") is not None and not proposals:
            out["entity_id"] = ids.get("entities", value["entity_id"])
        if value.get("proposal_id") is not None and proposals:
            out["proposal_id"] = ids.get("proposals", value["proposal_id"])
    return out


_SCOPE = re.compile(r"^/campaign/\d+(?:/npc/(?P<npc>\d+)(?:/scene/(?P<scene>\d+))?)?$")


def _scope(scope: str, campaign_id: int, ids: _Ids) -> str:
    """Return an NPC memory scope path in the new campaign, its NPC and scene remapped."""
    match = _SCOPE.fullmatch(scope)
    if match is None:
        return scope
    out = f"/campaign/{campaign_id}"
    if match["npc"] is not None:
        out += f"/npc/{ids.need('entities', match['npc'], 'an NPC memory scope')}"
    if match["scene"] is not None:
        out += f"/scene/{ids.need('scenes', match['scene'], 'an NPC memory scope')}"
    return out


def _statement_fp(row: dict[str, Any], subject: int, obj: int | None) -> str:
    validity = Validity(world_from=row.get("world_from"), world_until=row.get("world_until"))
    return statement_fingerprint(
        str(row["kind"]),
        subject,
        str(row["predicate"]),
        obj,
        row.get("value"),
        validity,
        str(row.get("visibility") or "public"),
    )


# ------------------------------------------------------------------------------------------------ the service


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

    async def export_campaign(self, campaign_id: int, path: Path) -> ExportReport:
        """Write the campaign to one archive file (replacing `path` only once the archive is complete)."""
        async with self.db.session() as session:
            if not self.db.is_sqlite:  # every table read from one snapshot
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            campaign = await campaigns.get_campaign(session, campaign_id)
            tables: Tables = {}
            for family in self.families:
                tables.update(await family(session, campaign))
            if campaign.is_branch:
                # A what-if branch's archive stands alone: the same tables, with what it inherits of its
                # ancestors up to its fork points (`bot.branch_rows`).
                from bot.branch_rows import lineage_tables

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
        }
        size = await asyncio.to_thread(write_archive, path, manifest, tables, files)
        return ExportReport(path=path, campaign=campaign.name, tables=counts, files=len(files), bytes=size)

    def _read_stored(self, digest: str) -> bytes | None:
        try:
            return (self.knowledge.data_dir / "sources" / digest).read_bytes()
        except FileNotFoundError:
            return None

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
            async with self.db.session() as session:
                others = [
                    c
                    for c in await campaigns.list_campaigns(session, guild_id=guild_id)
                    if c.id != campaign.id and c.parent_id is None
                ]
            if others and others[0].id < campaign.id:
                report.warnings.append(
                    f"That server already plays “{others[0].name}”, which stays its campaign; "
                    "this one is bound to it but not used there."
                )
        ids = _Ids()
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
                await self._restore_rows(session, campaign.id, contents.tables, ids, chunks, report)

            await self.db.run(rows, attempts=1)
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
                        hidden=row.get("visibility") == "hidden",
                        tags=list(row.get("tags") or []),
                        always_include=bool(row.get("always_include")),
                        notes=row.get("notes"),
                        times_used=int(row.get("times_used") or 0),
                        imported_at=dt.datetime.fromisoformat(row["imported_at"]),
                        version=int(row["version"]),
                        versions=own,
                        files=files,
                        file_hash=row["file_hash"],
                    )
                )
        except (KeyError, ValueError, ValidationError) as error:
            raise ArchiveError(f"The archive's knowledge sources are damaged: {error}") from None
        return sources

    async def _chunk_map(self, campaign_id: int, archived: Rows, ids: _Ids) -> dict[int, int]:
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

    async def _restore_rows(
        self,
        session: AsyncSession,
        campaign_id: int,
        tables: Tables,
        ids: _Ids,
        chunks: dict[int, int],
        report: RestoreReport,
    ) -> None:
        """Insert every archived row into the new campaign, in reference order, remapping ids; one transaction."""

        def rows_of(name: str) -> list[dict[str, Any]]:
            return [load_row(MODELS[name], r) for r in tables.get(name, [])]

        async def put(name: str, rows: list[dict[str, Any]], old: list[int]) -> None:
            ids.put(name, old, await _insert(session, MODELS[name], rows))

        # -- narrative: scenes, turns, edit history
        scenes = rows_of("scenes")
        open_channels = set(
            (
                await session.execute(select(SceneRow.channel_id).where(SceneRow.status != "completed"))
            ).scalars()
        )
        detached = 0
        for row in scenes:
            row["campaign_id"], row["guild_id"] = campaign_id, None
            if row["status"] != "completed":
                if row["channel_id"] in open_channels:
                    row["channel_id"] = -1 - secrets.randbelow(2**62)  # no Discord channel has this id
                    detached += 1
                open_channels.add(row["channel_id"])
        if detached:
            report.warnings.append(
                f"{detached} open scene(s) played in a channel that already has an open scene; they are kept "
                "but no longer tied to a channel."
            )
        await put("scenes", [_without_id(r) for r in scenes], [r["id"] for r in scenes])

        turns = rows_of("turns")
        message_ids = [r["discord_message_id"] for r in turns if r["discord_message_id"] is not None]
        taken: set[int] = set()
        for start in range(0, len(message_ids), _BATCH):
            part = message_ids[start : start + _BATCH]
            found = await session.execute(
                select(TurnRow.discord_message_id).where(TurnRow.discord_message_id.in_(part))
            )
            taken |= {m for m in found.scalars() if m is not None}
        for row in turns:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], f"turn #{row['id']}")
            if row["discord_message_id"] in taken:
                row["discord_message_id"] = None  # the live message belongs to the campaign that has it
        await put("turns", [_without_id(r) for r in turns], [r["id"] for r in turns])
        revisions = rows_of("turn_revisions")
        for row in revisions:
            row["turn_id"] = ids.need("turns", row["turn_id"], f"turn revision #{row['id']}")
        await put("turn_revisions", [_without_id(r) for r in revisions], [r["id"] for r in revisions])

        # -- canon: changesets first (their order is the graph's clock), then what they wrote
        changesets = rows_of("changesets")
        for row in changesets:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.get("scenes", row["scene_id"])
        await put("changesets", [_without_id(r) for r in changesets], [r["id"] for r in changesets])

        def written(row: dict[str, Any], what: str) -> None:
            row["campaign_id"] = campaign_id
            row["changeset_id"] = ids.need("changesets", row["changeset_id"], what)

        entities = rows_of("entities")
        for row in entities:
            written(row, f"entity #{row['id']}")
        await put("entities", [_without_id(r) for r in entities], [r["id"] for r in entities])
        aliases = rows_of("entity_aliases")
        for row in aliases:
            written(row, f"alias #{row['id']}")
            row["entity_id"] = ids.need("entities", row["entity_id"], f"alias #{row['id']}")
        await put("entity_aliases", [_without_id(r) for r in aliases], [r["id"] for r in aliases])

        statements = rows_of("statements")
        archived_statements = {int(r["id"]): dict(r) for r in statements}
        replaces = {int(r["id"]): r["replaces_id"] for r in statements if r["replaces_id"] is not None}
        for row in statements:
            what = f"fact #{row['id']}"
            written(row, what)
            row["subject_id"] = ids.need("entities", row["subject_id"], what)
            if row["object_id"] is not None:
                row["object_id"] = ids.need("entities", row["object_id"], what)
            row["replaces_id"] = None  # set below, once every statement has its new id
        await put("statements", [_without_id(r) for r in statements], [r["id"] for r in statements])
        await _update(
            session,
            StatementRow,
            "replaces_id",
            [
                (ids.need("statements", old, "a retcon"), ids.need("statements", target, f"fact #{old}"))
                for old, target in replaces.items()
            ],
        )

        changes = rows_of("status_changes")
        for row in changes:
            what = f"status change #{row['id']}"
            written(row, what)
            row["target_id"] = ids.target(row["target_kind"], row["target_id"], what)
            row["replacement_id"] = ids.target(
                row["target_kind"], row["replacement_id"], what, required=False
            )
        await put("status_changes", [_without_id(r) for r in changes], [r["id"] for r in changes])

        # -- proposals: their ids are needed by evidence; references between proposals in a second pass
        proposals = rows_of("proposals")
        pending_refs: dict[int, Any] = {}
        for row in proposals:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["content"] = _refs_json(row["content"], ids, proposals=False)
            pending_refs[int(row["id"])] = row["content"]
            row["evidence"] = [_evidence_json(e, ids, chunks) for e in row["evidence"] or []]
            row["warnings"] = [_finding_json(w, ids, chunks) for w in row["warnings"] or []]
            row["committed_changeset_id"] = ids.get("changesets", row["committed_changeset_id"])
        await put("proposals", [_without_id(r) for r in proposals], [r["id"] for r in proposals])
        content_updates = []
        for old, content in pending_refs.items():
            remapped = _refs_json(content, ids, proposals=True)
            if remapped != content:
                content_updates.append((ids.need("proposals", old, "a proposal"), remapped))
        await _update(session, ProposalRow, "content", content_updates)

        evidence = rows_of("evidence")
        for row in evidence:
            what = f"evidence #{row['id']}"
            written(row, what)
            row["target_id"] = ids.target(row["target_kind"], row["target_id"], what)
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["source_id"] = ids.get("knowledge_sources", row["source_id"])
            row["chunk_id"] = chunks.get(int(row["chunk_id"])) if row["chunk_id"] is not None else None
            row["proposal_id"] = ids.get("proposals", row["proposal_id"])
        await put("evidence", [_without_id(r) for r in evidence], [r["id"] for r in evidence])
        dependencies = rows_of("dependencies")
        for row in dependencies:
            what = f"dependency #{row['id']}"
            written(row, what)
            row["statement_id"] = ids.need("statements", row["statement_id"], what)
            row["depends_on_id"] = ids.target(row["depends_on_kind"], row["depends_on_id"], what)
        await put("dependencies", [_without_id(r) for r in dependencies], [r["id"] for r in dependencies])

        conflicts, seen = [], set()
        for row in rows_of("conflicts"):
            row["campaign_id"] = campaign_id
            details = _finding_json(dict(row["details"] or {}), ids, chunks)
            row["details"] = details
            row["fingerprint"] = details.get("fingerprint", row["fingerprint"])
            if row["fingerprint"] in seen:
                continue
            seen.add(row["fingerprint"])
            conflicts.append(row)
        await put("conflicts", [_without_id(r) for r in conflicts], [r["id"] for r in conflicts])

        # -- structured lore bookkeeping: entity and statement ids, and the fingerprints built on them
        files = rows_of("structured_files")
        for row in files:
            what = f"the YAML file {row['file']}"
            row["campaign_id"] = campaign_id
            row["changeset_id"] = ids.need("changesets", row["changeset_id"], what)
            entries = {}
            for key, entry in (row["entries"] or {}).items():
                new = dict(entry)
                if entry.get("e") is not None:
                    new["e"] = ids.need("entities", entry["e"], what)
                entries[key] = new
            row["entries"] = entries
            slots = {}
            for slot, pair in (row["statements"] or {}).items():
                old_id, old_fp = int(pair[0]), pair[1]
                new_id = ids.need("statements", old_id, what)
                fp = old_fp
                archived_row = archived_statements.get(old_id)
                if archived_row is not None:
                    subject, obj = archived_row["subject_id"], archived_row["object_id"]
                    if _statement_fp(archived_row, subject, obj) == old_fp:
                        fp = _statement_fp(
                            archived_row,
                            ids.need("entities", subject, what),
                            ids.need("entities", obj, what) if obj is not None else None,
                        )
                slots[slot] = [new_id, fp]
            row["statements"] = slots
        await put("structured_files", [_without_id(r) for r in files], [r["id"] for r in files])

        # -- the voice: NPC memories (links between them in a second pass), digests, casts, narrations
        memories = rows_of("npc_memories")
        links = {int(r["id"]): list(r["memory_ids"] or []) for r in memories if r["memory_ids"]}
        for row in memories:
            what = f"NPC memory #{row['id']}"
            row["campaign_id"] = campaign_id
            row["npc_entity_id"] = ids.need("entities", row["npc_entity_id"], what)
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["scope"] = _scope(row["scope"], campaign_id, ids)
            row["memory_ids"] = []
        await put("npc_memories", [_without_id(r) for r in memories], [r["id"] for r in memories])
        await _update(
            session,
            NpcMemoryRow,
            "memory_ids",
            [
                (
                    ids.need("npc_memories", old, "an NPC memory"),
                    [ids.get("npc_memories", m) or 0 for m in linked],
                )
                for old, linked in links.items()
            ],
        )
        digests = rows_of("scene_digests")
        for row in digests:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], "a scene digest")
            row["npc_ids"] = [n for n in (ids.get("entities", i) for i in row["npc_ids"] or []) if n]
        if digests:
            await session.execute(insert(SceneDigestRow), digests)
        ids.put("scene_digests", [r["scene_id"] for r in digests], [r["scene_id"] for r in digests])
        casts = rows_of("scene_cast")
        for row in casts:
            row["scene_id"] = ids.need("scenes", row["scene_id"], "a scene's cast")
            row["entity_id"] = ids.need("entities", row["entity_id"], "a scene's cast")
        await put("scene_cast", [_without_id(r) for r in casts], [r["id"] for r in casts])
        narrations = rows_of("narrations")
        for row in narrations:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], f"narration #{row['id']}")
        await put("narrations", [_without_id(r) for r in narrations], [r["id"] for r in narrations])
        await _restore_journal(session, rows_of("journal_entries"), ids, campaign_id)  # then flushes


async def _restore_journal(
    session: AsyncSession, entries: list[dict[str, Any]], ids: _Ids, campaign_id: int
) -> None:
    """Restore the campaign journal's recaps, each keyed by its restored scene; flush what was restored."""
    for row in entries:
        row["campaign_id"] = campaign_id
        row["scene_id"] = ids.need("scenes", row["scene_id"], "a recap of the journal")
    if entries:
        await session.execute(insert(JournalEntryRow), entries)
    ids.put("journal_entries", [r["scene_id"] for r in entries], [r["scene_id"] for r in entries])
    await session.flush()


def _without_id(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "id"}


async def _insert(session: AsyncSession, model: type[Base], rows: list[dict[str, Any]]) -> list[int]:
    """Insert rows in batches and return their new ids, in the order given."""
    if not rows:
        return []
    table: Any = model.__table__
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    new: list[int] = []
    for start in range(0, len(rows), _BATCH):
        result = await session.execute(statement, rows[start : start + _BATCH])
        new += [int(r[0]) for r in result]
    return new


async def _update(
    session: AsyncSession, model: type[Base], column: str, pairs: list[tuple[int, Any]]
) -> None:
    """Set one column of rows by new id: (id, value) pairs."""
    if not pairs:
        return
    table: Any = model.__table__
    statement = update(table).where(table.c.id == bindparam("b_id")).values({column: bindparam("b_value")})
    for start in range(0, len(pairs), _BATCH):
        await session.execute(
            statement, [{"b_id": i, "b_value": v} for i, v in pairs[start : start + _BATCH]]
        )


def archive_bytes(contents: ArchiveContents) -> bytes:
    """Return an archive's contents as zip bytes (tests build altered archives with it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(contents.manifest))
        for name, rows in contents.tables.items():
            archive.writestr(f"tables/{name}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
        for digest, data in contents.files.items():
            archive.writestr(f"files/{digest}", data)
    return buffer.getvalue()
