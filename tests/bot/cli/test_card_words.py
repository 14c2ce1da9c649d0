"""An entity's card in the table's words, on a small world of our own (the Sluice Age): a one-day event's date
reads "on" that day, never "since"; a dead man "lived" where he lived; a status the GM keeps is marked on the
GM's card as every hidden line is."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import import_written

CAMPAIGN = "saltcomb"
FILES = {
    "calendar": """
eras:
  - {name: The Sluice Age, abbreviation: SA, start: 413}
months:
  - {name: Eelrun, days: 40}
  - {name: Silting, days: 45}
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Sluice Age, abbreviation: SA, start: 413}
events:
  - name: Battle of Greyweir
    date: 14 Eelrun, 612 SA
    participants: [Bastien Marrow]
    description: A fight at the weir.
""",
    "folk": """
characters:
  - name: Bastien Marrow
    description: A lockkeeper.
    home: Saltcomb
    born: 3 Eelrun, 590 SA
    died: 41 Silting, 630 SA
  - name: Ilse Marrow
    description: A netmender.
    home: Saltcomb
    born: 5 Eelrun, 600 SA
  - name: Tobrin Vale
    description: A boatman.
    born: 9 Silting, 601 SA
    status: imprisoned
    gm_only: [status]
---
locations:
  - name: Saltcomb
    type: town
    description: A salt town.
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the world imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "saltcomb", FILES)


def _card(cli: CliRunner, name: str, *, gm: bool = False) -> str:
    result = cli.invoke(app, ["canon", "entity", name, "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_one_day_event_reads_on_its_day_not_since(cli: CliRunner) -> None:
    battle, bastien = _card(cli, "Battle of Greyweir"), _card(cli, "Bastien Marrow")
    day = "14 Eelrun, year 612 of the Sluice Age"
    assert f"Bastien Marrow took part in the Battle of Greyweir (on {day})" in bastien, bastien
    assert f"Battle of Greyweir took place during the Sluice Age (on {day})" in battle, battle
    assert "since" not in battle, battle
    assert "Bastien Marrow is dead (since 41 Silting, year 630 of the Sluice Age)" in bastien  # a state holds


def test_a_dead_man_lived_where_he_lived(cli: CliRunner) -> None:
    bastien, ilse = _card(cli, "Bastien Marrow"), _card(cli, "Ilse Marrow")
    assert "Bastien Marrow lived in Saltcomb" in bastien and "lives in" not in bastien, bastien
    assert "Ilse Marrow lives in Saltcomb" in ilse, ilse


def test_a_status_the_gm_keeps_is_marked_on_the_gms_card(cli: CliRunner) -> None:
    gm, player = _card(cli, "Tobrin Vale", gm=True), _card(cli, "Tobrin Vale")
    assert "State: [gm only] Tobrin Vale is imprisoned" in gm, gm
    assert "State:" not in player, player  # a hidden status is no state for a player, never a default "alive"
    assert "imprisoned" not in player and "gm only" not in player, player
