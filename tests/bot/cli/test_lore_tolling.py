"""What a GM who wrote a world from the docs alone found the YAML format could not say, imported and read back
through `lorekeeper` on a small world of our own (tests/fixtures/tolling): items (bells, a bone flute) with their
makers, holders and places; aliases on a creature, a saint and an event, one of each kept for the GM; an era
with two abbreviations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "tolling"
CAMPAIGN = "harl"
FILES = ("folk", "chronicle", "items")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


def card(cli: CliRunner, name: str, *, gm: bool = False) -> str:
    """Return an entity's card as the command line prints it."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return re.sub(r"\(items\.yaml, line \d+\)", "(the file)", result.output)


def test_an_item_reads_with_its_maker_holder_place_and_state(cli: CliRunner) -> None:
    bells = card(cli, "The Seven Bells")  # found by its alias
    for line in (
        "The Tolling Bells (Item)",
        "Also known as: The Seven Bells",
        "State: The Tolling Bells are intact",
        "The Tolling Bells are in Harl",
        "Ansel Reed made the Tolling Bells",
        "The Bellwardens have the Tolling Bells (since year 40 of the Age of Tolling)",
        "The Tolling Bells were made on 3 Bloom, year 12 of the Age of Tolling",
        "The Tolling Bells' made of: bronze, silver",
        "The Tolling Bells' type: seven bronze bells",
    ):
        assert line in bells, bells
    assert "Piper's Bane" not in bells and "age_of_tolling" not in bells
    assert "Piper's Bane" in card(cli, "The Tolling Bells", gm=True)


def test_an_items_hidden_holder_and_place_never_reach_a_player(cli: CliRunner, tmp_path: Path) -> None:
    flute = card(cli, "The Bone Flute")
    assert "State: The Bone Flute is missing" in flute  # written `status: lost`
    assert "The Piper made the Bone Flute" in flute
    assert "Hollow Hill" not in flute and "has the Bone Flute" not in flute and "gm notes" not in flute
    gm = card(cli, "The Bone Flute", gm=True)
    assert (
        "[gm only] The Piper has the Bone Flute" in gm
        and "[gm only] The Bone Flute is in the Hollow Hill" in gm
    )
    asked = [
        "who owns the bone flute",
        "where is the bone flute",
        "what is the bone flute",
        "who holds the tolling bells",
        "who has the Tolling Bells?",
        "who's got the bone flute",
        "who has the bone flute now",
        "who made the tolling bells?",
        "the tolling bells was made by whom",
        "where are the tolling bells",
    ]
    player = ask(cli, tmp_path, asked)
    assert player["who owns the bone flute"] == "Nothing the table knows says who owns the bone flute."
    assert player["where is the bone flute"] == "The Bone Flute is missing."
    assert player["what is the bone flute"].startswith(
        "The Bone Flute is the Piper's flute, carved from a giant's"
    )
    assert player["who holds the tolling bells"] == "The Bellwardens have the Tolling Bells."
    assert player["who has the Tolling Bells?"] == "The Bellwardens have the Tolling Bells."
    # The holder kept for the GM reads as no holder at all: never the description, never the Piper.
    for question in ("who's got the bone flute", "who has the bone flute now"):
        assert player[question] == "Nothing the table knows says who has the Bone Flute.", player[question]
    made = "Ansel Reed made the Tolling Bells on 3 Bloom, year 12 of the Age of Tolling."
    assert player["who made the tolling bells?"] == player["the tolling bells was made by whom"] == made
    assert player["where are the tolling bells"] == "The Tolling Bells are in Harl."
    assert not any("Hollow Hill" in said or "still has" in said for said in player.values()), player
    told = ask(cli, tmp_path, asked, gm=True)
    assert told["who owns the bone flute"] == "The Piper has the Bone Flute."
    assert (
        told["who's got the bone flute"]
        == told["who has the bone flute now"]
        == "The Piper has the Bone Flute."
    )
    assert "The Bone Flute is in the Hollow Hill." in told["where is the bone flute"]


ALIASES = ["who is the gnawer", "who is the quiet saint", "what was the ringing"]
SECRET = ["who is the piper's hound", "who is the drowned bell", "what was the piper's night"]


