"""Forking a branch, and the fork points it can start at: now, after a scene, or at an in-world date.

A fork writes one campaign row and nothing else (`canon.campaigns.create_branch`): the branch reads its
ancestors through its lineage, cut at the fork point.
"""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps
from canon import campaigns
from canon.calendar import DateError, parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, CampaignStatus, chain, lineage
from canon.continuity import key_span, world_key
from canon.date_reading import example, read_date
from canon.errors import Conflict, InvalidInput, NotFound
from canon.forks import ForkPoint, fork_point_of, steps_of
from canon.models import Viewer
from canon.storage import utc_now
from memory.knowledge.repository import kept_restrictions
from memory.lineage import reaches_of
from memory.scenes import Actor

log = logging.getLogger(__name__)


async def _latest_changeset(session: AsyncSession, parent: Campaign) -> int:
    """Return the parent's latest visible changeset: its own newest, else what it inherits."""
    return max(await repo.newest_changeset(session, parent.id), parent.fork_changeset_id or 0)


async def latest_scene_order(session: AsyncSession, parent: Campaign) -> int:
    """Return the last story order up to which every scene the parent plays is completed.

    A scene still running or under review (and every later one) stays out: its canon and memories come after
    the fork, so a branch must not inherit its place in the story either.
    """
    inherited = parent.fork_scene_order or 0
    rows = await repo.scene_orders(session, parent.id)
    completed = [order for order, done in rows if done]
    open_orders = [order for order, done in rows if not done]
    last = max(completed, default=inherited)
    if open_orders:
        last = min(last, min(open_orders) - 1)
    return max(last, inherited)


async def latest_point(session: AsyncSession, parent: Campaign) -> ForkPoint:
    """Return the fork point "now": the parent's latest changeset, completed scenes and sources."""
    return ForkPoint(
        changeset_id=await _latest_changeset(session, parent),
        scene_order=await latest_scene_order(session, parent),
        up_to_time=utc_now(),
    )


async def scene_point(session: AsyncSession, parent: Campaign, order: int) -> ForkPoint:
    """Return the fork point right after the parent's scene `order` was committed."""
    if order < 1:
        raise InvalidInput("Scenes are numbered from 1; fork at scene 1 or later.")
    steps = await lineage(session, parent.id)
    reaches = await reaches_of(session, steps)
    scene: repo.SceneMark | None = None
    earlier: list[int] = []  # the scenes up to `order`, wherever in the lineage they were played
    for step, reach in zip(steps, reaches, strict=True):
        for row in await repo.scenes_up_to(session, step.campaign_id, order):
            if not reach.sees_scene(row.id):
                continue
            if not row.completed:
                raise Conflict(
                    f"Scene {row.story_order} “{row.title}” is not committed yet; a branch can only start "
                    "after committed scenes."
                )
            earlier.append(row.id)
            if row.story_order == order and (scene is None or row.campaign_id == parent.id):
                scene = row
    if scene is None:
        latest = await latest_scene_order(session, parent)
        raise NotFound(
            f"“{parent.name}” has no committed scene {order}"
            + (f"; its committed scenes go up to {latest}." if latest else "; it has no committed scene yet.")
        )
    committed = await repo.scene_commit_time(session, scene.id)
    moment = committed if committed is not None else (scene.ended_at or scene.started_at)
    best = 0
    for step in steps:
        best = max(best, await repo.newest_changeset_before(session, step, earlier, moment))
    if parent.is_branch and best == 0:
        best = parent.fork_changeset_id or 0
    return ForkPoint(changeset_id=best, scene_order=order, up_to_time=moment)


async def date_scene_order(session: AsyncSession, parent: Campaign, until_key: int, latest: int) -> int:
    """Return where the parent's story passes an in-world date: the scene before the first one that wrote canon
    dated after it (or `latest`, when no scene did).

    Scenes carry no date of their own; a story goes forward in time, so once a scene has put something after
    the date, it and every later scene are after the date too.
    """
    first = await repo.first_story_after(session, await lineage(session, parent.id), until_key)
    return latest if first is None else min(latest, first - 1)


async def with_kept_restrictions(session: AsyncSession, parent: Campaign, point: ForkPoint) -> ForkPoint:
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


def date_cut(when: str, calendar: CampaignCalendar | None = None) -> tuple[str, int]:
    """Return an in-world date (read on the campaign's `calendar` as the table types it, when given) in its
    stored form and the last world key it covers (or `InvalidInput`)."""
    if calendar is not None:
        reading = read_date(when, calendar)
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        date = reading.date
    else:
        try:
            date = parse_date(when.strip())
        except DateError as error:
            raise InvalidInput(error.describe("The date") + ".") from None
    key = world_key(date)
    if key is None:
        raise InvalidInput(
            f"“{when}” has no year; a branch needs a dated point, like “{example(calendar or CampaignCalendar())}”."
        )
    return str(date), key_span(key)[1]


async def fork(
    deps: BranchDeps,
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

    async def work(session: AsyncSession) -> Campaign:
        current = await campaigns.get_campaign(session, parent.id)
        calendar = (
            await (await deps.access.reader(session, current, Viewer.GM)).calendar() if at_date else None
        )
        cut = date_cut(at_date, calendar) if at_date else None
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
        point = await with_kept_restrictions(session, current, point)
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

    result: Campaign = await deps.db.run(work)
    return result
