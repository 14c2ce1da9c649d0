"""The SQL of branches: bindings, fork points' changesets and scenes, counts, promotions, retiring a branch.

Every function takes the caller's session and returns plain values (rows never leave this module); the use
cases (`fork`, `bindings`, `rebase`, `promote`, `retire`, `tree`) own the transactions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.schema.branch_tables import ChannelBindingRow
from bot.services.branches.models import Binding
from canon.campaigns import CampaignRow, ChangesetKind, ChangesetRow
from canon.forks import LineageStep
from canon.graph import lineage_filter
from canon.models import Viewer
from canon.proposals import ProposalStatus
from canon.storage import utc_now
from canon.tables import EntityRow, ProposalRow, StatementRow
from canon.visibility import entity_is_public_sql, source_is_public_sql, statement_is_public_sql
from memory.knowledge.tables import KnowledgeBookGlossaryRow, KnowledgeSourceRow
from memory.scene_tables import SceneRow
from memory.scenes import SceneStatus
from memory.voice_tables import NpcMemoryRow


@dataclass(frozen=True)
class SceneMark:
    """A scene as fork points and retiring see it."""

    id: int
    campaign_id: int
    story_order: int
    title: str
    channel_id: int
    completed: bool
    ended_at: dt.datetime | None
    started_at: dt.datetime


# --- bindings ----------------------------------------------------------------------------------------------


def _binding(row: ChannelBindingRow) -> Binding:
    return Binding(
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        kind=row.kind,
        campaign_id=row.campaign_id,
        bound_by_name=row.bound_by_name,
    )


async def bound_campaign_id(session: AsyncSession, places: Sequence[int | None]) -> int | None:
    """Return the campaign bound to the first of `places` (channel, parent channel, category) that has one."""
    wanted = [p for p in places if p is not None]
    if not wanted:
        return None
    rows = (
        await session.execute(
            select(ChannelBindingRow.channel_id, ChannelBindingRow.campaign_id).where(
                ChannelBindingRow.channel_id.in_(wanted)
            )
        )
    ).all()
    bound = dict(rows)
    for place in wanted:
        if place in bound:
            return int(bound[place])
    return None


async def bindings_of(
    session: AsyncSession, *, campaign_id: int | None = None, guild_id: int | None = None
) -> list[Binding]:
    """Return the bindings of a campaign or of a server, oldest first."""
    query = select(ChannelBindingRow).order_by(ChannelBindingRow.id)
    if campaign_id is not None:
        query = query.where(ChannelBindingRow.campaign_id == campaign_id)
    if guild_id is not None:
        query = query.where(ChannelBindingRow.guild_id == guild_id)
    return [_binding(row) for row in (await session.execute(query)).scalars()]


async def channels_bound_alone(session: AsyncSession, channels: Sequence[int]) -> set[int]:
    """Return which of the channels have a binding of their own (they do not follow their category)."""
    query = select(ChannelBindingRow.channel_id).where(
        ChannelBindingRow.channel_id.in_(channels), ChannelBindingRow.kind == "channel"
    )
    return set((await session.execute(query)).scalars())


async def open_scenes_in(session: AsyncSession, channels: Sequence[int]) -> list[tuple[int, str, int]]:
    """Return (channel id, title, campaign id) of the scenes not yet completed in the channels."""
    query = select(SceneRow.channel_id, SceneRow.title, SceneRow.campaign_id).where(
        SceneRow.channel_id.in_(channels), SceneRow.status != SceneStatus.COMPLETED
    )
    return [(int(c), str(t), int(k)) for c, t, k in (await session.execute(query)).all()]


async def save_binding(
    session: AsyncSession,
    *,
    guild_id: int,
    place_id: int,
    kind: str,
    campaign_id: int,
    actor_id: int | None,
    actor_name: str,
) -> Binding:
    """Bind a channel or category to a campaign, replacing the binding it had."""
    query = select(ChannelBindingRow).where(ChannelBindingRow.channel_id == place_id)
    row = (await session.execute(query)).scalar_one_or_none()
    if row is None:
        row = ChannelBindingRow(guild_id=guild_id, channel_id=place_id, kind=kind, campaign_id=campaign_id)
        session.add(row)
    row.kind = kind
    row.campaign_id = campaign_id
    row.bound_by_id = actor_id
    row.bound_by_name = actor_name
    row.created_at = utc_now()
    await session.flush()
    return _binding(row)


async def binding_at(session: AsyncSession, guild_id: int, place_id: int) -> Binding | None:
    """Return the binding of a channel or category of a server, if it has one."""
    query = select(ChannelBindingRow).where(
        ChannelBindingRow.channel_id == place_id, ChannelBindingRow.guild_id == guild_id
    )
    row = (await session.execute(query)).scalar_one_or_none()
    return None if row is None else _binding(row)


async def remove_binding(session: AsyncSession, guild_id: int, place_id: int) -> None:
    """Delete the binding of a channel or category of a server."""
    await session.execute(
        delete(ChannelBindingRow).where(
            ChannelBindingRow.channel_id == place_id, ChannelBindingRow.guild_id == guild_id
        )
    )


async def open_scene_count(session: AsyncSession, campaign_id: int, channels: Sequence[int]) -> int:
    """Return how many scenes of a campaign are not yet completed in the channels."""
    query = select(func.count()).where(
        SceneRow.channel_id.in_(channels),
        SceneRow.status != SceneStatus.COMPLETED,
        SceneRow.campaign_id == campaign_id,
    )
    return int(await session.scalar(query) or 0)


# --- changesets and scenes ---------------------------------------------------------------------------------


async def newest_changeset(session: AsyncSession, campaign_id: int) -> int:
    """Return the id of a campaign's own newest changeset (0 when it has none)."""
    query = select(func.max(ChangesetRow.id)).where(ChangesetRow.campaign_id == campaign_id)
    return int(await session.scalar(query) or 0)


