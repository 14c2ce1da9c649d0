"""What title a person holds, asked through `lorekeeper lore` of a small world of our own (a river town with a
guildmaster, a warden of two offices, a secret captain and a ferryman), so that the forms fit no one fixture: the
title lines the asker's card holds, with their citation, and a title kept for the GM read to a player as a person
with none written reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "wendford"
FILES = {
    "calendar": """
eras:
  - {name: The Rivertide, abbreviation: RT, start: 1}
months: [Thaw, Sedge, Mist, Rime]
today: 1 Mist, 40 RT
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Rivertide, abbreviation: RT, start: 1}
events: []
""",
    "folk": """
characters:
  - name: Bran Holt
    description: A ferryman with one good eye.
    titles: [Guildmaster]
    faction: The Ferry Guild
  - name: Edda Holt
    description: A warden of the river gates.
    titles: [Warden of Wendford, Keeper of the Keys]
    parents: [Bran Holt]
  - name: Corin Ash
    description: A quiet boatwright.
    titles: [Captain of the Night Watch]
    gm_only: [titles]
  - name: Pell Marrow
    description: A ferryman of the lower reach.
    faction: The Ferry Guild
---
factions:
  - name: The Ferry Guild
    description: The ferrymen of Wendford.
---
locations:
  - name: Wendford
    type: town
    description: A town at the ford of the Wend.
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the town imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "wendford", FILES)


def test_a_persons_title_asked_plainly(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "what is Bran Holt's title?",
        "What's Bran's title?",
        "what are bran holt's titles",
        "what title does Bran Holt hold",
        "what title does Bran Holt have?",
        "What title does Bran Holt bear?",
        "what is Bran Holt's role",
        "what is Edda Holt's rank?",
        "what titles does Edda Holt hold?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked)
    for question in asked[:7]:
        assert said[question] == "Bran Holt is the Guildmaster. [1]", (question, said[question])
    # Two titles in the one line the card says them in; her tie to her father and her state are no title.
    for question in asked[7:]:
        assert said[question] == "Edda Holt is Warden of Wendford, Keeper of the Keys. [1]", said[question]


def test_a_title_kept_for_the_gm_reads_to_a_player_as_none_written(cli: CliRunner, tmp_path: Path) -> None:
    """Corin Ash's title is the GM's: a player reads, word for word, what Pell Marrow, who has none, reads."""
    asked = ["what is Corin Ash's title?", "what is Pell Marrow's title?", "what title does Corin Ash hold"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert (
        player["what is Pell Marrow's title?"] == "Nothing the table knows says what Pell Marrow's title is."
    )
    assert player["what is Corin Ash's title?"] == "Nothing the table knows says what Corin Ash's title is."
    assert not any("Night Watch" in answer for answer in player.values()), player
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True)
    assert gm["what is Corin Ash's title?"] == "Corin Ash is Captain of the Night Watch. [1]"
    assert gm["what title does Corin Ash hold"] == "Corin Ash is Captain of the Night Watch. [1]"
