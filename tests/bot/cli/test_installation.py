"""`lorekeeper db new-installation` and `lorekeeper reindex`'s refusal without a campaign or --prune."""

from __future__ import annotations

import asyncio

from typer.testing import CliRunner

from bot.cli.main import app
from bot.ops.installation import Installation
from tests.conftest import DatabaseTarget


async def installation_of(target: DatabaseTarget) -> str:
    db = target.open()
    try:
        return await Installation(db).id()
    finally:
        await db.dispose()


def test_a_copy_gets_an_installation_of_its_own(cli_env: DatabaseTarget) -> None:
    old = asyncio.run(installation_of(cli_env))
    result = CliRunner().invoke(app, ["db", "new-installation"])
    assert result.exit_code == 0, result.output
    new = asyncio.run(installation_of(cli_env))
    assert new != old
    assert result.stdout.strip() == (
        f"This database is now installation {new} (it was {old}); its vector collections start empty: run "
        "`lorekeeper reindex --campaign NAME` for each campaign to rebuild them from the database."
    )


def test_reindex_names_what_it_needs(cli_env: DatabaseTarget) -> None:
    result = CliRunner().invoke(app, ["reindex"])
    assert result.exit_code != 0
    assert "Name the campaign to reindex with --campaign NAME, or give --prune" in result.output
