"""A status the GM keeps, and what players are told in its place, asked through `lorekeeper lore` and read on the
cards of a small world of our own (the Brackwater gaol): a prisoner the town believes missing reads to a player
exactly as a file saying only "missing" would, a prisoner with nothing told in its place is no "alive" to a
player, the GM reads the truth and what players are told, and continuity reads the truth alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import load_lore_file
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "brackwater"
CALENDAR = """
eras:
  - {name: The Tally of Tides, abbreviation: TT, start: 1}
months: [Ebbing, Rising, Stilling, Turning]
today: 1 Rising, 590 TT
"""
CHRONICLE = """
kind: timeline
eras:
  - {name: The Tally of Tides, abbreviation: TT, start: 1}
events: []
"""
FILES = {
    "calendar": CALENDAR,
    "chronicle": CHRONICLE,
    "folk": """
characters:
  - name: Hesper Vane
    sex: female
    born: 556
    status: imprisoned
    public_status: missing
    held_at: The Salt Cells
    gm_only: [held_at]
  - name: Ottiline Marsh
    sex: female
    born: 550
    status: imprisoned
    held_at: The Salt Cells
    gm_only: [status, held_at]
  - name: Garrow Teel
    sex: male
    born: 548
    description: The gaoler of Brackwater.
---
locations:
  - name: The Salt Cells
""",
}
#: The same world as a file that never wrote the secrets would say it: what a player must read alike.
PUBLIC = {
    "calendar": CALENDAR,
    "chronicle": CHRONICLE,
    "folk": """
characters:
  - name: Hesper Vane
    sex: female
    born: 556
    status: missing
  - name: Ottiline Marsh
    sex: female
  - name: Garrow Teel
    sex: male
    born: 548
    description: The gaoler of Brackwater.
---
locations:
  - name: The Salt Cells
""",
}
PEOPLE = ["Hesper Vane", "Ottiline Marsh", "Garrow Teel"]
QUESTIONS = [
    *(f"is {name} alive?" for name in PEOPLE),
    *(f"who is {name}?" for name in PEOPLE),
    *(f"where is {name}?" for name in PEOPLE),
    *(f"when was {name} born?" for name in PEOPLE),
    "who is held at the Salt Cells?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Brackwater world imported, and its copy without the secrets."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", PUBLIC)
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def card(cli: CliRunner, campaign: str, name: str, *extra: str) -> str:
    """Return an entity's card as the command line prints it, without its evidence (its files and lines)."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *extra])
    assert result.exit_code == 0, result.output
    return re.sub(r" — from (?:the lore files|\S+\.yaml, line \d+)", "", result.output)


def test_a_player_reads_what_the_table_is_told_as_if_the_truth_were_never_written(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = ask_world(cli, tmp_path, f"{CAMPAIGN}-public", QUESTIONS, citations=False)
    assert player == public
    assert player["is Hesper Vane alive?"] == (
        "Nothing the table knows says whether Hesper Vane is alive; she is missing."
    ), player
    assert "alive" not in player["who is Ottiline Marsh?"], player
    for name in PEOPLE:
        assert card(cli, CAMPAIGN, name) == card(cli, f"{CAMPAIGN}-public", name)
    assert "Hesper Vane is missing (born in year 556)" in card(cli, CAMPAIGN, "Hesper Vane")


def test_the_gm_reads_the_truth_and_what_players_are_told(cli: CliRunner, tmp_path: Path) -> None:
    gm = card(cli, CAMPAIGN, "Hesper Vane", "--as", "gm")
    assert "Hesper Vane is imprisoned (born in year 556)" in gm.split("Relations:")[0], gm
    assert "Players are told Hesper Vane is missing" in gm, gm
    assert "Hesper Vane's status: imprisoned" in gm, gm
    said = ask_world(cli, tmp_path, CAMPAIGN, ["is Ottiline Marsh alive?"], gm=True, citations=False)
    assert said["is Ottiline Marsh alive?"] == "Yes: Ottiline Marsh is imprisoned (born in year 550).", said


def test_continuity_reads_the_truth_and_never_the_story_told(cli: CliRunner) -> None:
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    assert checked.exit_code == 0 and checked.output.strip() == "No continuity problems.", checked.output


def test_the_same_world_again_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / CAMPAIGN
    again = cli.invoke(
        app, ["ingest", str(folder / "chronicle.yaml"), str(folder / "folk.yaml"), "-c", CAMPAIGN]
    )
    assert again.exit_code == 0 and "nothing written" in again.output, again.output


def test_what_players_are_told_needs_the_truth_beside_it() -> None:
    text = "characters:\n  - name: Hesper Vane\n    public_status: missing\n  - name: Garrow Teel\n    public_status: gone\n"
    assert [str(p) for p in load_lore_file(text, "folk.yaml").problems] == [
        'folk.yaml: line 3, column 20: "public_status" says what players are told in place of the truth: give '
        'the truth beside it in "status"',
        'folk.yaml: line 5, column 20: "public_status" must be one of: alive, wounded, missing, imprisoned, cursed, '
        'undead, dead; got "gone"',
    ]
