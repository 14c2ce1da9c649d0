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
from memory.scene_service import SceneService
from memory.scenes import Actor
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
    run(cli, "canon", "add", "fact", "The Duke", "lair", "under the mill", "--gm-only")
    run(cli, "canon", "reveal", "--to", "Sable", "--reason", "a map", "--fact", "Duke lair")
    # A reveal is named by its words, as `canon known` prints them: never by a number.
    listed = cli.invoke(app, ["canon", "known", "--campaign", CAMPAIGN])
    assert "Sable knows" in listed.stdout and "reveal " not in listed.stdout, listed.stdout
    several = run(cli, "canon", "unreveal", "Sable Duke", "--reason", "forged", code=1)
    assert "fits 2 reveals; say which one by more of its words" in several.output, several.output
    unknown = run(cli, "canon", "unreveal", "Brann dragon", "--reason", "forged", code=1)
    assert "No standing reveal says “Brann dragon”" in unknown.output, unknown.output
    (undone,) = run(cli, "canon", "unreveal", "Sable spy", "--reason", "forged")
    assert undone["undone_by"] == "command line" and undone["undo_reason"] == "forged"
    assert undone["id"] == revealed["id"]
    again = run(cli, "canon", "unreveal", str(revealed["id"]), "--reason", "twice", code=1)
    assert "undone already" in again.output
    history = {r["id"]: r for r in run(cli, "canon", "known", "--character", "Sable")}
    assert history[revealed["id"]]["undone_at"] is not None and len(history) == 2
