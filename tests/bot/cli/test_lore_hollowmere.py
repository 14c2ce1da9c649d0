"""Kin, ages and marriages as /lore answers them, on a small world of our own (tests/fixtures/hollowmere): a
family told by parents alone (siblings, grandparents, uncles, cousins are walked from them), kin words as players
type them, the sex of two people and a marriage with its day said in play, a wedding in the timeline, a GM-only
parent and a GM-only child. On SQLite, then PostgreSQL; what is GM-only reads to a player as what nobody knows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "hollowmere"
CAMPAIGN = "hollowmere"
FILES = ("moss", "quill", "folk", "happenings")
#: What play says beside the files: two people's sex, and a marriage with the day it began.
PLAYED = (
    ["fact", "Brann Moss", "sex", "male"],
    ["fact", "Ilsa Moss", "gender", "she/her"],
    [
        "relationship",
        "Wren Moss",
        "SPOUSE_OF",
        "Brann Tally",
        "--since",
        "4 Reaping, year 375 of the Reed Reckoning",
    ],
)


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the Hollowmere world imported, its calendar set, and play's facts."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    for played in PLAYED:
        result = runner.invoke(app, ["canon", "add", *played, "-c", CAMPAIGN])
        assert result.exit_code == 0, result.output
    return runner


def ask(cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False) -> dict[str, str]:
    """Return each question's answer without its citation."""
    return ask_world(cli, tmp_path, CAMPAIGN, questions, gm=gm, citations=False)


#: Question -> its whole answer, as a player asks.
KIN = {
    # Two steps out, walked from the parents the tree gives.
    "who are Tove's siblings": "Tove Moss' sibling is Brann Moss.",
    "who are Arlen Moss's grandchildren": "Arlen Moss' grandchildren are Brann Moss, Tove Moss and Wren Moss.",
    "who are tove's grandparents": "Tove Moss' grandparents are Arlen Moss and Hesta Moss.",
    "who are Wren's cousins": "Wren Moss' cousins are Brann Moss and Tove Moss.",
    "how many grandchildren does Arlen have": (
        "Arlen Moss has three grandchildren: Brann Moss, Tove Moss and Wren Moss."
    ),
    # A word naming a sex keeps those canon says are of it, and says when canon does not say one's sex.
    "does Tove have a brother": "Yes: Tove Moss' brother is Brann Moss.",
    "who is Tove's mum": "Tove Moss' mother is Ilsa Moss.",
    "who is Tove's dad": (
        "Tove Moss' parents are Bram Moss and Ilsa Moss; canon does not say whether Bram Moss is a father."
    ),
    "who is Tove's uncle": "Tove Moss' uncle or aunt is Cole Moss; canon does not say whether Cole Moss is an uncle.",
    "who are cole's nephews": "Cole Moss' nephew is Brann Moss; canon does not say whether Tove Moss is a nephew.",
    "who are Bram's kids": "Bram Moss' children are Brann Moss and Tove Moss.",
    "who is Bram's wife": "Bram Moss is married to Ilsa Moss.",
    "who is Wren's husband": "Wren Moss is married to Brann Tally.",
    # Yes or no: the tie, or what canon does say of the two, never a "No" it does not say.
    "is Ilsa Tove's mother": "Yes: Ilsa Moss is Tove Moss' mother.",
    "is Cole Tove's uncle": "Cole Moss is Tove Moss' uncle or aunt; canon does not say which.",
    "is Bram Tove's uncle": (
        "Nothing the table knows says Bram Moss is Tove Moss' uncle; canon says Bram Moss is Tove Moss' parent."
    ),
    # Marriages: the tie's own start, else a wedding both took part in, else that canon does not say when.
    "when did Bram and Ilsa get married": (
        "Bram Moss married Ilsa Moss on 9 Haying, year 348 of the Reed Reckoning, at the Reedholt Wedding."
    ),
    "when did Wren marry": "Wren Moss married Brann Tally on 4 Reaping, year 375 of the Reed Reckoning.",
    "when did Cole and Maren get married": (
        "Cole Moss is married to Maren Moss; nothing the table knows says when they married."
    ),
}


def test_kin_and_marriages_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(KIN))
    assert {q: a for q, a in answers.items() if a != KIN[q]} == {}


def test_a_gm_only_parent_or_child_makes_no_kin_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    # Sella and Jory share only Osk Quill, a GM-only parent; Dagny is Bram's GM-only daughter.
    questions = ["who are Jory's siblings", "is Sella Jory's sister", "who are Wren's cousins"]
    player = ask(cli, tmp_path, questions)
    assert player == {
        "who are Jory's siblings": "Nothing the table knows says who Jory's siblings are.",
        "is Sella Jory's sister": "Nothing the table knows says Sella Quill is Jory Hale's sister.",
        "who are Wren's cousins": "Wren Moss' cousins are Brann Moss and Tove Moss.",
    }
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm == {
        "who are Jory's siblings": "Jory Hale's sibling is Sella Quill.",
        "is Sella Jory's sister": "Sella Quill is Jory Hale's brother or sister; canon does not say which.",
        "who are Wren's cousins": "Wren Moss' cousins are Brann Moss, Dagny Moss and Tove Moss.",
    }
