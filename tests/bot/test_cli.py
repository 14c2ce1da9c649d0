"""The installed `lorekeeper` console script, run as a real subprocess in an empty directory."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.database import head_revisions

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
    result = lorekeeper(workdir, "run", LOREKEEPER_DISCORD_TOKEN="   ")
    assert result.returncode != 0 and "no Discord bot token is set" in result.stderr


def test_run_with_a_misspelt_token_in_dotenv_names_it_and_hides_it(workdir: Path) -> None:
    (workdir / ".env").write_text(f"LOREKEEPER_DISCORD_TOKNE={TOKEN}\n", encoding="utf-8")
    result = lorekeeper(workdir, "run")
    assert result.returncode != 0
    assert "LOREKEEPER_DISCORD_TOKNE" in result.stderr and "LOREKEEPER_DISCORD_TOKEN?" in result.stderr
    assert TOKEN not in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_help_lists_run_and_db(workdir: Path) -> None:
    result = lorekeeper(workdir, "--help")
    assert result.returncode == 0, result.stderr
    listed = {line.split()[1] for line in result.stdout.splitlines() if re.match(r"│ [a-z]", line)}
    assert {"run", "db"} <= listed, result.stdout
    db_help = lorekeeper(workdir, "db", "--help")
    assert db_help.returncode == 0 and "upgrade" in db_help.stdout


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
