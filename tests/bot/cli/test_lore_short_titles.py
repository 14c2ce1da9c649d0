"""An office asked by the first word of its title (Harlowe): "who was Reeve when the Flood of Harlowe came?"
finds the one title starting so ("Reeve of the Low Fields"); a short form two titles start with finds neither."""

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
        "Tobin Ashe was Reeve of the Low Fields when the Flood of Harlowe took place"
    ), said
    assert said[questions[1]].startswith("Mada Ashe was Reeve of the Low Fields in year 320"), said
    # Two titles start with "Keeper": neither is meant, and the reply is no garbled sentence.
    assert "Keeper of the" not in said[questions[2]] and " was." not in said[questions[2]], said
