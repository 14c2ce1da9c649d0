"""Where someone died (`died_at:`, a place) and who died in an event (an event's `deaths:`): line-numbered errors
for a bad value, the GM's alone where the file keeps them, and answered in a sentence (a world of our own,
Emberford)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import load_lore_file
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "emberford"
WORLD = """characters:
  - name: Garrick Thorne
    born: 600
    died: 640
    died_at: Ember Ford
  - name: Mave Thorne
    born: 605
    died: 640
  - name: Tobin Ash
    born: 610
    died: 640
    died_at: Ember Ford
    gm_only: [died_at]
---
locations:
  - name: Ember Ford
---
eras:
  - name: Crown Years
    abbreviation: CY
    start: 500
    events:
      - name: Battle of Ember Ford
        year: 640
        location: Ember Ford
        participants: [Garrick Thorne]
        deaths: [Mave Thorne, {name: Tobin Ash, gm_only: true}]
"""
QUESTIONS = [
    "where did Garrick Thorne die?",
    "where did Tobin Ash die?",
    "who died in the Battle of Ember Ford?",
    "where did Mave Thorne die?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    path = tmp_path / "world.yaml"
    path.write_text(WORLD, encoding="utf-8")
    said = runner.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "problem" not in said and "No warnings." in said, said
    return runner


def test_where_someone_died_and_who_died_in_an_event_are_answered(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert gm["where did Garrick Thorne die?"].startswith("Garrick Thorne died at Ember Ford."), gm
    assert gm["where did Tobin Ash die?"].startswith("Tobin Ash died at Ember Ford."), gm
    assert (
        gm["who died in the Battle of Ember Ford?"]
        == "Mave Thorne and Tobin Ash died in the Battle of Ember Ford."
    )
    assert gm["where did Mave Thorne die?"].startswith("Mave Thorne died in the Battle of Ember Ford."), gm


def test_a_death_place_or_a_death_kept_for_the_gm_never_reaches_players(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert "Ember Ford" not in player["where did Tobin Ash die?"], player
    assert player["who died in the Battle of Ember Ford?"] == "Mave Thorne died in the Battle of Ember Ford."


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "died_at: Ember Ford\n  - name: Mave",
            "died_at: Ember Fjord\n  - name: Mave",
            'line 5, column 14: "died_at"',
        ),
        ("deaths: [Mave Thorne,", "deaths: [Mavis Thorne,", 'line 27, column 18: "deaths"'),
    ],
)
def test_a_death_place_or_a_death_naming_no_one_is_refused_at_its_line(
    cli: CliRunner, tmp_path: Path, old: str, new: str, said: str
) -> None:
    path = tmp_path / "world.yaml"
    path.write_text(WORLD.replace(old, new, 1), encoding="utf-8")
    out = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "nothing written" in out and said in out, out


def test_a_death_place_of_someone_alive_is_refused_at_its_line() -> None:
    text = WORLD.replace(
        "    died: 640\n    died_at: Ember Ford\n  - name: Mave",
        "    status: alive\n    died_at: Ember Ford\n  - name: Mave",
        1,
    )
    (problem,) = load_lore_file(text.encode(), "world.yaml").problems
    assert problem.line == 5 and '"died_at" is given, but "status" is alive' in problem.message


def test_who_died_at_a_place_names_those_whose_died_at_is_there(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["who died at Ember Ford?"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)["who died at Ember Ford?"]
    assert "Garrick Thorne died at Ember Ford." in player and "Tobin" not in player, player
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True, citations=False)["who died at Ember Ford?"]
    assert "Tobin Ash" in gm and "Garrick Thorne died at Ember Ford." in gm, gm
