"""What an archive holds, by table family: each family reads the rows a campaign has in its tables.

A family is `(session, campaign) -> {table: rows}`, rows as JSON-ready column -> value dicts in id order, so a
branch-aware export decides in one place which rows a campaign has.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign, ChangesetRow
from canon.storage import Base, UTCDateTime
from canon.structured.tables import StructuredFileRow
from canon.tables import (
    AliasRow,
    ConflictRow,
    DependencyRow,
    EntityRow,
    EvidenceRow,
    ProposalRow,
    StatementRow,
    StatusChangeRow,
)
from memory.journal import JournalEntryRow
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow
from memory.notes.tables import GmNoteEntityRow, GmNoteRow
from memory.scene_tables import SceneRow, TurnRevisionRow, TurnRow
from memory.voice_tables import NarrationRow, NpcMemoryRow, SceneCastRow, SceneDigestRow

#: Rows read or written at once (a bound `IN (...)` list, an `executemany` batch).
BATCH = 500

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
    "gm_notes": GmNoteRow,
    "gm_note_entities": GmNoteEntityRow,
}
#: Of a chunk only its identity is exported: the text is rebuilt from the source's bytes.
CHUNK_COLUMNS = ("id", "source_id", "chunk_index", "content_hash")
#: Of a chunk only its identity is exported: the text is rebuilt from the source's bytes.
CHUNK_COLUMNS = ("id", "source_id", "chunk_index", "content_hash")


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


async def knowledge_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the campaign's own knowledge sources, their versions and the identity of their chunks."""
    sources = await _all(session, KnowledgeSourceRow, KnowledgeSourceRow.campaign_id == campaign.id)
    ids = [s.id for s in sources]
    versions: list[Any] = []
    chunks: list[Any] = []
    for start in range(0, len(ids), BATCH):
        part = ids[start : start + BATCH]
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


async def notes_family(session: AsyncSession, campaign: Campaign) -> Tables:
    """Return the GM's notes and the entities each is about."""
    return {
        "gm_notes": _dump(await _all(session, GmNoteRow, GmNoteRow.campaign_id == campaign.id)),
        "gm_note_entities": _dump(
            await _all(session, GmNoteEntityRow, GmNoteEntityRow.campaign_id == campaign.id)
        ),
    }


#: Every family, in the order they are read.
FAMILIES: tuple[Family, ...] = (
    knowledge_family,
    narrative_family,
    canon_family,
    review_family,
    structured_family,
    voice_family,
    journal_family,
    notes_family,
)
