"""A marriage asked by its place in turn, in a small world of our own (the Salt Years: a ferryman who married
three times, the first a marriage the GM keeps, and a weaver whose two marriages canon never dates): the spouse of
that place by the order the marriages began; never one the asker may not see, word for word as in the same world
without the secret marriage."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CALENDAR = """
eras:
  - {name: The Salt Years, abbreviation: SY, start: 1}
months: [Ebb, Flood, Brine, Gale]
today: 1 Flood, 500 SY
"""
FOLK = """
characters:
  - name: Tarn Oake
    sex: male
    born: 400
    spouses: [{name: Lisbet Oake, married: 425}, {name: Cass Marrow, married: 3 Brine 440}]
  - {name: Lisbet Oake, sex: female, born: 402, died: 436}
  - {name: Cass Marrow, sex: female, born: 415}
  - {name: Mott Weaver, sex: male, born: 410, spouses: [Ivy Weaver, June Weaver]}
  - {name: Ivy Weaver, sex: female, born: 411}
  - {name: June Weaver, sex: female, born: 412}
"""
SECRET = """
characters:
  - {name: Nell Skerry, sex: female, born: 401, spouses: [{name: Tarn Oake, married: 418}], gm_only: [spouse]}
"""
TOLD = """
characters:
  - {name: Nell Skerry, sex: female, born: 401}
"""


def _world(name: str, tmp_path: Path, more: str) -> CliRunner:
    return import_written(name, tmp_path / name, {"calendar": CALENDAR, "folk": FOLK, "more": more})


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Salt Years imported, Tarn's first marriage kept for the GM."""
    return _world("salt", tmp_path, SECRET)


READS = {
    "Who was Tarn Oake's first wife?": "Tarn Oake's first wife was Lisbet Oake, married in year 425.",
    "who is tarn's second wife": "Tarn Oake's second wife is Cass Marrow, married on 3 Brine, year 440 of the Salt Years.",
    "Who was the third wife of Tarn Oake?": "Nothing the table knows names a third wife of Tarn Oake; Tarn Oake is"
    " married to Lisbet Oake and Cass Marrow.",
    "Who was Tarn's first husband?": "Nothing the table knows names a husband of Tarn Oake.",
    "Who was Mott Weaver's first wife?": "Mott Weaver is married to Ivy Weaver and June Weaver; canon does not say"
    " which marriage came first.",
}


def test_the_spouse_of_a_place_in_turn_is_read_by_the_order_of_the_marriages(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert ask_world(cli, tmp_path, "salt", list(READS), citations=False) == READS


def test_the_gm_counts_the_secret_marriage(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who was Tarn Oake's first wife?": "Tarn Oake's first wife was Nell Skerry, married in year 418.",
        "Who is Tarn Oake's third wife?": "Tarn Oake's third wife is Cass Marrow, married on 3 Brine, year 440 of the Salt Years.",
    }
    assert ask_world(cli, tmp_path, "salt", list(reads), gm=True, citations=False) == reads


def test_a_player_reads_them_as_if_the_secret_marriage_were_never_written(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    questions = [*READS, "Who is Tarn Oake's third wife?"]
    secret = ask_world(_world("salt", tmp_path, SECRET), tmp_path, "salt", questions, citations=False)
    told = ask_world(_world("told", tmp_path, TOLD), tmp_path, "told", questions, citations=False)
    assert secret == told
