"""What a person made, has or founded and whom they serve, asked through `lorekeeper lore` of a small world of our
own (a marsh barony with a glassblower, a tinker and two companies), so that the forms fit no one fixture: a list
read as one sentence, a long one cut at six with the rest counted, and ties kept for the GM neither named nor
counted to a player, who reads what a person with none written reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_written

CAMPAIGN = "quenmarsh"
FILES = {
    "calendar": """
eras:
  - {name: The Reedyears, abbreviation: RY, start: 1}
months: [Thaw, Sedge, Mist, Rime]
today: 1 Mist, 88 RY
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reedyears, abbreviation: RY, start: 1}
events: []
""",
    "folk": """
characters:
  - name: Perrin Wexley
    description: A glassblower of Quenmarsh.
    faction: The Lampwrights
  - name: Dobbe Fairweather
    description: A tinker who mends anything brought to her door.
  - name: Sorrel Vane
    description: A reed-cutter with a quiet voice.
    factions: [The Lampwrights, The Mire Company]
    gm_only: [factions]
  - name: Hob Lantry
    description: A ferryman of the marsh.
---
factions:
  - name: The Lampwrights
    founder: Perrin Wexley
    description: The glassblowers' company.
  - name: The Mire Company
    founder: Sorrel Vane
    gm_only: [founder]
    members: [Perrin Wexley]
    description: A company that walks the marsh at night.
  - name: The Stilt Guard
    members: [Perrin Wexley]
    gm_only: [members]
    description: The watch on the stilt-houses.
---
locations:
  - name: Quenmarsh
    type: barony
    description: A barony of reeds and slow water.
""",
    "items": """
kind: items
items:
  - name: The Green Lamp
    description: A lamp of green glass.
    made_by: Perrin Wexley
    held_by: The Lampwrights
  - name: The Reed Flask
    description: A flask that keeps water sweet.
    made_by: Perrin Wexley
    held_by: The Lampwrights
  - name: The Mist Lens
    description: A lens that sees through fog.
    made_by: Perrin Wexley
    held_by: Hob Lantry
    gm_only: [made_by, held_by]
  - name: The Copper Kettle
    description: A kettle that never boils dry.
    made_by: Dobbe Fairweather
  - name: The Tin Bird
    description: A bird of tin that sings at dawn.
    made_by: Dobbe Fairweather
  - name: The Wheel Clock
    description: A clock turned by a little wheel.
    made_by: Dobbe Fairweather
  - name: The Spring Lock
    description: A lock with no keyhole.
    made_by: Dobbe Fairweather
  - name: The Brass Whistle
    description: A whistle only dogs hear.
    made_by: Dobbe Fairweather
  - name: The Pewter Cup
    description: A cup that shows the drinker's face.
    made_by: Dobbe Fairweather
  - name: The Iron Needle
    description: A needle that points to the nearest water.
    made_by: Dobbe Fairweather
  - name: The Bone Comb
    description: A comb carved from a heron's bone.
    made_by: Dobbe Fairweather
    gm_only: [made_by]
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the barony imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "quenmarsh", FILES)


ask = asker(CAMPAIGN)


def test_what_a_person_made_has_and_founded_and_whom_they_serve(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(
        cli,
        tmp_path,
        [
            "what did Perrin Wexley make",
            "what has Dobbe Fairweather forged?",
            "what do the Lampwrights own",
            "what did Perrin Wexley found",
            "who does Perrin Wexley work for",
            "who does Hob Lantry answer to",
        ],
    )
    assert said["what did Perrin Wexley make"] == "Perrin Wexley made the Green Lamp and the Reed Flask."
    # Seven the table may see: six named, one counted, the GM's eighth neither named nor counted.
    assert said["what has Dobbe Fairweather forged?"] == (
        "Dobbe Fairweather made the Brass Whistle, the Copper Kettle, the Iron Needle, the Pewter Cup, "
        "the Spring Lock, the Tin Bird and 1 more."
    )
    assert said["what do the Lampwrights own"] == "The Lampwrights have the Green Lamp and the Reed Flask."
    assert said["what did Perrin Wexley found"] == "Perrin Wexley founded the Lampwrights."
    assert said["who does Perrin Wexley work for"] == (
        "Perrin Wexley is a member of the Lampwrights and the Mire Company."
    )
    assert (
        said["who does Hob Lantry answer to"]
        == "Nothing the table knows answers “who does Hob Lantry answer to?”."
    )


def test_ties_kept_for_the_gm_read_to_a_player_as_none_written(cli: CliRunner, tmp_path: Path) -> None:
    """Hob Lantry's lens, Sorrel Vane's company and groups are all the GM's: a player reads, word for word, what
    Dobbe Fairweather, who holds, founded and serves nothing written, reads."""
    asked = [
        "what does Dobbe Fairweather have",
        "what did Dobbe Fairweather found",
        "who does Dobbe Fairweather serve?",
        "what does Hob Lantry have",
        "what did Sorrel Vane found",
        "who does Sorrel Vane serve?",
        "what has Dobbe Fairweather forged?",
        "who does Perrin Wexley work for",
    ]
    player = ask(cli, tmp_path, asked)
    for hidden, none in (
        ("what does Hob Lantry have", "what does Dobbe Fairweather have"),
        ("what did Sorrel Vane found", "what did Dobbe Fairweather found"),
        ("who does Sorrel Vane serve?", "who does Dobbe Fairweather serve?"),
    ):
        name = hidden.split(" ")[2:4]
        assert player[hidden] == player[none].replace("Dobbe Fairweather", " ".join(name)), player
        assert player[none].startswith("Nothing the table knows"), player[none]
    assert not any("Mist Lens" in a or "Bone Comb" in a or "Stilt Guard" in a for a in player.values()), (
        player
    )
    gm = ask(cli, tmp_path, asked, gm=True)
    assert gm["what does Hob Lantry have"] == "Hob Lantry has the Mist Lens."
    assert gm["what did Sorrel Vane found"] == "Sorrel Vane founded the Mire Company."
    assert (
        gm["who does Sorrel Vane serve?"]
        == "Sorrel Vane is a member of the Lampwrights and the Mire Company."
    )
    assert gm["what has Dobbe Fairweather forged?"].endswith("the Spring Lock and 2 more.")
    assert gm["who does Perrin Wexley work for"] == (
        "Perrin Wexley is a member of the Lampwrights, the Mire Company and the Stilt Guard."
    )
