"""A calendar file's era may name its parent era and carry a description: a GM-only sub-era written in the
calendar, in the years of its public parent, stays the GM's with its description; a public person's tie to a
GM-only faction of another file never reaches players (a world of our own, Thornmere)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.services.calendar_eras import calendar_block
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "thornmere"
CALENDAR = """kind: calendar
months: [Thaw, Sowing, Reaping, Frost]
eras:
  - {name: The Salt Crown, abbreviation: SC, start: 300, description: The long peace of the salt kings.}
  - name: The Gray Regency
    abbreviation: GR
    start: 410
    end: 430
    parent_era: The Salt Crown
    visibility: gm_only
    description: A regent ruled in the child king's name.
"""
FOLK = """characters:
  - name: Wenna Sallow
    born: 2 Sowing, 415 SC
    faction: The Lantern Ring
  - name: Hobb Sallow
    born: 1 Frost, 420 GR
"""
CIRCLES = """factions:
  - name: The Lantern Ring
    visibility: gm_only
    description: Smugglers who own the harbour watch.
"""


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    folder = tmp_path / "world"
    folder.mkdir()
    files = {"calendar.yaml": CALENDAR, "folk.yaml": FOLK, "circles.yaml": CIRCLES}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    said = runner.invoke(app, ["ingest", *(str(folder / n) for n in files), "-c", CAMPAIGN]).output
    assert "problem" not in said and "calendar set from" in said and "wrote 2 eras" in said, said
    return runner


def _card(cli: CliRunner, name: str, *, gm: bool = False) -> str:
    args = ["canon", "entity", name, "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])]
    return cli.invoke(app, args).output


def test_a_gm_only_sub_era_of_the_calendar_file_keeps_its_parent_and_description_for_the_gm(
    cli: CliRunner,
) -> None:
    gm = _card(cli, "The Gray Regency", gm=True)
    assert "The Gray Regency is part of the Salt Crown" in gm or "part of The Salt Crown" in gm, gm
    assert "A regent ruled in the child king's name." in gm, gm
    public = _card(cli, "The Salt Crown")
    assert "The long peace of the salt kings." in public and "Regency" not in public, public
    listed = cli.invoke(app, ["canon", "list", "-c", CAMPAIGN, "--kind", "eras"]).output
    assert "Eras (1): The Salt Crown" in listed and "Regency" not in listed, listed


def test_a_date_in_the_parent_s_era_is_the_players_and_one_in_the_hidden_era_is_not(cli: CliRunner) -> None:
    assert "2 Sowing, year 415 of the Salt Crown" in _card(cli, "Wenna Sallow")
    hobb = _card(cli, "Hobb Sallow")
    assert "Gray" not in hobb and "420" not in hobb and "not known" in hobb, hobb
    assert "year 420 of the Gray Regency" in _card(cli, "Hobb Sallow", gm=True)


def test_a_public_person_s_tie_to_a_gm_only_faction_of_another_file_is_the_gm_s(
    cli: CliRunner, tmp_path: Path
) -> None:
    public = _card(cli, "Wenna Sallow")
    assert "Lantern" not in public, public
    assert "member of the Lantern Ring" in _card(cli, "Wenna Sallow", gm=True)
    player = ask_world(cli, tmp_path, CAMPAIGN, ["which faction is Wenna Sallow in?"], citations=False)
    assert "Lantern" not in player["which faction is Wenna Sallow in?"], player


def test_the_calendar_is_set_without_what_of_its_eras_is_canon_s(tmp_path: Path) -> None:
    path = tmp_path / "calendar.yaml"
    path.write_text(CALENDAR, encoding="utf-8")
    block = calendar_block(path.read_text(encoding="utf-8"))
    for canon_only in ("parent_era", "description", "visibility", "kind: calendar"):
        assert canon_only not in block, block
    assert "The Gray Regency" in block and "GR" in block
