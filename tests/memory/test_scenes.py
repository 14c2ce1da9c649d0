"""The narrative store on a real database: scenes, turns, edits, deletions, idempotency, isolation."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from sqlalchemy import func, select

from canon import campaigns
from canon.errors import Conflict, InvalidInput, NotFound
from canon.storage import Database, utc_now
from memory.scene_service import SceneService
from memory.scene_tables import TurnRow
from memory.scenes import (
    Actor,
    AttachmentInfo,
    SceneStatus,
    SpeakerKind,
    scene_turns,
    scenes_by_id,
    turn_history,
    turns_numbered_in,
)
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog

GM = Actor(id=1, name="Gina", is_gm=True)


def message(
    channel: int, message_id: int | None, text: str, *, author: int = 2, name: str = "Pat"
) -> IncomingMessage:
    return IncomingMessage(
        message_id=message_id,
        channel_id=channel,
        author_id=author,
        author_name=name,
        speaker=SpeakerKind.PLAYER,
        text=text,
        created_at=utc_now(),
    )


@pytest.fixture
async def campaign_id(db: Database) -> int:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Shattered Isles", guild_id=10))
    return campaign.id


@pytest.fixture
async def turn_log(db: Database) -> TurnLog:
    log = TurnLog(db)
    log.start()
    yield log
    await log.close()


async def start(scenes: SceneService, campaign_id: int, channel: int, title: str = "The Inn") -> int:
    scene = await scenes.start_scene(
        campaign_id=campaign_id, guild_id=10, channel_id=channel, title=title, location="Thornwall", actor=GM
    )
    return scene.id


async def test_scene_lifecycle_logs_turns_in_order(db: Database, campaign_id: int, turn_log: TurnLog) -> None:
    scenes = SceneService(db)
    scene_id = await start(scenes, campaign_id, 100)
    assert 100 in await scenes.open_channels()

    results = await asyncio.gather(*(turn_log.append(message(100, 1000 + i, f"line {i}")) for i in range(50)))
    assert [r.number for r in results if r] == list(range(1, 51))

    assert await turn_log.edit(1003, "line 3, revised", utc_now())
    assert await turn_log.delete(1004, utc_now())
    report = await scenes.end_scene(100)
    assert report.turn_count == 49  # the deleted turn is a tombstone, not a turn
    assert report.scene.status == SceneStatus.COMPLETED
    assert [p.name for p in report.participants] == ["Pat"]
    assert 100 not in await scenes.open_channels()

    async with db.session() as session:
        turns = await scene_turns(session, scene_id)
        assert len(turns) == 50
        assert turns[3].text == "line 3, revised" and turns[3].edited_at is not None
        assert await turn_history(session, turns[3].id) == ["line 3"]
        assert turns[4].is_deleted and turns[4].text == "line 4"


async def test_messages_outside_scenes_are_not_stored(
    db: Database, campaign_id: int, turn_log: TurnLog
) -> None:
    assert await turn_log.append(message(555, 1, "hello")) is None
    async with db.session() as session:
        assert await session.scalar(select(func.count()).select_from(TurnRow)) == 0


async def test_replayed_message_is_stored_once(db: Database, campaign_id: int, turn_log: TurnLog) -> None:
    scenes = SceneService(db)
    await start(scenes, campaign_id, 100)
    first, again, concurrent = await asyncio.gather(
        turn_log.append(message(100, 42, "once")),
        turn_log.append(message(100, 42, "once")),
        turn_log.append(message(100, 43, "twice")),
    )
    assert first is not None and again is not None and concurrent is not None
    assert not first.duplicate and again.duplicate and again.number == first.number
    replay = await turn_log.append(message(100, 42, "once"))
    assert replay is not None and replay.duplicate
    async with db.session() as session:
        assert await session.scalar(select(func.count()).select_from(TurnRow)) == 2


MAP = AttachmentInfo(filename="map.png", size=10, content_type="image/png", url="https://cdn.example/map.png")


async def test_unusual_text_is_stored_verbatim(db: Database, campaign_id: int, turn_log: TurnLog) -> None:
    scenes = SceneService(db)
    scene_id = await start(scenes, campaign_id, 100)
    texts = [
        "x" * 4000,
        "",  # attachments only
        "zero\u200bwidth \u202eright-to-left\u202c e\u0301 combining",
        "@everyone <@&123> <@456> ping",
    ]
    for i, text in enumerate(texts):
        await turn_log.append(
            message(100, 10 + i, text).model_copy(update={"attachments": [MAP] if text == "" else []})
        )
    async with db.session() as session:
        stored = await scene_turns(session, scene_id)
    assert [t.text for t in stored] == texts
    assert stored[1].attachments == [MAP]


async def test_one_active_scene_per_channel(db: Database, campaign_id: int) -> None:
    scenes = SceneService(db)
    await start(scenes, campaign_id, 100)
    with pytest.raises(Conflict, match="already running"):
        await start(scenes, campaign_id, 100, title="Another")
    other = await start(scenes, campaign_id, 200, title="Elsewhere")
    assert other


async def test_end_scene_twice_and_without_scene(db: Database, campaign_id: int) -> None:
    scenes = SceneService(db)
    with pytest.raises(NotFound, match="no scene"):
        await scenes.end_scene(100)
    await start(scenes, campaign_id, 100)
    await scenes.end_scene(100)
    with pytest.raises(NotFound):
        await scenes.end_scene(100)


async def test_scene_under_review_blocks_a_new_scene_until_completed(db: Database, campaign_id: int) -> None:
    scenes = SceneService(db)
    scene_id = await start(scenes, campaign_id, 100)
    report = await scenes.end_scene(100, complete=False)
    assert report.scene.status == SceneStatus.REVIEW
    with pytest.raises(Conflict, match="canon review"):
        await start(scenes, campaign_id, 100)
    with pytest.raises(Conflict, match="already ended"):
        await scenes.end_scene(100)
    await db.run(lambda s: scenes.complete_scene(s, scene_id))
    assert await start(scenes, campaign_id, 100, title="Next")


async def test_story_order_counts_per_campaign(db: Database, campaign_id: int) -> None:
    scenes = SceneService(db)
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=20))
    first = await scenes.start_scene(
        campaign_id=campaign_id, guild_id=10, channel_id=1, title="a", location=None, actor=GM
    )
    second = await scenes.start_scene(
        campaign_id=campaign_id, guild_id=10, channel_id=2, title="b", location=None, actor=GM
    )
    elsewhere = await scenes.start_scene(
        campaign_id=other.id, guild_id=20, channel_id=3, title="c", location=None, actor=GM
    )
    assert (first.story_order, second.story_order, elsewhere.story_order) == (1, 2, 1)


async def test_overlong_title_is_refused(db: Database, campaign_id: int) -> None:
    with pytest.raises(InvalidInput, match="at most 200"):
        await start(SceneService(db), campaign_id, 100, title="t" * 201)


async def test_turn_timestamps_are_utc_aware(db: Database, campaign_id: int, turn_log: TurnLog) -> None:
    scenes = SceneService(db)
    scene_id = await start(scenes, campaign_id, 100)
    await turn_log.append(message(100, 1, "hi"))
    async with db.session() as session:
        (turn,) = await scene_turns(session, scene_id)
    assert turn.created_at.tzinfo is not None and turn.created_at.utcoffset() == dt.timedelta(0)


async def test_close_waits_for_admitted_callers_and_refuses_later_ones(
    db: Database, campaign_id: int
) -> None:
    scenes = SceneService(db)
    await start(scenes, campaign_id, 700)
    log = TurnLog(db)
    log.start()
    looked_up = asyncio.Event()

    async def handler(i: int) -> None:  # like the turn logger: admitted first, then a lookup, then the append
        with log.admitting():
            await looked_up.wait()
            await log.append(message(700, 7000 + i, f"last words {i}"))

    handlers = [asyncio.create_task(handler(i)) for i in range(20)]
    await asyncio.sleep(0)  # every handler is admitted and waits on its lookup
    closing = asyncio.create_task(log.close())
    await asyncio.sleep(0.05)
    assert not closing.done()  # the log waits for the handlers on their way
    looked_up.set()
    await closing
    await asyncio.gather(*handlers)
    async with db.session() as session:
        stored = (await session.execute(select(func.count()).select_from(TurnRow))).scalar_one()
    assert stored == 20
    with pytest.raises(RuntimeError, match="not called"):
        await log.append(message(700, 7999, "too late"))


async def test_scenes_and_their_numbered_turns_are_read_together(
    db: Database, campaign_id: int, turn_log: TurnLog
) -> None:
    scenes = SceneService(db)
    first = await start(scenes, campaign_id, 100)
    second = await start(scenes, campaign_id, 200, title="The Road")
    for channel, base in ((100, 1000), (200, 2000)):
        for i in range(1, 5):
            await turn_log.append(message(channel, base + i, f"line {i}"))
    assert await turn_log.delete(1002, utc_now())
    async with db.session() as session:
        found = await scenes_by_id(session, [first, second, 987654])
        assert sorted(found) == [first, second] and found[second].title == "The Road"
        assert await scenes_by_id(session, []) == {}
        turns = await turns_numbered_in(session, {first: {1, 2, 3, 99}, second: {4}, 987654: {1}})
        assert {s: [t.number for t in ts] for s, ts in turns.items()} == {first: [1, 3], second: [4]}
        assert await turns_numbered_in(session, {first: set()}) == {}
