"""A place's fields kept for the GM (`gm_only: [...]`, `gm_notes`), as a faction's: a player's card and `/lore`
never read them, the GM's card does. On the Ashcrown world (tests/fixtures/ashcrown), SQLite then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli.main import app
from tests.bot.cli.test_lore_ashcrown import CAMPAIGN, cli
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more

__all__ = ["cli"]

PLACES = """kind: characters
characters:
  - name: Ysolde Marr
    status: alive
---
locations:
  - name: Saltmere
    founder: Ysolde Marr
    population: 300
    description: A fishing village below Ashcrown.
    gm_notes: Built on the drowned court.
    gm_only: [founder, population]
"""


def _card(cli: CliRunner, *, gm: bool = False) -> str:
    result = cli.invoke(app, ["canon", "entity", "Saltmere", "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_place_s_gm_only_fields_are_the_gm_s_alone(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    import_more(cli, CAMPAIGN, tmp_path, "saltmere.yaml", PLACES)
    player, gm = _card(cli), _card(cli, gm=True)
    assert "A fishing village below Ashcrown." in player
    assert not [w for w in ("Ysolde", "300", "drowned") if w in player], player
    assert "Ysolde Marr founded Saltmere" in gm and "300" in gm, gm
    asked = ["who founded Saltmere", "how many people live in Saltmere"]
    answers = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert not [a for a in answers.values() if "Ysolde" in a or "300" in a], answers
    gm_answers = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True, citations=False)
    assert "Ysolde Marr" in gm_answers["who founded Saltmere"], gm_answers
