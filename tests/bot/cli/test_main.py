"""The `lorekeeper` command line in an empty directory: the installed console script as a real subprocess
(a first `run`, a first `db upgrade`, each exit code once), the other screens in this process through typer's
CliRunner.

The token screens stop before any database is opened; `db upgrade` runs on SQLite, then PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from bot.cli.main import app
from bot.schema.database import head_revisions
from canon.storage import Database
from tests.conftest import DatabaseTarget

LOREKEEPER = Path(sys.executable).with_name("lorekeeper")
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.not-a-real-token-but-secret"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty working directory (no .env, no lorekeeper.toml), as on a fresh machine."""
    assert LOREKEEPER.is_file(), f"the console script is not installed at {LOREKEEPER} (run ./scripts/setup)"
    return tmp_path


def lorekeeper(workdir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the console script with no LOREKEEPER_ variable but those given."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LOREKEEPER_")}
    return subprocess.run(
        [str(LOREKEEPER), *args],
        cwd=workdir,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def lorekeeper_in_process(workdir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the command line as `lorekeeper` does, in this process: the same screens and exit codes, without
    starting an interpreter and importing everything again."""
    # LOREKEEPER_DATA_DIR always named: `--data-dir` sets it for the process, and the runner puts back those named.
    names = {*os.environ, "LOREKEEPER_DATA_DIR"}
    unset: dict[str, str | None] = {k: None for k in names if k.startswith("LOREKEEPER_")}
    with contextlib.chdir(workdir):
        result = CliRunner().invoke(app, list(args), env={**unset, **env})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback, where the console script would have printed one
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_run_without_a_token_says_what_to_set_and_where(workdir: Path) -> None:
    result = lorekeeper(workdir, "run", LOREKEEPER_DATA_DIR=str(workdir / "data"))
    assert result.returncode != 0
    screen = result.stderr
    assert "no Discord bot token is set" in screen and "LOREKEEPER_DISCORD_TOKEN" in screen
    assert "export LOREKEEPER_DISCORD_TOKEN=" in screen and "a .env file" in screen
    assert "lorekeeper.toml" in screen and "discord.com/developers/applications" in screen
    assert "MESSAGE CONTENT" in screen and "Traceback" not in screen + result.stdout
    assert not (workdir / "data").exists()  # it stopped before touching anything


def test_run_with_a_blank_token_is_the_same_screen(workdir: Path) -> None:
    result = lorekeeper_in_process(workdir, "run", LOREKEEPER_DISCORD_TOKEN="   ")
    assert result.returncode != 0 and "no Discord bot token is set" in result.stderr


def test_run_with_a_misspelt_token_in_dotenv_names_it_and_hides_it(workdir: Path) -> None:
    (workdir / ".env").write_text(f"LOREKEEPER_DISCORD_TOKNE={TOKEN}\n", encoding="utf-8")
    result = lorekeeper_in_process(workdir, "run")
    assert result.returncode != 0
    assert "LOREKEEPER_DISCORD_TOKNE" in result.stderr and "LOREKEEPER_DISCORD_TOKEN?" in result.stderr
    assert TOKEN not in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_help_lists_run_and_db(workdir: Path) -> None:
    result = lorekeeper_in_process(workdir, "--help")
    assert result.returncode == 0, result.stderr
    commands = result.stdout.split("Commands:")[1]
    listed = {line.split()[0] for line in commands.splitlines() if re.match(r"  [a-z]", line)}
    assert {"run", "db"} <= listed, result.stdout
    db_help = lorekeeper_in_process(workdir, "db", "--help")
    assert db_help.returncode == 0 and "upgrade" in db_help.stdout


@pytest.mark.sqlite_only(reason="the default database: a SQLite file in data_dir, in WAL mode")
def test_db_upgrade_creates_the_schema_in_a_fresh_sqlite_file(workdir: Path) -> None:
    data = workdir / "data"
    first = lorekeeper(workdir, "db", "upgrade", LOREKEEPER_DATA_DIR=str(data))
    assert first.returncode == 0, first.stderr
    heads = head_revisions()
    said = f"Database at revision {', '.join(sorted(heads))}: sqlite+aiosqlite:///"
    assert said in first.stdout
    with sqlite3.connect(data / "lorekeeper.sqlite3") as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        versions = {row[0] for row in conn.execute("SELECT version_num FROM alembic_version")}
        (journal,) = conn.execute("PRAGMA journal_mode").fetchone()
    assert {"campaigns", "scenes", "turns", "turn_revisions"} <= tables
    assert versions == heads and journal == "wal"
    again = lorekeeper(workdir, "db", "upgrade", LOREKEEPER_DATA_DIR=str(data))
    assert again.returncode == 0 and said in again.stdout


async def tables_and_versions(target: DatabaseTarget) -> tuple[set[str], set[str]]:
    """Return the tables and Alembic revisions of the target's own schema (named, not found by search path)."""
    db = Database.from_url(target.url)
    schema = target.search_path
    try:
        async with db.engine.connect() as conn:
            tables = set(await conn.run_sync(lambda sync: inspect(sync).get_table_names(schema=schema)))
            where = f'"{schema}".' if schema else ""
            versions = set(
                (await conn.execute(text(f"SELECT version_num FROM {where}alembic_version"))).scalars()
            )
    finally:
        await db.dispose()
    return tables, versions


def test_db_upgrade_creates_the_schema_in_the_configured_empty_database(
    workdir: Path, empty_db_target: DatabaseTarget
) -> None:
    url = empty_db_target.database_url  # for PostgreSQL the test's own schema, as ?search_path=
    env = {"LOREKEEPER_DATA_DIR": str(workdir / "data"), "LOREKEEPER_DATABASE_URL": url}
    first = lorekeeper_in_process(workdir, "db", "upgrade", **env)
    assert first.returncode == 0, first.stderr
    heads = head_revisions()
    said = f"Database at revision {', '.join(sorted(heads))}: {make_url(url).render_as_string(hide_password=True)}"
    assert said in first.stdout
    tables, versions = asyncio.run(tables_and_versions(empty_db_target))
    assert {"campaigns", "scenes", "turns", "turn_revisions"} <= tables and versions == heads
    again = lorekeeper_in_process(workdir, "db", "upgrade", **env)
    assert again.returncode == 0 and said in again.stdout
    assert asyncio.run(tables_and_versions(empty_db_target)) == (tables, versions)


def test_version_data_dir_and_doctor_codes_as_the_console_script_answers(workdir: Path) -> None:
    """The conventions of a command line: each exit code once as the console script gives it to the shell, the
    other cases of the same screens in this process."""
    version = lorekeeper(workdir, "--version")
    assert version.returncode == 0 and version.stdout.startswith("lorekeeper 0."), version
    # Another data folder (a sandbox's) by option, for every command: the campaigns written there.
    sandbox = workdir / "data" / "sandbox"
    assert lorekeeper(workdir, "--data-dir", str(sandbox), "db", "upgrade").returncode == 0
    made = lorekeeper_in_process(workdir, "--data-dir", str(sandbox), "campaign", "create", "Valdorn")
    assert made.returncode == 0, made.stderr
    listed = lorekeeper_in_process(workdir, "campaign", "list", LOREKEEPER_DATA_DIR=str(sandbox))
    assert listed.returncode == 0 and "Valdorn" in listed.stdout, listed
    assert (sandbox / "lorekeeper.sqlite3").is_file() and not (
        workdir / "data" / "lorekeeper.sqlite3"
    ).exists()
    # doctor: 2 for a setting to fix (one that does not load; a missing token when the bot must run), 1 for
    # a problem found (a database not migrated), 0 when all is in order.
    env = {"LOREKEEPER_DATA_DIR": str(sandbox)}
    assert lorekeeper(workdir, "doctor", "--quiet", LOREKEEPER_LOG_LEVEL="LOUD", **env).returncode == 2
    assert lorekeeper_in_process(workdir, "doctor", "--quiet", "--live", **env).returncode == 2
    fresh = {"LOREKEEPER_DATA_DIR": str(workdir / "fresh"), "LOREKEEPER_DISCORD_TOKEN": TOKEN}
    assert lorekeeper(workdir, "doctor", "--quiet", **fresh).returncode == 1
    assert lorekeeper_in_process(workdir, "doctor", "--quiet", **env).returncode == 0


def test_usage_lines_name_arguments_without_braces(workdir: Path) -> None:
    for command in (["render", "tree"], ["canon", "add", "fact"], ["ingest"]):
        shown = lorekeeper_in_process(workdir, *command, "--help")
        usage = shown.stdout.splitlines()[0]
        assert shown.returncode == 0
        assert "{" not in usage and "}" not in usage, usage
    assert (
        "lorekeeper render tree [OPTIONS] NAME"
        in lorekeeper_in_process(workdir, "render", "tree", "--help").stdout
    )
