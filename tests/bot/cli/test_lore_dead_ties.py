"""A tie to one who has died, as a card and an answer say it: a mentor's, a friend's, a marriage (ties that end with
a life) in the past, until the death; kin, which outlives a death, in the past only of the dead one ("Aldric Thorne
was Pip Thorne's father"), never of the living ("Pip Thorne was Aldric Thorne's son"), an answer naming the dead
saying when they died. A death kept for the GM is none to a player: the tie reads as if no death were written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import THIRD_AGE_CALENDAR, ask_world, import_written, public_written

CAMPAIGN = "thornmere"
FILES = {
    "calendar": THIRD_AGE_CALENDAR,
    "folk": """
characters:
  - {name: Hale Marsh, sex: male, born: 280, died: 338}
  - {name: Jory Marsh, sex: male, born: 318, ties: [{name: Hale Marsh, is: mentor}]}
  - {name: Aldric Thorne, sex: male, born: 290, died: 340}
  - {name: Maud Thorne, sex: female, born: 295, spouse: Aldric Thorne}
  - {name: Pip Thorne, sex: male, born: 325, parents: [Aldric Thorne, Maud Thorne]}
  - name: Orin Vell
    sex: male
    born: 290
    died: 345  # secret
    gm_only: [died]  # secret
  - {name: Tess Vell, sex: female, born: 320, ties: [{name: Orin Vell, is: mentor}]}
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def _card(cli: CliRunner, campaign: str, name: str, *extra: str) -> str:
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *extra])
    assert result.exit_code == 0, result.output
    return re.sub(r" — from \S+\.yaml, line \d+", "", result.output)


def test_a_card_says_a_tie_to_the_dead_in_the_past(cli: CliRunner) -> None:
    jory = _card(cli, CAMPAIGN, "Jory Marsh")
    assert "Hale Marsh was Jory Marsh's mentor (until year 338)" in jory, jory
    pip = _card(cli, CAMPAIGN, "Pip Thorne")
    assert "Aldric Thorne was Pip Thorne's father" in pip and "Maud Thorne is Pip Thorne's mother" in pip, pip
    maud = _card(cli, CAMPAIGN, "Maud Thorne")
    assert "Maud Thorne was married to Aldric Thorne (until year 340)" in maud, maud
    # Kin outlives a death: the living son is still his son ("Pip Thorne was Aldric Thorne's son" is never said).
    assert "Pip Thorne was" not in _card(cli, CAMPAIGN, "Aldric Thorne")
    # Read as of a day before the death, the tie holds.
    before = _card(cli, CAMPAIGN, "Jory Marsh", "--as-of", "330")
    assert "Hale Marsh is Jory Marsh's mentor" in before, before


def test_an_answer_says_a_tie_to_the_dead_in_the_past_with_the_death(cli: CliRunner, tmp_path: Path) -> None:
    asked = {
        "who is Jory's mentor?": "Jory Marsh's mentor was Hale Marsh (died in year 338).",
        "how are Jory and Hale related?": "Hale Marsh was Jory Marsh's mentor (until year 338).",
        "who is Pip's father?": "Pip Thorne's father was Aldric Thorne (died in year 340).",
        "who are Pip's parents?": "Pip Thorne's parents are Aldric Thorne (died in year 340) and Maud Thorne.",
        "is Aldric Pip's father?": "Yes: Aldric Thorne (died in year 340) was Pip Thorne's father.",
        "who is Maud's husband?": "Maud Thorne was married to Aldric Thorne.",
    }
    said = ask_world(cli, tmp_path, CAMPAIGN, list(asked), citations=False)
    assert said == asked


def test_a_death_kept_for_the_gm_leaves_a_players_tie_as_it_was(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["who is Tess's mentor?", "how are Tess and Orin related?"]
    gm = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=True, citations=False)
    assert gm[questions[0]] == "Tess Vell's mentor was Orin Vell (died in year 345).", gm
    player = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert player[questions[0]] == "Tess Vell's mentor is Orin Vell.", player
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", questions, citations=False)
    assert _card(cli, CAMPAIGN, "Tess Vell") == _card(public, "open", "Tess Vell")
    assert "Orin Vell was Tess Vell's mentor" in _card(cli, CAMPAIGN, "Tess Vell", "--as", "gm")
