"""A mentor's tie in the tense it holds in, in a small world of our own (the Kiln Count: a potter who taught one
apprentice for a span now over and keeps another today, and a dead glazier who taught a third): a tie over by its
span, or one of a mentor now dead, is said in the past with its span; "when did X study under Y" answers the span;
and a player reads these word for word as in the same world without a GM-only apprenticeship."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CALENDAR = """
eras:
  - {name: The Kiln Count, abbreviation: KC, start: 1}
months: [Clay, Fire, Ash, Frost]
today: 1 Fire, 300 KC
"""
FOLK = """
characters:
  - {name: Ada Brisk, sex: female, born: 250}
  - {name: Rook Brisk, sex: male, born: 280}
  - {name: Sela Fane, sex: female, born: 240}
  - {name: Old Hobb, sex: male, born: 200, died: 270, ties: [{name: Sela Fane, is: apprentice}]}
"""
SECRET = """
characters:
  - name: Wenna Potter
    sex: female
    born: 220
    ties:
      - {name: Ada Brisk, is: apprentice, from: 262, to: 270}
      - {name: Rook Brisk, is: apprentice, from: 295}
      - {name: Sela Fane, is: apprentice, from: 271, to: 275, gm_only: true}
"""
TOLD = """
characters:
  - name: Wenna Potter
    sex: female
    born: 220
    ties:
      - {name: Ada Brisk, is: apprentice, from: 262, to: 270}
      - {name: Rook Brisk, is: apprentice, from: 295}
"""


def _world(name: str, tmp_path: Path, more: str) -> CliRunner:
    return import_written(name, tmp_path / name, {"calendar": CALENDAR, "folk": FOLK, "more": more})


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Kiln Count imported, one apprenticeship kept for the GM."""
    return _world("kiln", tmp_path, SECRET)


READS = {
    "Who was Ada Brisk's mentor?": "Ada Brisk's mentor was Wenna Potter (from year 262 to year 270).",
    "who is Rook Brisk's teacher": "Rook Brisk's teacher is Wenna Potter.",
    "When did Ada study under Wenna?": "Ada Brisk studied under Wenna Potter from year 262 to year 270.",
    "how long was Rook Brisk apprenticed to Wenna Potter?": "Rook Brisk studies under Wenna Potter since year 295.",
    "When did Sela study under Old Hobb?": "Nothing the table knows says when Sela Fane studied under Old Hobb; Old"
    " Hobb was Sela Fane's mentor.",
}


def test_a_tie_over_or_of_one_dead_is_said_in_the_past_with_its_span(cli: CliRunner, tmp_path: Path) -> None:
    assert ask_world(cli, tmp_path, "kiln", list(READS), citations=False) == READS


def test_the_gm_reads_the_secret_apprenticeship_in_the_past(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["When did Sela study under Wenna Potter?"]
    assert ask_world(cli, tmp_path, "kiln", asked, gm=True, citations=False) == {
        asked[0]: "Sela Fane studied under Wenna Potter from year 271 to year 275."
    }


def test_a_player_reads_them_as_if_the_secret_apprenticeship_were_never_written(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    questions = [*READS, "Who were Sela Fane's mentors?", "When did Sela study under Wenna Potter?"]
    secret = ask_world(_world("kiln", tmp_path, SECRET), tmp_path, "kiln", questions, citations=False)
    told = ask_world(_world("told", tmp_path, TOLD), tmp_path, "told", questions, citations=False)
    assert secret == told
