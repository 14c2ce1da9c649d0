"""What-if branches: fork a campaign at a point of its story, play on in bound channels, rebase, promote, retire.

A fork writes one campaign row and nothing else (`canon.campaigns.create_branch`): the branch reads its
ancestors through its lineage, cut at the fork point, and writes only its own rows, so nothing it commits can
reach its parent or a sibling, and nothing its parent commits later reaches it. The fork point is

- the parent's latest changeset (default): its canon as it stands, its completed scenes, its sources so far;
- `at_scene N`: the changeset that committed scene N (and anything decided outside play before it), scenes up
  to N, sources imported before it; rows of later scenes stay out even if their commit came first;
- `at_date WHEN`: the latest changeset, minus every inherited row dated in the world after WHEN; and, since
  scenes carry no in-world date of their own, the story is cut before the first scene that wrote canon dated
  after WHEN (that scene and every later one stay out, with their turns, NPC memories and summaries).

Then, in this module: channel and category bindings (which campaign a channel plays in); the tree of branches;
rebase (move the fork point to the parent's latest changeset after showing the continuity conflicts the
move would bring, and only once confirmed; the branch's own scenes then follow the parent's new ones);
promotion (a branch fact proposed to the parent through the parent's own review: nothing moves until the GM
accepts it); abandon (a branch stops answering and nothing of it is ever promoted or forked again) and delete
(the branch's own rows, collections and bindings; never an ancestor's). `bot.branch_rows` gives export what a
branch sees, inherited rows included.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.branch_models import ChannelBindingRow
from bot.services.canon_service import CanonService
from canon import campaigns
from canon.calendar import DateError, parse_date
from canon.campaigns import (
    Campaign,
    CampaignRow,
    CampaignStatus,
    ChangesetKind,
    ChangesetRow,
    ForkPoint,
    LineageStep,
    chain,
    fork_point_of,
    lineage,
    steps_of,
)
from canon.checks import record_findings, whole_graph_findings, whole_snapshot, with_evidence
from canon.continuity import Finding, Snapshot, check, key_span, world_key
from canon.domain import Evidence, EvidenceKind, StatementKind, StatementView, Validity, Viewer
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.gate import CommitResult, CommitTarget, Draft
from canon.graph import CanonReader, lineage_filter
from canon.models import EntityRow, ProposalRow, StatementRow
from canon.proposals import (
    EntityContent,
    FactContent,
    Proposal,
    ProposalContent,
    ProposalStatus,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from canon.storage import Database, utc_now
from canon.visibility import entity_is_public_sql, statement_is_public_sql
from memory.knowledge.repository import kept_restrictions
from memory.knowledge.source_rows import delete_source_rows
from memory.knowledge.tables import KnowledgeSourceRow
from memory.lineage import reaches_of, shift_own_story
from memory.scene_tables import SceneRow
from memory.scenes import Actor, SceneStatus

log = logging.getLogger(__name__)

#: A promotion's batch in the parent: this, then ":{attempt}".
PROMOTION_BATCH = "promote:{branch}:{statement}"


# --- domain ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """A channel or category bound to a campaign."""

    guild_id: int
    channel_id: int
    kind: str
    campaign_id: int
    bound_by_name: str | None


@dataclass(frozen=True)
class BranchNode:
    """One campaign of a tree of branches, in display order."""

    campaign: Campaign
    depth: int
    parent_name: str | None
    fork: ForkPoint | None
    bindings: list[Binding]


@dataclass(frozen=True)
class BranchInfo:
    """A campaign's place among its branches and what it wrote itself."""

    campaign: Campaign
    parent: Campaign | None
    fork: ForkPoint | None
    children: list[Campaign]
    bindings: list[Binding]
    own: dict[str, int]
    #: Changesets the parent committed after the fork (what a rebase would bring in).
    behind: int


@dataclass(frozen=True)
class RebasePlan:
    """What moving a branch's fork point to its parent's latest changeset brings in, and the conflicts it makes."""

    branch: Campaign
    parent: Campaign
    current: ForkPoint
    target: ForkPoint
    changesets: int
    scenes: int
    #: The parent's sources the rebase brings in (imported after the current fork point).
    source_ids: tuple[int, ...]
    #: Continuity findings of the rebased graph that the branch does not have now.
    conflicts: list[Finding]
    #: The story orders of the branch's own scenes (before the rebase, or after it once applied).
    own_scenes: tuple[int, ...] = ()
    #: How many places the branch's own scenes move, to come after the parent's scenes the rebase brings in.
    shift: int = 0
    applied: bool = False
    #: What of the parent's ontology extension the branch lacks ("relation CREWS", "entity type Starship").
    ontology_added: tuple[str, ...] = ()
    #: Names both extensions define differently: the branch keeps its own definition.
    ontology_kept: tuple[str, ...] = ()
    #: The branch's ontology extension once rebased (its own, plus `ontology_added`).
    ontology: dict[str, Any] | None = None
    #: The branch's copies of sources the parent re-imported or deleted since the fork (as they were at the
    #: fork): the rebase drops them, so the parent's current version (or nothing) comes in.
    refreshed_ids: tuple[int, ...] = ()

    @property
    def sources(self) -> int:
        """Return how many of the parent's sources the rebase brings in (or brings up to date)."""
        return len(self.source_ids) + len(self.refreshed_ids)

    @property
    def up_to_date(self) -> bool:
        """Return whether the parent has nothing the branch does not already inherit."""
        return self.changesets == 0 and self.scenes == 0 and self.sources == 0 and not self.ontology_added

    @property
    def renumbered(self) -> tuple[int, int, int, int] | None:
        """Return (first, last) of the branch's own scenes before and after the rebase, if they move."""
        if not self.shift or not self.own_scenes:
            return None
        first, last = self.own_scenes[0], self.own_scenes[-1]
        if self.applied:
            return first - self.shift, last - self.shift, first, last
        return first, last, first + self.shift, last + self.shift

    @property
    def scene_move(self) -> tuple[str, str] | None:
        """Return the branch's own scenes before and after the rebase in words ("4–5", "7–8"), if they move."""
        moved = self.renumbered
        return None if moved is None else (_span(moved[0], moved[1]), _span(moved[2], moved[3]))

    @property
    def token(self) -> str:
        """Return what the GM was shown, for the confirmation: the target changeset, scene and sources.

        A rebase confirmed with another token changes nothing (the parent moved on since the plan was shown).
        """
        ids = ",".join(map(str, sorted(self.source_ids)))
        if self.refreshed_ids:
            ids += "/" + ",".join(map(str, sorted(self.refreshed_ids)))
        sources = hashlib.sha256(ids.encode()).hexdigest()[:12]
        token = f"{self.target.changeset_id}-{self.target.scene_order or 0}-{sources}"
        if self.ontology_added:  # the parent extended its ontology since the preview: shown again
            token += "-" + hashlib.sha256("\n".join(self.ontology_added).encode()).hexdigest()[:8]
        return token


