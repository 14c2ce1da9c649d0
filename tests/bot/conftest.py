"""Fixtures of the bot's tests: the environment the command-line tests run `lorekeeper` in (the test's own
database, on SQLite then PostgreSQL), the language-model stub server, and the services a test opened."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub


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


@pytest.fixture
async def stub() -> AsyncIterator[LLMStub]:
    """The language-model stub server (an OpenAI-compatible endpoint on 127.0.0.1), for the test's life."""
    async with LLMStub() as server:
        yield server


@pytest.fixture
async def made() -> AsyncIterator[list[Services]]:
    """A list the test appends the services it opens to; each is closed when the test ends."""
    opened: list[Services] = []
    yield opened
    for services in opened:
        await services.close()
