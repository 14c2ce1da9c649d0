"""The content mark: moved by each commit that writes what readers are shown (any connection, any process), never
by a rollback, by the bookkeeping of play or by a turn logged (a scene's own mark counts its turns); None when it
cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from bot.ops.lease import Lease
from canon.campaigns import create_campaign
from canon.shown_writes import UNKNOWN, moves_mark, written_by
from canon.storage import Database, utc_now
from canon.write_marks import WriteMarks
from memory.scene_service import SceneService
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog
from tests.conftest import BACKENDS, drop_target, make_target

GM = Actor(id=1, name="Gina", is_gm=True)


async def _write(db: Database, name: str) -> int:
    return (await db.run(lambda session: create_campaign(session, name, guild_id=10))).id


class _Undone(Exception):
    pass


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_mark_moves_with_each_commit_of_what_is_shown_and_only_then(
    backend: str, tmp_path: Path
) -> None:
    target = await make_target(backend, tmp_path)
    db = target.open()
    other = target.open()  # another process's connections to the same database
    marks = WriteMarks(db)
    try:
        first = await marks.mark()
        async with db.session() as session:  # reading writes nothing
            await session.execute(text("SELECT count(*) FROM campaigns"))
        assert await marks.mark() == first

        async def undone(session: AsyncSession) -> None:
            await create_campaign(session, "Never")
            raise _Undone

        with pytest.raises(_Undone):
            await db.run(undone)
        assert await marks.mark() == first  # rolled back: nothing was shown
        await _write(db, "Ours")
        second = await marks.mark()
        assert second != first
        assert await marks.mark() == second
        await _write(other, "Theirs")
        assert await marks.mark() != second
    finally:
        marks.close()
        await db.dispose()
        await other.dispose()
        await drop_target(target)


def _said(channel: int, message_id: int, words: str) -> IncomingMessage:
    return IncomingMessage(
        message_id=message_id,
        channel_id=channel,
        author_id=2,
        author_name="Pat",
        speaker=SpeakerKind.PLAYER,
        text=words,
        created_at=utc_now(),
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_play_moves_only_the_mark_of_the_scene_being_played(backend: str, tmp_path: Path) -> None:
    target = await make_target(backend, tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    log = TurnLog(db)
    log.start()
    try:
        campaign_id = await _write(db, "Shattered Isles")
        scenes = SceneService(db)
        await scenes.start_scene(
            campaign_id=campaign_id, guild_id=10, channel_id=100, title="The Inn", location=None, actor=GM
        )
        await scenes.start_scene(
            campaign_id=campaign_id, guild_id=10, channel_id=200, title="The Road", location=None, actor=GM
        )
        shown, inn, road = (
            await marks.mark(),
            await marks.mark((campaign_id, 1)),
            await marks.mark((campaign_id, 2)),
        )
        for n in range(3):
            assert await log.append(_said(100, 1000 + n, f"line {n}")) is not None
        lease = Lease(db, "scheduler", "this process", 60)
        assert await lease.acquire() and await lease.acquire()  # taken, then renewed
        await lease.release()
        assert await marks.mark() == shown  # no other page shows a turn, nor the lease
        assert await marks.mark((campaign_id, 2)) == road
        assert await marks.mark((campaign_id, 1)) != inn  # the inn's transcript shows its new turns
        inn = await marks.mark((campaign_id, 1))
        assert await log.edit(1001, "line 1, revised", utc_now())
        assert await marks.mark() != shown  # an edited turn is shown (and may be cited)
        assert await marks.mark((campaign_id, 1)) != inn
        shown = await marks.mark()
        assert await log.delete(1002, utc_now())
        assert await marks.mark() != shown
        shown = await marks.mark()
        await scenes.end_scene(100)
        assert await marks.mark() != shown  # the journal shows the scene ended
    finally:
        await log.close()
        marks.close()
        await db.dispose()
        await drop_target(target)


@pytest.mark.parametrize(
    ("statement", "written"),
    [
        ("SELECT id FROM statements WHERE id = ?", None),
        ("  select 1", None),
        ("PRAGMA data_version", None),
        ("BEGIN IMMEDIATE", None),
        ("SAVEPOINT sa_savepoint_1", None),
        ("SELECT owner FROM ops_leases WHERE name = $1 FOR UPDATE SKIP LOCKED", None),
        ("INSERT INTO statements (subject_id) VALUES (?)", ("statements", True)),
        ('INSERT INTO "entities" (name) VALUES ($1) RETURNING id', ("entities", True)),
        ("INSERT OR REPLACE INTO wiki_keys (singleton) VALUES (1)", ("wiki_keys", False)),
        ("INSERT INTO turns (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET text = 'x'", ("turns", False)),
        ("INSERT INTO turns (id) VALUES (1) ON CONFLICT DO NOTHING", ("turns", True)),
        ("REPLACE INTO turns (id) VALUES (1)", ("turns", False)),
        ("UPDATE scenes SET status=? WHERE scenes.id = ?", ("scenes", False)),
        ("update lorekeeper.turns set text = $1", ("turns", False)),
        ("DELETE FROM ops_leases WHERE name = ?", ("ops_leases", False)),
        (
            "WITH gone AS (SELECT 1) DELETE FROM gm_notes WHERE id IN (SELECT * FROM gone)",
            ("gm_notes", False),
        ),
        ("WITH found AS (SELECT 1) SELECT * FROM found", None),
        ("TRUNCATE TABLE evidence", ("evidence", False)),
        ("CREATE TABLE something (id INTEGER)", UNKNOWN),
        ("ALTER TABLE entities ADD COLUMN x INTEGER", UNKNOWN),
    ],
)
def test_each_statement_says_what_it_writes(statement: str, written: tuple[str, bool] | None) -> None:
    assert written_by(statement) == written


def test_what_moves_the_mark() -> None:
    assert moves_mark(("statements", True)) and moves_mark(("wiki_generations", False))
    assert moves_mark(UNKNOWN)  # a write whose table cannot be told counts, to be safe
    assert moves_mark(("turns", False))  # an edit or a tombstone is shown
    assert not moves_mark(("turns", True))  # a new turn: its scene's page counts it
    assert not moves_mark(("ops_leases", False)) and not moves_mark(("llm_usage", True))
    assert not moves_mark(None)


def test_every_table_said_to_be_unshown_exists() -> None:
    from bot.schema.database import metadata
    from canon.shown_writes import COUNTED_ON_THEIR_PAGE, NOT_SHOWN

    assert set(metadata().tables) >= (NOT_SHOWN | COUNTED_ON_THEIR_PAGE)


async def test_an_in_memory_database_has_no_mark() -> None:
    db = Database(create_async_engine("sqlite+aiosqlite:///:memory:"))
    marks = WriteMarks(db)
    try:
        assert await marks.mark() is None
    finally:
        await db.dispose()


async def test_a_mark_that_cannot_be_read_is_none(tmp_path: Path) -> None:
    target = await make_target("sqlite", tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    try:
        marks._path = str(tmp_path / "missing" / "no.sqlite3")  # a file that cannot be opened
        assert await marks.mark() is None
    finally:
        marks.close()
        await db.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_schema_without_the_mark_has_none(backend: str, tmp_path: Path) -> None:
    target = await make_target(backend, tmp_path, migrate=False)  # no tables at all
    db = target.open()
    marks = WriteMarks(db)
    try:
        assert await marks.mark() is None
        assert await marks.mark((1, 1)) is None
    finally:
        marks.close()
        await db.dispose()
        await drop_target(target)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_writes_undone_by_a_savepoint_move_no_mark(backend: str, tmp_path: Path) -> None:
    target = await make_target(backend, tmp_path)
    db = target.open()
    marks = WriteMarks(db)
    try:

        async def tried(session: AsyncSession, before: bool, kept: bool) -> None:
            if before:
                await create_campaign(session, "Before")
            nested = await session.begin_nested()
            await create_campaign(session, "Tried")  # a proposal's warnings are found so
            await (nested.commit() if kept else nested.rollback())
            await session.execute(text("SELECT 1"))

        first = await marks.mark()
        await db.run(lambda session: tried(session, before=False, kept=False))
        assert await marks.mark() == first  # written, then undone: nothing shown changed
        await db.run(lambda session: tried(session, before=True, kept=False))
        second = await marks.mark()
        assert second != first  # what was written before the savepoint stays
        await db.run(lambda session: tried(session, before=False, kept=True))
        assert await marks.mark() != second  # a savepoint released keeps its writes
    finally:
        marks.close()
        await db.dispose()
        await drop_target(target)
