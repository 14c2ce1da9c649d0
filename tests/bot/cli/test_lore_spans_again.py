"""One who led a faction, or held an item, twice with others between, asked through `lorekeeper lore` and read on
the card: each span is kept (a world of our own, the Lamplighters of Osk); a span kept for the GM reads to a player
as never written; two spans of one person that overlap are refused at the line of the second."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "osk"
FILES = {
    "calendar": """
eras:
  - {name: The Lamp Years, abbreviation: LY, start: 1}
months: [Ember, Ash, Cinder, Frost]
today: 1 Ash, 700 LY
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Lamp Years, abbreviation: LY, start: 1}
""",
    "folk": """
characters:
  - name: Idra Venn
    sex: female
  - name: Colm Tarrow
    sex: male
  - name: Sabe Orrin
    sex: female
""",
    "groups": """
factions:
  - name: The Lamplighters
    leader: Idra Venn
    leaders:
      - {name: Idra Venn, from: 600 LY, to: 620 LY}
      - {name: Colm Tarrow, from: 620 LY, to: 640 LY}
      - {name: Idra Venn, from: 640 LY}
  - name: The Wickmen
    leaders:
      - {name: Sabe Orrin, from: 500 LY, to: 520 LY}
      - {name: Colm Tarrow, from: 520 LY, to: 530 LY}
      - {name: Sabe Orrin, from: 530 LY, to: 560 LY, gm_only: true}  # secret
""",
    "things": """
kind: items
items:
  - name: The Osk Lamp
    holders:
      - {name: Sabe Orrin, from: 600 LY, to: 610 LY}
      - {name: Colm Tarrow, from: 610 LY, to: 650 LY}
      - {name: Sabe Orrin, from: 650 LY, to: 680 LY}
""",
}
LAMP = "of the Lamp Years"


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Osk imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "osk", FILES)


def test_one_who_led_twice_keeps_both_spans(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who led the Lamplighters in 610?",
        "who led the Lamplighters in 630?",
        "who led the Lamplighters in 650?",
        "who has led the Lamplighters?",
        "who led the Lamplighters after Colm Tarrow?",
        "how long did Idra Venn lead the Lamplighters?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said == {
        asked[0]: f"In year 610, Idra Venn led the Lamplighters (from year 600 to 620 {LAMP}).",
        asked[1]: f"In year 630, Colm Tarrow led the Lamplighters (from year 620 to 640 {LAMP}).",
        asked[2]: f"In year 650, Idra Venn led the Lamplighters (since year 640 {LAMP}).",
        asked[3]: (
            f"Idra Venn led the Lamplighters (from year 600 to 620 {LAMP}), then Colm Tarrow (from year 620 to 640 "
            f"{LAMP}), then Idra Venn (since year 640 {LAMP})."
        ),
        asked[4]: f"After Colm Tarrow, Idra Venn leads the Lamplighters (since year 640 {LAMP}).",
        asked[5]: (
            f"Idra Venn led the Lamplighters for 20 years, from year 600 to 620 {LAMP}; Idra Venn has led the "
            f"Lamplighters since year 640 {LAMP}."
        ),
    }
    card = cli.invoke(app, ["canon", "entity", "Idra Venn", "-c", CAMPAIGN, "--as", "gm"]).output
    assert (
        f"Idra Venn led the Lamplighters (from year 600 to 620 {LAMP}) — from osk/groups.yaml, line 5" in card
    )
    assert f"Idra Venn leads the Lamplighters (since year 640 {LAMP}) — from osk/groups.yaml, line 7" in card


def test_one_who_held_an_item_twice(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["who had the Osk Lamp in 660?", "who had the Osk Lamp in 605?", "who has held the Osk Lamp?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said == {
        asked[0]: f"In year 660, Sabe Orrin had the Osk Lamp (from year 650 to 680 {LAMP}).",
        asked[1]: f"In year 605, Sabe Orrin had the Osk Lamp (from year 600 to 610 {LAMP}).",
        asked[2]: (
            f"Sabe Orrin had the Osk Lamp (from year 600 to 610 {LAMP}), then Colm Tarrow (from year 610 to 650 "
            f"{LAMP}), then Sabe Orrin (from year 650 to 680 {LAMP})."
        ),
    }
    card = cli.invoke(app, ["canon", "entity", "The Osk Lamp", "-c", CAMPAIGN]).output
    assert card.count("Sabe Orrin had the Osk Lamp") == 2, card  # over by the story's date: in the past


def test_a_second_span_kept_for_the_gm(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who led the Wickmen in 540?",
        "who has led the Wickmen?",
        "who led the Wickmen after Colm Tarrow?",
    ]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False, gm=True)
    assert gm[asked[0]] == f"In year 540, Sabe Orrin led the Wickmen (from year 530 to 560 {LAMP})."
    public = import_written("osk-public", tmp_path / "public", public_written(FILES))
    assert player == ask_world(public, tmp_path, "osk-public", asked, citations=False)
    assert player[asked[0]] == "Nothing the table knows says who led the Wickmen in year 540."
    card = cli.invoke(app, ["canon", "entity", "The Wickmen", "-c", CAMPAIGN]).output
    assert card.count("Sabe Orrin led the Wickmen") == 1, card  # both spans over by the story's date
    gm_card = cli.invoke(app, ["canon", "entity", "The Wickmen", "-c", CAMPAIGN, "--as", "gm"]).output
    assert gm_card.count("Sabe Orrin led the Wickmen") == 2, gm_card


def test_the_same_file_again_changes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    again = cli.invoke(app, ["ingest", str(tmp_path / "osk" / "groups.yaml"), "-c", CAMPAIGN])
    assert again.exit_code == 0 and "problem" not in again.output and "retcon" not in again.output, (
        again.output
    )
    card = cli.invoke(app, ["canon", "entity", "The Lamplighters", "-c", CAMPAIGN]).output
    assert card.count("Idra Venn led the Lamplighters") == 1, card
    assert card.count("Idra Venn leads the Lamplighters") == 1, card


def test_spans_of_one_leader_that_overlap_are_refused(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "factions:\n  - name: The Tallow Guild\n    leaders:\n      - {name: Idra Venn, from: 600 LY, to: 640 LY}\n"
        "      - {name: Colm Tarrow, from: 640 LY, to: 650 LY}\n      - {name: Idra Venn, from: 630 LY}\n"
        "  - name: The Dimmers\n    leaders: [Idra Venn, Colm Tarrow, Idra Venn]\n",
        encoding="utf-8",
    )
    result = cli.invoke(app, ["ingest", str(bad), "-c", CAMPAIGN])
    said = result.output.replace("\n  ", " ")
    assert 'line 6, column 16: "leaders" names the same one twice for times that overlap' in said, said
    assert 'line 8, column 39: "leaders" lists "idra_venn" more than once' in said, said
    assert "nothing was written" in said and said.count("bad.yaml: line") == 2, said
