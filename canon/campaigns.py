"""Campaigns: universes of truth, bound to a Discord server, that may fork into branches.

A branch never copies its parent's rows. Every canon row is written by a `Changeset` (a numbered, timestamped
decision), and a branch records the last parent changeset it inherits (`fork_changeset_id`). A campaign's
*lineage* is therefore a short list of `(campaign_id, up_to_changeset)` pairs, from itself to the root, and a
row is visible in the campaign when its `(campaign_id, changeset_id)` falls inside one of them.

An inherited step can be cut further: by the story clock (`up_to_scene_order`: rows of later scenes stay out
even when their commit landed before the fork's changeset), by the campaign calendar (`world_until_key`: a
branch forked "at year 300" does not inherit what is dated after it) and by real time (`up_to_time`: imported
sources and scene-less NPC memories recorded after the fork). The last two are kept in the branch's
`settings["fork"]`, written once by `create_branch` and moved only by a rebase, with the inherited sources that
were hidden or disabled at the fork (they stay so in the branch) and the branch's copies of sources its parent
re-imported or deleted since (`PINNED_SOURCES`).

Settings are not versioned, so a branch starts with a copy of its parent's other settings as they are at the
fork (`branch_settings`): its ontology extension (the types and relations of the canon it inherits), its
authority policy, and any key added later. From then on they are the branch's own. A rebase brings the
parent's ontology extension forward (`merge_ontology_extensions`: an extension only adds, so the parent's later
additions are added to the branch's) and leaves the rest alone: a policy is how the branch's own table plays.
"""

from __future__ import annotations

import copy
import datetime as dt
import enum
import re
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import JSON, BigInteger, ForeignKey, Index, String, Text, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from canon.errors import Conflict, InvalidInput, NotFound
from canon.storage import Base, BigIntPK, UTCDateTime, utc_now

# A changeset id larger than any real one: "everything the campaign itself wrote".
OPEN_END = 2**62


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


class LineageStep(BaseModel):
    """One ancestor in a campaign's lineage and the last changeset of it that is visible.

    The campaign itself is the first step and is never cut (`up_to_changeset` is `OPEN_END`, the rest None).
    """

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    up_to_changeset: int
    up_to_scene_order: int | None = None
    #: Rows dated in the world after this calendar key are not inherited (an `at_date` fork).
    world_until_key: int | None = None
    #: Material kept by real time (imported sources, scene-less memories) recorded after this is not inherited.
    up_to_time: dt.datetime | None = None
    #: Inherited sources that were hidden (or disabled) at a fork on the way: they stay so, whatever the
    #: ancestor does to them later (only a more restrictive change reaches a branch).
    hidden_sources: frozenset[int] = frozenset()
    disabled_sources: frozenset[int] = frozenset()

    @property
    def inherited(self) -> bool:
        """Return whether this step is an ancestor (cut at a fork point) rather than the campaign itself."""
        return self.up_to_changeset < OPEN_END


#: The key of a branch's settings holding the cut-offs that have no column of their own.
FORK_SETTINGS = "fork"
#: The campaign's ontology extension (`canon.ontology.Ontology.extended`): copied at a fork, merged by a rebase.
ONTOLOGY_SETTINGS = "ontology"
#: Which authorities' proposals are accepted without review (`canon.gate.authority_policy`): copied at a fork,
#: then the branch's own (a rebase leaves it alone).
POLICY_SETTINGS = "authority_policy"


def branch_settings(parent: Campaign, point: ForkPoint) -> dict[str, Any]:
    """Return the settings a branch starts with: a copy of the parent's (all but its fork), and its own fork.

    Every key but `fork` is copied, including keys this module does not know (a setting added later is a
    campaign's setting, and a branch plays the parent's campaign as it stood). Time zones and GM channels are
    a server's (`bot.schema.ops_tables`), not a campaign's, so a branch shares its server's without a copy.
    """
    inherited = {
        key: copy.deepcopy(value) for key, value in (parent.settings or {}).items() if key != FORK_SETTINGS
    }
    return {**inherited, FORK_SETTINGS: _fork_settings(point)}


_NAMED_SECTIONS = ("entity_types", "relation_types")
_STATE_NAMED_SECTIONS = ("tags", "via")


