"""`lorekeeper memory ...` through typer's runner: list, search, edit, delete by criteria, info, scopes.

On SQLite, then PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.app import build_services
from bot.cli.main import app
from canon.proposals import EntityContent
from config.settings import Settings
from memory.npc_memory import NewMemory, ScopeKind
from memory.scenes import Actor
from tests.conftest import DatabaseTarget

CAMPAIGN = "Valdorn"
GM = Actor(id=1, name="Gina", is_gm=True)


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner with a campaign whose NPC Mira remembers three things (stored through the services)."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0

    async def seed() -> None:
        services = await build_services(Settings(_env_file=None))  # type: ignore[call-arg]
        try:
            campaign = await services.campaigns.by_name(CAMPAIGN)
            added = await services.canon.add_direct(
                campaign, EntityContent(name="Mira", entity_type="NPC"), GM, command="test"
            )
            mira = next(iter(added.entity_ids.values()))

            def memory(text: str, *categories: str, **meta: Any) -> NewMemory:
                return NewMemory(
                    npc_id=mira,
                    npc_name="Mira",
                    scope_kind=ScopeKind.NPC,
                    content=text,
                    categories=categories,
                    meta=meta,
                )

            await services.voice.memories.add(
                campaign.id,
                [
                    memory("Aldric paid with a silver ring.", "debts", source="ledger"),
                    memory("A storm sank three boats.", "harbour"),
                    memory("The baker owes two silver.", "debts", "town", source="rumour"),
                ],
            )
        finally:
            await services.close()

    asyncio.run(seed())
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    result = cli.invoke(app, ["memory", *args, "--campaign", CAMPAIGN, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def test_list_edit_delete_info_and_scopes_from_the_command_line(cli: CliRunner) -> None:
    listed = run(cli, "list", "--npc", "Mira")
    assert listed["total"] == 3
    debts = run(cli, "list", "--category", "debts", "--meta", "source=rumour")
    assert [f["memory"]["content"] for f in debts["found"]] == ["The baker owes two silver."]
    storm = next(f["memory"]["id"] for f in listed["found"] if "storm" in f["memory"]["content"])
    edited = run(
        cli, "edit", str(storm), "--text", "A kraken took three boats.", "--categories", "harbour, monsters"
    )
    assert edited["content"] == "A kraken took three boats." and edited["categories"] == [
        "harbour",
        "monsters",
    ]
    found = run(cli, "list", "--search", "kraken boats", "--min-score", "0.5")
    assert found["found"][0]["memory"]["id"] == storm
    deleted = run(cli, "delete", "--npc", "Mira", "--category", "town")
    assert len(deleted["deleted"]) == 1
    info = run(cli, "info", "--npc", "Mira")
    assert info["count"] == 2 and info["per_category"] == {"debts": 1, "harbour": 1, "monsters": 1}
    scopes = run(cli, "scopes")
    assert sum(1 for s in scopes if s.count("/") == 2) == 1 and max(scopes.values()) == 2
    # Bad input: a clear message, exit code 1, nothing changed.
    refused = run(cli, "delete", code=1)
    assert "Say which memories" in refused.output
    refused = run(cli, "edit", str(storm), "--importance", "2", code=1)
    assert "0 to 1" in refused.output
    refused = run(cli, "list", "--meta", "nonsense", code=1)
    assert "is not metadata" in refused.output
    assert run(cli, "info", "--npc", "Mira")["count"] == 2
