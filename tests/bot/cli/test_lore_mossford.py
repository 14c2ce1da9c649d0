"""How /lore reads a year, an age at death and "how old is" on a small world of our own (tests/fixtures/mossford):
a year in an era abbreviated "LR", which the table's glossary otherwise reads as a long rest; an age at death
from a birth in one era and a death in the next (years are absolute); the person named asked of, not one
whose alias says "Old"; a life asked at a year ("how old was Linnet in 352 LR", "was Tobias alive in 345") and
who was born or died in a year, a GM-only life never among them for a player. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "mossford"
CAMPAIGN = "mossford"
FILES = ("places", "guilds", "folk", "chronicle")


#: A GM-only life: born in 336, died in 353 (no one else was born or died then).
HIDDEN = """\
kind: characters
characters:
  - name: Mercy Vane
    born: 336
    died: long_reckoning.353.1.2
    visibility: gm_only
"""


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Mossford world imported (and one more
    person, GM-only)."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    import_more(runner, CAMPAIGN, tmp_path, "hidden.yaml", HIDDEN)
    return runner


#: What happened in a year: the event on its day, then what it was.
_FLOOD = (
    "The Flood of the Ropewalks took place at Mossford on 9 Greening, year 340 of the Long Reckoning. The river rose "
    "over the ropewalks and Tobias Wren drowned saving the guild's hemp."
)

#: Question -> its whole answer, as a player asks.
READS = {
    # The calendar's own abbreviation outranks the glossary's reading of it ("LR": a long rest).
    "what happened in 340 LR": _FLOOD,
    "events of LR 340": _FLOOD,
    "what happened in LR 340": _FLOOD,
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
    # A life asked at a year: an age then, alive or not, not yet born; the year said as it was typed.
    "how old was linnet in 352 LR": "Linnet Wren was about 17 years old in 352 LR: born in year 335.",
    "how old was linnet in 330": "Linnet Wren was not yet born in year 330: born in year 335.",
    "was tobias alive in 345 LR": (
        "No: Tobias Wren died on 9 Greening, year 340 of the Long Reckoning, before 345 LR."
    ),
    "was tobias still alive in the year 330": (
        "Yes: Tobias Wren was alive in the year 330: born in year 280, died on 9 Greening, year 340 of the Long "
        "Reckoning."
    ),
    "was agnes dead by 360": "Yes: Agnes Pike died on 20 Thawing, year 351 of the Long Reckoning, before year 360.",
    # Who was born or died in a year, read on the calendar.
    "who was born in 335 LR": "Linnet Wren was born in year 335.",
    "who died in 351 LR": "Agnes Pike died on 20 Thawing, year 351 of the Long Reckoning.",
    "who died in the year 340 of the long reckoning": (
        "Tobias Wren died on 9 Greening, year 340 of the Long Reckoning."
    ),
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


def test_a_gm_only_life_is_no_player_s_year(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["who was born in 336", "who died in 353 LR", "who was born in 337", "who died in 354 LR"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    # A year only a GM-only life fills reads as a year nobody's does, word for word.
    assert player["who was born in 336"] == player["who was born in 337"].replace("337", "336")
    assert player["who died in 353 LR"] == player["who died in 354 LR"].replace("354", "353")
    assert player["who was born in 336"] == "Nothing the table knows says who was born in 336."
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[:2], gm=True, citations=False)
    assert gm["who was born in 336"] == "Mercy Vane was born in year 336."
    assert gm["who died in 353 LR"] == "Mercy Vane died on 2 Thawing, year 353 of the Long Reckoning."
