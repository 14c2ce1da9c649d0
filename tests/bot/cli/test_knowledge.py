"""`lorekeeper canon reveal|unreveal|known` through typer's runner: a reveal by the fact's words, the history with
its undone reveal, and bad input (a name nobody plays) refused with exit 1 and nothing written."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.app import build_canon
from bot.cli.main import app
from bot.services.characters import CharacterDesk, Member
from canon import campaigns
from memory.scenes import Actor, SceneService
from tests.conftest import DatabaseTarget

CAMPAIGN = "Shattered Isles"


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


async def give(target: DatabaseTarget, character: str) -> None:
    db = target.open()
    try:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, CAMPAIGN)
        access = build_canon(db, SceneService(db)).access
        await CharacterDesk(db, access).assign(
            campaign, character, Member(2, "Pat"), Actor(id=1, name="Gina", is_gm=True)
        )
    finally:
        await db.dispose()


def test_reveal_known_and_unreveal_from_the_command_line(cli: CliRunner, cli_env: DatabaseTarget) -> None:
    run(cli, "canon", "add", "entity", "Sable", "PC")
    run(cli, "canon", "add", "entity", "The Duke", "NPC")
    run(cli, "canon", "add", "fact", "The Duke", "secret", "a spy", "--gm-only")
    refused = run(cli, "canon", "reveal", "--to", "Sable", "--reason", "letter", "--fact", "Duke spy", code=1)
    assert "Nobody plays Sable" in refused.output
    assert run(cli, "canon", "known") == []
    asyncio.run(give(cli_env, "Sable"))
    (revealed,) = run(cli, "canon", "reveal", "--to", "Sable", "--reason", "letter", "--fact", "Duke spy")
    assert revealed["who"] == "Sable" and "spy" in revealed["what"] and revealed["reason"] == "letter"
    (undone,) = run(cli, "canon", "unreveal", str(revealed["id"]), "--reason", "forged")
    assert undone["undone_by"] == "command line" and undone["undo_reason"] == "forged"
    again = run(cli, "canon", "unreveal", str(revealed["id"]), "--reason", "twice", code=1)
    assert "undone already" in again.output
    (history,) = run(cli, "canon", "known", "--character", "Sable")
    assert history["undone_at"] is not None
