"""`lorekeeper canon calendar` and dates typed in the calendar's words on the command line."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli.main import app
from tests.bot.cli.test_canon import CAMPAIGN, cli, run
from tests.conftest import sql_run_below

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/services/test_canon_service.py"
)

__all__ = ["cli"]

CALENDAR = """\
eras:
  - {name: The Tidewater Age, abbreviation: TW, start: 0}
months:
  - {name: Frostmoon, days: 30}
  - {name: Hearthmoon, days: 31}
"""


def test_the_calendar_is_set_read_and_written_back_in_its_words(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("months: [Frostmoon]\nseasons: [{name: spring, months: [Greenmoon]}]\n", encoding="utf-8")
    refused = run(cli, "canon", "calendar", "--set", str(bad), code=1)
    assert (
        "The season “spring” names “Greenmoon”, which is not one of the calendar's months." in refused.stderr
    )
    assert run(cli, "canon", "calendar", "--as", "gm")["block"] == ""  # nothing stored

    good = tmp_path / "calendar.yaml"
    good.write_text(CALENDAR, encoding="utf-8")
    shown = cli.invoke(app, ["canon", "calendar", "--campaign", CAMPAIGN, "--set", str(good)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(
        "The calendar is set.\nThis campaign's era is the Tidewater Age (TW, years 0"
    )

    read = run(cli, "canon", "calendar", "--read", "the 3rd of Frostmoon, 320 TW")
    assert read["date"] == "tidewater_age.year_320.month_1.day_3"
    assert read["words"] == "3 Frostmoon, year 320 of the Tidewater Age"
    wrong = run(cli, "canon", "calendar", "--read", "the 31st of Frostmoon, 320", code=1)
    assert wrong.stderr.strip() == (
        "Frostmoon has 30 days, so there is no 31st of Frostmoon. "
        "Did you mean “30 Frostmoon, year 320 of the Tidewater Age”?"
    )

    run(cli, "canon", "add", "entity", "Aldren Vale", "NPC")
    added = run(cli, "canon", "add", "fact", "Aldren Vale", "title", "Warden", "--when", "17 Hearthmoon, 320")
    assert added["written"][0]["content"]["when"] == "17 Hearthmoon, year 320 of the Tidewater Age"
    card = run(cli, "canon", "entity", "Aldren Vale", "--as-of", "year 330", as_json=False)
    assert "as of year 330 of the Tidewater Age" in card.stdout, card.stdout
    assert "17 Hearthmoon, year 320 of the Tidewater Age" in card.stdout, card.stdout
    assert "tidewater_age" not in card.stdout

    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "state", "Corvan Marrow", "dead", "--when", "year 352")
    relate = [
        "canon",
        "add",
        "relationship",
        "Corvan Marrow",
        "ally of",
        "Aldren Vale",
        "--since",
        "year 360",
    ]
    acted = cli.invoke(app, [*relate, "--campaign", CAMPAIGN])
    assert acted.exit_code != 0, acted.output  # written, with the conflict recorded
    assert "acts after dying (year 352 of the Tidewater Age)" in acted.stdout, acted.stdout
    checked = cli.invoke(app, ["canon", "check", "--campaign", CAMPAIGN])
    assert checked.exit_code == 1 and "year 360 of the Tidewater Age" in checked.stdout, checked.stdout
    assert "tidewater_age" not in checked.stdout

    cleared = run(cli, "canon", "calendar", "--clear")
    assert cleared["block"] == "" and "Frostmoon" not in cleared["sentences"]
