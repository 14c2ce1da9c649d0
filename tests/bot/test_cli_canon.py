"""`lorekeeper canon ...` through typer's runner, on a SQLite file in tmp_path, asserting the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app

CAMPAIGN = "Shattered Isles"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner whose settings point at tmp_path (and read no config file of the working directory)."""
    monkeypatch.chdir(tmp_path)
    for name in ("LOREKEEPER_DATABASE_URL", "LOREKEEPER_CONFIG", "LOREKEEPER_DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "false")
    runner = CliRunner()
    created = runner.invoke(app, ["campaign", "create", CAMPAIGN])
    assert created.exit_code == 0, created.output
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    """Run a command with --json in the campaign; return its parsed JSON (or the result on failure)."""
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, *(["--json"] if code == 0 else [])])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def test_add_then_read_an_entity_card_as_player_and_gm(cli: CliRunner) -> None:
    added = run(cli, "canon", "add", "entity", "Aldric", "npc", "--aliases", "Sir Al, Al")
    (written,) = added["written"]
    assert written["content"]["name"] == "Aldric" and written["content"]["entity_type"] == "NPC"
    assert written["authority"] == "gm" and added["conflicts"] == []
    aldric_id = added["entity_ids"][str(written["id"])]
    title = run(cli, "canon", "add", "fact", "Aldric", "title", "Knight of the Vale")
    (title_id,) = title["statement_ids"]
    run(cli, "canon", "add", "entity", "The Hidden King", "NPC", "--gm-only")
    run(cli, "canon", "add", "fact", "sir al", "oath", "serves the Hidden King", "--gm-only")

    player = run(cli, "canon", "entity", "Aldric")
    assert player["entity"]["id"] == aldric_id and player["entity"]["aliases"] == ["Sir Al", "Al"]
    assert [f["statement"]["value"] for f in player["facts"]] == ["Knight of the Vale"]
    assert player["viewer"] == "player" and "hidden_count" not in player
    gm = run(cli, "canon", "entity", "Aldric", "--as", "gm")
    assert [f["statement"]["value"] for f in gm["facts"]] == ["Knight of the Vale", "serves the Hidden King"]
    assert gm["facts"][1]["statement"]["visibility"] == "gm_only"
    command, decision = gm["facts"][0]["statement"]["evidence"]
    assert command["kind"] == "command" and command["note"] == "lorekeeper canon add fact by command line"
    assert "accepted by command line" in decision["note"]
    assert gm["facts"][0]["statement"]["id"] == title_id

    hidden = run(cli, "canon", "entity", "The Hidden King", code=1)
    assert "No entity called" in hidden.stderr
    assert run(cli, "canon", "entity", "The Hidden King", "--as", "gm")["entity"]["visibility"] == "gm_only"


def test_as_of_dates_and_the_timeline(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "NPC")
    run(cli, "canon", "add", "state", "Aldric", "alive", "--when", "3rd_age.year_280")
    run(cli, "canon", "add", "state", "Aldric", "dead", "--when", "3rd_age.300.3.17")
    before = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_290")
    after = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_301")
    assert before["state"]["statement"]["value"] == "alive" and before["as_of"]["world"] == "3rd_age.year_290"
    assert after["state"]["statement"]["value"] == "dead"
    assert after["state"]["statement"]["validity"]["world_from"] == "3rd_age.year_300.month_3.day_17"
    timeline = run(cli, "canon", "timeline", "Aldric")
    assert timeline["entity"] == "Aldric"
    assert [v["statement"]["value"] for v in timeline["timeline"]] == ["alive", "dead"]
    text = cli.invoke(app, ["canon", "entity", "Aldric", "--campaign", CAMPAIGN])
    assert text.exit_code == 0 and "State: #" in text.stdout and "Aldric is dead" in text.stdout


def test_check_lists_every_conflict_with_its_facts_and_evidence(cli: CliRunner) -> None:
    assert run(cli, "canon", "check") == {"campaign": CAMPAIGN, "conflicts": []}
    ally = run(cli, "canon", "add", "relationship", "Aldric", "ally of", "Mara")
    assert [p["content"]["type"] for p in ally["written"]] == ["entity", "entity", "relationship"]
    enemy = run(cli, "canon", "add", "relationship", "Aldric", "ENEMY_OF", "Mara")
    assert [c["kind"] for c in enemy["conflicts"]] == ["exclusive_relations"]

    checked = run(cli, "canon", "check")
    (conflict,) = checked["conflicts"]
    assert conflict["kind"] == "exclusive_relations" and conflict["new"] is False  # recorded at the add
    assert sorted(conflict["statement_ids"]) == sorted(ally["statement_ids"] + enemy["statement_ids"])
    assert len(conflict["sides"]) == 2
    for side in conflict["sides"]:
        assert side["statement_id"] in conflict["statement_ids"] and side["sentence"]
        assert [e["kind"] for e in side["evidence"]] == ["command", "command"]  # the command, the decision
    recorded = run(cli, "canon", "conflicts")
    assert [c["kind"] for c in recorded] == ["exclusive_relations"]


def test_bad_input_exits_1_with_a_message(cli: CliRunner) -> None:
    relation = run(cli, "canon", "add", "relationship", "A", "LOVES", "B", code=1)
    assert "Allowed relations:" in relation.stderr and "ALLY_OF" in relation.stderr
    entity_type = run(cli, "canon", "add", "entity", "X", "Spaceship", code=1)
    assert "Allowed types:" in entity_type.stderr and "NPC" in entity_type.stderr
    date = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_abc", code=1)
    assert "3rd_age.year_300" in date.stderr
    bad_when = run(cli, "canon", "add", "fact", "A", "title", "x", "--when", "3rd_age.month_x", code=1)
    assert "3rd_age.year_300" in bad_when.stderr
    unknown = cli.invoke(app, ["canon", "check", "--campaign", "Nowhere", "--json"])
    assert unknown.exit_code == 1 and "There is no campaign named 'Nowhere'" in unknown.stderr
    assert run(cli, "canon", "check") == {"campaign": CAMPAIGN, "conflicts": []}  # nothing was written
