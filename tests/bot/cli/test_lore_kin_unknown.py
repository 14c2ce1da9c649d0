"""Kin by marriage and by adoption that canon does not hold, in a small world of our own (the Hart Reckoning: a
man whose wife's parents canon never names, a son taken in, a second wife the GM keeps): a far tie none of which
is known is said so, never read as a nearer tie; a child taken in is an adoptive brother, neither full nor half;
and a player reads these word for word as in the same world without the secret marriage."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CALENDAR = """
eras:
  - {name: The Hart Reckoning, abbreviation: HR, start: 1}
months: [Sowing, Haying, Gleaning, Snows]
today: 1 Haying, 400 HR
"""
HARTS = """
lineage: House Hart
members:
  - {name: Garth Hart, sex: male, born: 300, spouse_of: [Mabry Hart]}
  - {name: Mabry Hart, sex: female, born: 302}
  - {name: Oswy Hart, sex: male, born: 330, parents: [Garth Hart, Mabry Hart], spouse: Della Fenn}
  - {name: Della Fenn, sex: female, born: 332, lineage: null}
  - {name: Bryn Hart, sex: female, born: 360, parents: [Oswy Hart, Della Fenn]}
  - name: Nim Hart
    sex: male
    born: 362
    adoptive_parents: [{name: Oswy Hart, adopted: 365}, {name: Della Fenn, adopted: 365}]
"""
#: Oswy's second wife, a marriage the GM keeps; and the same world had nobody written it.
SECRET = """
characters:
  - {name: Hild Crow, sex: female, born: 310}
  - {name: Vesna Crow, sex: female, born: 335, parents: [Hild Crow], spouse: Oswy Hart, gm_only: [spouse]}
"""
TOLD = """
characters:
  - {name: Hild Crow, sex: female, born: 310}
  - {name: Vesna Crow, sex: female, born: 335, parents: [Hild Crow]}
"""


def _world(name: str, tmp_path: Path, more: str) -> CliRunner:
    files = {"calendar": CALENDAR, "harts": HARTS, "more": more}
    return import_written(name, tmp_path / name, files)


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Hart Reckoning imported, the second marriage kept for the GM."""
    return _world("harts", tmp_path, SECRET)


def _ask(cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False) -> dict[str, str]:
    return ask_world(cli, tmp_path, "harts", questions, gm=gm, citations=False)


UNKNOWN = {
    "Who is Oswy Hart's mother-in-law?": "Nothing the table knows says who the mother of Oswy Hart's wife Della Fenn"
    " is.",
    "who is oswy's father in law": "Nothing the table knows says who the father of Oswy Hart's wife Della Fenn is.",
    "Who are Oswy's parents in law?": "Nothing the table knows says who the parents of Oswy Hart's wife Della Fenn"
    " are.",
    "Who is Garth Hart's stepdaughter?": "Nothing the table knows says who Garth Hart's stepdaughter is.",
    "Who is Della Fenn's father-in-law?": "Della Fenn's father-in-law is Garth Hart (her husband Oswy Hart's"
    " father).",
}
IN_LAWS = {
    "Who are Della Fenn's in-laws?": "Della Fenn's parents-in-law are Garth Hart and Mabry Hart (through her husband"
    " Oswy Hart).",
    "who are the in laws of Mabry Hart": "Mabry Hart's daughter-in-law is Della Fenn (her son Oswy Hart's wife).",
    "Who are Oswy Hart's in-laws?": "Nothing the table knows names in-laws of Oswy Hart.",
}
ADOPTED = {
    "Is Nim Bryn's half-brother?": "No: Nim Hart is Bryn Hart's adoptive brother (her father Oswy Hart's adopted"
    " son): they share no parent by birth.",
    "is bryn nim's full sister": "No: Bryn Hart is Nim Hart's adoptive sister (through his adoptive father Oswy"
    " Hart): they share no parent by birth.",
    "Is Nim Hart Bryn Hart's brother?": "Yes: Nim Hart is Bryn Hart's brother.",
    "Who are Bryn's half-siblings?": "Nothing the table knows names half-siblings of Bryn Hart; Bryn Hart's brother"
    " is Nim Hart (her father Oswy Hart's adopted son).",
}


def test_a_far_tie_canon_holds_none_of_is_said_unknown_not_a_nearer_one(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert _ask(cli, tmp_path, list(UNKNOWN)) == UNKNOWN


def test_in_laws_as_a_whole_are_each_tie_by_marriage_with_its_chain(cli: CliRunner, tmp_path: Path) -> None:
    assert _ask(cli, tmp_path, list(IN_LAWS)) == IN_LAWS


def test_a_child_taken_in_is_an_adoptive_sibling_neither_full_nor_half(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert _ask(cli, tmp_path, list(ADOPTED)) == ADOPTED


def test_the_gm_reads_the_in_law_through_the_secret_marriage(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who is Oswy Hart's mother-in-law?": "Oswy Hart's mother-in-law is Hild Crow (his wife Vesna Crow's"
        " mother).",
        "Who are Oswy Hart's in-laws?": "Oswy Hart's mother-in-law is Hild Crow (his wife Vesna Crow's mother).",
    }
    assert _ask(cli, tmp_path, list(reads), gm=True) == reads


def test_a_player_reads_them_as_if_the_secret_marriage_were_never_written(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    questions = [*UNKNOWN, *IN_LAWS, *ADOPTED]
    secret = _ask(_world("harts", tmp_path, SECRET), tmp_path, questions)
    told = ask_world(_world("told", tmp_path, TOLD), tmp_path, "told", questions, citations=False)
    assert secret == told
