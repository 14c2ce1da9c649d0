"""Whether someone is married, and who a family is, on the Brackenhythe world (tests/fixtures/brackenhythe) with
a secret marriage more: yes with the spouse ("was" for the dead), else that nothing the table knows says so (never
a "no" canon does not say); a family tree's name answered by its members. A GM-only marriage reads to a player as
none. SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "brackenhythe"
CAMPAIGN = "brackenhythe"
FILES = ("places", "folk", "marrows", "factions", "tarrs", "chronicle")
#: Jory Tarr's marriage, the GM's alone.
SECRET = """\
kind: characters
characters:
  - name: Hale Brisk
    spouse: Jory Tarr
    gm_only: [spouse]
    description: A tinker of the hill road.
"""


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    import_more(runner, CAMPAIGN, tmp_path, "secret.yaml", SECRET)
    return runner


READS = {
    "is oswin married": "Yes: Oswin Tarr was married to Alda Tarr.",
    "was oswin married to alda": "Yes: Oswin Tarr was married to Alda Tarr.",
    "is hesk marrow married": "Yes: Hesk Marrow is married to Bettany Quell.",
    "is wenna married": "Nothing the table knows says Wenna Tarr is married.",
    "is oswin married to wenna": (
        "Nothing the table knows says Oswin Tarr was married to Wenna Tarr; canon says Oswin Tarr was married to "
        "Alda Tarr."
    ),
    "who was oswin married to": "Oswin Tarr was married to Alda Tarr.",
    "who is oswins wife": "Oswin Tarr was married to Alda Tarr.",
    "who is wenna tarr married to": "Nothing the table knows says Wenna Tarr is married.",
    # Kin asked yes or no, the possessive typed with or without its apostrophe: of the one named, the other.
    "is pell tarr oswins son": "Pell Tarr is Oswin Tarr's son or daughter; canon does not say which.",
    "is sel tarr oswin's son": "Sel Tarr is Oswin Tarr's son or daughter; canon does not say which.",
    "is oswin pells father": "Oswin Tarr is Pell Tarr's father or mother; canon does not say which.",
    "who are the tarrs of otter ford": (
        "Wenna Tarr, Jory Tarr, Pell Tarr and Sel Tarr are members of the Tarrs of Otter Ford; Oswin Tarr (died on 3 "
        "Sheaf, year 650 of the Tallow Years) and Alda Tarr (died in year 651 of the Tallow Years) were members too."
    ),
}


def test_whether_someone_is_married_is_said_as_canon_says_it(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in said.items() if a != READS[q]} == {}


def test_a_gm_only_marriage_reads_to_a_player_as_none(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, ["is jory married", "is wenna married"], citations=False)
    assert player["is jory married"] == player["is wenna married"].replace("Wenna", "Jory")
    gm = ask_world(cli, tmp_path, CAMPAIGN, ["is jory married"], gm=True, citations=False)
    assert gm["is jory married"] == "Yes: Jory Tarr is married to Hale Brisk."
