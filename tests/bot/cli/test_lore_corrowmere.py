"""A dead man's home, a thing's stuff, an aunt's word and a person's culture, asked through `lorekeeper lore` of a
small world of our own (Corrowmere, a fen town of eel-catchers): the dead "lived in" a place as their cards say,
"made of" reads the material, a tie's word follows the person's sex, and a culture is said as one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, asker, import_written

CAMPAIGN = "corrowmere"
CALENDAR = """
eras:
  - {name: The Age of Reeds, abbreviation: AR, start: 1}
months: [Thaw, Sedge, Mire, Frost]
today: 1 Mire, 540 AR
"""
FOLK = """
characters:
  - name: Odric Vell
    description: An eel-catcher of Saltcomb, drowned in the fen.
    home: Saltcomb
    status: dead
    died: 3 Sedge, 530 AR
    culture: The Fenfolk
  - name: Maudry Vell
    description: A net-mender of Saltcomb.
    home: Saltcomb
    sex: female
    culture: The Fenfolk
    ties:
      - {name: Pell Vell, is: niece}
  - name: Garrick Thorn
    description: A reed-cutter who keeps to himself.
    sex: male
    culture: The Fenfolk
    gm_only: [culture]
    ties:
      - {name: Pell Vell, is: nephew}
  - name: Pell Vell
    description: A child of Saltcomb.
    home: Saltcomb
  - name: Jossa Wick
    description: A lamplighter of Saltcomb.
    home: Saltcomb
---
lineage: The Reedborn
members:
  - name: Hale Reedborn
    sex: male
    culture: The Marshkin
    born: 500 AR
---
locations:
  - name: Saltcomb
    type: town
    description: A fen town on stilts.
---
cultures:
  - name: The Fenfolk
    description: Eel-catchers of the low fens.
  - name: The Marshkin
    description: Wanderers of the salt marsh.
"""
ITEMS = """
kind: items
items:
  - name: The Dawn Lance
    description: A lance that glows at first light.
    made_by: Odric Vell
    made_of: [ash wood, silver]
  - name: The Reed Crown
    description: A crown of woven reeds.
    made_by: Maudry Vell
    made_of: [reed, gold]
    gm_only: [made_of]
  - name: The Eel Hook
    description: A hook of black bone.
    made_by: Odric Vell
"""
CHRONICLE = """
kind: timeline
eras:
  - {name: The Age of Reeds, abbreviation: AR, start: 1}
events: []
"""


def files(folk: str = FOLK, items: str = ITEMS) -> dict[str, str]:
    """Return the world's files, with the roster and the items as given."""
    return {"calendar": CALENDAR, "chronicle": CHRONICLE, "folk": folk, "items": items}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Corrowmere imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "corrowmere", files())


ask = asker(CAMPAIGN)


def test_a_dead_man_lived_where_his_home_was(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, ["where does Odric Vell live", "where does Jossa Wick live"])
    assert said["where does Odric Vell live"] == "Odric Vell lived in Saltcomb.", said
    assert said["where does Jossa Wick live"] == "Jossa Wick lives in Saltcomb.", said
    gm = ask(cli, tmp_path, ["where does Odric Vell live"], gm=True)
    assert gm["where does Odric Vell live"] == "Odric Vell lived in Saltcomb.", gm


def test_what_a_thing_is_made_of_is_its_stuff_never_its_maker(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "What is the Dawn Lance made of?",
        "what is the reed crown made of",
        "what is the eel hook made of",
    ]
    player = ask(cli, tmp_path, asked)
    assert player["What is the Dawn Lance made of?"] == "The Dawn Lance is made of ash wood and silver.", (
        player
    )
    for thing in ("Reed Crown", "Eel Hook"):  # kept for the GM reads as none written
        assert player[f"what is the {thing.lower()} made of"] == (
            f"Nothing the table knows says what the {thing} is made of."
        ), player
    assert not any("made the" in a for a in player.values()), player
    gm = ask(cli, tmp_path, asked, gm=True)
    assert gm["what is the reed crown made of"] == "The Reed Crown is made of reed and gold.", gm


def test_who_is_an_aunt_says_aunt_by_her_sex(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, ["Who is Maudry Vell?", "who is Garrick Thorn"])
    assert "Pell Vell's aunt" in said["Who is Maudry Vell?"], said
    assert "Pell Vell's uncle" in said["who is Garrick Thorn"], said
    assert not any("uncle or aunt" in a for a in said.values()), said


CULTURE_ASKED = [
    "What culture is Maudry Vell?",
    "what culture does Odric Vell belong to",
    "What people is Hale Reedborn from?",
    "what culture is Garrick Thorn",
    "what culture is Jossa Wick",
]


def test_a_persons_culture_is_said_as_one(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, CULTURE_ASKED)
    assert said["What culture is Maudry Vell?"] == "Maudry Vell is of the Fenfolk culture.", said
    assert said["what culture does Odric Vell belong to"] == "Odric Vell was of the Fenfolk culture.", said
    assert said["What people is Hale Reedborn from?"] == "Hale Reedborn is of the Marshkin culture.", said
    none = "Nothing the table knows says what culture Jossa Wick is of."
    assert said["what culture is Jossa Wick"] == none, said
    gm = ask(cli, tmp_path, ["what culture is Garrick Thorn"], gm=True)
    assert gm["what culture is Garrick Thorn"] == "Garrick Thorn is of the Fenfolk culture.", gm


def test_a_culture_kept_for_the_gm_reads_as_none_written(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    player = ask(cli, tmp_path, CULTURE_ASKED)
    kept = "    culture: The Fenfolk\n    gm_only: [culture]\n"
    assert kept in FOLK
    bare = import_written("corrowbare", tmp_path / "bare", files(folk=FOLK.replace(kept, "")))
    (tmp_path / "asked").mkdir()
    unwritten = ask_world(bare, tmp_path / "asked", "corrowbare", CULTURE_ASKED, citations=False)
    assert player == unwritten, (player, unwritten)
    assert "Fenfolk" not in player["what culture is Garrick Thorn"], player
