"""`lorekeeper doctor` says plainly what is wrong, and `--quiet` answers with the exit code alone."""

from __future__ import annotations

import base64
import datetime as dt
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.ops import doctor
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.helpers.chroma_server import free_port
from tests.helpers.storage_faults import read_only_url

TOKEN = (
    base64.urlsafe_b64encode(b"1234567890123456789").decode().rstrip("=")
    + ".GhIjKl.abcdefghijklmnopqrstuvwxyz0123"
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith("LOREKEEPER_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOREKEEPER_DISCORD_TOKEN", TOKEN)
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["doctor", *args])
    return result.exit_code, result.output


def test_a_healthy_setup_passes(env: Path) -> None:
    assert CliRunner().invoke(app, ["db", "upgrade"]).exit_code == 0
    code, output = run()
    assert code == 0, output
    assert "Everything Lorekeeper needs is in order." in output
    assert "ok    database:" in output and "at revision" in output
    assert "note  llm: no LLM configured" in output
    assert run("--quiet") == (0, "")


def test_an_unmigrated_database_is_named(env: Path) -> None:
    code, output = run()
    assert code == 1
    assert "not migrated" in output and "lorekeeper db upgrade" in output
    assert run("--quiet") == (1, "")


def test_a_missing_token_is_a_note_unless_the_bot_must_run(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GM who only uses the command line needs no token; a healthcheck of the running bot (--live) does."""
    assert CliRunner().invoke(app, ["db", "upgrade"]).exit_code == 0
    monkeypatch.delenv("LOREKEEPER_DISCORD_TOKEN")
    code, output = run()
    assert code == 0, output
    assert (
        "note  discord token: LOREKEEPER_DISCORD_TOKEN is not set: only `lorekeeper run` needs it" in output
    )
    assert "Everything Lorekeeper needs is in order." in output
    code, output = run("--live")
    assert code == 2  # a setting to fix, as the README says of every command
    assert "FAIL  discord token: LOREKEEPER_DISCORD_TOKEN is not set" in output


def test_unreachable_services_are_named(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setenv("LOREKEEPER_DATABASE_URL", f"postgresql+asyncpg://nobody@127.0.0.1:{port}/none")
    monkeypatch.setenv("LOREKEEPER_CHROMA__HOST", "127.0.0.1")
    monkeypatch.setenv("LOREKEEPER_CHROMA__PORT", str(port))
    monkeypatch.setenv("LOREKEEPER_LLM__BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("LOREKEEPER_LLM__MODEL", "tiny")
    code, output = run()
    assert code == 1
    assert "FAIL  database:" in output and "does not answer" in output
    assert f"FAIL  vector index: the Chroma server at 127.0.0.1:{port} does not answer" in output
    assert "falls back to words only" in output
    assert "FAIL  llm: the LLM endpoint" in output
    assert "3 problems" in output or "4 problems" in output


def test_a_bad_setting_fails_quietly_with_quiet(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREKEEPER_LOG_LEVEL", "LOUD")
    assert run("--quiet") == (2, "")


@pytest.mark.parametrize(
    ("token", "problem"),
    [("abc", "three parts"), ("bm90LWFuLWlk.x.y", "not a bot id"), (TOKEN, "")],
)
def test_token_shapes(token: str, problem: str, tmp_path: Path) -> None:
    check = doctor.check_token(Settings(_env_file=None, data_dir=tmp_path, discord_token=token))  # type: ignore[call-arg]
    assert check.ok == (not problem)
    assert problem in check.detail


def test_an_unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    check = doctor.check_data_dir(Settings(_env_file=None, data_dir=blocker / "data"))  # type: ignore[call-arg]
    assert not check.ok and "not writable" in check.detail


def test_live_fails_unless_the_bot_is_running_and_connected(env: Path) -> None:
    from bot.ops.health import STALE_AFTER, heartbeat_path, write_heartbeat
    from canon.storage import utc_now

    assert CliRunner().invoke(app, ["db", "upgrade"]).exit_code == 0
    code, output = run()  # not running: a note for a person, not a failure
    assert code == 0 and "note  bot process: no heartbeat" in output, output
    code, output = run("--live")
    assert code == 1 and "FAIL  bot process: no heartbeat" in output, output
    path = heartbeat_path(Settings(_env_file=None, data_dir=env / "data"))  # type: ignore[call-arg]
    write_heartbeat(path, connected=True)
    code, output = run("--live")
    assert code == 0 and "ok    bot process: running" in output, output
    write_heartbeat(path, connected=False)
    assert run("--live", "--quiet") == (1, "")
    old = utc_now() - dt.timedelta(seconds=STALE_AFTER + 5)
    write_heartbeat(path, connected=True, now=old)
    code, output = run("--live")
    assert code == 1 and "the bot is stuck or was killed" in output, output
    write_heartbeat(path, connected=True, running=False)
    code, output = run("--live")
    assert code == 1 and "stopped" in output, output
    path.write_text("{not json")
    code, output = run("--live")
    assert code == 1 and "cannot be read" in output, output


def test_each_process_of_split_shards_has_its_own_heartbeat(tmp_path: Path) -> None:
    from bot.ops.health import heartbeat_path

    def path(**values: object) -> Path:
        return heartbeat_path(Settings(_env_file=None, data_dir=tmp_path, **values))  # type: ignore[arg-type]

    assert path() == path(shard_count=2) == tmp_path / "heartbeat.json"
    assert path(shard_count=4, shard_ids=[2, 3]) == tmp_path / "heartbeat-shards-2-3.json"
    assert path(shard_count=4, shard_ids=[0, 1]) != path(shard_count=4, shard_ids=[2, 3])


async def test_a_database_that_answers_but_takes_no_writes_is_named(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, database_url=db_target.database_url)  # type: ignore[call-arg]
    healthy = await doctor.check_database(settings)
    assert healthy.ok and "takes writes" in healthy.detail, healthy.detail
    async with read_only_url(db_target) as url:
        check = await doctor.check_database(settings.model_copy(update={"database_url": url}))
    assert not check.ok
    assert (
        "answers but cannot be written: the database is read-only; give the bot's user write" in check.detail
    )
