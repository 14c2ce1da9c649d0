"""What a branch inherits of its ancestors' narrative: their scenes up to the fork, and what those scenes left.

The canon graph cuts an ancestor at a changeset (`canon.campaigns.lineage`); narrative rows have no changeset,
so they are cut by the story clock instead: an ancestor's scenes up to the fork's scene order are inherited,
with everything tied to them (turns, NPC memories, summaries); rows tied to no scene (common knowledge) are
inherited when they were written at or before the fork (`LineageStep.up_to_time`). A later scene of the
parent never reaches the branch, whenever its memories were written.

The story clock of a lineage is one sequence: the ancestors' scenes up to the fork, then the branch's own. When a
rebase moves the fork point past scenes the parent played meanwhile, the branch's own scenes (and the story clock
of the canon they wrote) move after them (`shift_own_story`), so that no two scenes a campaign sees share a number.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import lineage
from canon.forks import LineageStep
from canon.tables import EntityRow, StatementRow
from memory.scene_tables import SceneRow

__all__ = ["Reach", "narrative_lineage", "reaches_of", "shift_own_story"]


class Reach(NamedTuple):
    """One campaign of a lineage and how much of its narrative is visible from the campaign asking."""

    campaign_id: int
    #: False for the campaign itself (everything visible).
    inherited: bool
    #: Inherited: the ids of the scenes within reach (None: every scene, for a fork with no scene order).
    scene_ids: frozenset[int] | None
    #: Inherited: rows tied to no scene count when written at or before this time (None: all of them).
    up_to_time: dt.datetime | None

    def sees_scene(self, scene_id: int | None) -> bool:
        """Return whether a row of this campaign tied to `scene_id` (or to none) is within reach by scene."""
        if not self.inherited or scene_id is None:
            return True
        return self.scene_ids is None or scene_id in self.scene_ids

    def sees_time(self, when: dt.datetime) -> bool:
        """Return whether a scene-less row of this campaign written at `when` is within reach."""
        return not self.inherited or self.up_to_time is None or when <= self.up_to_time


async def reaches_of(session: AsyncSession, steps: Sequence[LineageStep]) -> list[Reach]:
    """Return the narrative reach of each step of a lineage (one query per inherited step with a scene cut)."""
    reaches: list[Reach] = []
    for step in steps:
        if not step.inherited:
            reaches.append(Reach(step.campaign_id, False, None, None))
            continue
        scene_ids: frozenset[int] | None = None
        if step.up_to_scene_order is not None:
            query = select(SceneRow.id).where(
                SceneRow.campaign_id == step.campaign_id, SceneRow.story_order <= step.up_to_scene_order
            )
            scene_ids = frozenset((await session.execute(query)).scalars())
        reaches.append(Reach(step.campaign_id, True, scene_ids, step.up_to_time))
    return reaches


async def narrative_lineage(session: AsyncSession, campaign_id: int) -> list[Reach]:
    """Return the narrative reach of a campaign and its ancestors, the campaign first."""
    return await reaches_of(session, await lineage(session, campaign_id))


async def shift_own_story(session: AsyncSession, campaign_id: int, *, after: int, by: int) -> None:
    """Move a campaign's own scenes after story order `after` (and its canon's story clock) `by` places later.

    Only the campaign's own rows move; the caller makes sure nothing inherits them (a branch without branches).
    """
    if by <= 0:
        return
    # Through negative numbers: an UPDATE checks the (campaign, story order) uniqueness row by row.
    own_scenes = (SceneRow.campaign_id == campaign_id, SceneRow.story_order > after)
    await session.execute(
        update(SceneRow).where(*own_scenes).values(story_order=-(SceneRow.story_order + by))
    )
    await session.execute(
        update(SceneRow)
        .where(SceneRow.campaign_id == campaign_id, SceneRow.story_order < 0)
        .values(story_order=-SceneRow.story_order)
    )
    for model in (EntityRow, StatementRow):
        for column in (model.story_from, model.story_until):
            await session.execute(
                update(model)
                .where(model.campaign_id == campaign_id, column > after)
                .values({column.key: column + by})
            )
