"""Under overload the bot is slow, never lossy: a PostgreSQL pool with no free connection is "busy".

Every connection held past the pool's timeout raised SQLAlchemy's pool `TimeoutError`, which nothing knew: the
turn log dropped the batch ("could not log a turn") and commands answered "Something went wrong". Now it is the
database being busy: the turn log waits and retries until the turn is stored; a command says the database is
busy. Turn writes also have a small pool of their own, so commands holding every connection do not starve them.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout

from canon import campaigns
from canon.storage import Database
from canon.storage_faults import BUSY, storage_fault
from memory.scene_service import SceneService
from memory.scenes import Actor, scene_turns
from memory.turn_batch import LoggedTurn
from memory.turn_log import TurnLog
from tests.conftest import DatabaseTarget
from tests.memory.test_scenes import message

GM = Actor(id=1, name="Gina", is_gm=True)
pytestmark = pytest.mark.postgres


def test_a_pool_timeout_is_the_database_being_busy() -> None:
    assert storage_fault(PoolTimeout("QueuePool limit of size 2 overflow 0 reached")) == BUSY


async def test_a_turn_waits_out_a_pool_with_no_free_connection_and_is_stored(
    pg_target: DatabaseTarget,
) -> None:
    db_target = pg_target
    db = Database.from_url(db_target.url, search_path=db_target.search_path, pool_timeout=0.2)
    turns = TurnLog(db)
    turns.start()
    try:
        campaign = await db.run(lambda s: campaigns.create_campaign(s, "Busy table", guild_id=10))
        scene = await SceneService(db).start_scene(
            campaign_id=campaign.id, guild_id=10, channel_id=100, title="Rush", location="Docks", actor=GM
        )
        async with contextlib.AsyncExitStack() as held:
            # Every connection of the turn log's own pool is taken (by work that outlasts its timeout).
            for _ in range(db.urgent_engine.pool.size()):
                await held.enter_async_context(db.urgent_engine.connect())
            appended = asyncio.ensure_future(turns.append(message(100, 5001, "We hold the line")))
            await asyncio.sleep(1.0)  # several pool timeouts go by: the turn waits, it is not dropped
            assert not appended.done(), appended
            assert turns.outage == BUSY
        logged = await asyncio.wait_for(appended, 30)
        assert isinstance(logged, LoggedTurn)
        assert turns.outage is None
        async with db.session() as session:
            stored = await scene_turns(session, scene.id)
        assert [t.text for t in stored] == ["We hold the line"]
    finally:
        await turns.close()
        await db.dispose()


async def test_turns_are_stored_while_commands_hold_every_connection_of_the_main_pool(
    pg_target: DatabaseTarget,
) -> None:
    db_target = pg_target
    db = Database.from_url(db_target.url, search_path=db_target.search_path, pool_timeout=0.2)
    turns = TurnLog(db)
    turns.start()
    try:
        campaign = await db.run(lambda s: campaigns.create_campaign(s, "Busy table", guild_id=10))
        await SceneService(db).start_scene(
            campaign_id=campaign.id, guild_id=10, channel_id=100, title="Rush", location="Docks", actor=GM
        )
        async with contextlib.AsyncExitStack() as held:
            pool = db.engine.pool
            for _ in range(pool.size() + pool._max_overflow):  # type: ignore[attr-defined]
                await held.enter_async_context(db.engine.connect())
            logged = await asyncio.wait_for(turns.append(message(100, 5002, "Still here")), 5)
            assert isinstance(logged, LoggedTurn) and turns.outage is None
    finally:
        await turns.close()
        await db.dispose()
