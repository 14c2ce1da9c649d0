"""A time word in a question ("now", "these days", "currently", "at the moment", "today") read as "as of today",
and "which region is Cinderkirk in" answered by the places of that kind holding it, on the Cinderkirk world
(tests/fixtures/cinderkirk). A GM-only tie reads to a player as none, word for word. SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "cinderkirk"
CAMPAIGN = "cinderkirk"

ROWENA = "Rowena Pike lives in Marrowgate."
#: Question -> its whole answer, to a player.
READS = {
    "where does rowena live these days?": ROWENA,
    "where does rowena live now": ROWENA,
    "where does rowena live nowadays": ROWENA,
    "where does rowena live at the moment": ROWENA,
    "where does rowena live today": ROWENA,
    "where does tamsin currently live": "Tamsin Orle lives in Cinderkirk.",
    "what is the date today": "Today is 1 Reap, year 40 of the Long Count.",
    "Which region is Cinderkirk in?": "Cinderkirk is in the Bellvale.",
    "what region is Cinderkirk in": "Cinderkirk is in the Bellvale.",
    "Marrowgate is in which region?": "Marrowgate is in the Ashdown.",
    # The holders of the kind asked, not every one.
    "which region is Brindle Lane in": "Brindle Lane is in the Ashdown.",
    "which town is Brindle Lane in": "Brindle Lane is in Marrowgate.",
    "where is Brindle Lane": "Brindle Lane is in Marrowgate, in the Ashdown.",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    return import_world(CAMPAIGN, WORLD, ("world",), "calendar.yaml", calendar_first=True)


def test_time_words_and_a_kind_of_place_asked_are_answered(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in said.items() if a != READS[q]} == {}


def test_a_gm_only_home_or_region_reads_to_a_player_as_none(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "where does edric live these days",
        "where does wat live these days",
        "which region is Hobb's Reach in",
        "which region is Sedge Cross in",
    ]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert player[asked[0]] == player[asked[1]].replace("wat", "edric")
    assert player[asked[2]] == player[asked[3]].replace("Sedge Cross", "Hobb's Reach")
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[::2], gm=True, citations=False)
    assert gm == {
        asked[0]: "Edric Fell lives in Hobb's Reach.",
        asked[2]: "Hobb's Reach is in the Hidden Wold.",
    }