@dataclass(frozen=True)
class Promotion:
    """A branch fact proposed to the parent: the parent's batch and its proposals, waiting for the GM."""

    branch: Campaign
    parent: Campaign
    batch: str
    statement: StatementView
    proposals: list[Proposal]


@dataclass(frozen=True)
class DeleteReport:
    """What deleting a branch removed."""

    name: str
    rows: dict[str, int] = field(default_factory=dict)
    files_removed: int = 0
    collections_dropped: int = 0


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


# --- fork points -------------------------------------------------------------------------------------------


async def _latest_changeset(session: AsyncSession, parent: Campaign) -> int:
    """Return the parent's latest visible changeset: its own newest, else what it inherits."""
    own = await session.scalar(select(func.max(ChangesetRow.id)).where(ChangesetRow.campaign_id == parent.id))
    inherited = parent.fork_changeset_id or 0
    return max(int(own or 0), inherited)


async def _latest_scene_order(session: AsyncSession, parent: Campaign) -> int:
    """Return the last story order up to which every scene the parent plays is completed.

    A scene still running or under review (and every later one) stays out: its canon and memories come after
    the fork, so a branch must not inherit its place in the story either.
    """
    inherited = parent.fork_scene_order or 0
    rows = (
        await session.execute(
            select(SceneRow.story_order, SceneRow.status).where(SceneRow.campaign_id == parent.id)
        )
    ).all()
    completed = [o for o, s in rows if s == SceneStatus.COMPLETED]
    open_orders = [o for o, s in rows if s != SceneStatus.COMPLETED]
    last = max(completed, default=inherited)
    if open_orders:
        last = min(last, min(open_orders) - 1)
    return max(last, inherited)


async def latest_point(session: AsyncSession, parent: Campaign) -> ForkPoint:
    """Return the fork point "now": the parent's latest changeset, completed scenes and sources."""
    return ForkPoint(
        changeset_id=await _latest_changeset(session, parent),
        scene_order=await _latest_scene_order(session, parent),
        up_to_time=utc_now(),
    )


async def scene_point(session: AsyncSession, parent: Campaign, order: int) -> ForkPoint:
    """Return the fork point right after the parent's scene `order` was committed."""
    if order < 1:
        raise InvalidInput("Scenes are numbered from 1; fork at scene 1 or later.")
    steps = await lineage(session, parent.id)
    reaches = await reaches_of(session, steps)
    scene: SceneRow | None = None
    earlier: list[int] = []  # the scenes up to `order`, wherever in the lineage they were played
    for step, reach in zip(steps, reaches, strict=True):
        query = select(SceneRow).where(
            SceneRow.campaign_id == step.campaign_id, SceneRow.story_order <= order
        )
        for row in (await session.execute(query)).scalars():
            if not reach.sees_scene(row.id):
                continue
            if row.status != SceneStatus.COMPLETED:
                raise Conflict(
                    f"Scene {row.story_order} “{row.title}” is not committed yet; a branch can only start "
                    "after committed scenes."
                )
            earlier.append(row.id)
            if row.story_order == order and (scene is None or row.campaign_id == parent.id):
                scene = row
    if scene is None:
        latest = await _latest_scene_order(session, parent)
        raise NotFound(
            f"“{parent.name}” has no committed scene {order}"
            + (f"; its committed scenes go up to {latest}." if latest else "; it has no committed scene yet.")
        )
    commit = (
        await session.execute(
            select(ChangesetRow.id, ChangesetRow.recorded_at)
            .where(ChangesetRow.scene_id == scene.id, ChangesetRow.kind == ChangesetKind.SCENE_COMMIT.value)
            .order_by(ChangesetRow.id.desc())
            .limit(1)
        )
    ).first()
    moment = commit.recorded_at if commit is not None else (scene.ended_at or scene.started_at)
    best = 0
    for step in steps:
        limit = step.up_to_changeset
        newest = select(func.max(ChangesetRow.id)).where(
            ChangesetRow.campaign_id == step.campaign_id,
            ChangesetRow.id <= limit,
            or_(
                ChangesetRow.scene_id.in_(earlier),
                ChangesetRow.scene_id.is_(None) & (ChangesetRow.recorded_at <= moment),
            ),
        )
        best = max(best, int(await session.scalar(newest) or 0))
    if parent.is_branch and best == 0:
        best = parent.fork_changeset_id or 0
    return ForkPoint(changeset_id=best, scene_order=order, up_to_time=moment)


