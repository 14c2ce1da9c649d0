""" "How are A and B related?" names every tie between the two that the asker may see, kin first, then ties by
rite or marriage, then the others (a mentor, an ally, a rival), each once; a tie the GM keeps is left out of a
player's answer word for word as if never written, and a mentor or a rival alone is no "yes" to "are they related"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "mossmere"
FILES = {
    "calendar": """
eras:
  - {name: The Tide Reckoning, abbreviation: TR, start: 1}
months: [Thaw, Bloom, Ember, Frost]
today: 2 Ember, 640 TR
""",
    "folk": """
characters:
  - {name: Arlen Moss, sex: male, born: 580}
  - name: Wren Moss
    sex: female
    born: 610
    parents: [Arlen Moss]
    ties:
      - {name: Tove Moss, is: rival}
      - {name: Tove Moss, is: enemy, gm_only: true}  # secret
  - {name: Tove Moss, sex: male, born: 612, parents: [Arlen Moss]}
  - name: Saska Orme
    sex: female
    born: 615
    ties:
      - {name: Idrel Vask, is: mentor}
      - {name: Idrel Vask, is: ally}
  - {name: Idrel Vask, sex: male, born: 590}
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


QUESTIONS = [
    "how are Wren and Tove related?",
    "how is Tove related to Wren?",
    "how are Saska and Idrel related?",
    "are Saska and Idrel related?",
    "are Wren and Tove related?",
]


def test_every_tie_between_two_is_said_kin_first(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert player[QUESTIONS[0]] == "Wren Moss is Tove Moss' sister; Wren Moss is a rival of Tove Moss.", (
        player
    )
    assert player[QUESTIONS[1]] == "Tove Moss is Wren Moss' brother; Wren Moss is a rival of Tove Moss.", (
        player
    )
    assert player[QUESTIONS[2]] == (
        "Idrel Vask is Saska Orme's mentor; Saska Orme is an ally of Idrel Vask."
    ), player
    # A mentor and an ally are no kin: never "Yes" to whether two are related.
    assert player[QUESTIONS[3]] == player[QUESTIONS[2]], player
    assert player[QUESTIONS[4]].startswith("Yes: Wren Moss is Tove Moss' sister; "), player


def test_a_tie_the_gm_keeps_is_said_to_the_gm_alone(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert gm[QUESTIONS[0]] == (
        "Wren Moss is Tove Moss' sister; Wren Moss is a rival of Tove Moss; Wren Moss is an enemy of Tove Moss."
    ), gm
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", QUESTIONS, citations=False)
