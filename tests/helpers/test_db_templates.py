"""The test databases: a copy of the migrated template is what the migrations make, and a reused PostgreSQL
schema comes back empty, under a new name, or not at all."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema import database
from canon import campaigns
from canon.forks import ForkPoint
from canon.storage import Database, create_engine
from memory.scene_service import SceneService
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog
from tests.conftest import POSTGRES_URL
from tests.helpers.db_templates import Templates, fingerprint

GM = Actor(id=1, name="Gina", is_gm=True)

needs_postgres = pytest.mark.skipif(
    not POSTGRES_URL,
    reason="PostgreSQL tests need LOREKEEPER_TEST_POSTGRES_URL (.ci/run sets it when 127.0.0.1:5432 answers)",
)


@pytest.fixture
async def templates() -> AsyncIterator[Templates]:
    """Templates of the test's own (not the session's), removed after it."""
    made = Templates()
    try:
        yield made
    finally:
        await made.drop_all()


def sqlite_schema(path: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    with sqlite3.connect(path) as conn:
        objects = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        revisions = [row[0] for row in conn.execute("SELECT version_num FROM alembic_version ORDER BY 1")]
    return [(kind, name, constraints_sorted(sql)) for kind, name, sql in objects], revisions


def constraints_sorted(sql: str | None) -> str:
    """Return a CREATE TABLE statement with its CONSTRAINT lines in one order: a table Alembic's batch mode
    rebuilt on SQLite lists its foreign keys in an order that varies from one run to the next."""
    if not sql:
        return sql or ""
    lines = [line.strip().rstrip(",") for line in sql.splitlines()]
    kept = [line for line in lines if not line.startswith("CONSTRAINT")]
    return "\n".join(kept + sorted(line for line in lines if line.startswith("CONSTRAINT")))


async def test_a_sqlite_copy_is_the_file_the_migrations_make(templates: Templates, tmp_path: Path) -> None:
    migrated = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'migrated.sqlite3'}")
    await database.upgrade(migrated)
    await migrated.dispose()
    await templates.copy_sqlite(tmp_path / "first.sqlite3")
    await templates.copy_sqlite(tmp_path / "second.sqlite3")
    made = sqlite_schema(tmp_path / "migrated.sqlite3")
    assert made[0] and made[1] == sorted(database.head_revisions())
    assert sqlite_schema(tmp_path / "first.sqlite3") == made == sqlite_schema(tmp_path / "second.sqlite3")
    copy = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'first.sqlite3'}")
    try:
        async with copy.session() as session:
            assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
            assert (await session.execute(text("SELECT count(*) FROM campaigns"))).scalar() == 0
    finally:
        await copy.dispose()


async def schema_fingerprint(schema: str) -> list[str]:
    assert POSTGRES_URL
    engine = create_engine(POSTGRES_URL, search_path=schema)
    try:
        async with engine.connect() as conn:
            return await fingerprint(conn)
    finally:
        await engine.dispose()


async def schema_exists(schema: str) -> bool:
    assert POSTGRES_URL
    engine = create_engine(POSTGRES_URL)
    try:
        async with engine.connect() as conn:
            found = await conn.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"), {"s": schema}
            )
            return bool(found.scalar_one())
    finally:
        await engine.dispose()


async def migrated_by_alembic() -> str:
    """Return a new schema the migrations made (the caller drops it)."""
    assert POSTGRES_URL
    schema = f"lk_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    await admin.dispose()
    db = Database.from_url(POSTGRES_URL, search_path=schema)
    try:
        await database.upgrade(db)
    finally:
        await db.dispose()
    return schema


async def fill(db: Database) -> int:
    """Write a little of everything a scene makes (a campaign, a branch, a scene, turns, a revision); return
    the campaign's id."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Shattered Isles", guild_id=10))

    async def branch(session: AsyncSession) -> None:
        changeset = await campaigns.open_changeset(session, campaign.id, campaigns.ChangesetKind.GM_DIRECT)
        point = ForkPoint(changeset_id=changeset.id)
        await campaigns.create_branch(session, campaign, "What if", point, guild_id=10)

    await db.run(branch)
    await SceneService(db).start_scene(
        campaign_id=campaign.id, guild_id=10, channel_id=100, title="The Inn", location="Thornwall", actor=GM
    )
    log = TurnLog(db)
    log.start()
    try:
        for i in range(3):
            await log.append(
                IncomingMessage(
                    message_id=1000 + i,
                    channel_id=100,
                    author_id=2,
                    author_name="Pat",
                    speaker=SpeakerKind.PLAYER,
                    text=f"line {i}",
                    created_at=campaign.created_at,
                )
            )
        assert await log.edit(1000, "line 0, revised", campaign.created_at)
    finally:
        await log.close()
    return campaign.id


async def row_counts(db: Database) -> dict[str, int]:
    async with db.session() as session:
        tables = (
            await session.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))
        ).scalars()
        return {
            table: (await session.execute(text(f'SELECT count(*) FROM "{table}"'))).scalar_one()
            for table in sorted(tables)
            if table != "alembic_version"
        }