async def date_scene_order(session: AsyncSession, parent: Campaign, until_key: int, latest: int) -> int:
    """Return where the parent's story passes an in-world date: the scene before the first one that wrote canon
    dated after it (or `latest`, when no scene did).

    Scenes carry no date of their own; a story goes forward in time, so once a scene has put something after
    the date, it and every later scene are after the date too.
    """
    steps = await lineage(session, parent.id)
    first: int | None = None
    for model in (EntityRow, StatementRow):
        found = await session.scalar(
            select(func.min(model.story_from)).where(
                lineage_filter(model, steps), model.world_from_key > until_key, model.story_from.is_not(None)
            )
        )
        if found is not None:
            first = found if first is None else min(first, found)
    return latest if first is None else min(latest, first - 1)


async def _with_kept_restrictions(session: AsyncSession, parent: Campaign, point: ForkPoint) -> ForkPoint:
    """Return a fork point that also records which of the sources it inherits are hidden or disabled now.

    They stay so in the branch whatever the parent does later: only a more restrictive change (hiding,
    disabling) of an inherited source reaches a branch.
    """
    rows = await chain(session, parent.id)
    # The branch's lineage minus the branch itself (it has no id yet, and its own sources are not inherited).
    steps = steps_of([(0, point)] + [(r.id, fork_point_of(r)) for r in rows])[1:]
    hidden, disabled = await kept_restrictions(session, steps)
    return point.model_copy(
        update={"hidden_sources": tuple(sorted(hidden)), "disabled_sources": tuple(sorted(disabled))}
    )


def date_cut(when: str) -> tuple[str, int]:
    """Return an in-world date as written canonically and the last world key it covers (or `InvalidInput`)."""
    try:
        date = parse_date(when.strip())
    except DateError as error:
        raise InvalidInput(error.describe("The date") + ".") from None
    key = world_key(date)
    if key is None:
        raise InvalidInput(f"“{when}” has no year; a branch needs a dated point, like 3rd_age.year_300.")
    return str(date), key_span(key)[1]


# --- the service -------------------------------------------------------------------------------------------