async def changesets_between(session: AsyncSession, campaign_id: int, after: int, up_to: int | None) -> int:
    """Return how many changesets a campaign wrote after changeset `after` (up to `up_to`, when given)."""
    conditions = [ChangesetRow.campaign_id == campaign_id, ChangesetRow.id > after]
    if up_to is not None:
        conditions.append(ChangesetRow.id <= up_to)
    return int(await session.scalar(select(func.count()).where(*conditions)) or 0)


async def scene_orders(session: AsyncSession, campaign_id: int) -> list[tuple[int, bool]]:
    """Return (story order, completed) of a campaign's own scenes."""
    query = select(SceneRow.story_order, SceneRow.status).where(SceneRow.campaign_id == campaign_id)
    return [(int(o), s == SceneStatus.COMPLETED) for o, s in (await session.execute(query)).all()]


async def own_scene_orders(session: AsyncSession, campaign_id: int) -> tuple[int, ...]:
    """Return the story orders of a campaign's own scenes, in order."""
    query = (
        select(SceneRow.story_order).where(SceneRow.campaign_id == campaign_id).order_by(SceneRow.story_order)
    )
    return tuple((await session.execute(query)).scalars())


async def scenes_between(session: AsyncSession, campaign_id: int, after: int, up_to: int) -> int:
    """Return how many of a campaign's own scenes have a story order in (after, up_to]."""
    query = select(func.count()).where(
        SceneRow.campaign_id == campaign_id, SceneRow.story_order > after, SceneRow.story_order <= up_to
    )
    return int(await session.scalar(query) or 0)


async def scenes_up_to(session: AsyncSession, campaign_id: int, order: int) -> list[SceneMark]:
    """Return a campaign's own scenes up to story order `order`."""
    query = select(SceneRow).where(SceneRow.campaign_id == campaign_id, SceneRow.story_order <= order)
    return [_mark(row) for row in (await session.execute(query)).scalars()]


async def open_scene_of(session: AsyncSession, campaign_id: int) -> SceneMark | None:
    """Return a scene of the campaign not yet completed, if there is one."""
    query = select(SceneRow).where(
        SceneRow.campaign_id == campaign_id, SceneRow.status != SceneStatus.COMPLETED
    )
    row = (await session.execute(query.limit(1))).scalars().first()
    return None if row is None else _mark(row)


