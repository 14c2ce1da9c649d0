"""The environment the command-line tests run `lorekeeper` in: the test's own database, on SQLite then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import DatabaseTarget


@pytest.fixture
def cli_env(db_target: DatabaseTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DatabaseTarget:
    """Settings as the command line reads them: tmp_path as working and data directory, the test's database.

    LOREKEEPER_DATABASE_URL names the database (for PostgreSQL, the test's schema as `?search_path=`); no
    config file, no token, no embedding model. Returns the database.
    """
    monkeypatch.chdir(tmp_path)
    for name in ("LOREKEEPER_CONFIG", "LOREKEEPER_DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOREKEEPER_DATABASE_URL", db_target.database_url)
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "false")
    return db_target
