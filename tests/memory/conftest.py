"""Fixtures of the memory tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import DatabaseTarget, drop_target, make_target


@pytest.fixture
async def pg_target(tmp_path: Path) -> AsyncIterator[DatabaseTarget]:
    """A migrated PostgreSQL schema of its own, for races and pools SQLite's one writer never meets."""
    target = await make_target("postgres", tmp_path)
    try:
        yield target
    finally:
        await drop_target(target)
