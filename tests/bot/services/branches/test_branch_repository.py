"""The branches' repository on a real database (SQLite, then PostgreSQL when configured): bindings, scenes, deletion.

The use cases (`tests/bot/services/branches/test_branches.py`) go through these queries; here each is held to what it returns.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import NotFound
from canon.forks import ForkPoint
from canon.storage import Database
from memory.knowledge.book_glossary_rows import keep_glossary, kept_glossary
from memory.scene_tables import SceneRow
from memory.scenes import SceneStatus

GUILD = 10
OTHER_GUILD = 11


async def two_campaigns(db: Database) -> tuple[Campaign, Campaign]:
    async def work(session: AsyncSession) -> tuple[Campaign, Campaign]:
        first = await campaigns.create_campaign(session, "Shattered Isles", guild_id=GUILD)
        second = await campaigns.create_campaign(session, "Iron Coast", guild_id=GUILD)
        return first, second

    return await db.run(work)


async def bind(db: Database, place: int, kind: str, campaign: Campaign, *, guild: int = GUILD) -> Any:
    return await db.run(
        lambda s: repo.save_binding(
            s,
            guild_id=guild,
            place_id=place,
            kind=kind,
            campaign_id=campaign.id,
            actor_id=1,
            actor_name="Gina",
        )
    )


async def scene(db: Database, campaign: Campaign, channel: int, order: int, status: SceneStatus) -> int:
    async def work(session: AsyncSession) -> int:
        row = SceneRow(
            campaign_id=campaign.id,
            guild_id=GUILD,
            channel_id=channel,
            title=f"Scene {order}",
            status=status.value,
            story_order=order,
        )
        session.add(row)
        await session.flush()
        return row.id

    return await db.run(work)


async def test_a_channel_plays_in_its_nearest_binding(db: Database) -> None:
    isles, coast = await two_campaigns(db)
    await bind(db, 900, "category", isles)
    await bind(db, 901, "channel", coast)
    async with db.session() as session:
        # channel, parent channel, category: the first bound one decides
        assert await repo.bound_campaign_id(session, [901, None, 900]) == coast.id
        assert await repo.bound_campaign_id(session, [902, None, 900]) == isles.id
        assert await repo.bound_campaign_id(session, [903]) is None
        assert await repo.bound_campaign_id(session, [None, None]) is None
        assert await repo.channels_bound_alone(session, [900, 901, 902]) == {901}
        server = await repo.bindings_of(session, guild_id=GUILD)
        assert [(b.channel_id, b.kind, b.campaign_id, b.bound_by_name) for b in server] == [
            (900, "category", isles.id, "Gina"),
            (901, "channel", coast.id, "Gina"),
        ]
        assert [b.channel_id for b in await repo.bindings_of(session, campaign_id=isles.id)] == [900]
        assert await repo.bindings_of(session, guild_id=OTHER_GUILD) == []


async def test_a_binding_is_replaced_in_place_and_removed_only_by_its_server(db: Database) -> None:
    isles, coast = await two_campaigns(db)
    await bind(db, 901, "channel", coast)
    moved = await bind(db, 901, "channel", isles)
    assert moved.campaign_id == isles.id
    async with db.session() as session:
        assert await repo.bindings_of(session, campaign_id=coast.id) == []
        assert await repo.binding_at(session, OTHER_GUILD, 901) is None
    await db.run(lambda s: repo.remove_binding(s, OTHER_GUILD, 901))
    async with db.session() as session:
        found = await repo.binding_at(session, GUILD, 901)
        assert found is not None and found.campaign_id == isles.id
    await db.run(lambda s: repo.remove_binding(s, GUILD, 901))
    async with db.session() as session:
        assert await repo.binding_at(session, GUILD, 901) is None


async def test_scenes_open_and_played_as_fork_points_see_them(db: Database) -> None:
    isles, coast = await two_campaigns(db)
    await scene(db, isles, 901, 1, SceneStatus.COMPLETED)
    await scene(db, isles, 902, 2, SceneStatus.ACTIVE)
    await scene(db, coast, 903, 1, SceneStatus.REVIEW)
    async with db.session() as session:
        assert sorted(await repo.open_scenes_in(session, [901, 902, 903])) == [
            (902, "Scene 2", isles.id),
            (903, "Scene 1", coast.id),
        ]
        assert await repo.open_scene_count(session, isles.id, [901, 902]) == 1
        assert await repo.open_scene_count(session, isles.id, [903]) == 0  # another campaign's scene
        assert sorted(await repo.scene_orders(session, isles.id)) == [(1, True), (2, False)]
        assert await repo.own_scene_orders(session, isles.id) == (1, 2)
        assert await repo.scenes_between(session, isles.id, 0, 1) == 1
        assert await repo.scenes_between(session, isles.id, 1, 5) == 1
        open_coast = await repo.open_scene_of(session, coast.id)
        assert open_coast is not None and (open_coast.title, open_coast.channel_id) == ("Scene 1", 903)
        assert not open_coast.completed
        played = await repo.scenes_up_to(session, isles.id, 1)
        assert [(s.story_order, s.completed) for s in played] == [(1, True)]


async def test_deleting_a_campaigns_rows_leaves_every_other_campaigns_alone(db: Database) -> None:
    isles, coast = await two_campaigns(db)
    branch = await db.run(
        lambda s: campaigns.create_branch(s, isles, "What if", ForkPoint(changeset_id=0), guild_id=GUILD)
    )
    for campaign, channel in ((isles, 901), (branch, 902), (coast, 903)):
        await scene(db, campaign, channel, 1, SceneStatus.COMPLETED)
        await bind(db, channel, "channel", campaign)

    # Glossaries of their books each made (kept by a digest of the sources, not as a campaign's rows).
    for campaign, digest in ((branch, "b" * 64), (coast, "c" * 64)):
        await db.run(lambda s, c=campaign, d=digest: keep_glossary(s, d, c.id, {"vacuum": "cold"}))

    counts = await db.run(lambda s: repo.delete_campaign_rows(s, branch.id))

    assert counts == {"scenes": 1, "channel_bindings": 1, "knowledge_book_glossaries": 1}
    assert await db.run(lambda s: kept_glossary(s, "b" * 64)) is None
    assert await db.run(lambda s: kept_glossary(s, "c" * 64)) == {"vacuum": "cold"}
    async with db.session() as session:
        with pytest.raises(NotFound):
            await campaigns.get_campaign(session, branch.id)
        left = await session.execute(
            select(SceneRow.campaign_id, func.count()).group_by(SceneRow.campaign_id)
        )
        assert dict(left.all()) == {isles.id: 1, coast.id: 1}
        assert [b.channel_id for b in await repo.bindings_of(session, guild_id=GUILD)] == [901, 903]
