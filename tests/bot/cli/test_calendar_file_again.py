"""A calendar file imported again, changed, through `lorekeeper ingest` (a world of our own, the Marrow Reach): its
eras are the campaign's eras, so an era renamed (with its key), moved or made the GM's is changed in canon and in
the calendar together; an era dropped while canon dates something in it, or a calendar refused, is refused at its
line, and then nothing is written: the calendar and canon stay as they were. On SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "marrow"
CALENDAR = """\
kind: calendar
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1, end: 600}
  - {name: The Salt Age, abbreviation: SA, start: 601}
months: [Thawing, Greening, Sunfall, Frostmere]
"""
EVENTS = """\
kind: timeline
events:
  - name: Siege of Osk
    date: 3 Greening, 450 RA
  - name: Flood of Harl
    date: 620 SA
"""
ASKED = ["when was the Siege of Osk?", "when was the Flood of Harl?"]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Marrow Reach imported: its calendar file, and events dated in it."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    (tmp_path / "calendar.yaml").write_text(CALENDAR, encoding="utf-8")
    (tmp_path / "events.yaml").write_text(EVENTS, encoding="utf-8")
    result = runner.invoke(app, ["ingest", "calendar.yaml", "events.yaml", "-c", CAMPAIGN])
    assert result.exit_code == 0 and "calendar set from calendar.yaml" in result.output, result.output
    return runner


def _again(cli: CliRunner, tmp_path: Path, text: str, *more: str) -> str:
    (tmp_path / "calendar.yaml").write_text(text, encoding="utf-8")
    return str(cli.invoke(app, ["ingest", "calendar.yaml", "-c", CAMPAIGN, *more]).output)


def _calendar(cli: CliRunner, *, gm: bool = False) -> str:
    return str(cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])]).output)


def test_an_era_moved_in_the_calendar_file_moves_in_canon(cli: CliRunner, tmp_path: Path) -> None:
    moved = CALENDAR.replace("end: 600", "end: 500").replace("start: 601", "start: 501")
    asked = _again(cli, tmp_path, moved)  # it retcons the old years: asked first, nothing written yet
    assert "Nothing was written: import again with --replace" in asked, asked
    assert "the Reed Age (RA, years 1–600)" in _calendar(cli)
    done = _again(cli, tmp_path, moved, "--replace")
    assert "calendar set from calendar.yaml" in done and "problem" not in done, done
    assert "the Reed Age (RA, years 1–500) and the Salt Age (SA, years 501 onwards)" in _calendar(cli)
    said = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert said[ASKED[0]] == "The Siege of Osk took place on 3 Greening, year 450 of the Reed Age."


def test_an_era_made_the_gms_is_no_players(cli: CliRunner, tmp_path: Path) -> None:
    hidden = CALENDAR.replace("start: 601}", "start: 601, visibility: gm_only}")
    done = _again(cli, tmp_path, hidden, "--replace")
    assert "calendar set from calendar.yaml" in done and "problem" not in done, done
    assert "Salt" not in _calendar(cli) and "the Salt Age (SA, years 601 onwards, GM only)" in _calendar(
        cli, gm=True
    )
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert "Salt" not in player[ASKED[1]] and player[ASKED[1]].startswith("Nothing the table knows"), player
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False, gm=True)
    assert gm[ASKED[1]] == "The Flood of Harl took place in year 620 of the Salt Age."


def test_an_era_renamed_with_its_key_keeps_what_is_dated_in_it(cli: CliRunner, tmp_path: Path) -> None:
    renamed = CALENDAR.replace("{name: The Reed Age,", "{name: The Age of Reeds, key: reed_age,")
    done = _again(cli, tmp_path, renamed, "--replace")
    assert "calendar set from calendar.yaml" in done and "problem" not in done, done
    assert "the Age of Reeds (RA, years 1–600)" in _calendar(cli) and "Reed Age" not in _calendar(cli)
    said = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert said[ASKED[0]] == "The Siege of Osk took place on 3 Greening, year 450 of the Age of Reeds."


def test_an_era_renamed_without_its_key_is_refused_at_its_line(cli: CliRunner, tmp_path: Path) -> None:
    renamed = CALENDAR.replace("{name: The Reed Age,", "{name: The Age of Reeds,")
    refused = _again(cli, tmp_path, renamed, "--replace").replace("\n  ", " ")
    assert (
        "calendar.yaml: line 2, column 1: The Reed Age, an era of this file's earlier import, is no longer among "
        "its eras, and canon dates the Siege of Osk in it: to rename it, write its new name with its key (`key: "
        "reed_age`)"
    ) in refused, refused
    assert "nothing was written" in refused
    assert "the Reed Age (RA, years 1–600)" in _calendar(cli) and "Reeds" not in _calendar(cli, gm=True)
    said = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert said[ASKED[0]] == "The Siege of Osk took place on 3 Greening, year 450 of the Reed Age."


def test_a_calendar_refused_writes_nothing_of_the_import(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "more.yaml").write_text(
        "kind: timeline\nevents:\n  - name: Fall of Tarrow\n    date: 480 RA\n"
    )
    (tmp_path / "calendar.yaml").write_text(
        CALENDAR.replace("end: 600", "end: 500") + "seasons: [{name: wet, months: [Mudmonth]}]\n",
        encoding="utf-8",
    )
    refused = cli.invoke(app, ["ingest", "calendar.yaml", "more.yaml", "-c", CAMPAIGN, "--replace"])
    said = refused.output.replace("\n  ", " ")
    assert refused.exit_code == 1
    assert "calendar.yaml: line 6, column 18: The season “wet” names “Mudmonth”" in said, said
    assert "The other file of this import, more.yaml, was not imported either." in said, said
    assert "the Reed Age (RA, years 1–600)" in _calendar(cli)  # neither the calendar nor its eras changed
    gone = cli.invoke(app, ["canon", "entity", "Fall of Tarrow", "-c", CAMPAIGN])
    assert gone.exit_code == 1


def test_a_calendar_file_that_lists_no_eras_any_more(cli: CliRunner, tmp_path: Path) -> None:
    months = "kind: calendar\nmonths: [Thawing, Greening, Sunfall, Frostmere]\n"
    refused = _again(cli, tmp_path, months, "--replace").replace("\n  ", " ")
    assert "calendar.yaml: line 1, column 1: The Reed Age, an era of this file's earlier import" in refused, (
        refused
    )
    assert "canon dates the Siege of Osk in it" in refused and "nothing was written" in refused
    assert "the Reed Age (RA, years 1–600) and the Salt Age" in _calendar(cli)


def test_an_era_nothing_is_dated_in_leaves_with_its_calendar_file(cli: CliRunner, tmp_path: Path) -> None:
    assert cli.invoke(app, ["campaign", "create", "empty"]).exit_code == 0
    folder = tmp_path / "empty"
    folder.mkdir()
    calendar = folder / "calendar.yaml"
    calendar.write_text(
        "kind: calendar\neras:\n  - {name: The Ash Years, abbreviation: AY, start: 1}\nmonths: [Ash]\n"
    )
    assert "calendar set" in cli.invoke(app, ["ingest", str(calendar), "-c", "empty"]).output
    calendar.write_text("kind: calendar\nmonths: [Ash]\n")
    done = cli.invoke(app, ["ingest", str(calendar), "-c", "empty", "--replace"])
    assert done.exit_code == 0 and "problem" not in done.output, done.output
    shown = cli.invoke(app, ["canon", "calendar", "-c", "empty", "--as", "gm"]).output
    assert "has no eras" in shown and "Ash Years" not in shown, shown


def test_a_word_naming_two_things_is_refused_where_it_is_said_again(cli: CliRunner, tmp_path: Path) -> None:
    twice = CALENDAR.replace("abbreviation: SA", "abbreviation: RA")
    refused = _again(cli, tmp_path, twice, "--replace").replace("\n  ", " ")
    assert "calendar.yaml: line 4, column 40: “ra” would name two things in the calendar" in refused, refused
    assert "the Salt Age (SA, years 601 onwards)" in _calendar(cli)
