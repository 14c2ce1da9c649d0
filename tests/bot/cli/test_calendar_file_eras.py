"""A calendar file given to `lorekeeper ingest` with the world's files defines its eras for that import: the other
files' dates name them with no timeline repeating them, and an era the calendar file marks `visibility: gm_only`
stays the GM's (a world of our own, Emberlow)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "emberlow"
CALENDAR = """eras:
  - {name: The Lamp Years, abbreviation: LY, start: 1, end: 499}
  - {name: The Hollow Reign, abbreviation: HR, start: 500, visibility: gm_only}
months: [Thaw, Sowing, Reaping, Frost]
today: 3 Sowing, 490 LY
"""
FOLK = """characters:
  - name: Brisa Vell
    born: 3 Thaw, 480 LY
  - name: Odo Vell
    born: 2 Reaping, 510 HR
"""
CHRONICLE = """kind: timeline
events:
  - name: Lighting of the Lamps
    date: 1 Thaw, 12 LY
  - name: Quiet Crowning
    date: 4 Frost, 500 HR
"""


def _write(folder: Path, files: dict[str, str]) -> list[str]:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in files]


def _ingest(runner: CliRunner, paths: list[str]) -> str:
    result = runner.invoke(app, ["ingest", *paths, "-c", CAMPAIGN])
    return result.output


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    world = {"calendar.yaml": CALENDAR, "folk.yaml": FOLK, "chronicle.yaml": CHRONICLE}
    said = _ingest(runner, _write(tmp_path / "world", world))
    assert "problem" not in said and "wrote 2 eras, 2 events and 2 people" in said, said
    return runner


def test_the_calendar_file_s_eras_serve_the_dates_of_the_other_files(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(
        cli,
        tmp_path,
        CAMPAIGN,
        ["when was Odo Vell born?", "when was Brisa Vell born?"],
        gm=True,
        citations=False,
    )
    assert (
        gm["when was Odo Vell born?"] == "Odo Vell is alive, born on 2 Reaping, year 510 of the Hollow Reign."
    )
    assert (
        gm["when was Brisa Vell born?"] == "Brisa Vell is alive, born on 3 Thaw, year 480 of the Lamp Years."
    )
    listed = cli.invoke(app, ["canon", "list", "-c", CAMPAIGN, "--kind", "eras", "--as", "gm"]).output
    assert "Eras (2): The Hollow Reign [gm only], The Lamp Years" in listed, listed


def test_an_era_the_calendar_file_keeps_for_the_gm_stays_hidden_from_players(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask_world(
        cli,
        tmp_path,
        CAMPAIGN,
        [
            "when was Odo Vell born?",
            "when was the Quiet Crowning?",
            "what is the Hollow Reign?",
            "what is the Tin Crown?",
        ],
        citations=False,
    )
    assert player["when was Odo Vell born?"] == "Odo Vell is alive; the date of birth is not known.", player
    assert "Hollow" not in player["when was the Quiet Crowning?"], player
    # Asked by its name, the era reads as a name nobody ever wrote.
    assert player["what is the Hollow Reign?"] == player["what is the Tin Crown?"].replace(
        "Tin Crown", "Hollow Reign"
    )
    calendar = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN]).output
    assert "Lamp Years" in calendar and "Hollow" not in calendar and "HR" not in calendar, calendar
    listed = cli.invoke(app, ["canon", "list", "-c", CAMPAIGN]).output
    assert "Eras (1): The Lamp Years" in listed and "Hollow" not in listed, listed


def test_the_same_files_again_write_nothing(cli: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "world"
    again = _ingest(cli, [str(folder / n) for n in ("calendar.yaml", "folk.yaml", "chronicle.yaml")])
    assert "nothing written" in again and "problem" not in again, again


def test_a_calendar_era_a_timeline_of_the_import_defines_is_the_timeline_s(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    chronicle = (
        "kind: timeline\neras:\n  - name: The Lamp Years\n    abbreviation: LY\n    start: 1\n    end: 499\n"
    )
    said = _ingest(
        runner, _write(tmp_path / "w", {"calendar.yaml": CALENDAR, "folk.yaml": FOLK, "c.yaml": chronicle})
    )
    assert "problem" not in said and "wrote 2 eras" in said, said


def test_a_calendar_era_s_bad_visibility_is_refused_at_its_line(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    broken = CALENDAR.replace("visibility: gm_only", "visibility: secret")
    said = _ingest(runner, _write(tmp_path / "w", {"calendar.yaml": broken, "folk.yaml": FOLK}))
    assert "calendar.yaml: line 3, column" in said and '"secret"' in said, said
    assert "nothing written" in said, said
    shown = runner.invoke(app, ["canon", "calendar", "-c", CAMPAIGN]).output
    assert "Lamp Years" not in shown, shown  # the calendar is put back as it was: the world was not imported
