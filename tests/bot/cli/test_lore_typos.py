"""A question's asking words read through a typo ("marrid", "wher", "parnets", "hwo"), on the Brackenhythe world
(tests/fixtures/brackenhythe) with two people more: a name one slip from an asking word stays a name where the
asker may see it, and only there (a GM-only name decides nothing a player reads). SQLite, then PostgreSQL."""

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
#: Wen Harrow, whose name is one slip from "when"; Marrid Vos, GM-only, one slip from "married".
MORE = """\
kind: characters
characters:
  - name: Wen Harrow
    description: A lamplighter of Hythe who keeps the quay lamps burning.
  - name: Marrid Vos
    visibility: gm_only
    description: A smuggler who sells the Reeve's secrets.
"""


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    import_more(runner, CAMPAIGN, tmp_path, "more.yaml", MORE)
    return runner


#: A question with its asking word misspelt -> the same question spelt right.
TYPOS = {
    "wehn did ansel crowe die": "when did ansel crowe die",
    "who are wennas parnets": "who are wenna's parents",
    "hwo won the battle of otter ford": "who won the battle of otter ford",
    "is ansel crowe still alve": "is ansel crowe still alive",
    "who leds the iron host": "who leads the iron host",
    "were did ansel die": "where did ansel die",
}


def test_a_misspelt_asking_word_is_answered_as_spelt_right(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, [*TYPOS, *TYPOS.values()], citations=False)
    assert {typed: said[typed] for typed in TYPOS} == {typed: said[right] for typed, right in TYPOS.items()}
    assert said["who are wennas parnets"] == (
        "Wenna Tarr's parents were Oswin Tarr (died on 3 Sheaf, year 650 of the Tallow Years) and Alda Tarr (died in "
        "year 651 of the Tallow Years)."
    )
    assert said["hwo won the battle of otter ford"].startswith(
        "At the Battle of Otter Ford, the Reed Clans won"
    )


def test_a_name_the_asker_may_see_stays_a_name(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, ["who is wen"], citations=False)
    assert "lamplighter" in said["who is wen"]


def test_a_gm_only_name_decides_nothing_a_player_reads(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, ["who is marrid vos"], citations=False)
    # Read as a campaign without Marrid Vos reads it: "marrid" is "married" to a player.
    assert "married vos" in player["who is marrid vos"]
    assert "smuggler" not in player["who is marrid vos"]
    gm = ask_world(cli, tmp_path, CAMPAIGN, ["who is marrid vos"], gm=True, citations=False)
    assert "smuggler" in gm["who is marrid vos"]
