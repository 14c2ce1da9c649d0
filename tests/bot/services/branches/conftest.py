"""Fixtures shared by the branch tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services, build_services
from tests.conftest import DatabaseTarget
from tests.helpers.branch_play import settings_for


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[Services]:
    built = await build_services(settings_for(tmp_path), db=db_target.open())
    try:
        yield built
    finally:
        await built.close()
