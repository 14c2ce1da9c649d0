"""How /lore answers a question of a relative named through someone ("how old is corins mum", "where does lira's
dad live"): the relative found as the asker may see the family, then the rest of the question asked of each one
found, the tie said first; "nothing known" of a tie that names no one. On the Quillhaven world
(tests/fixtures/quillhaven), as a player and as the GM, on SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_quillhaven

CAMPAIGN = "quillhaven"

NO_AGE = "canon holds no date for today to count an age from"
ILSE_AGE = (
    f"Lira Reed's mother is Ilse Marr; Ilse Marr was born in year 2 of the Harbour Reckoning; {NO_AGE}."
)
TOMAS_HOME = "Lira Reed's father is Tomas Reed; Tomas Reed lives in Quillhaven."
ILSE_ALIVE = (
    "Yes: Lira Reed's mother is Ilse Marr; Ilse Marr is alive, born in year 2 of the Harbour Reckoning."
)
NO_MUM = "Nothing the table knows names a mother of Corin Vale."
SONS_BORN = (
    "Pell Varn's sons are Corin Vale and Tam Vale. Corin Vale is alive, born in year 15 of the Harbour Reckoning. "
    "Tam Vale is alive, born in year 15 of the Harbour Reckoning."
)

#: Question -> its whole answer, to a player and to the GM alike.
READS = {
    "how old is corins mum": NO_MUM,
    "how old is corin's mother": NO_MUM,
    "how old is lira's mother": ILSE_AGE,
    "how old is liras mum": ILSE_AGE,
    "where does lira's father live": TOMAS_HOME,
    "where does liras dad live": TOMAS_HOME,
    "where does lira reed's dad live": TOMAS_HOME,
    "is lira's mum still alive": ILSE_ALIVE,
    "is liras mom alive": ILSE_ALIVE,
    "when was lira's mother born": (
        "Lira Reed's mother is Ilse Marr; Ilse Marr is alive, born in year 2 of the Harbour Reckoning."
    ),
    # Two found: each answered.
    "when was pell varn's son born": SONS_BORN,
    "when was pell varns son born": SONS_BORN,
    "is ilse marr's husband still alive": "Nothing the table knows names a husband of Ilse Marr.",
    "how old is tomas reeds wife": "Nothing the table knows names a wife of Tomas Reed.",
    # Who the relative is, and nothing more: the kin answer, as before.
    "who is corin's mother": "Nothing the table knows names a mother of Corin Vale; Corin Vale's father is Pell Varn.",
    "who is liras mum": "Lira Reed's mother is Ilse Marr.",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the Quillhaven world and its bible (Canon) imported."""
    return import_quillhaven(CAMPAIGN)


ask = asker(CAMPAIGN, marks="none")


def test_a_relative_named_through_someone_is_asked_of(cli: CliRunner, tmp_path: Path) -> None:
    for gm in (False, True):
        said = ask(cli, tmp_path, list(READS), gm=gm)
        assert {q: a for q, a in said.items() if a != READS[q]} == {}, gm


#: A question of a GM-only parent -> its twin's (Hesk Doran: no parent at all), and the GM's answer.
HIDDEN = {
    "how old is dara fenn's father": (
        "how old is hesk doran's father",
        f"Dara Fenn's father is Archbishop Fenn; Archbishop Fenn was born in year 2 of the Harbour Reckoning; {NO_AGE}.",
    ),
    "when was dara fenns dad born": (
        "when was hesk dorans dad born",
        "Dara Fenn's father is Archbishop Fenn; Archbishop Fenn is alive, born in year 2 of the Harbour Reckoning.",
    ),
    "is dara's father alive": (
        "is hesk's father alive",
        "Yes: Dara Fenn's father is Archbishop Fenn; Archbishop Fenn is alive, born in year 2 of the Harbour "
        "Reckoning.",
    ),
}


def test_a_gm_only_parent_reads_to_a_player_as_none(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, [q for hidden, (twin, _) in HIDDEN.items() for q in (hidden, twin)])
    twins = {h: player[t] for h, (t, _) in HIDDEN.items()}
    assert {h: player[h].replace("Dara Fenn", "Hesk Doran") for h in HIDDEN} == twins
    assert not any("Archbishop" in a for a in player.values()), player
    assert twins["how old is dara fenn's father"] == "Nothing the table knows names a father of Hesk Doran."
    gm = ask(cli, tmp_path, list(HIDDEN), gm=True)
    assert gm == {q: answer for q, (_, answer) in HIDDEN.items()}
