"""Who has a thing and who made it, asked through `lorekeeper lore` of a second small world of our own (a kingdom
with a sword, twin blades, a crown and a lantern), so that the forms fit no one fixture: a holder and a maker
named, a name of many read with "have" and "are", and a holder and a maker kept for the GM read to a player as a
thing with none written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_written

CAMPAIGN = "varrow"
FILES = {
    "calendar": """
eras:
  - {name: The Reign of Crowns, abbreviation: RC, start: 1}
months: [Snowmelt, Greening, Harvest, Emberfall]
today: 1 Harvest, 310 RC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reign of Crowns, abbreviation: RC, start: 1}
events: []
""",
    "folk": """
characters:
  - name: Hedda Stonehand
    description: A smith of Varrowmere with a scar across her hand.
    home: Varrowmere
  - name: King Oswy
    description: The old king of Varrowmere.
  - name: The Hollow Smith
    description: A smith no one has seen.
---
factions:
  - name: The Kingswardens
    seat: Varrowmere
    description: The king's sworn guard.
---
locations:
  - name: Varrowmere
    type: kingdom
    description: A kingdom of hills and slow rivers.
""",
    "items": """
kind: items
items:
  - name: The Sword of Ash
    description: A grey blade that never dulls.
    made: 5 Emberfall, 201 RC
    made_by: Hedda Stonehand
    held_by: King Oswy
    location: Varrowmere
  - name: The Twin Blades
    description: Two short swords that are never parted.
    made_by: Hedda Stonehand
    held_by: The Kingswardens
    location: Varrowmere
  - name: The Iron Crown
    description: A crown of black iron, set with one red stone.
    made_by: The Hollow Smith
    held_by: King Oswy
    gm_only: [made_by, held_by]
  - name: The Glass Lantern
    description: A lantern of green glass that no wind puts out.
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the kingdom imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "varrow", FILES)


ask = asker(CAMPAIGN)


def test_who_has_and_who_made_a_thing_are_its_holder_and_maker(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(
        cli,
        tmp_path,
        [
            "who has the sword of ash",
            "who's got the Twin Blades now?",
            "who forged the sword of ash",
            "the sword of ash was made by whom",
            "who crafted the twin blades",
            "where are the twin blades",
            "who has a scar",
        ],
    )
    assert said["who has the sword of ash"] == "King Oswy has the Sword of Ash."
    assert said["who's got the Twin Blades now?"] == "The Kingswardens have the Twin Blades."
    made = "Hedda Stonehand made the Sword of Ash on 5 Emberfall, year 201 of the Reign of Crowns."
    assert said["who forged the sword of ash"] == said["the sword of ash was made by whom"] == made
    assert said["who crafted the twin blades"] == "Hedda Stonehand made the Twin Blades."
    assert said["where are the twin blades"] == "The Twin Blades are in Varrowmere."
    # "has" of no thing named whole is left to the other forms: never read as a holding.
    scar = said["who has a scar"]
    assert "says who has" not in scar and " has the " not in scar and "Oswy" not in scar, scar


def test_a_holder_and_a_maker_kept_for_the_gm_read_as_none_written(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who has the iron crown",
        "who made the iron crown",
        "who has the glass lantern",
        "who made the glass lantern",
    ]
    player = ask(cli, tmp_path, asked)
    for thing in ("Iron Crown", "Glass Lantern"):  # word for word as a thing with no holder and no maker
        assert player[f"who has the {thing.lower()}"] == f"Nothing the table knows says who has the {thing}."
        assert (
            player[f"who made the {thing.lower()}"] == f"Nothing the table knows says who made the {thing}."
        )
    assert not any("Oswy" in a or "Hollow Smith" in a for a in player.values()), player
    gm = ask(cli, tmp_path, asked, gm=True)
    assert gm["who has the iron crown"] == "King Oswy has the Iron Crown."
    assert gm["who made the iron crown"] == "The Hollow Smith made the Iron Crown."
    assert gm["who has the glass lantern"] == "Nothing the table knows says who has the Glass Lantern."
