"""Fates and other names asked through `lorekeeper lore` of a small world of our own (Saltwhistle): "what happened
to X" of one dead says how canon has them die, of one whose fate the GM keeps gives the GM the truth and what
players are told, and "who is <epithet>" names the one so called. A player reads exactly what a file that never
wrote the secrets gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "saltwhistle"
FILES = {
    "calendar": """
eras:
  - {name: The Tide Reckoning, abbreviation: TR, start: 1}
months: [Ebb, Flood, Neap]
today: 1 Flood, 900 TR
""",
    "folk": """
characters:
  - name: Merrow Pike
    sex: female
    born: 850
    died: 890
    cause_of_death: crushed when the sea wall gave way
    aliases: [The Salt Widow]
  - name: Jory Fane
    sex: male
    born: 860
    aliases: [Long Jory]
    titles: [Keeper of the Bell]
  - name: Aud Tenter
    sex: female
    born: 870
    status: alive  # secret
    public_status: dead
    public_cause_of_death: lost with the Gannet
    aliases: [{name: The Grey Lantern, gm_only: true}]  # secret
    held_at: Cray Hulk  # secret
    gm_only: [held_at]  # secret
""",
    "places": """
locations:
  - name: Cray Hulk
    type: ship
""",
}
#: What a player is told of Aud Tenter, written as plain canon: what the player's answers must read like.
PUBLIC = {
    **public_written(FILES),
    "folk": public_written(FILES)["folk"].replace(
        "public_status: dead\n    public_cause_of_death", "status: dead\n    cause_of_death"
    ),
}
QUESTIONS = [
    "what happened to Merrow Pike?",
    "what became of the Salt Widow?",
    "who is the Salt Widow?",
    "who is Long Jory?",
    "what happened to Aud Tenter?",
    "who is the Grey Lantern?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", PUBLIC)
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_what_happened_to_the_dead_says_how_they_died(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert player["what happened to Merrow Pike?"] == (
        "Merrow Pike was crushed when the sea wall gave way. Merrow Pike died in year 890."
    ), player
    assert player["what became of the Salt Widow?"] == player["what happened to Merrow Pike?"]


def test_who_is_an_epithet_says_whom_it_names(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert player["who is Long Jory?"].startswith("Jory Fane, called Long Jory, "), player
    assert player["who is the Salt Widow?"].startswith("Merrow Pike, called the Salt Widow, "), player


def test_a_player_reads_no_kept_fate_or_epithet(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = ask_world(cli, tmp_path, f"{CAMPAIGN}-public", QUESTIONS, citations=False)
    assert player == public
    assert "Cray Hulk" not in " ".join(player.values()) and "Grey Lantern, " not in " ".join(player.values())
    assert player["what happened to Aud Tenter?"].endswith("Aud Tenter is dead."), player


def test_the_gm_reads_the_kept_fate_and_what_players_are_told(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert gm["what happened to Aud Tenter?"] == (
        "Aud Tenter is alive. Aud Tenter is held at Cray Hulk. "
        "Players are told Aud Tenter is dead; Aud Tenter's cause of death was lost with the Gannet."
    ), gm
