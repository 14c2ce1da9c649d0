"""A noble house that is a family tree and a faction at once, and a character's culture, asked through `lorekeeper
lore` of a small world of our own (House Quillon of Ferrow Hold): the tree carries the house's leader, seat,
allies and goals, its name goes where a faction's does (an event's participants and winner, a character's
faction, a league's members), and what the GM keeps reads for a player as if the file never said it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import load_lore_file
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "ferrow"
FILES = {
    "calendar": """
eras:
  - {name: The Reckoning of Fords, abbreviation: RF, start: 1}
months: [Thaw, Sowing, Reaping, Frost]
today: 1 Sowing, 590 RF
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reckoning of Fords, abbreviation: RF, start: 1}
events:
  - name: Siege of Ferrow
    year: 560
    participants:
      - House Quillon
      - The Tarn League
      - {name: Drossel Pike, gm_only: true}   # secret
    winner: House Quillon
""",
    "quillon": """
lineage: House Quillon
seat: Ferrow Hold
leader: Ansel Quillon
allies: [The Tarn League]
goals: [Keep the ford]
members:
  - name: Ansel Quillon
    sex: male
    born: 520
    culture: Tarnish
""",
    "folk": """
characters:
  - name: Wenna Dusk
    sex: female
    born: 540
    faction: House Quillon
    culture: Tarnish
  - name: Drossel Pike
    sex: male
    born: 530
    culture: Fenlander   # secret
    gm_only: [culture]   # secret
---
factions:
  - name: The Tarn League
    members: [House Quillon]
---
locations:
  - name: Ferrow Hold
---
cultures:
  - name: Tarnish
  - name: Fenlander
""",
}

QUESTIONS = [
    "who leads House Quillon?",
    "where is the seat of House Quillon?",
    "who are the allies of House Quillon?",
    "who took part in the Siege of Ferrow?",
    "who won the Siege of Ferrow?",
    "whom does Wenna Dusk serve?",
    "who is Drossel Pike?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with House Quillon's world imported, and its copy without the secrets."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", public_written(FILES))
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_house_written_as_its_tree_answers_as_a_faction(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert said["who leads House Quillon?"] == "Ansel Quillon leads House Quillon.", said
    assert said["where is the seat of House Quillon?"] == "Ferrow Hold is the seat of House Quillon.", said
    assert said["who are the allies of House Quillon?"] == "House Quillon's ally is the Tarn League.", said
    assert said["who won the Siege of Ferrow?"] == "At the Siege of Ferrow, the winner was House Quillon.", (
        said
    )
    assert said["who took part in the Siege of Ferrow?"] == (
        "House Quillon and the Tarn League took part in the Siege of Ferrow."
    ), said
    assert said["whom does Wenna Dusk serve?"] == "Wenna Dusk is a member of House Quillon and Tarnish.", said


def test_what_the_gm_keeps_reads_for_a_player_as_if_never_written(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = ask_world(cli, tmp_path, f"{CAMPAIGN}-public", QUESTIONS, citations=False)
    assert player == public
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert "Drossel Pike" in gm["who took part in the Siege of Ferrow?"], gm
    assert gm["who is Drossel Pike?"].startswith("Drossel Pike is a member of Fenlander."), gm
    assert "Fenlander" not in player["who is Drossel Pike?"], player


def test_the_same_world_again_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    world = tmp_path / CAMPAIGN
    files = [str(world / f"{name}.yaml") for name in FILES if name != "calendar"]
    again = cli.invoke(app, ["ingest", *files, "-c", CAMPAIGN])
    assert again.exit_code == 0 and "nothing written" in again.output, again.output


def test_a_faction_and_a_tree_of_one_name_say_how_to_write_the_house() -> None:
    text = "lineage: House Quillon\nmembers: []\n---\nfactions:\n  - name: House Quillon\n"
    result = load_lore_file(text, "houses.yaml")
    assert [str(p) for p in result.problems] == [
        'houses.yaml: line 5, column 11: duplicate id "house_quillon": already used for the Lineage at line 1, '
        "column 10; a house that is both a family and a faction is written once, as its family tree, with the "
        "faction's leader, seat, allies, rivals and goals beside its members"
    ]


def test_a_house_tree_says_what_a_faction_says_with_its_lines() -> None:
    result = load_lore_file(FILES["quillon"].lstrip() + "---\n" + FILES["folk"], "quillon.yaml")
    assert result.ok, result.problems
    edges = {(r.type, r.source_id, r.target_id, r.line) for r in result.relations}
    assert ("LEADS", "ansel_quillon", "house_quillon", 3) in edges
    assert ("SEAT_OF", "ferrow_hold", "house_quillon", 2) in edges
    assert ("ALLY_OF", "house_quillon", "the_tarn_league", 4) in edges
    assert ("MEMBER_OF", "wenna_dusk", "house_quillon", 17) in edges
    assert ("MEMBER_OF", "wenna_dusk", "tarnish", 18) in edges  # a character's culture, as a member's
    assert ("MEMBER_OF", "house_quillon", "the_tarn_league", 27) in edges


def test_a_house_tree_refuses_an_ally_that_is_a_rival_and_a_leader_that_is_a_place() -> None:
    text = (
        "lineage: House Quillon\nleader: Ferrow Hold\nallies: [Tarn]\nrivals: [Tarn]\nmembers: []\n"
        "---\nlocations:\n  - name: Ferrow Hold\n---\nfactions:\n  - name: Tarn\n"
    )
    problems = [str(p) for p in load_lore_file(text, "q.yaml").problems]
    assert any(
        p.startswith("q.yaml: line 4, column 10:") and "both as an ally and as a rival" in p for p in problems
    )
    assert any(
        p.startswith("q.yaml: line 2, column 9:") and "must name a Person or Deity" in p for p in problems
    )