@needs_postgres
async def test_a_postgres_copy_new_or_reused_is_the_schema_the_migrations_make(templates: Templates) -> None:
    assert POSTGRES_URL
    reference = await migrated_by_alembic()
    try:
        made = await schema_fingerprint(reference)
        assert (
            any(line.startswith("index ") for line in made)
            and f"revision {max(database.head_revisions())}" in made
        )
        first = await templates.create_postgres(POSTGRES_URL)
        assert await schema_fingerprint(first) == made
        db = Database.from_url(POSTGRES_URL, search_path=first)
        await fill(db)
        await db.dispose()
        await templates.drop_postgres(POSTGRES_URL, first)
        again = await templates.create_postgres(POSTGRES_URL)
        assert again != first and await schema_fingerprint(again) == made
        await templates.drop_postgres(POSTGRES_URL, again)
    finally:
        await templates.drop_postgres(POSTGRES_URL, reference)


@needs_postgres
async def test_a_reused_schema_is_empty_and_counts_its_ids_from_the_start(templates: Templates) -> None:
    assert POSTGRES_URL
    first = await templates.create_postgres(POSTGRES_URL)
    db = Database.from_url(POSTGRES_URL, search_path=first)
    fresh_id = await fill(db)
    filled = await row_counts(db)
    await db.dispose()
    assert sum(1 for n in filled.values() if n) >= 5  # campaigns, scenes, turns, revisions, participants...
    await templates.drop_postgres(POSTGRES_URL, first)
    reused = await templates.create_postgres(POSTGRES_URL)
    assert reused != first
    assert not await schema_exists(first)  # renamed: nothing is left under the old name
    db = Database.from_url(POSTGRES_URL, search_path=reused)
    try:
        assert set((await row_counts(db)).values()) == {0}
        assert await fill(db) == fresh_id  # the ids start again where a new schema's do
        assert await row_counts(db) == filled
    finally:
        await db.dispose()
        await templates.drop_postgres(POSTGRES_URL, reused)


@needs_postgres
async def test_a_schema_its_test_changed_is_dropped_not_reused(templates: Templates) -> None:
    assert POSTGRES_URL
    changes = [
        "ALTER TABLE campaigns ADD COLUMN extra INTEGER",
        "CREATE INDEX ix_extra ON turns (text)",
        "CREATE TABLE extra (id INTEGER)",
        "DELETE FROM alembic_version WHERE version_num = (SELECT max(version_num) FROM alembic_version)",
    ]
    for change in changes:
        schema = await templates.create_postgres(POSTGRES_URL)
        engine = create_engine(POSTGRES_URL, search_path=schema)
        async with engine.begin() as conn:
            await conn.execute(text(change))
        await engine.dispose()
        await templates.drop_postgres(POSTGRES_URL, schema)
        assert not await schema_exists(schema), change
        fresh = await templates.create_postgres(POSTGRES_URL)
        assert await schema_fingerprint(fresh) == templates.postgres_fingerprint(POSTGRES_URL), change
        await templates.drop_postgres(POSTGRES_URL, fresh)


@needs_postgres
async def test_a_connection_a_test_left_open_never_writes_into_the_next_tests_schema(
    templates: Templates,
) -> None:
    assert POSTGRES_URL
    first = await templates.create_postgres(POSTGRES_URL)
    leaked = Database.from_url(POSTGRES_URL, search_path=first)
    await fill(leaked)  # its pool keeps connections open, with prepared statements
    await templates.drop_postgres(POSTGRES_URL, first)
    reused = await templates.create_postgres(POSTGRES_URL)
    try:
        with pytest.raises(DBAPIError, match="does not exist"):
            await leaked.run(lambda s: campaigns.create_campaign(s, "Leaked", guild_id=11))
    finally:
        await leaked.dispose()
    db = Database.from_url(POSTGRES_URL, search_path=reused)
    try:
        assert set((await row_counts(db)).values()) == {0}
    finally:
        await db.dispose()
        await templates.drop_postgres(POSTGRES_URL, reused)


@needs_postgres
async def test_a_schema_given_another_s_rows_holds_them_and_its_ids_go_on_from_there(
    templates: Templates,
) -> None:
    assert POSTGRES_URL
    source, dest = [await templates.create_postgres(POSTGRES_URL) for _ in range(2)]
    databases = [Database.from_url(POSTGRES_URL, search_path=schema) for schema in (source, dest)]

    async def new_campaign(db: Database) -> int:
        return (await db.run(lambda s: campaigns.create_campaign(s, "Another", guild_id=11))).id

    try:
        first = await fill(databases[0])
        await templates.copy_postgres_rows(POSTGRES_URL, source, dest)
        assert await row_counts(databases[1]) == await row_counts(databases[0])
        # What the migrations wrote (the first content mark) is the source's, not a second row.
        marks = [
            await db.run(lambda s: s.scalar(text("SELECT generation FROM content_marks"))) for db in databases
        ]
        assert marks[1] == marks[0]
        # The next rows get the ids the source's next would: after the copied ones, as if written there.
        assert await new_campaign(databases[1]) == await new_campaign(databases[0]) > first
    finally:
        for db in databases:
            await db.dispose()
        for schema in (source, dest):
            await templates.drop_postgres(POSTGRES_URL, schema)
