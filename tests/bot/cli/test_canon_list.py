"""`lorekeeper canon list`: a campaign's entities by kind and by name, as a player or the GM reads them, so a GM can
check an import without guessing names (a world of our own, Saltwick)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import import_written

CAMPAIGN = "saltwick"
FILES = {
    "calendar": "eras:\n  - {name: The Brine Years, abbreviation: BY, start: 1}\ntoday: 300 BY\n",
    "folk": """
characters:
  - name: Tamsin Orle
  - name: Brother Quill
    visibility: gm_only
  - name: Edda Marl
    role: pc
---
locations:
  - name: Saltwick Quay
  - name: The Drowned Vault
    visibility: gm_only
---
kind: factions
factions:
  - name: The Net-Menders
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def _list(cli: CliRunner, *extra: str) -> str:
    result = cli.invoke(app, ["canon", "list", "-c", CAMPAIGN, *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_player_lists_only_what_players_may_read_with_no_hint_of_the_rest(cli: CliRunner) -> None:
    assert _list(cli).splitlines() == [
        "Campaign “saltwick”, as a player reads it: 4 entities.",
        "Factions (1): The Net-Menders",
        "People (1): Tamsin Orle",
        "Places (1): Saltwick Quay",
        "Player characters (1): Edda Marl",
    ]


def test_the_gm_lists_everything_with_the_gm_only_entries_marked(cli: CliRunner) -> None:
    said = _list(cli, "--as", "gm")
    assert "Campaign “saltwick”, as the GM reads it: 6 entities." in said, said
    assert "People (2): Brother Quill [gm only], Tamsin Orle" in said, said
    assert "Places (2): Saltwick Quay, The Drowned Vault [gm only]" in said, said


def test_one_kind_by_its_type_or_by_a_file_word(cli: CliRunner) -> None:
    people = _list(cli, "--kind", "characters", "--as", "gm")
    assert people.splitlines()[1:] == [
        "People (2): Brother Quill [gm only], Tamsin Orle",
        "Player characters (1): Edda Marl",
    ], people
    assert _list(cli, "--kind", "Location").splitlines()[1:] == ["Places (1): Saltwick Quay"]
    listed = json.loads(_list(cli, "--kind", "places", "--json"))
    assert listed["entities"] == [{"name": "Saltwick Quay", "type": "Location"}]


def test_an_unknown_kind_or_campaign_is_refused_with_what_exists(cli: CliRunner) -> None:
    result = cli.invoke(app, ["canon", "list", "-c", CAMPAIGN, "--kind", "dragons"])
    assert result.exit_code == 1
    assert "“dragons” is not an entity type. Allowed types:" in result.output, result.output
    result = cli.invoke(app, ["canon", "list", "-c", "nowhere"])
    assert result.exit_code == 1 and "There is no campaign named 'nowhere'" in result.output, result.output
