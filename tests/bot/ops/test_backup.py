"""Online backups through SQLite's backup API while the bot writes, retention, and a verified restore."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.app import build_services
from bot.cli.main import app
from bot.ops import backup
from canon.storage import utc_now
from config.settings import Settings
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from tests.helpers.paths import REPO

GM = Actor(id=1, name="GM", is_gm=True)
ROOT = REPO


async def seed(settings: Settings, turns: int) -> None:
    services = await build_services(settings)
    try:
        campaign = await services.campaigns.create("Backed up", guild_id=1)
        await services.scenes.start_scene(
            campaign_id=campaign.id, guild_id=1, channel_id=10, title="S", location=None, actor=GM
        )
        await asyncio.gather(*(services.turns.append(message(i)) for i in range(turns)))
    finally:
        await services.close()


def message(i: int) -> IncomingMessage:
    return IncomingMessage(
        message_id=1_000_000 + i,
        channel_id=10,
        author_id=7,
        author_name="Pat",
        speaker=SpeakerKind.PLAYER,
        text=f"turn {i}",
        created_at=utc_now(),
    )


def count_turns(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM turns").fetchone()[0])


def env_for(settings: Settings) -> dict[str, str]:
    return {"LOREKEEPER_DATA_DIR": str(settings.data_dir), "LOREKEEPER_EMBEDDING__ENABLED": "false"}


async def test_backup_while_the_bot_writes_is_consistent(settings: Settings, tmp_path: Path) -> None:
    await seed(settings, 50)
    services = await build_services(settings)
    database = backup.sqlite_path(settings)
    assert database is not None
    folder = tmp_path / "backups"
    folder.mkdir()
    try:
        writing = asyncio.gather(*(services.turns.append(message(100 + i)) for i in range(3000)))
        taken = []
        for _ in range(3):
            taken.append(await asyncio.to_thread(backup.backup_to, database, folder))
            await asyncio.sleep(0.01)
        await writing
    finally:
        await services.close()
    counts = [count_turns(path) for path in taken]
    assert all(50 <= c <= 3050 for c in counts)
    for path in taken:
        assert backup.inspect_backup(path)  # a Lorekeeper database at a known revision, quick_check ok
        with sqlite3.connect(path) as conn:
            numbers = [r[0] for r in conn.execute("SELECT number FROM turns ORDER BY number")]
        assert numbers == list(range(1, len(numbers) + 1)), "a backup is a snapshot: no torn batch"
    assert count_turns(database) == 3050


def test_retention_keeps_the_newest(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"lorekeeper-2026010{i}T000000000000Z.sqlite3").write_bytes(b"x")
    removed = backup.prune(tmp_path, 2)
    assert [p.name for p in removed] == [f"lorekeeper-2026010{i}T000000000000Z.sqlite3" for i in range(3)]
    assert len(backup.backups(tmp_path)) == 2


async def test_cli_backup_and_restore(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed(settings, 20)
    for key, value in env_for(settings).items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    target = tmp_path / "copy.sqlite3"
    done = runner.invoke(app, ["backup", "--to", str(target)])
    assert done.exit_code == 0, done.output
    assert count_turns(target) == 20
    rolling = runner.invoke(app, ["backup"])
    assert rolling.exit_code == 0 and "backups" in rolling.output

    database = backup.sqlite_path(settings)
    assert database is not None
    with sqlite3.connect(database) as conn:
        conn.execute("DELETE FROM turns")

    refused = runner.invoke(app, ["restore", str(target)])
    assert refused.exit_code == 1 and "--force" in refused.output
    restored = runner.invoke(app, ["restore", str(target), "--force"])
    assert restored.exit_code == 0, restored.output
    assert "previous database was saved" in restored.output
    assert count_turns(database) == 20


async def test_a_restored_database_shows_a_content_mark_never_seen_before(
    settings: Settings, tmp_path: Path
) -> None:
    await seed(settings, 3)
    database = backup.sqlite_path(settings)
    assert database is not None
    target = tmp_path / "copy.sqlite3"
    with sqlite3.connect(database) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
    with sqlite3.connect(database) as conn:  # more is shown after the backup: the mark moves on
        conn.execute("UPDATE content_marks SET generation = generation + 5")
    seen = {_mark(target), _mark(database)}
    backup.restore(settings, target, force=True)
    assert _mark(database) not in seen and _mark(database) > max(seen)


def _mark(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT generation FROM content_marks WHERE id = 1").fetchone()[0])


def test_restore_verifies_the_file(settings: Settings, tmp_path: Path) -> None:
    text_file = tmp_path / "notes.sqlite3"
    text_file.write_text("not a database")
    with pytest.raises(backup.BackupError, match="not a SQLite database"):
        backup.restore(settings, text_file)
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (id INTEGER)")
    with pytest.raises(backup.BackupError, match="not Lorekeeper's"):
        backup.restore(settings, other)
    future = tmp_path / "future.sqlite3"
    with sqlite3.connect(future) as conn:
        for table in ("campaigns", "scenes", "turns"):
            conn.execute(f"CREATE TABLE {table} (id INTEGER)")
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32))")
        conn.execute("INSERT INTO alembic_version VALUES ('9999')")
    with pytest.raises(backup.BackupError, match="does not know"):
        backup.restore(settings, future)
    with pytest.raises(backup.BackupError, match="does not exist"):
        backup.restore(settings, tmp_path / "missing.sqlite3")


HOLD_LOCK = (
    "import pathlib, sys, time; from bot.ops.backup import RunLock; "
    "lock = RunLock(pathlib.Path(sys.argv[1])); print('held', flush=True); time.sleep(60)"
)


async def test_restore_refuses_while_the_bot_runs(settings: Settings, tmp_path: Path) -> None:
    await seed(settings, 1)
    database = backup.sqlite_path(settings)
    assert database is not None
    copy = backup.backup_file(database, tmp_path / "b.sqlite3")
    # The bot stand-in holds the run lock as `lorekeeper run` does (in another process, as in another container).
    holder = subprocess.Popen(  # noqa: ASYNC220 - the bot stand-in
        [sys.executable, "-c", HOLD_LOCK, str(settings.data_dir)], stdout=subprocess.PIPE, cwd=ROOT
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        with pytest.raises(backup.BackupError, match="running"):
            backup.restore(settings, copy, force=True)
    finally:
        holder.kill()  # SIGKILL: no clean-up ran, yet nothing stale is left behind
        holder.wait()
    backup.restore(settings, copy, force=True)  # the holder is gone: allowed


def test_backup_of_postgres_points_to_pg_dump(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LOREKEEPER_DATABASE_URL", "postgresql+asyncpg://nobody@127.0.0.1:1/none")
    result = CliRunner().invoke(app, ["backup"])
    assert result.exit_code == 2 and "pg_dump" in result.output


def test_the_run_lock_is_one_holder_at_a_time_whatever_the_pids(tmp_path: Path) -> None:
    # Not a pid: in Docker the bot and a restore in another container are both PID 1.
    held = backup.RunLock(tmp_path)
    with pytest.raises(backup.BackupError, match="running"):
        backup.RunLock(tmp_path)
    held.release()
    with backup.RunLock(tmp_path):
        pass
    backup.RunLock(tmp_path).release()


async def test_the_bot_does_not_start_during_a_restore(settings: Settings) -> None:
    from bot.cli.run import run_bot

    with backup.RunLock(settings.data_dir):
        assert await run_bot(settings) == 1
    assert not (settings.data_dir / "lorekeeper.sqlite3").exists(), "nothing was migrated meanwhile"
