"""Campaigns: universes of truth, bound to a Discord server, that may fork into branches.

This module owns the rows: campaigns, the changesets that write canon, and the reads and writes of both. How a
branch inherits from its ancestors (fork points, lineage steps, the settings a branch starts with) is
`canon.forks`, pure; `lineage` here reads a campaign's chain and hands it there.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import JSON, BigInteger, ForeignKey, Index, String, Text, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from canon.errors import Conflict, InvalidInput, NotFound
from canon.forks import (
    FORK_SETTINGS,
    PINNED_SOURCES,
    ForkPoint,
    LineageStep,
    branch_settings,
    fork_point_of,
    fork_settings,
    steps_of,
)
from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class CampaignStatus(enum.StrEnum):
    """Whether a campaign still plays; an abandoned branch stops answering."""

    ACTIVE = "active"
    ABANDONED = "abandoned"
    #: Not a story: the holder of a shared library's sources (`memory.knowledge.library`), never listed or played.
    LIBRARY = "library"


class ChangesetKind(enum.StrEnum):
    """What kind of decision wrote a group of canon rows."""

    SCENE_COMMIT = "scene_commit"
    SCENE_CHECKPOINT = "scene_checkpoint"  # a running scene's accepted proposals so far
    GM_DIRECT = "gm_direct"
    RETCON = "retcon"
    SOURCE_IMPORT = "source_import"
    YAML_IMPORT = "yaml_import"
    CAMPAIGN_IMPORT = "campaign_import"
    REBASE = "rebase"
    PROMOTION = "promotion"


class CampaignRow(Base):
    """A campaign or a branch of one."""

    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id"))
    fork_changeset_id: Mapped[int | None] = mapped_column(BigInteger)
    fork_scene_order: Mapped[int | None]
    fork_world_date: Mapped[str | None] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20), default=CampaignStatus.ACTIVE.value)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class ChangesetRow(Base):
    """One decision that wrote canon: a scene commit, a GM's direct add, a retcon, an import.

    Its id is the campaign-independent clock of the canon graph: every canon row points at the changeset that
    wrote it, and a branch's fork point is a changeset id.
    """

    __tablename__ = "changesets"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    kind: Mapped[str] = mapped_column(String(30))
    actor_id: Mapped[int | None] = mapped_column(BigInteger)
    actor_name: Mapped[str | None] = mapped_column(String(100))
    scene_id: Mapped[int | None] = mapped_column(BigInteger)
    rationale: Mapped[str | None] = mapped_column(Text)
    recorded_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (Index("ix_changesets_campaign_recorded", "campaign_id", "recorded_at"),)


class Campaign(BaseModel):
    """A campaign as the rest of the program sees it."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    guild_id: int | None
    parent_id: int | None
    fork_changeset_id: int | None
    fork_scene_order: int | None
    fork_world_date: str | None
    status: CampaignStatus
    settings: dict[str, Any]
    created_at: dt.datetime

    @property
    def is_branch(self) -> bool:
        """Return whether this campaign is a fork of another."""
        return self.parent_id is not None


def _to_domain(row: CampaignRow) -> Campaign:
    return Campaign(
        id=row.id,
        name=row.name,
        guild_id=row.guild_id,
        parent_id=row.parent_id,
        fork_changeset_id=row.fork_changeset_id,
        fork_scene_order=row.fork_scene_order,
        fork_world_date=row.fork_world_date,
        status=CampaignStatus(row.status),
        settings=dict(row.settings or {}),
        created_at=row.created_at,
    )


_NAME_RE = re.compile(r"^[\w][\w .'-]{0,99}$")


def validate_campaign_name(name: str) -> str:
    """Return a cleaned campaign name or raise `InvalidInput` saying what a name may contain."""
    cleaned = " ".join(name.split())
    if not _NAME_RE.fullmatch(cleaned):
        raise InvalidInput(
            "A campaign name is 1 to 100 letters, digits, spaces, dots, apostrophes, dashes or underscores, "
            f"starting with a letter or digit; got {name!r}."
        )
    return cleaned


async def get_campaign(session: AsyncSession, campaign_id: int) -> Campaign:
    """Return a campaign by id or raise `NotFound`."""
    row = await session.get(CampaignRow, campaign_id)
    if row is None:
        raise NotFound(f"There is no campaign #{campaign_id}.")
    return _to_domain(row)


