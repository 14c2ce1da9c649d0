"""The wiki's SQL: pages of a campaign's scenes, a scene's turns and the canon a scene's turns support.

Each query names the campaign it reads (a scene is found by its number in that campaign's story, never by a row
id from a URL), and each returns one page at most.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.graph import CanonReader
from canon.graph.lineage import lineage_as_of
from canon.graph.rows import retcon_subquery
from canon.models import NOW, Viewer
from canon.tables import EntityRow, EvidenceRow
from canon.visibility import entity_hidden, entity_is_public_sql, source_stored_hidden
from memory.journal import JournalEntryRow, Recap, recap_of
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import Scene, Turn, scene_from_row, turn_from_row


@dataclass(frozen=True)
class JournalEntry:
    """A scene of the journal with its recap, if one was written."""

    scene: Scene
    recap: Recap | None


async def count_scenes(session: AsyncSession, campaign_id: int) -> int:
    """Return how many scenes the campaign has."""
    query = select(func.count()).select_from(SceneRow).where(SceneRow.campaign_id == campaign_id)
    return int((await session.execute(query)).scalar_one())


async def journal_entries(
    session: AsyncSession, campaign_id: int, *, offset: int, limit: int
) -> list[JournalEntry]:
    """Return a page of the campaign's scenes, newest first in the story, with their recaps."""
    query = (
        select(SceneRow)
        .where(SceneRow.campaign_id == campaign_id)
        .order_by(SceneRow.story_order.desc(), SceneRow.id.desc())
        .offset(offset)
        .limit(limit)
    )
    scenes = [scene_from_row(r) for r in (await session.execute(query)).scalars()]
    recaps = {}
    if scenes:
        rows = await session.execute(
            select(JournalEntryRow.scene_id).where(JournalEntryRow.scene_id.in_([s.id for s in scenes]))
        )
        for (scene_id,) in rows.all():
            recaps[scene_id] = await recap_of(session, scene_id)
    return [JournalEntry(s, recaps.get(s.id)) for s in scenes]


async def scene_numbered(session: AsyncSession, campaign_id: int, number: int) -> Scene | None:
    """Return the campaign's scene with this number in its story, or None."""
    query = (
        select(SceneRow)
        .where(SceneRow.campaign_id == campaign_id, SceneRow.story_order == number)
        .order_by(SceneRow.id)
        .limit(1)
    )
    row = (await session.execute(query)).scalar_one_or_none()
    return scene_from_row(row) if row is not None else None


async def scene_orders(session: AsyncSession, scene_ids: list[int], campaign_id: int) -> dict[int, int]:
    """Return the story numbers of those scenes that belong to the campaign, by scene id."""
    if not scene_ids:
        return {}
    query = select(SceneRow.id, SceneRow.story_order).where(
        SceneRow.id.in_(scene_ids[:500]), SceneRow.campaign_id == campaign_id
    )
    return {r.id: r.story_order for r in (await session.execute(query)).all()}


async def turns_numbered(
    session: AsyncSession, scene_id: int, first: int, last: int
) -> tuple[list[Turn], int]:
    """Return a scene's turns numbered `first` to `last` in order (deleted ones left out), and its last number."""
    query = (
        select(TurnRow)
        .where(
            TurnRow.scene_id == scene_id, TurnRow.deleted_at.is_(None), TurnRow.number.between(first, last)
        )
        .order_by(TurnRow.number)
    )
    turns = [turn_from_row(r) for r in (await session.execute(query)).scalars()]
    highest = (
        await session.execute(select(func.max(TurnRow.number)).where(TurnRow.scene_id == scene_id))
    ).scalar()
    return turns, int(highest or 0)


async def statements_cited_by(session: AsyncSession, scene_id: int, *, limit: int) -> list[int]:
    """Return the ids of statements whose evidence is turns of this scene (at most `limit`)."""
    query = (
        select(EvidenceRow.target_id)
        .where(EvidenceRow.scene_id == scene_id, EvidenceRow.target_kind == "statement")
        .distinct()
        .order_by(EvidenceRow.target_id)
        .limit(limit)
    )
    return [int(i) for i in (await session.execute(query)).scalars()]