class BranchService:
    """Fork, bind, list, rebase, promote, abandon and delete branches; every method owns its transaction.

    `knowledge` and `voice` (optional) give the vector collections to drop when a branch is deleted and the
    lineage caches to forget when one is rebased.
    """

    def __init__(
        self, db: Database, canon: CanonService, *, knowledge: Any = None, voice: Any = None
    ) -> None:
        self.db = db
        self.canon = canon
        self.knowledge = knowledge
        self.voice = voice

    # -- fork ---------------------------------------------------------------------------------------

    async def fork(
        self,
        parent: Campaign,
        name: str,
        *,
        at_scene: int | None = None,
        at_date: str | None = None,
        actor: Actor | None = None,
    ) -> Campaign:
        """Fork a branch of `parent` (now, after scene `at_scene`, or at the in-world date `at_date`)."""
        if at_scene is not None and at_date:
            raise InvalidInput("Fork at a scene or at a date, not both.")
        cut = date_cut(at_date) if at_date else None

        async def work(session: AsyncSession) -> Campaign:
            current = await campaigns.get_campaign(session, parent.id)
            if current.status != CampaignStatus.ACTIVE:
                raise Conflict(f"“{current.name}” was abandoned; nothing of it can be forked.")
            if at_scene is not None:
                point = await scene_point(session, current, at_scene)
            else:
                point = await latest_point(session, current)
            if cut is not None:
                order = await date_scene_order(session, current, cut[1], point.scene_order or 0)
                point = point.model_copy(
                    update={"world_date": cut[0], "world_until_key": cut[1], "scene_order": order}
                )
            point = await _with_kept_restrictions(session, current, point)
            branch = await campaigns.create_branch(session, current, name, point, guild_id=current.guild_id)
            log.info(
                "forked %s (#%s) from %s at changeset %s by %s",
                branch.name,
                branch.id,
                current.name,
                point.changeset_id,
                actor.name if actor else "?",
            )
            return branch

        return await self.db.run(work)

    # -- bindings -----------------------------------------------------------------------------------

    async def bind(
        self,
        guild_id: int,
        place_id: int,
        kind: str,
        campaign: Campaign,
        actor: Actor,
        *,
        channels: Sequence[int] = (),
    ) -> Binding:
        """Bind a channel (or category) to a campaign of the server; refuse while a scene there is open.

        `channels` are the channels the binding would move (the channel, or the category's channels).
        """
        if kind not in {"channel", "category"}:
            raise InvalidInput("Bind a channel or a category.")
        if campaign.guild_id != guild_id:
            raise NotAllowed(f"“{campaign.name}” is not a campaign of this server.")
        if campaign.status != CampaignStatus.ACTIVE:
            raise Conflict(f"“{campaign.name}” was abandoned; bind the channel to a campaign still in play.")

        async def work(session: AsyncSession) -> Binding:
            moved = list(dict.fromkeys([place_id, *channels]))
            if kind == "category":  # channels with a binding of their own do not follow their category
                own = set(
                    (
                        await session.execute(
                            select(ChannelBindingRow.channel_id).where(
                                ChannelBindingRow.channel_id.in_(moved), ChannelBindingRow.kind == "channel"
                            )
                        )
                    ).scalars()
                )
                moved = [c for c in moved if c not in own]
            busy = (
                await session.execute(
                    select(SceneRow.channel_id, SceneRow.title, SceneRow.campaign_id).where(
                        SceneRow.channel_id.in_(moved), SceneRow.status != SceneStatus.COMPLETED
                    )
                )
            ).all()
            busy = [b for b in busy if b.campaign_id != campaign.id]
            if busy:
                raise Conflict(
                    f"The scene “{busy[0].title}” is still open in <#{busy[0].channel_id}>; end and commit it "
                    "before the channel changes campaign."
                )
            row = (
                await session.execute(
                    select(ChannelBindingRow).where(ChannelBindingRow.channel_id == place_id)
                )
            ).scalar_one_or_none()
            if row is None:
                row = ChannelBindingRow(
                    guild_id=guild_id, channel_id=place_id, kind=kind, campaign_id=campaign.id
                )
                session.add(row)
            row.kind = kind
            row.campaign_id = campaign.id
            row.bound_by_id = actor.id
            row.bound_by_name = actor.name
            row.created_at = utc_now()
            await session.flush()
            return _binding(row)

        return await self.db.run(work)

    async def unbind(self, guild_id: int, place_id: int, *, channels: Sequence[int] = ()) -> Binding | None:
        """Remove a channel's (or category's) binding; it then plays in what it would inherit."""

        async def work(session: AsyncSession) -> Binding | None:
            row = (
                await session.execute(
                    select(ChannelBindingRow).where(
                        ChannelBindingRow.channel_id == place_id, ChannelBindingRow.guild_id == guild_id
                    )
                )
            ).scalar_one_or_none()
            if row is None:
                return None
            busy = await session.scalar(
                select(func.count()).where(
                    SceneRow.channel_id.in_([place_id, *channels]),
                    SceneRow.status != SceneStatus.COMPLETED,
                    SceneRow.campaign_id == row.campaign_id,
                )
            )
            if busy:
                raise Conflict("A scene of this campaign is still open here; end and commit it first.")
            found = _binding(row)
            await session.delete(row)
            await session.flush()
            return found

        return await self.db.run(work)

    async def bindings(self, campaign_id: int) -> list[Binding]:
        """Return the channels and categories bound to a campaign."""
        async with self.db.session() as session:
            return await bindings_of(session, campaign_id=campaign_id)

    # -- the tree -----------------------------------------------------------------------------------

    async def tree(self, *, guild_id: int | None = None) -> list[BranchNode]:
        """Return every campaign (of one server) as a tree: each root, then its branches, depth first."""
        async with self.db.session() as session:
            everything = await campaigns.list_campaigns(session, guild_id=guild_id)
            binds = await bindings_of(session, guild_id=guild_id)
        by_id = {c.id: c for c in everything}
        kids: dict[int | None, list[Campaign]] = {}
        for c in everything:
            parent = c.parent_id if c.parent_id in by_id else None
            kids.setdefault(parent, []).append(c)
        by_campaign: dict[int, list[Binding]] = {}
        for b in binds:
            by_campaign.setdefault(b.campaign_id, []).append(b)
        nodes: list[BranchNode] = []

        def walk(campaign: Campaign, depth: int) -> None:
            parent = by_id.get(campaign.parent_id) if campaign.parent_id is not None else None
            nodes.append(
                BranchNode(
                    campaign=campaign,
                    depth=depth,
                    parent_name=parent.name if parent else None,
                    fork=fork_point_of(campaign),
                    bindings=by_campaign.get(campaign.id, []),
                )
            )
            for child in kids.get(campaign.id, []):
                walk(child, depth + 1)

        for root in kids.get(None, []):
            walk(root, 0)
        return nodes

    async def info(self, campaign: Campaign, *, viewer: Viewer = Viewer.GM) -> BranchInfo:
        """Return a campaign's parent, fork point, branches, bindings and the rows it wrote itself.

        The counts are of what `viewer` may see: a player's leave hidden canon out.
        """
        async with self.db.session() as session:
            current = await campaigns.get_campaign(session, campaign.id)
            parent = (
                await campaigns.get_campaign(session, current.parent_id)
                if current.parent_id is not None
                else None
            )
            children = await campaigns.children(session, current.id)
            binds = await bindings_of(session, campaign_id=current.id)
            own = await self._own_counts(session, current.id, viewer)
            behind = 0
            point = fork_point_of(current)
            if parent is not None and point is not None:
                behind = int(
                    await session.scalar(
                        select(func.count()).where(
                            ChangesetRow.campaign_id == parent.id, ChangesetRow.id > point.changeset_id
                        )
                    )
                    or 0
                )
        return BranchInfo(
            campaign=current,
            parent=parent,
            fork=point,
            children=children,
            bindings=binds,
            own=own,
            behind=behind,
        )

    @staticmethod
    async def _own_counts(session: AsyncSession, campaign_id: int, viewer: Viewer) -> dict[str, int]:
        """Count the rows a campaign wrote itself that the viewer may see (`canon.visibility`).

        A player's counts leave out GM-only entities, facts that are or touch them, hidden sources and the
        memories of hidden NPCs: a count that moved when the GM added only hidden things would tell of them.
        """
        from canon.models import EntityRow, StatementRow
        from memory.knowledge.models import SourceVisibility
        from memory.voice_tables import NpcMemoryRow

        player = viewer == Viewer.PLAYER
        npc = aliased(EntityRow)
        public_npc = exists(
            select(npc.id).where(npc.id == NpcMemoryRow.npc_entity_id, entity_is_public_sql(npc))
        )
        counted: list[tuple[str, Any, list[ColumnElement[bool]]]] = [
            ("entities", EntityRow, [entity_is_public_sql(EntityRow)] if player else []),
            ("facts", StatementRow, [statement_is_public_sql(StatementRow, EntityRow)] if player else []),
            ("scenes", SceneRow, []),
            (
                "sources",
                KnowledgeSourceRow,
                # `source_hidden`: a campaign's own source is hidden by its own flag.
                [KnowledgeSourceRow.visibility != SourceVisibility.HIDDEN] if player else [],
            ),
            ("npc_memories", NpcMemoryRow, [public_npc] if player else []),
        ]
        counts: dict[str, int] = {}
        for label, model, visible in counted:
            query = select(func.count()).select_from(model).where(model.campaign_id == campaign_id, *visible)
            counts[label] = int(await session.scalar(query) or 0)
        return counts

    # -- rebase -------------------------------------------------------------------------------------

    async def _rebase_plan(self, session: AsyncSession, branch_id: int) -> RebasePlan:
        branch = await campaigns.get_campaign(session, branch_id)
        if branch.parent_id is None:
            raise InvalidInput(f"“{branch.name}” is not a branch; only a branch can be rebased.")
        if branch.status != CampaignStatus.ACTIVE:
            raise Conflict(f"“{branch.name}” was abandoned; it cannot be rebased.")
        parent = await campaigns.get_campaign(session, branch.parent_id)
        if parent.status != CampaignStatus.ACTIVE:
            raise Conflict(f"“{parent.name}” was abandoned; nothing of it can reach another branch.")
        kids = await campaigns.children(session, branch.id)
        if kids:
            # A child's lineage runs through this fork point: moving it would change what the child inherits.
            raise Conflict(
                f"“{branch.name}” has branches of its own ({', '.join(k.name for k in kids)}); a rebase would "
                "change what they inherit. Delete them first."
            )
        current = fork_point_of(branch)
        assert current is not None
        forked_after = current.scene_order or 0
        latest = await latest_point(session, parent)
        scene_order = latest.scene_order or 0
        if current.world_until_key is not None:  # an at_date cut is kept, and never moves back
            scene_order = max(
                forked_after, await date_scene_order(session, parent, current.world_until_key, scene_order)
            )
        target = latest.model_copy(
            update={
                "world_date": current.world_date,
                "world_until_key": current.world_until_key,
                "scene_order": scene_order,
            }
        )
        changesets = int(
            await session.scalar(
                select(func.count()).where(
                    ChangesetRow.campaign_id == parent.id,
                    ChangesetRow.id > current.changeset_id,
                    ChangesetRow.id <= target.changeset_id,
                )
            )
            or 0
        )
        scenes = int(
            await session.scalar(
                select(func.count()).where(
                    SceneRow.campaign_id == parent.id,
                    SceneRow.story_order > forked_after,
                    SceneRow.story_order <= scene_order,
                )
            )
            or 0
        )
        own_scenes = tuple(
            (
                await session.execute(
                    select(SceneRow.story_order)
                    .where(SceneRow.campaign_id == branch.id)
                    .order_by(SceneRow.story_order)
                )
            ).scalars()
        )
        # The branch's own scenes come after everything it inherits: they move past the parent's new ones.
        shift = scene_order - forked_after if own_scenes and scene_order > forked_after else 0
        rows = await chain(session, branch.id)
        target = await _with_kept_restrictions(session, parent, target)
        new_steps = steps_of([(branch.id, target)] + [(r.id, fork_point_of(r)) for r in rows[1:]])
        old_steps = await lineage(session, branch.id)
        source_ids = await self._sources_between(session, old_steps, new_steps)
        pins = campaigns.pinned_sources(branch)
        refreshed: tuple[int, ...] = ()
        if pins:  # the copies still as copied (one the branch re-imported itself is its own now)
            refreshed = tuple(
                sorted(
                    source_id
                    for source_id, content_hash in (
                        await session.execute(
                            select(KnowledgeSourceRow.id, KnowledgeSourceRow.content_hash).where(
                                KnowledgeSourceRow.id.in_(list(pins)),
                                KnowledgeSourceRow.campaign_id == branch.id,
                            )
                        )
                    ).all()
                    if pins.get(source_id) == content_hash
                )
            )
        extension, added, kept = campaigns.merge_ontology_extensions(
            branch.settings.get(campaigns.ONTOLOGY_SETTINGS), parent.settings.get(campaigns.ONTOLOGY_SETTINGS)
        )
        try:
            ontology = self.canon.ontology_for(
                branch.model_copy(
                    update={"settings": {**branch.settings, campaigns.ONTOLOGY_SETTINGS: extension}}
                )
            )
        except InvalidInput as error:
            raise Conflict(
                f"“{parent.name}”'s ontology extension cannot be added to “{branch.name}”'s: {error} "
                "Make the two agree (`lorekeeper canon ontology --set`) and rebase again. Nothing changed."
            ) from None
        conflicts: list[Finding] = []
        if changesets or scenes:
            before = await whole_graph_findings(CanonReader(session, old_steps, ontology, viewer=Viewer.GM))
            rebased = CanonReader(session, new_steps, ontology, viewer=Viewer.GM)
            snapshot = _moved_story(await whole_snapshot(rebased), branch.id, forked_after, shift)
            known = {f.fingerprint for f in before}
            conflicts = [
                f for f in await with_evidence(rebased, check(snapshot)) if f.fingerprint not in known
            ]
        return RebasePlan(
            branch=branch,
            parent=parent,
            current=current,
            target=target,
            changesets=changesets,
            scenes=scenes,
            source_ids=source_ids,
            conflicts=conflicts,
            own_scenes=own_scenes,
            shift=shift,
            ontology_added=tuple(added),
            ontology_kept=tuple(kept),
            ontology=extension,
            refreshed_ids=refreshed,
        )

    @staticmethod
    async def _sources_between(
        session: AsyncSession, old: Sequence[LineageStep], new: Sequence[LineageStep]
    ) -> tuple[int, ...]:
        found: list[int] = []
        for before, after in zip(old[1:], new[1:], strict=True):
            if before.up_to_time is None or after.up_to_time is None:
                continue
            found += (
                await session.execute(
                    select(KnowledgeSourceRow.id).where(
                        KnowledgeSourceRow.campaign_id == before.campaign_id,
                        KnowledgeSourceRow.imported_at > before.up_to_time,
                        KnowledgeSourceRow.imported_at <= after.up_to_time,
                    )
                )
            ).scalars()
        return tuple(sorted(found))

    async def plan_rebase(self, branch: Campaign) -> RebasePlan:
        """Return what a rebase would bring in and the conflicts it would make; change nothing."""
        async with self.db.session() as session:
            return await self._rebase_plan(session, branch.id)

    async def rebase(self, branch: Campaign, actor: Actor, *, expect: str | None = None) -> RebasePlan:
        """Move the fork point to the parent's latest changeset, recording the new conflicts for the branch.

        The branch's own scenes (and the story clock of the canon they wrote) move after the parent's scenes
        the rebase brings in. `expect` is the plan's `token` the GM was shown: when the parent moved on
        meanwhile (canon, scenes or sources), nothing changes and `Conflict` asks to look again.
        """

        dropped: list[tuple[int, list[int], str | None]] = []

        async def work(session: AsyncSession) -> RebasePlan:
            dropped.clear()
            plan = await self._rebase_plan(session, branch.id)
            if expect is not None and plan.token != expect:
                raise Conflict(
                    f"“{plan.parent.name}” changed since the conflicts were shown; run the rebase again to see "
                    "what it would bring in now. Nothing changed."
                )
            if plan.up_to_date:
                raise Conflict(f"“{branch.name}” already has everything of “{plan.parent.name}”.")
            moved = plan.scene_move
            if moved is not None:
                await self._retirable(session, plan.branch, "rebased")
                await shift_own_story(session, branch.id, after=plan.current.scene_order or 0, by=plan.shift)
            if plan.ontology_added:  # add-only: the branch's canon keeps every type it was written with
                await campaigns.update_campaign_settings(
                    session, branch.id, {campaigns.ONTOLOGY_SETTINGS: plan.ontology}
                )
            for source_id in plan.refreshed_ids:  # the parent's current version comes in instead
                chunk_ids, file_hash = await delete_source_rows(session, source_id)
                dropped.append((source_id, chunk_ids, file_hash))
            await campaigns.move_fork_point(session, branch.id, plan.target)  # clears the pins too
            await campaigns.open_changeset(
                session,
                branch.id,
                ChangesetKind.REBASE,
                actor_id=actor.id,
                actor_name=actor.name,
                rationale=(
                    f"Rebased on “{plan.parent.name}”: fork point moved from changeset "
                    f"#{plan.current.changeset_id} to #{plan.target.changeset_id}"
                    + (f"; its own scenes {moved[0]} became {moved[1]}" if moved else "")
                    + (f"; ontology: added {', '.join(plan.ontology_added)}" if plan.ontology_added else "")
                ),
            )
            await record_findings(session, branch.id, plan.conflicts)
            return dataclasses.replace(
                plan, applied=True, own_scenes=tuple(order + plan.shift for order in plan.own_scenes)
            )

        done = await self.db.run(work, attempts=1)
        if self.knowledge is not None:
            for source_id, chunk_ids, file_hash in dropped:
                await self.knowledge.drop_vectors(branch.id, source_id, chunk_ids)
                if file_hash:
                    await self.knowledge.remove_file_if_unused(file_hash)
        self._forget(branch.id)
        return done

    def _forget(self, campaign_id: int) -> None:
        self.canon.forget_lineage(campaign_id)
        retriever = getattr(self.knowledge, "retriever", None)
        if retriever is not None:
            retriever.forget_campaign(campaign_id)

    # -- promotion ----------------------------------------------------------------------------------

    async def promote(self, branch: Campaign, statement_id: int, actor: Actor) -> Promotion:
        """Propose one of the branch's own facts to its parent, through the parent's normal review."""
        async with self.db.session() as session:
            current = await campaigns.get_campaign(session, branch.id)
            if current.parent_id is None:
                raise InvalidInput(f"“{current.name}” is not a branch; there is nothing to promote it to.")
            if current.status != CampaignStatus.ACTIVE:
                raise Conflict(f"“{current.name}” was abandoned; nothing of it reaches another campaign.")
            parent = await campaigns.get_campaign(session, current.parent_id)
            if parent.status != CampaignStatus.ACTIVE:
                raise Conflict(f"“{parent.name}” was abandoned; promote to a campaign still in play.")
            reader = await self.canon.reader(session, current, Viewer.GM)
            found = await reader.statements(statement_ids=[statement_id])
            if not found:
                raise NotFound(f"There is no standing fact #{statement_id} in “{current.name}”.")
            statement = found[0]
            if statement.provenance.campaign_id != current.id:
                raise Conflict(
                    f"Fact #{statement_id} is inherited, not written in “{current.name}”: its parent has it already."
                )
            views = await reader.views([statement])
            if not views:
                raise NotFound(f"Fact #{statement_id} names an entity that no longer stands.")
            view = views[0]
            upstream = await self.canon.reader(session, parent, Viewer.GM)
            ids = [statement.subject_id] + ([statement.object_id] if statement.object_id else [])
            known = await upstream.entities(ids)
            own_entities = await reader.entities([i for i in ids if i not in known])
            drafts_entities: list[ProposalContent] = []
            refs: dict[int, Ref] = {}
            for entity_id in ids:
                if entity_id in known:
                    refs[entity_id] = Ref(name=known[entity_id].name, entity_id=entity_id)
                    continue
                entity = own_entities[entity_id]
                refs[entity_id] = Ref(name=entity.name)
                if not await upstream.find_exact(entity.name):  # a same-named entity up there is used instead
                    drafts_entities.append(
                        EntityContent(
                            name=entity.name,
                            entity_type=entity.type,
                            description=entity.description,
                            aliases=entity.aliases,
                            visibility=entity.visibility,
                        )
                    )
        content = _content_of(view, refs)
        evidence = Evidence(
            kind=EvidenceKind.BRANCH,
            note=(
                f"branch “{current.name}” (campaign #{current.id}), fact #{statement.id}, changeset "
                f"#{statement.provenance.changeset_id}"
            ),
        )
        prefix = PROMOTION_BATCH.format(branch=current.id, statement=statement.id)

        def draft(item: ProposalContent) -> Draft:
            return Draft(
                content=item,
                authority=statement.provenance.authority,
                evidence=[evidence],
                confidence=statement.provenance.confidence,
                origin="promotion",
                proposer_id=actor.id,
                proposer_name=actor.name,
                rationale=f"Promoted from the branch “{current.name}”.",
            )

        async with self.db.session() as session:
            earlier = (
                await session.execute(
                    select(ProposalRow.batch, ProposalRow.status).where(
                        ProposalRow.campaign_id == parent.id, ProposalRow.batch.startswith(prefix + ":")
                    )
                )
            ).all()
        if any(status in (ProposalStatus.PENDING, ProposalStatus.ACCEPTED) for _, status in earlier):
            raise Conflict(f"Fact #{statement.id} is already waiting for review in “{parent.name}”.")
        # Each attempt is a batch of its own, so its review card shows only its proposals.
        batch = f"{prefix}:{len({b for b, _ in earlier}) + 1}"
        stored = await self.canon.submit(
            parent, [draft(c) for c in [*drafts_entities, content]], scene_id=None, batch=batch
        )
        if not any(p.content.type == content.type for p in stored):
            raise InvalidInput(
                f"Fact #{statement.id} does not fit “{parent.name}”'s canon; nothing was proposed."
            )
        review = await self.canon.review(None, campaign_id=parent.id, batch=batch)
        return Promotion(
            branch=current, parent=parent, batch=batch, statement=view, proposals=review.proposals
        )

    async def commit_promotion(self, proposal_id: int, actor: Actor) -> CommitResult:
        """Write a promotion's accepted proposals into the parent, once the GM decided every one of them."""
        proposal = await self.canon.proposal(proposal_id)
        batch = proposal.batch
        if proposal.origin != "promotion" or batch is None:
            raise InvalidInput(f"Proposal #{proposal_id} is not a promotion from a branch.")

        async def work(session: AsyncSession) -> CommitResult:
            parent = await campaigns.get_campaign(session, proposal.campaign_id)
            gate = self.canon.gate_for(parent)
            waiting = [
                p
                for p in await gate.proposals(session, parent.id, batch=batch)
                if p.status == ProposalStatus.PENDING
            ]
            if waiting:
                raise Conflict(
                    "Accept or reject every promoted proposal before committing: "
                    + ", ".join(f"#{p.id}" for p in waiting)
                    + " still wait."
                )
            target = CommitTarget.of_batch(parent.id, batch, ChangesetKind.PROMOTION)
            result = await gate.commit(session, target, actor_id=actor.id, actor_name=actor.name)
            if not result.accepted and not result.rejected:
                raise Conflict("This promotion was already committed.")
            return result

        return await self.db.run(work, attempts=1)

    # -- abandon and delete ---------------------------------------------------------------------------

    async def _retirable(self, session: AsyncSession, branch: Campaign, what: str) -> None:
        if branch.parent_id is None:
            raise InvalidInput(f"“{branch.name}” is a campaign, not a branch; only branches can be {what}.")
        open_scene = (
            await session.execute(
                select(SceneRow.title, SceneRow.channel_id).where(
                    SceneRow.campaign_id == branch.id, SceneRow.status != SceneStatus.COMPLETED
                )
            )
        ).first()
        if open_scene is not None:
            raise Conflict(
                f"The scene “{open_scene.title}” of “{branch.name}” is still open in <#{open_scene.channel_id}>; "
                "end and commit it first."
            )

    async def abandon(self, branch: Campaign, actor: Actor) -> Campaign:
        """Stop a branch: its channels go quiet, its waiting proposals and promotions are rejected, no fork."""

        async def work(session: AsyncSession) -> Campaign:
            current = await campaigns.get_campaign(session, branch.id)
            if current.status == CampaignStatus.ABANDONED:
                raise Conflict(f"“{current.name}” was already abandoned.")
            await self._retirable(session, current, "abandoned")
            live = [
                k for k in await campaigns.children(session, current.id) if k.status == CampaignStatus.ACTIVE
            ]
            if live:
                raise Conflict(
                    f"“{current.name}” has branches still in play ({', '.join(k.name for k in live)}); abandon "
                    "them first."
                )
            # Its promotions waiting in the parent, and its own waiting proposals (a review card of the
            # branch must not write to it once abandoned).
            prefix = f"promote:{current.id}:"
            await session.execute(
                update(ProposalRow)
                .where(
                    or_(ProposalRow.batch.startswith(prefix), ProposalRow.campaign_id == current.id),
                    ProposalRow.status == ProposalStatus.PENDING,
                )
                .values(
                    status=ProposalStatus.REJECTED.value,
                    rationale=f"The branch “{current.name}” was abandoned.",
                    decided_by_id=actor.id,
                    decided_by_name=actor.name,
                    decided_at=utc_now(),
                )
            )
            return await campaigns.set_status(session, current.id, CampaignStatus.ABANDONED)

        return await self.db.run(work, attempts=1)

    async def delete(self, branch: Campaign) -> DeleteReport:
        """Delete a branch and everything it wrote (rows, vector collections, bindings); never an ancestor's."""

        async def work(session: AsyncSession) -> tuple[dict[str, int], list[str]]:
            current = await campaigns.get_campaign(session, branch.id)
            await self._retirable(session, current, "deleted")
            kids = await campaigns.children(session, current.id)
            if kids:
                raise Conflict(
                    f"“{current.name}” has branches of its own ({', '.join(k.name for k in kids)}); delete them first."
                )
            hashes = list(
                (
                    await session.execute(
                        select(KnowledgeSourceRow.file_hash).where(
                            KnowledgeSourceRow.campaign_id == current.id
                        )
                    )
                ).scalars()
            )
            counts = await delete_campaign_rows(session, current.id)
            return counts, hashes

        counts, hashes = await self.db.run(work, attempts=1)
        dropped = await self._drop_collections(branch.id)
        removed = 0
        if self.knowledge is not None:
            for file_hash in dict.fromkeys(hashes):
                removed += bool(await self.knowledge.remove_file_if_unused(file_hash))
        self._forget(branch.id)
        return DeleteReport(name=branch.name, rows=counts, files_removed=removed, collections_dropped=dropped)

    async def _drop_collections(self, campaign_id: int) -> int:
        indexes = [getattr(self.knowledge, "vectors", None)]
        if self.voice is not None:
            indexes += [self.voice.memories.index, self.voice.moments.index]
        dropped = 0
        for index in indexes:
            if index is None:
                continue
            try:
                await index.reset(campaign_id)
                dropped += 1
            except Exception as error:  # a collection left behind is unreachable: no campaign has its id
                log.warning("could not drop a vector collection of deleted branch %s: %s", campaign_id, error)
        return dropped


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _moved_story(snapshot: Snapshot, campaign_id: int, after: int, by: int) -> Snapshot:
    """Return a snapshot whose rows of `campaign_id` after story order `after` sit `by` scenes later.

    What the rebased graph will look like once `shift_own_story` has moved the branch's own scenes.
    """
    if by <= 0:
        return snapshot

    def moved(validity: Validity) -> Validity:
        return dataclasses.replace(
            validity,
            story_from=validity.story_from + by
            if validity.story_from is not None and validity.story_from > after
            else validity.story_from,
            story_until=validity.story_until + by
            if validity.story_until is not None and validity.story_until > after
            else validity.story_until,
        )

    def own(row: Any) -> bool:
        return bool(row.provenance.campaign_id == campaign_id)

    return dataclasses.replace(
        snapshot,
        entities={
            i: dataclasses.replace(e, validity=moved(e.validity)) if own(e) else e
            for i, e in snapshot.entities.items()
        },
        statements=[
            dataclasses.replace(s, validity=moved(s.validity)) if own(s) else s for s in snapshot.statements
        ],
    )


