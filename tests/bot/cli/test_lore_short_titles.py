"""An office asked by the first word of its title (Harlowe): "who was Reeve when the Flood of Harlowe came?"
finds the one title starting so ("Reeve of the Low Fields"); a short form two titles start with is answered for
each of them, never for one chosen silently; an office asked by its noun ("the reeveship") is its title's."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "harlowe"
FILES = {
    "calendar": """
eras:
  - {name: The Mill Count, abbreviation: MC, start: 1}
months: [Sow, Grow, Reap]
today: 1 Grow, 330 MC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Mill Count, abbreviation: MC, start: 1}
events:
  - name: Flood of Harlowe
    date: 2 Reap, 305 MC
""",
    "folk": """
characters:
  - name: Tobin Ashe
    titles:
      - {title: Reeve of the Low Fields, from: 290 MC, to: 310 MC}
      - {title: Keeper of the Sluice, from: 280 MC, to: 300 MC}
  - name: Mada Ashe
    titles:
      - {title: Reeve of the Low Fields, from: 311 MC}
      - {title: Keeper of the Mill, from: 300 MC}
  - name: Wat Ashe
    titles:
      - {title: Keeper of the Weir, from: 295 MC, gm_only: true}
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_short_title_finds_the_one_title_starting_so(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        "who was Reeve when the Flood of Harlowe took place?",
        "who was reeve in 320?",
        "who was Keeper in 300?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert said[questions[0]].startswith(
        "When the Flood of Harlowe took place, on 2 Reap, year 305 of the Mill Count, Tobin Ashe was Reeve of the "
        "Low Fields"
    ), said
    assert said[questions[1]].startswith("Mada Ashe was Reeve of the Low Fields in year 320"), said
    # Two titles (a player may see) start with "Keeper": each is answered, neither chosen silently.
    assert said[questions[2]] == (
        "There are two Keepers. Tobin Ashe was Keeper of the Sluice in year 300 (from year 280 to 300 of the Mill "
        "Count). [1] Mada Ashe was Keeper of the Mill in year 300 (since year 300 of the Mill Count)."
    ), said


def test_a_short_title_of_several_offices_names_each_as_the_asker_may_see_them(
    cli: CliRunner, tmp_path: Path
) -> None:
    questions = ["who is the Keeper?", "who was the first keeper?", "who has held the keepership?"]
    player = ask_world(cli, tmp_path, CAMPAIGN, questions)
    gm = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=True)
    for question in questions:
        assert player[question].startswith("There are two Keepers. "), player
        assert "Weir" not in player[question] and "Wat" not in player[question], player
        assert gm[question].startswith("There are three Keepers. "), gm
        assert "Keeper of the Weir" in gm[question] and "Wat Ashe" in gm[question], gm
    assert "Mada Ashe is Keeper of the Mill (since year 300 of the Mill Count)" in player[questions[0]], (
        player
    )
    assert "the last was Tobin Ashe (from year 280 to 300" in player[questions[0]], player


def test_an_office_asked_by_its_noun_is_its_titles(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        "who held the reeveship in 320?",
        "who held the Reeveship in 300?",
        "who has held the keepership?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert said[questions[0]].startswith("Mada Ashe was Reeve of the Low Fields in year 320"), said
    assert said[questions[1]].startswith("Tobin Ashe was Reeve of the Low Fields in year 300"), said
    assert "Tobin Ashe" in said[questions[2]] and "Mada Ashe" in said[questions[2]], said