def test_a_creature_a_saint_and_an_event_are_found_by_their_aliases_one_kept_for_the_gm(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask(cli, tmp_path, [*ALIASES, *SECRET])
    assert player["who is the gnawer"].startswith(
        "The Grey Rat-King, called the Gnawer, is a knot of grey rats"
    )
    assert (
        player["who is the quiet saint"]
        == "Saint Ottilie, called the Quiet Saint, is the saint of bells and hours."
    )
    assert player["what was the ringing"].startswith("The Great Ringing took place on 2 Frost, year 40")
    for question in SECRET:
        assert player[question].startswith("Nothing the table knows says"), (question, player[question])
    gm = ask(cli, tmp_path, SECRET, gm=True)
    # The GM asking by a secret name is told whose it is, then what canon says of its bearer.
    assert gm["who is the piper's hound"].startswith(
        "The Piper's Hound is the Grey Rat-King's secret name. The Grey Rat-King is a knot of grey rats"
    )
    assert gm["who is the drowned bell"] == (
        "The Drowned Bell is Saint Ottilie's secret name. Saint Ottilie is the saint of bells and hours."
    )
    assert gm["what was the piper's night"].startswith(
        "The Piper's Night is the Great Ringing's secret name. The Great Ringing took place on 2 Frost"
    )
    assert "[gm only] Saint Ottilie's secret aliases: The Drowned Bell" in card(cli, "Saint Ottilie", gm=True)
    assert "Drowned Bell" not in card(cli, "Saint Ottilie")


def test_the_calendar_names_every_abbreviation_of_an_era(cli: CliRunner) -> None:
    shown = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN])
    assert shown.exit_code == 0, shown.output
    assert "This campaign's era is the Age of Tolling (AT, Tolling, years 1 onwards)." in shown.output


def _ingest(cli: CliRunner, path: Path, *more: str) -> tuple[int, dict[str, object]]:
    result = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN, "--json", *more])
    return result.exit_code, json.loads(result.stdout)["yaml"][0]


def test_a_bad_item_is_refused_at_its_lines_and_nothing_is_written(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "more_items.yaml"
    bad.write_text(
        "items:\n  - name: The Iron Key\n    held_bye: Ansel Reed\n  - name: The Glass Eye\n"
        "    made: 3 Bloomish, 12 AT\n    status: shattered\n  - name: The Tin Cup\n    held_by: Nobody Known\n",
        encoding="utf-8",
    )
    code, report = _ingest(cli, bad)
    assert code == 1 and report["status"] == "failed"
    said = [(e["line"], e["message"]) for e in report["errors"]]  # type: ignore[attr-defined]
    assert said[0][0] == 3 and 'unknown field "held_bye" (did you mean "held_by"?)' in said[0][1]
    assert (
        said[1][0] == 5 and "“Bloomish” is not a month of this calendar; the nearest is Bloom" in said[1][1]
    )
    assert (
        said[2][0] == 6
        and '"status" must be one of: intact, damaged, destroyed, missing, lost, cursed' in said[2][1]
    )
    bad.write_text("items:\n  - name: The Tin Cup\n    held_by: Nobody Known\n", encoding="utf-8")
    code, report = _ingest(cli, bad)
    (error,) = report["errors"]  # type: ignore[misc]
    assert code == 1 and error["line"] == 3 and "“Nobody Known”, which is no entry" in error["message"]
    assert cli.invoke(app, ["canon", "entity", "The Tin Cup", "-c", CAMPAIGN]).exit_code == 1


def test_an_item_imported_again_changes_only_what_changed_and_deletes_nothing(
    cli: CliRunner, tmp_path: Path
) -> None:
    (tmp_path / "tolling").mkdir()
    items = (
        tmp_path / "tolling" / "items.yaml"
    )  # known by its folder and name, as the world's import named it
    text = (WORLD / "items.yaml").read_text(encoding="utf-8")
    items.write_text(text, encoding="utf-8")
    code, report = _ingest(cli, items)
    assert code == 0 and report["status"] == "unchanged", report
    items.write_text(text.replace("status: intact", "status: destroyed"), encoding="utf-8")
    code, report = _ingest(cli, items)
    assert report["status"] == "confirm", report  # a changed state retcons the old one: the GM confirms first
    code, report = _ingest(cli, items, "--replace")
    assert code == 0 and report["status"] == "ingested", report
    assert report["statements"]["retconned"] == 1 and report["statements"]["changed"] == 1  # type: ignore[index]
    bells = card(cli, "The Tolling Bells")
    assert "State: The Tolling Bells are destroyed" in bells and "Ansel Reed made the Tolling Bells" in bells