def _mark(row: SceneRow) -> SceneMark:
    return SceneMark(
        id=row.id,
        campaign_id=row.campaign_id,
        story_order=row.story_order,
        title=row.title,
        channel_id=row.channel_id,
        completed=row.status == SceneStatus.COMPLETED,
        ended_at=row.ended_at,
        started_at=row.started_at,
    )


async def scene_commit_time(session: AsyncSession, scene_id: int) -> dt.datetime | None:
    """Return when a scene's (latest) commit was recorded, if it was committed."""
    query = (
        select(ChangesetRow.recorded_at)
        .where(ChangesetRow.scene_id == scene_id, ChangesetRow.kind == ChangesetKind.SCENE_COMMIT.value)
        .order_by(ChangesetRow.id.desc())
        .limit(1)
    )
    found: dt.datetime | None = await session.scalar(query)
    return found


async def newest_changeset_before(
    session: AsyncSession, step: LineageStep, scene_ids: Sequence[int], moment: dt.datetime
) -> int:
    """Return a lineage campaign's newest changeset within its step that committed one of the scenes or was
    decided outside play by `moment` (0 when none)."""
    query = select(func.max(ChangesetRow.id)).where(
        ChangesetRow.campaign_id == step.campaign_id,
        ChangesetRow.id <= step.up_to_changeset,
        or_(
            ChangesetRow.scene_id.in_(scene_ids),
            ChangesetRow.scene_id.is_(None) & (ChangesetRow.recorded_at <= moment),
        ),
    )
    return int(await session.scalar(query) or 0)


async def first_story_after(
    session: AsyncSession, steps: Sequence[LineageStep], until_key: int
) -> int | None:
    """Return the earliest story order of canon in the lineage dated in the world after `until_key`."""
    first: int | None = None
    for model in (EntityRow, StatementRow):
        found = await session.scalar(
            select(func.min(model.story_from)).where(
                lineage_filter(model, steps), model.world_from_key > until_key, model.story_from.is_not(None)
            )
        )
        if found is not None:
            first = found if first is None else min(first, found)
    return first


# --- sources -----------------------------------------------------------------------------------------------


async def sources_imported_between(
    session: AsyncSession, campaign_id: int, after: dt.datetime, up_to: dt.datetime
) -> list[int]:
    """Return the ids of a campaign's own sources imported in (after, up_to]."""
    query = select(KnowledgeSourceRow.id).where(
        KnowledgeSourceRow.campaign_id == campaign_id,
        KnowledgeSourceRow.imported_at > after,
        KnowledgeSourceRow.imported_at <= up_to,
    )
    return list((await session.execute(query)).scalars())


async def source_hashes(session: AsyncSession, campaign_id: int, ids: Iterable[int]) -> list[tuple[int, str]]:
    """Return (id, content hash) of the campaign's own sources among `ids`."""
    query = select(KnowledgeSourceRow.id, KnowledgeSourceRow.content_hash).where(
        KnowledgeSourceRow.id.in_(list(ids)), KnowledgeSourceRow.campaign_id == campaign_id
    )
    return [(int(i), str(h)) for i, h in (await session.execute(query)).all()]


async def source_files(session: AsyncSession, campaign_id: int) -> list[str]:
    """Return the stored files' hashes of a campaign's own sources."""
    query = select(KnowledgeSourceRow.file_hash).where(KnowledgeSourceRow.campaign_id == campaign_id)
    return list((await session.execute(query)).scalars())


# --- counts, promotions, proposals -------------------------------------------------------------------------