def _content_of(view: StatementView, refs: dict[int, Ref]) -> ProposalContent:
    """Return the proposal content that would write a statement again, elsewhere."""
    s = view.statement
    v = s.validity
    subject = refs[s.subject_id]
    if s.kind == StatementKind.RELATION:
        assert s.object_id is not None
        return RelationshipContent(
            subject=subject,
            relation=s.predicate,
            object=refs[s.object_id],
            since=v.world_from,
            until=v.world_until,
            visibility=s.visibility,
        )
    if s.kind == StatementKind.STATE:
        return StateChangeContent(
            subject=subject, state=s.value or "", via=s.via, when=v.world_from, visibility=s.visibility
        )
    return FactContent(
        subject=subject,
        attribute=s.predicate,
        value=s.value or "",
        when=v.world_from,
        visibility=s.visibility,
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
    """Delete every row one campaign wrote, and the campaign; return the counts per table.

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
    await session.execute(delete(CampaignRow).where(CampaignRow.id == campaign_id))
    return counts


__all__ = [
    "Binding",
    "BranchInfo",
    "BranchNode",
    "BranchService",
    "DeleteReport",
    "Promotion",
    "RebasePlan",
    "bindings_of",
    "bound_campaign_id",
    "date_cut",
    "delete_campaign_rows",
    "latest_point",
    "scene_point",
]
