"""A title naming a faction held for a span ("Speaker of the Brinemoot") beside the faction's `leader:` or
`leaders:`: one tenure said once, never twice; other years for the same leader warned at both lines (a world of
our own, Brinemoot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "brinemoot"
WORLD = """characters:
  - name: Hal Varr
    born: 580
    titles:
      - {title: Speaker of the Brinemoot, from: 600, to: 620}
  - name: Oda Varr
    born: 590
    titles:
      - {title: Speaker of the Brinemoot, from: 620}
---
factions:
  - name: The Brinemoot
    leader: Oda Varr
    leaders:
      - {name: Hal Varr, from: 600, to: 620}
      - {name: Oda Varr, from: 620}
"""
QUESTIONS = [
    "who led the Brinemoot in 610?",
    "how long has Oda Varr led the Brinemoot?",
    "who leads the Brinemoot?",
]


def _world(runner: CliRunner, tmp_path: Path, text: str) -> str:
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    path = tmp_path / "world.yaml"
    path.write_text(text, encoding="utf-8")
    return runner.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output


@pytest.fixture
def runner(cli_env: DatabaseTarget) -> CliRunner:
    return CliRunner()


def test_a_title_and_leaders_over_the_same_years_are_said_once(runner: CliRunner, tmp_path: Path) -> None:
    said = _world(runner, tmp_path, WORLD)
    assert "No warnings." in said, said
    answers = ask_world(runner, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert answers["who led the Brinemoot in 610?"] == (
        "In year 610, Hal Varr was Speaker of the Brinemoot (from year 600 to year 620)."
    )
    assert (
        answers["how long has Oda Varr led the Brinemoot?"]
        == "Oda Varr has been Speaker of the Brinemoot since year 620."
    )
    assert answers["who leads the Brinemoot?"].count("Oda Varr") == 1, answers


def test_a_title_and_leaders_giving_other_years_are_warned_at_both_lines(
    runner: CliRunner, tmp_path: Path
) -> None:
    said = _world(
        runner, tmp_path, WORLD.replace("{name: Oda Varr, from: 620}", "{name: Oda Varr, from: 625}")
    )
    assert "A leader's years said two ways: Oda Varr leads the Brinemoot from year 625" in said, said
    assert "world.yaml, line 16" in said and "world.yaml, line 9" in said
    assert 'leave Oda Varr out of "leaders"' in said
