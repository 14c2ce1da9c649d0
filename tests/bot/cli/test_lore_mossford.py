"""How /lore reads a year, an age at death and "how old is" on a small world of our own (tests/fixtures/mossford):
a year in an era abbreviated "LR", which the table's glossary otherwise reads as a long rest; an age at death
from a birth in one era and a death in the next (years are absolute); and the person named asked of, not one
whose alias says "Old". On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "mossford"
CAMPAIGN = "mossford"
FILES = ("places", "guilds", "folk", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Mossford world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


_FLOOD = "The Flood of the Ropewalks took place at Mossford on 9 Greening, year 340 of the Long Reckoning."

#: Question -> its whole answer, as a player asks.
READS = {
    # The calendar's own abbreviation outranks the glossary's reading of it ("LR": a long rest).
    "what happened in 340 LR": _FLOOD,
    "what happened in 340": _FLOOD,
    # Born in a year of the Reed Years, died in the Long Reckoning: one year axis.
    "how old was tobias when he died": (
        "Tobias Wren was about 60 years old: born in year 280, died on 9 Greening, year 340 of the Long Reckoning."
    ),
    "how old was agnes when she died": (
        "Agnes Pike was about 61 years old: born in year 290, died on 20 Thawing, year 351 of the Long Reckoning."
    ),
    # "Old Hemp" and "Old Agnes" are found by "how old" too; the one named is the one asked of.
    "how old is linnet": "Linnet Wren was born in year 335; canon holds no date for today to count an age from.",
    "how old is linnet wren": (
        "Linnet Wren was born in year 335; canon holds no date for today to count an age from."
    ),
    "how old is old hemp": (
        "Bartholomew Crane was born in year 310; canon holds no date for today to count an age from."
    ),
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}