def merge_ontology_extensions(
    ours: dict[str, Any] | None, theirs: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, list[str], list[str]]:
    """Return `ours` with what `theirs` adds, the names added, and the names both define differently.

    Extensions only add to the base ontology, so adding the parent's later additions to a branch's extension
    never invalidates the branch's canon. A name both define (differently) keeps the branch's definition: its
    canon was written against it. Transitions are merged target by target. The caller validates the result
    (two additions can still clash, e.g. a transition out of a state the branch made terminal).
    """
    merged: dict[str, Any] = copy.deepcopy(ours) if ours else {}
    added: list[str] = []
    clashes: list[str] = []
    if not theirs:
        return merged or None, added, clashes

    def named(target: dict[str, Any], source: dict[str, Any], label: str) -> None:
        for name, spec in source.items():
            if name not in target:
                target[name] = copy.deepcopy(spec)
                added.append(f"{label} {name}")
            elif target[name] != spec:
                clashes.append(f"{label} {name}")

    for section, label in zip(_NAMED_SECTIONS, ("entity type", "relation"), strict=True):
        if isinstance(theirs.get(section), dict):
            named(merged.setdefault(section, {}), theirs[section], label)
    their_states = theirs.get("states")
    if isinstance(their_states, dict):
        states = merged.setdefault("states", {})
        for section, label in zip(_STATE_NAMED_SECTIONS, ("state", "event kind"), strict=True):
            if isinstance(their_states.get(section), dict):
                named(states.setdefault(section, {}), their_states[section], label)
        transitions = their_states.get("transitions")
        if isinstance(transitions, dict):
            own = states.setdefault("transitions", {})
            for source, targets in transitions.items():
                current = own.get(source, [])
                current = list(current) if isinstance(current, list) else [current]
                for target in targets if isinstance(targets, list) else [targets]:
                    if target not in current:
                        current.append(target)
                        added.append(f"transition {source} -> {target}")
                own[source] = current
    return merged or None, added, clashes


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


class ForkPoint(BaseModel):
    """Where a branch leaves its parent: the cut-offs of everything it inherits from it."""

    model_config = ConfigDict(frozen=True)

    changeset_id: int
    scene_order: int | None = None
    world_date: str | None = None
    world_until_key: int | None = None
    up_to_time: dt.datetime | None = None
    #: The inherited sources hidden from players, and disabled, at the fork (they stay so in the branch).
    hidden_sources: tuple[int, ...] = ()
    disabled_sources: tuple[int, ...] = ()


def fork_point_of(row: CampaignRow | Campaign) -> ForkPoint | None:
    """Return a branch's fork point (None for a root campaign)."""
    if row.parent_id is None:
        return None
    extra = (row.settings or {}).get(FORK_SETTINGS) or {}
    until = extra.get("up_to_time")
    return ForkPoint(
        changeset_id=row.fork_changeset_id if row.fork_changeset_id is not None else 0,
        scene_order=row.fork_scene_order,
        world_date=row.fork_world_date,
        world_until_key=extra.get("world_until_key"),
        up_to_time=dt.datetime.fromisoformat(until) if until else None,
        hidden_sources=tuple(extra.get("hidden_sources") or ()),
        disabled_sources=tuple(extra.get("disabled_sources") or ()),
    )


def _min(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def steps_of(chain_rows: list[tuple[int, ForkPoint | None]]) -> list[LineageStep]:
    """Return the lineage of a chain of (campaign id, its fork point), the campaign first.

    Each ancestor is visible up to the tightest cut-off of every fork between it and the campaign.
    """
    steps: list[LineageStep] = []
    limit, scene, world, until = OPEN_END, None, None, None
    hidden: frozenset[int] = frozenset()
    disabled: frozenset[int] = frozenset()
    for campaign_id, point in chain_rows:
        steps.append(
            LineageStep(
                campaign_id=campaign_id,
                up_to_changeset=limit,
                up_to_scene_order=scene,
                world_until_key=world,
                up_to_time=until,
                hidden_sources=hidden,
                disabled_sources=disabled,
            )
        )
        if point is not None:
            limit = min(limit, point.changeset_id)
            scene = _min(scene, point.scene_order)
            world = _min(world, point.world_until_key)
            until = _min(until, point.up_to_time)
            hidden = hidden | set(point.hidden_sources)
            disabled = disabled | set(point.disabled_sources)
    return steps


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


def _fork_settings(point: ForkPoint) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "world_until_key": point.world_until_key,
        "up_to_time": point.up_to_time.isoformat() if point.up_to_time else None,
    }
    if point.hidden_sources:
        extra["hidden_sources"] = sorted(set(point.hidden_sources))
    if point.disabled_sources:
        extra["disabled_sources"] = sorted(set(point.disabled_sources))
    return extra


#: In a branch's `settings["fork"]`: its copies of inherited sources the parent changed or deleted since the
#: fork, {copy's source id: the content hash it was copied with} (`memory.knowledge.pinning.pin_for_branches`).
#: A rebase removes the copies still as copied (the parent's current version comes in) and clears the list.
PINNED_SOURCES = "pinned_sources"


def pinned_sources(campaign: CampaignRow | Campaign) -> dict[int, str]:
    """Return a branch's pinned copies of inherited sources: {its own source id: content hash when copied}."""
    extra = (campaign.settings or {}).get(FORK_SETTINGS) or {}
    return {int(key): str(value) for key, value in (extra.get(PINNED_SOURCES) or {}).items()}


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
    row.settings = {**(row.settings or {}), FORK_SETTINGS: _fork_settings(point)}
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
