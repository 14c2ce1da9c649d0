"""Second cousins, in a small world of our own (the Stone Tally: two brothers' grandchildren, one line through a
parent the GM keeps): the grandchildren of a great-uncle or great-aunt, with the chain they are through; and a
player reads these word for word as in the same world without the hidden parent."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CALENDAR = """
eras:
  - {name: The Stone Tally, abbreviation: ST, start: 1}
months: [Frost, Thaw, Sun, Fall]
today: 1 Thaw, 200 ST
"""
FOLK = """
characters:
  - {name: Abel Stone, sex: male, born: 100}
  - {name: Bea Stone, sex: female, born: 125, parents: [Abel Stone]}
  - {name: Cal Stone, sex: male, born: 127, parents: [Abel Stone]}
  - {name: Dina Moor, sex: female, born: 150, parents: [Bea Stone]}
  - {name: Eli Moor, sex: male, born: 175, parents: [Dina Moor]}
  - {name: Gus Stone, sex: male, born: 178, parents: [Fay Stone]}
"""
SECRET = """
characters:
  - {name: Fay Stone, sex: female, born: 152, parents: [Cal Stone], gm_only: [parents]}
"""
TOLD = """
characters:
  - {name: Fay Stone, sex: female, born: 152}
"""


def _world(name: str, tmp_path: Path, more: str) -> CliRunner:
    return import_written(name, tmp_path / name, {"calendar": CALENDAR, "folk": FOLK, "more": more})


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Stone Tally imported, Fay's father kept for the GM."""
    return _world("stone", tmp_path, SECRET)


QUESTIONS = [
    "How are Eli Moor and Gus Stone related?",
    "Who are Eli's second cousins?",
    "is gus stone eli moor's second cousin",
]


def test_the_gm_reads_second_cousins_with_their_chain(cli: CliRunner, tmp_path: Path) -> None:
    assert ask_world(cli, tmp_path, "stone", QUESTIONS, gm=True, citations=False) == {
        QUESTIONS[
            0
        ]: "Eli Moor is Gus Stone's second cousin (through his mother Fay Stone, her father Cal Stone and"
        " his sister Bea Stone).",
        QUESTIONS[
            1
        ]: "Eli Moor's second cousin is Gus Stone (through his mother Dina Moor, her mother Bea Stone and"
        " her brother Cal Stone).",
        QUESTIONS[2]: "Yes: Gus Stone is Eli Moor's second cousin.",
    }


def test_a_player_reads_them_as_if_the_hidden_parent_were_never_written(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    secret = ask_world(_world("stone", tmp_path, SECRET), tmp_path, "stone", QUESTIONS, citations=False)
    told = ask_world(_world("told", tmp_path, TOLD), tmp_path, "told", QUESTIONS, citations=False)
    assert secret == told
    assert all(a.startswith("Nothing the table knows") for a in secret.values())
