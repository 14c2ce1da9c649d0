"""`lorekeeper campaign fork|list|info|rebase|promote|accept-promotion|delete` and `canon entity --campaign BRANCH`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app

MAIN = "Shattered Isles"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    for name in ("LOREKEEPER_DATABASE_URL", "LOREKEEPER_CONFIG", "LOREKEEPER_DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "false")
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", MAIN]).exit_code == 0
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def value(card: dict[str, Any], attribute: str) -> str | None:
    found = [f["statement"]["value"] for f in card["facts"] if f["statement"]["predicate"] == attribute]
    return found[-1] if found else None


def test_fork_read_rebase_promote_and_delete_from_the_command_line(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "npc", "--campaign", MAIN)
    run(cli, "canon", "add", "fact", "Aldric", "title", "Knight", "--campaign", MAIN)
    branch = run(cli, "campaign", "fork", MAIN, "What if")
    assert branch["parent_id"] is not None and branch["fork_changeset_id"] >= 1
    run(cli, "campaign", "fork", MAIN, "Other way")
    tree = run(cli, "campaign", "list")
    assert [(n["name"], n["depth"], n["parent"]) for n in tree] == [
        (MAIN, 0, None),
        ("What if", 1, MAIN),
        ("Other way", 1, MAIN),
    ]
    text = cli.invoke(app, ["campaign", "list"]).stdout
    assert "  #2  What if  (forked from Shattered Isles at changeset #" in text

    # The branch reads exactly like the parent, and writes only to itself.
    added = run(cli, "canon", "add", "fact", "Aldric", "trade", "smith", "--campaign", "What if")
    (trade_id,) = added["statement_ids"]
    card = run(cli, "canon", "entity", "Aldric", "--campaign", "What if")
    assert (value(card, "title"), value(card, "trade")) == ("Knight", "smith")
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "trade") is None

    # The parent moves on; a rebase shows first, then moves the fork point with --yes.
    run(cli, "canon", "add", "fact", "Aldric", "horse", "Grey", "--campaign", MAIN)
    shown = run(cli, "campaign", "rebase", "What if")
    assert shown["applied"] is False and shown["changesets"] == 1 and shown["conflicts"] == []
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", "What if"), "horse") is None
    done = run(cli, "campaign", "rebase", "What if", "--yes")
    assert done["applied"] is True
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", "What if"), "horse") == "Grey"
    assert run(cli, "campaign", "info", "What if")["behind"] == 0

    # Promotion: proposed in the parent, written there only once accepted.
    promoted = run(cli, "campaign", "promote", "What if", str(trade_id))
    (proposal,) = promoted["proposals"]
    assert proposal["status"] == "pending" and promoted["parent"] == MAIN
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "trade") is None
    accepted = run(cli, "campaign", "accept-promotion", str(proposal["id"]))
    assert accepted["accepted"] == [proposal["id"]]
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "trade") == "smith"

    # Delete: shown first, done with --yes; the parent keeps everything.
    shown = run(cli, "campaign", "delete", "What if")
    assert shown["deleted"] is False
    assert run(cli, "campaign", "info", "What if")["name"] == "What if"
    gone = run(cli, "campaign", "delete", "What if", "--yes")
    assert gone["deleted"] is True and gone["rows"]["statements"] == 1
    assert [n["name"] for n in run(cli, "campaign", "list")] == [MAIN, "Other way"]
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "trade") == "smith"
    refused = run(cli, "campaign", "delete", MAIN, "--yes", code=1)
    assert "not a branch" in refused.output
