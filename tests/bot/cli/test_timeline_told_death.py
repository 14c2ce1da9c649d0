"""A timeline never reads "alive (since …)" beside a death it tells: the life's start is said as the birth it was
("Mott Brae was born in year 300") where the timeline shows a death (a date of death, a death in an event, or a
status players are told); a life with no death told keeps its state, and the GM, who reads the truth of a feigned
death, reads the life as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import THIRD_AGE_CALENDAR, import_written

CAMPAIGN = "greyford"
FILES = {
    "calendar": THIRD_AGE_CALENDAR,
    "folk": """
characters:
  - {name: Mott Brae, sex: male, born: 300, status: alive, public_status: dead, public_cause_of_death: lost at sea}
  - {name: Sella Brae, sex: female, born: 301, died: 344}
  - {name: Tamsin Vey, sex: female, born: 302}
  - {name: Ned Tull, sex: male, born: 325}
---
kind: timeline
events:
  - name: Drowning at the Grey Ford
    year: 345
    deaths: [Tamsin Vey]
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def _timeline(cli: CliRunner, name: str, *extra: str) -> list[str]:
    result = cli.invoke(app, ["canon", "timeline", name, "-c", CAMPAIGN, *extra])
    assert result.exit_code == 0, result.output
    return [line.strip().split(" — ")[0] for line in result.output.splitlines()[1:]]


@pytest.mark.parametrize(
    ("name", "born", "death"),
    [
        ("Mott Brae", "Mott Brae was born in year 300", "Mott Brae's status: dead"),
        ("Sella Brae", "Sella Brae was born in year 301", "Sella Brae is dead (since year 344)"),
        ("Tamsin Vey", "Tamsin Vey was born in year 302", "Tamsin Vey died in Drowning at the Grey Ford"),
    ],
)
def test_a_players_timeline_says_a_birth_beside_a_told_death(
    cli: CliRunner, name: str, born: str, death: str
) -> None:
    lines = _timeline(cli, name)
    assert born in lines and death in lines, lines
    assert not any("is alive" in line for line in lines), lines


def test_a_life_with_no_death_told_keeps_its_state_and_the_gm_reads_the_truth(cli: CliRunner) -> None:
    assert "Ned Tull is alive (since year 325)" in _timeline(cli, "Ned Tull")
    gm = _timeline(cli, "Mott Brae", "--as", "gm")
    assert "Mott Brae is alive (since year 300)" in gm and "Players are told Mott Brae is dead" in gm, gm