async def own_counts(session: AsyncSession, campaign_id: int, viewer: Viewer) -> dict[str, int]:
    """Count the rows a campaign wrote itself that the viewer may see (`canon.visibility`).

    A player's counts leave out GM-only entities, facts that are or touch them, hidden sources and the
    memories of hidden NPCs: a count that moved when the GM added only hidden things would tell of them.
    """
    player = viewer == Viewer.PLAYER
    npc = aliased(EntityRow)
    public_npc = exists(select(npc.id).where(npc.id == NpcMemoryRow.npc_entity_id, entity_is_public_sql(npc)))
    counted: list[tuple[str, Any, list[ColumnElement[bool]]]] = [
        ("entities", EntityRow, [entity_is_public_sql(EntityRow)] if player else []),
        ("facts", StatementRow, [statement_is_public_sql(StatementRow, EntityRow)] if player else []),
        ("scenes", SceneRow, []),
        (
            "sources",
            KnowledgeSourceRow,
            # `source_hidden`: a campaign's own source is hidden by its own flag.
            [source_is_public_sql(KnowledgeSourceRow)] if player else [],
        ),
        ("npc_memories", NpcMemoryRow, [public_npc] if player else []),
    ]
    counts: dict[str, int] = {}
    for label, model, visible in counted:
        query = select(func.count()).select_from(model).where(model.campaign_id == campaign_id, *visible)
        counts[label] = int(await session.scalar(query) or 0)
    return counts


async def promotion_attempts(session: AsyncSession, campaign_id: int, prefix: str) -> list[tuple[str, str]]:
    """Return (batch, status) of a campaign's proposals whose batch is an attempt of `prefix`."""
    query = select(ProposalRow.batch, ProposalRow.status).where(
        ProposalRow.campaign_id == campaign_id, ProposalRow.batch.startswith(prefix + ":")
    )
    return [(str(b), s) for b, s in (await session.execute(query)).all()]


async def reject_waiting(
    session: AsyncSession, campaign_id: int, *, rationale: str, actor_id: int | None, actor_name: str
) -> None:
    """Reject a branch's waiting proposals and its promotions waiting in its parent."""
    await session.execute(
        update(ProposalRow)
        .where(
            or_(
                ProposalRow.batch.startswith(f"promote:{campaign_id}:"),
                ProposalRow.campaign_id == campaign_id,
            ),
            ProposalRow.status == ProposalStatus.PENDING,
        )
        .values(
            status=ProposalStatus.REJECTED.value,
            rationale=rationale,
            decided_by_id=actor_id,
            decided_by_name=actor_name,
            decided_at=utc_now(),
        )
    )


# --- rows of one campaign ----------------------------------------------------------------------------------


def _campaign_tables() -> list[Any]:
    """Return every table whose rows belong to one campaign, children before the tables they point at."""
    from bot.schema.database import metadata

    return [t for t in reversed(metadata().sorted_tables) if t.name != CampaignRow.__tablename__]


def _owned_by(table: Any, campaign_id: int) -> ColumnElement[bool] | None:
    """Return the condition selecting a table's rows of one campaign (through its parent row if need be)."""
    if "campaign_id" in table.c:
        return table.c.campaign_id == campaign_id  # type: ignore[no-any-return]
    for fk in table.foreign_keys:
        target = fk.column.table
        if "campaign_id" in target.c and fk.column.name == "id":
            return fk.parent.in_(select(target.c.id).where(target.c.campaign_id == campaign_id))  # type: ignore[no-any-return]
    return None


async def delete_campaign_rows(session: AsyncSession, campaign_id: int) -> dict[str, int]:
    """Delete every row one campaign wrote, the book glossaries it made, and the campaign; return the counts per
    table.

    Rows of other campaigns are never touched: a branch's rows point at its ancestors', never the reverse.
    """
    counts: dict[str, int] = {}
    for table in _campaign_tables():
        condition = _owned_by(table, campaign_id)
        if condition is None:
            continue
        result = await session.execute(delete(table).where(condition))
        removed = int(getattr(result, "rowcount", 0) or 0)
        if removed:
            counts[table.name] = removed
    # The glossaries its questions and imports made of its books (kept by digest, not as its rows).
    glossaries = KnowledgeBookGlossaryRow
    result = await session.execute(delete(glossaries).where(glossaries.asked_in == campaign_id))
    if removed := int(getattr(result, "rowcount", 0) or 0):
        counts[glossaries.__tablename__] = removed
    await session.execute(delete(CampaignRow).where(CampaignRow.id == campaign_id))
    return counts
