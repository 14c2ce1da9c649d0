"""`lorekeeper canon calendar --as player|gm` on a small world with a GM-only era (the Hidden Tide): a player, by
default as for `lore` and `canon entity`, reads the calendar `/calendar show` gives a player, without the era; the
GM reads it marked as GM-only, with the block to edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import import_written

CAMPAIGN = "weirmark"
FILES = {
    "calendar": """
eras:
  - {name: The Sluice Age, abbreviation: SA, start: 413}
  - {name: The Hidden Tide, abbreviation: HT}
months:
  - {name: Eelrun, days: 40}
  - {name: Silting, days: 45}
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Dry Centuries, abbreviation: DC, start: 1, end: 412}
  - {name: The Sluice Age, abbreviation: SA, start: 413}
  - {name: The Hidden Tide, start: 600, end: 620, parent_era: The Sluice Age, visibility: gm_only}
events: []
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the world imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "weirmark", FILES)


def _calendar(cli: CliRunner, *args: str, code: int = 0) -> str:
    result = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, *args])
    assert result.exit_code == code, result.output
    return result.output


def test_a_player_reads_the_calendar_without_the_gm_only_era_by_default(cli: CliRunner) -> None:
    default, player = _calendar(cli), _calendar(cli, "--as", "player")
    assert default == player
    assert "Hidden Tide" not in player and "HT" not in player and "GM" not in player, player
    assert "the Dry Centuries (DC, years 1–412) and the Sluice Age (SA, years 413 onwards)" in player, player
    shown = json.loads(_calendar(cli, "--json"))
    assert "block" not in shown and "Hidden" not in json.dumps(shown), shown


def test_the_gm_reads_the_gm_only_era_marked(cli: CliRunner) -> None:
    gm = _calendar(cli, "--as", "gm")
    assert "the Hidden Tide (HT, years 600–620, GM only)" in gm, gm
    assert gm.count("GM only") == 1, gm
    assert "Hidden Tide" in json.loads(_calendar(cli, "--as", "gm", "--json"))["block"]


def test_a_player_reads_no_date_in_the_gm_only_era(cli: CliRunner) -> None:
    assert "Hidden" not in _calendar(
        cli, "--read", "3 Eelrun, 610 HT", code=1
    )  # what the player typed, no more
    assert "year 610 of the Hidden Tide" in _calendar(cli, "--as", "gm", "--read", "3 Eelrun, 610 HT")


def test_only_the_gm_sets_the_calendar(cli: CliRunner, tmp_path: Path) -> None:
    block = tmp_path / "calendar.yaml"
    block.write_text("months: [Eelrun, Silting]\n", encoding="utf-8")
    refused = _calendar(cli, "--as", "player", "--set", str(block), code=2)
    assert "the GM" in refused, refused
    assert "Eelrun (40 days)" in _calendar(cli)  # nothing changed
    assert "GM only" in _calendar(cli, "--set", str(tmp_path / "weirmark" / "calendar.yaml"))