async def find_campaign_by_name(session: AsyncSession, name: str) -> Campaign:
    """Return a campaign by its unique name or raise `NotFound` listing the names that exist."""
    playing = CampaignRow.status != CampaignStatus.LIBRARY.value
    row = (
        await session.execute(select(CampaignRow).where(CampaignRow.name == name, playing))
    ).scalar_one_or_none()
    if row is None:
        names = (
            await session.execute(
                select(CampaignRow.name).where(playing).order_by(CampaignRow.name).limit(20)
            )
        ).scalars()
        known = ", ".join(names) or "none yet"
        raise NotFound(f"There is no campaign named {name!r}. Campaigns: {known}.")
    return _to_domain(row)


async def list_campaigns(
    session: AsyncSession, *, guild_id: int | None = None, include_libraries: bool = False
) -> list[Campaign]:
    """Return every campaign (of one guild when given), oldest first; shared libraries' holders only when asked."""
    query = select(CampaignRow).order_by(CampaignRow.id)
    if not include_libraries:
        query = query.where(CampaignRow.status != CampaignStatus.LIBRARY.value)
    if guild_id is not None:
        query = query.where(CampaignRow.guild_id == guild_id)
    return [_to_domain(row) for row in (await session.execute(query)).scalars()]


async def create_campaign(
    session: AsyncSession,
    name: str,
    *,
    guild_id: int | None = None,
    settings: dict[str, Any] | None = None,
) -> Campaign:
    """Create a root campaign; the name must be unused."""
    name = validate_campaign_name(name)
    taken = await session.scalar(select(func.count()).where(CampaignRow.name == name))
    if taken:
        raise Conflict(f"A campaign named {name!r} already exists.")
    row = CampaignRow(name=name, guild_id=guild_id, settings=settings or {})
    session.add(row)
    await session.flush()
    return _to_domain(row)


async def update_campaign_settings(
    session: AsyncSession, campaign_id: int, changes: dict[str, Any]
) -> Campaign:
    """Merge `changes` into a campaign's settings (top-level keys replaced) and return the campaign."""
    row = await session.get(CampaignRow, campaign_id, with_for_update=True)
    if row is None:
        raise NotFound(f"There is no campaign #{campaign_id}.")
    row.settings = {**(row.settings or {}), **changes}  # a new dict, so the JSON column is marked dirty
    await session.flush()
    return _to_domain(row)


async def guild_default_campaign(session: AsyncSession, guild_id: int, guild_name: str) -> Campaign:
    """Return the guild's root campaign, creating it on first use (named after the server)."""
    if session.get_bind().dialect.name == "postgresql":
        # Two first uses of a server at once would both find no campaign and both create one: PostgreSQL runs
        # writers side by side, so the lookup and the insert are serialized per server by a lock held until
        # the transaction ends (SQLite has one writer anyway). A server may hold several root campaigns
        # (imports), so a unique index cannot say which one is its default.
        key = func.hashtextextended(f"lorekeeper:guild-campaign:{guild_id}", 0)
        await session.execute(select(func.pg_advisory_xact_lock(key)))
    row = (
        await session.execute(
            select(CampaignRow)
            .where(CampaignRow.guild_id == guild_id, CampaignRow.parent_id.is_(None))
            .order_by(CampaignRow.id)
            .limit(1)
        )
    ).scalar_one_or_none()
    if row is not None:
        return _to_domain(row)
    base = re.sub(r"[^\w .'-]", "", " ".join(guild_name.split()))[:80].strip(" .'-") or "Campaign"
    name = base
    if await session.scalar(select(func.count()).where(CampaignRow.name == name)):
        name = f"{base} {guild_id}"
    row = CampaignRow(name=name, guild_id=guild_id, settings={})
    session.add(row)
    await session.flush()
    return _to_domain(row)


async def chain(session: AsyncSession, campaign_id: int) -> list[CampaignRow]:
    """Return the rows of a campaign and its ancestors, the campaign first (raises `NotFound`)."""
    rows: list[CampaignRow] = []
    current: int | None = campaign_id
    seen: set[int] = set()
    while current is not None:
        if current in seen:  # pragma: no cover - a cycle would be a bug in fork
            raise RuntimeError(f"campaign lineage loops at {current}")
        seen.add(current)
        row = await session.get(CampaignRow, current)
        if row is None:
            raise NotFound(f"There is no campaign #{current}.")
        rows.append(row)
        current = row.parent_id
    return rows


async def lineage(session: AsyncSession, campaign_id: int) -> list[LineageStep]:
    """Return the campaign and its ancestors, each with the last changeset visible from the campaign."""
    return steps_of([(row.id, fork_point_of(row)) for row in await chain(session, campaign_id)])


