"""A tie the family tree does not hold but a description tells, asked through `lorekeeper lore` of a small world
of our own (a river house with a ward brought up as a son), so the answer fits no one fixture: the description's
sentence, not a "none" that reads to a player as a hint at the GM's secret; a pair with nothing written reads the
no-tie words as before, and a description kept for the GM is no player's: they read those words too."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_written

CAMPAIGN = "vennmoor"
FILES = {
    "calendar": """
eras:
  - {name: The Tidecount, abbreviation: TC, start: 1}
months: [Ebb, Flood, Slack, Neap]
today: 1 Slack, 212 TC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Tidecount, abbreviation: TC, start: 1}
events: []
""",
    "folk": """
characters:
  - name: Tamsin Vennard
    sex: female
    description: Lady of the river house at Vennmoor.
  - name: Osric Vennard
    sex: male
    description: A quiet young man who rides well. Brought up as Tamsin's son and heir.
  - name: Corwen Hale
    sex: male
    description: A boatwright of the lower quay.
  - name: Maud Hale
    sex: female
    description: A net-mender with a sharp tongue.
  - name: Edrin Pask
    sex: male
    description: A clerk of the toll house.
  - name: Ysolde Pask
    sex: female
    description: Raised in secret as Edrin's daughter.
    gm_only: [description]
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the river house imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "vennmoor", FILES)


ask = asker(CAMPAIGN)


def test_a_ward_brought_up_as_a_son_is_answered_by_the_description(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(
        cli,
        tmp_path,
        ["is Osric really Tamsin's son?", "is Corwen really Maud's son?", "is Osric Tamsin's son?"],
    )
    assert said["is Osric Tamsin's son?"] == "Osric Vennard: Brought up as Tamsin's son and heir.", said
    assert said["is Osric really Tamsin's son?"] == "Osric Vennard: Brought up as Tamsin's son and heir.", (
        said
    )
    # Nothing written of the two: the words canon has for no tie, unchanged.
    assert said["is Corwen really Maud's son?"] == "Nothing the table knows names a son of Maud Hale.", said


def test_a_description_kept_for_the_gm_tells_a_player_nothing(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["is Ysolde really Edrin's daughter?", "is Maud really Edrin's daughter?"]
    player = ask(cli, tmp_path, [*asked, "is Ysolde Edrin's daughter?", "is Maud Edrin's daughter?"])
    assert (
        player[asked[0]] == player[asked[1]] == "Nothing the table knows names a daughter of Edrin Pask."
    ), player
    plain = player["is Ysolde Edrin's daughter?"]
    assert plain == player["is Maud Edrin's daughter?"].replace("Maud Hale", "Ysolde Pask"), player
    assert plain.startswith("Nothing the table knows says Ysolde Pask is"), player
    gm = ask(cli, tmp_path, asked[:1], gm=True)
    assert gm[asked[0]] == "Ysolde Pask: Raised in secret as Edrin's daughter.", gm
