"""One era name, one era: a calendar a GM sets and a timeline they import both write an era by its name ("The
Tidewater Age"), in either order, and dates typed in its words find the one era. Where the two give the same name
two different ids, the second is refused with a sentence saying what to write. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget

CAMPAIGN = "tidewater"

CALENDAR = "eras:\n  - {name: The Tidewater Age, abbreviation: TW}\nmonths: [Rainmoon, Drymoon]\n"
KEYED_CALENDAR = "eras:\n  - {key: tidewater_age, name: The Tidewater Age}\n"
# The era named only: no `era:` line, so the name gives its id.
TIMELINE = "kind: timeline\neras:\n  - name: The Tidewater Age\n    start: 1\n"
KEYED_TIMELINE = "kind: timeline\neras:\n  - era: tides\n    name: The Tidewater Age\n    start: 1\n"
PEOPLE = (
    "characters:\n  - name: Abel Rook\n    born: year 412 of the Tidewater Age\n"
    "    description: A ferryman of the salt flats.\n"
)
EVENTS = (
    "kind: timeline\nevents:\n  - name: Flooding of Low Quay\n    era: The Tidewater Age\n    year: 430\n"
    "    participants: [Abel Rook]\n"
)


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    return runner


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def set_calendar(cli: CliRunner, tmp_path: Path, text: str) -> str:
    result = cli.invoke(
        app, ["canon", "calendar", "-c", CAMPAIGN, "--set", write(tmp_path, "calendar", text)]
    )
    return result.output


def ingest(cli: CliRunner, tmp_path: Path, **files: str) -> str:
    paths = [write(tmp_path, name, text) for name, text in files.items()]
    return cli.invoke(app, ["ingest", *paths, "-c", CAMPAIGN]).output


def answer(cli: CliRunner, tmp_path: Path, question: str) -> str:
    file = tmp_path / "q.txt"
    file.write_text(question + "\n", encoding="utf-8")
    result = cli.invoke(app, ["lore", "-c", CAMPAIGN, "--queries", str(file)])
    line = next(x for x in result.output.splitlines() if x.startswith("A: "))
    return line[3:].rsplit(" [", 1)[0]


def eras(cli: CliRunner) -> str:
    return cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN]).output.splitlines()[0]


BORN = "Abel Rook is a ferryman of the salt flats. Abel Rook is alive, born in year 412 of the Tidewater Age."


def test_calendar_first_then_a_timeline_naming_the_era_gives_one_era(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(cli, tmp_path, CALENDAR)
    report = ingest(cli, tmp_path, timeline=TIMELINE, people=PEOPLE, events=EVENTS)
    assert "problem" not in report, report
    assert eras(cli) == "This campaign's era is the Tidewater Age (TW, years 1 onwards)."
    assert answer(cli, tmp_path, "who is abel rook") == BORN
    assert answer(cli, tmp_path, "when was the flooding of low quay").endswith(
        "in year 430 of the Tidewater Age."
    )


def test_timeline_first_then_the_calendar_naming_the_era_gives_one_era(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert "problem" not in ingest(cli, tmp_path, timeline=TIMELINE)
    set_calendar(cli, tmp_path, CALENDAR)
    assert eras(cli) == "This campaign's era is the Tidewater Age (TW, years 1 onwards)."
    assert "problem" not in ingest(cli, tmp_path, people=PEOPLE)
    assert answer(cli, tmp_path, "who is abel rook") == BORN


def test_a_keyed_calendar_gives_its_key_to_the_era_the_timeline_names(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(cli, tmp_path, KEYED_CALENDAR)
    assert "problem" not in ingest(cli, tmp_path, timeline=TIMELINE, people=PEOPLE)
    assert eras(cli) == "This campaign's era is the Tidewater Age (years 1 onwards)."
    assert answer(cli, tmp_path, "who is abel rook") == BORN


def test_one_name_given_two_ids_is_refused_whichever_comes_first(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(cli, tmp_path, KEYED_CALENDAR)
    refused = ingest(cli, tmp_path, timeline=KEYED_TIMELINE)
    assert "nothing written" in refused
    assert (
        '"era" is tides, but the campaign calendar names its era “The Tidewater Age” tidewater_age; write '
        '"era: tidewater_age"'
    ) in refused


def test_a_calendar_key_unlike_the_timeline_id_of_the_same_name_is_refused(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert "problem" not in ingest(cli, tmp_path, timeline=KEYED_TIMELINE)
    refused = set_calendar(cli, tmp_path, KEYED_CALENDAR)
    assert " ".join(refused.split()) == (
        "The calendar gives the era “The Tidewater Age” the key tidewater_age, but canon already has an era "
        "of that name under the key tides: one name is one era. Write key: tides (or leave the key out: the "
        "name finds the era), or give the calendar's era another name."
    )
    assert eras(cli) == "This campaign's era is the Tidewater Age (years 1 onwards)."


def test_an_era_with_an_id_of_its_own_is_still_found_by_its_name(cli: CliRunner, tmp_path: Path) -> None:
    timeline = (
        "kind: timeline\neras:\n  - era: the_tidewater_age\n    name: The Tidewater Age\n    start: 1\n"
        "  - era: low_tides\n    name: The Low Tides\n    parent_era: The Tidewater Age\n    start: 400\n"
        "events:\n  - name: Flooding of Low Quay\n    era: The Tidewater Age\n    year: 430\n"
    )
    report = ingest(cli, tmp_path, timeline=timeline)
    assert "problem" not in report, report
    assert answer(cli, tmp_path, "when was the flooding of low quay") == (
        "The Flooding of Low Quay took place in year 430 of the Tidewater Age."
    )