@dataclass(frozen=True)
class CitedPassage:
    """Where an imported fact came from: its source's title, the place in it, and whether each is hidden."""

    source_id: int
    title: str
    heading_path: tuple[str, ...]
    place: str | None
    source_hidden: bool
    section_hidden: bool


async def cited_passages(
    session: AsyncSession, source_ids: list[int], chunk_ids: list[int]
) -> dict[tuple[str, int], CitedPassage]:
    """Return the sources and passages imported facts cite, keyed ("chunk", id) and ("source", id)."""
    found: dict[tuple[str, int], CitedPassage] = {}
    if chunk_ids:
        chunks = (
            select(KnowledgeChunkRow, KnowledgeSourceRow.title, KnowledgeSourceRow.visibility)
            .join(KnowledgeSourceRow, KnowledgeSourceRow.id == KnowledgeChunkRow.source_id)
            .where(KnowledgeChunkRow.id.in_(chunk_ids[:500]))
        )
        for chunk, title, visibility in (await session.execute(chunks)).all():
            found[("chunk", chunk.id)] = CitedPassage(
                chunk.source_id,
                title,
                tuple(chunk.heading_path or ()),
                chunk.place,
                source_stored_hidden(visibility),
                bool(chunk.section_hidden),
            )
    if source_ids:
        sources = select(
            KnowledgeSourceRow.id, KnowledgeSourceRow.title, KnowledgeSourceRow.visibility
        ).where(KnowledgeSourceRow.id.in_(source_ids[:500]))
        for source_id, title, visibility in (await session.execute(sources)).all():
            found[("source", source_id)] = CitedPassage(
                source_id, title, (), None, source_stored_hidden(visibility), False
            )
    return found


@dataclass(frozen=True)
class Listed:
    """One entity of the index: its name, type, whether it is GM-only, and which of its name it is (1, 2…)."""

    name: str
    type: str
    hidden: bool
    nth: int


async def index_page(
    session: AsyncSession, reader: CanonReader, *, kind: str | None, offset: int, limit: int
) -> tuple[dict[str, int], int, list[Listed]]:
    """Return the entities a reader sees, counted by type, and one page of them (of `kind`), by name.

    The twin in SQL of the reader's own filter (`CanonReader.all_entities`): the lineage, no retconned entity,
    and for a player public entities or those their character knows (`entity_is_public_sql`, `Knowing`); paged
    in the database, so a campaign of any size costs one page.
    """
    table = EntityRow.__table__
    retcons = retcon_subquery(reader.steps, "entity", NOW)
    where = [*lineage_as_of(table.c, reader.steps, NOW), retcons.c.retconned_at.is_(None)]
    if reader.viewer != Viewer.GM:
        known = reader.knowing.at(NOW) if reader.knowing is not None else None
        ids = sorted(known.entities | known.named) if known is not None else []
        seen = entity_is_public_sql(table.c)
        where.append(or_(seen, table.c.id.in_(ids)) if ids else seen)

    def base(*columns: Any) -> Any:
        return (
            select(*columns)
            .select_from(table.outerjoin(retcons, retcons.c.target_id == table.c.id))
            .where(*where)
        )

    counts = {
        t: int(n)
        for t, n in (await session.execute(base(table.c.type, func.count()).group_by(table.c.type))).all()
    }
    chosen = [table.c.type == kind] if kind is not None else []
    total = sum(counts.values()) if kind is None else counts.get(kind, 0)
    query = (
        base(table.c.id, table.c.name, table.c.name_folded, table.c.type, table.c.visibility)
        .where(*chosen)
        .order_by(table.c.name_folded, table.c.id)
        .offset(offset)
        .limit(limit)
    )
    rows = (await session.execute(query)).all()
    folded = sorted({r.name_folded for r in rows})
    same: dict[str, list[int]] = {}
    if folded:
        for name, entity_id in (
            await session.execute(
                base(table.c.name_folded, table.c.id)
                .where(table.c.name_folded.in_(folded))
                .order_by(table.c.id)
            )
        ).all():
            same.setdefault(name, []).append(entity_id)
    listed = [
        Listed(r.name, r.type, entity_hidden(r.visibility), same.get(r.name_folded, [r.id]).index(r.id) + 1)
        for r in rows
    ]
    return counts, total, listed