async def children(session: AsyncSession, campaign_id: int) -> list[Campaign]:
    """Return the branches forked directly from a campaign, oldest first."""
    query = select(CampaignRow).where(CampaignRow.parent_id == campaign_id).order_by(CampaignRow.id)
    return [_to_domain(row) for row in (await session.execute(query)).scalars()]


async def create_branch(
    session: AsyncSession, parent: Campaign, name: str, point: ForkPoint, *, guild_id: int | None
) -> Campaign:
    """Create a branch of `parent` at a fork point: one row, no canon copied, the parent's settings copied.

    `parent` is read in the same transaction, so the settings copied are those of the fork.
    """
    name = validate_campaign_name(name)
    taken = await session.scalar(select(func.count()).where(CampaignRow.name == name))
    if taken:
        raise Conflict(f"A campaign named {name!r} already exists.")
    row = CampaignRow(
        name=name,
        guild_id=guild_id,
        parent_id=parent.id,
        fork_changeset_id=point.changeset_id,
        fork_scene_order=point.scene_order,
        fork_world_date=point.world_date,
        settings=branch_settings(parent, point),
    )
    session.add(row)
    await session.flush()
    return _to_domain(row)


async def pin_source(
    session: AsyncSession, branch_id: int, source_id: int, content_hash: str, *, replaces: int
) -> list[int]:
    """Record that a branch's source `source_id` is its copy of the inherited source `replaces`, as it was.

    The branch's own branches that kept `replaces` hidden or disabled (from their fork) keep the copy so too;
    their ids are returned (their lineage changed: a cache of it must be dropped).
    """
    touched: list[int] = []
    row = await session.get(CampaignRow, branch_id, with_for_update=True)
    if row is None or row.parent_id is None:
        raise NotFound(f"There is no branch #{branch_id}.")
    settings = dict(row.settings or {})
    extra = dict(settings.get(FORK_SETTINGS) or {})
    extra[PINNED_SOURCES] = {**(extra.get(PINNED_SOURCES) or {}), str(source_id): content_hash}
    row.settings = {**settings, FORK_SETTINGS: extra}  # new dicts, so the JSON column is marked dirty
    pending = [branch_id]
    while pending:
        for kid in (
            await session.execute(select(CampaignRow).where(CampaignRow.parent_id == pending.pop()))
        ).scalars():
            pending.append(kid.id)
            kept = dict((kid.settings or {}).get(FORK_SETTINGS) or {})
            changed = False
            for key in ("hidden_sources", "disabled_sources"):
                if replaces in (kept.get(key) or ()):
                    kept[key] = sorted({*kept[key], source_id})
                    changed = True
            if changed:
                kid.settings = {**(kid.settings or {}), FORK_SETTINGS: kept}
                touched.append(kid.id)
    await session.flush()
    return touched


async def move_fork_point(session: AsyncSession, campaign_id: int, point: ForkPoint) -> Campaign:
    """Move a branch's fork point (a rebase); the caller has checked what that brings in."""
    row = await session.get(CampaignRow, campaign_id, with_for_update=True)
    if row is None or row.parent_id is None:
        raise NotFound(f"There is no branch #{campaign_id}.")
    row.fork_changeset_id = point.changeset_id
    row.fork_scene_order = point.scene_order
    row.fork_world_date = point.world_date
    row.settings = {**(row.settings or {}), FORK_SETTINGS: fork_settings(point)}
    await session.flush()
    return _to_domain(row)


async def set_status(session: AsyncSession, campaign_id: int, status: CampaignStatus) -> Campaign:
    """Set a campaign's status (active or abandoned)."""
    row = await session.get(CampaignRow, campaign_id, with_for_update=True)
    if row is None:
        raise NotFound(f"There is no campaign #{campaign_id}.")
    row.status = status.value
    await session.flush()
    return _to_domain(row)


async def open_changeset(
    session: AsyncSession,
    campaign_id: int,
    kind: ChangesetKind,
    *,
    actor_id: int | None = None,
    actor_name: str | None = None,
    scene_id: int | None = None,
    rationale: str | None = None,
) -> ChangesetRow:
    """Record a decision and return it; canon rows written in the same transaction point at its id."""
    row = ChangesetRow(
        campaign_id=campaign_id,
        kind=kind.value,
        actor_id=actor_id,
        actor_name=actor_name,
        scene_id=scene_id,
        rationale=rationale,
    )
    session.add(row)
    await session.flush()
    return row
