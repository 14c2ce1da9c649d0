"""Campaigns on a real database: a server's first use creates exactly one root campaign, even in a race."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from canon import campaigns
from canon.campaigns import CampaignRow
from tests.conftest import DatabaseTarget


async def test_simultaneous_first_uses_of_a_server_create_one_campaign(db_target: DatabaseTarget) -> None:
    # Two bot processes (two engines) and several commands each, all a server's very first use at once.
    processes = [db_target.open(), db_target.open()]
    try:
        found = await asyncio.gather(
            *(
                db.run(lambda s: campaigns.guild_default_campaign(s, 4242, "The Tavern"))
                for db in processes
                for _ in range(4)
            )
        )
        assert {c.id for c in found} == {found[0].id} and found[0].name == "The Tavern"
        async with processes[0].session() as session:
            count = await session.scalar(select(func.count()).where(CampaignRow.guild_id == 4242))
        assert count == 1
    finally:
        for db in processes:
            await db.dispose()


async def test_a_server_named_like_another_campaign_gets_its_own(db_target: DatabaseTarget) -> None:
    db = db_target.open()
    try:
        other = await db.run(lambda s: campaigns.create_campaign(s, "The Tavern"))
        first, second = await asyncio.gather(
            db.run(lambda s: campaigns.guild_default_campaign(s, 77, "The Tavern")),
            db.run(lambda s: campaigns.guild_default_campaign(s, 77, "The  Tavern")),
        )
        assert first.id == second.id != other.id and first.name == "The Tavern 77"
    finally:
        await db.dispose()
