"""The turn log when two processes share one database (the same settings started twice, PostgreSQL).

Both receive every message. One may store a message, or take the next turn number, between the other's read of
the scene and its write: the other then reads again, finds the message stored (its turn, once) and numbers what
is left after it, with nothing logged as an error.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.storage import Database
from memory import turn_batch
from memory.scene_service import SceneService
from memory.scenes import Actor, scene_turns
from memory.turn_batch import LoggedTurn
from memory.turn_log import TurnLog
from tests.conftest import DatabaseTarget
from tests.memory.test_scenes import message

GM = Actor(id=1, name="Gina", is_gm=True)
pytestmark = pytest.mark.postgres


async def test_a_message_the_other_process_stored_first_is_one_turn_and_no_error(
    pg_target: DatabaseTarget, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    first = Database.from_url(pg_target.url, search_path=pg_target.search_path)
    second = Database.from_url(pg_target.url, search_path=pg_target.search_path)
    mine, theirs = TurnLog(first), TurnLog(second)
    mine.start()
    theirs.start()
    try:
        campaign = await first.run(lambda s: campaigns.create_campaign(s, "Twice", guild_id=10))
        scene = await SceneService(first).start_scene(
            campaign_id=campaign.id, guild_id=10, channel_id=100, title="Echo", location="Docks", actor=GM
        )
        prepare = turn_batch._prepare
        raced = False

        async def read_then_lose_the_race(session: AsyncSession, ops: list[Any]) -> Any:
            nonlocal raced
            batch = await prepare(session, ops)
            if not raced and any(
                getattr(op, "message", None) and op.message.message_id == 7001 for op in ops
            ):
                raced = True  # after this batch's read, the other process stores the same message and another
                stored = await theirs.append(message(100, 7000, "Quick"))
                again = await theirs.append(message(100, 7001, "Both heard it"))
                assert isinstance(stored, LoggedTurn) and isinstance(again, LoggedTurn)
            return batch

        monkeypatch.setattr(turn_batch, "_prepare", read_then_lose_the_race)
        with caplog.at_level(logging.INFO, logger="memory.turn_log"):
            logged = await asyncio.wait_for(mine.append(message(100, 7001, "Both heard it")), 30)
            after = await asyncio.wait_for(mine.append(message(100, 7002, "Then this")), 30)
        assert raced
        assert isinstance(logged, LoggedTurn) and logged.duplicate and logged.number == 2
        assert isinstance(after, LoggedTurn) and after.number == 3
        async with first.session() as session:
            stored = await scene_turns(session, scene.id)
        assert [(t.number, t.text) for t in stored] == [(1, "Quick"), (2, "Both heard it"), (3, "Then this")]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    finally:
        await mine.close()
        await theirs.close()
        await first.dispose()
        await second.dispose()
