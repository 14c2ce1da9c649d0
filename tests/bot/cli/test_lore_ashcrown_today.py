"""Where the story stands, asked through `lorekeeper lore` on the Ashcrown world (tests/fixtures/ashcrown), when
its latest scene is dated in the GM-only Sunken Reign: a player reads word for word what a campaign with no date
for today reads, the era never named; the GM reads the scene's date. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.bot.cli.test_lore_ashcrown import CAMPAIGN, HIDDEN_TODAY, cli, set_calendar
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, scene_on

__all__ = ["cli"]

ASKED = ["how old is Edric", "what year is it", "what's the date today in game", "What era is it?"]
NO_AGE = "Edric Vale was born in year 2; canon holds no date for today to count an age from."
NO_TODAY = "Canon holds no date for today."


def test_a_scene_in_a_gm_only_era_is_no_date_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    before = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    scene_on(cli_env, CAMPAIGN, "sunken_reign.60.1.3", channel=7, title="Below the hill")
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    # Word for word the answers of the campaign before the scene: no age counted, no era named, nothing hinted.
    assert player == before
    assert player == {
        "how old is Edric": NO_AGE,
        **dict.fromkeys(ASKED[1:3], NO_TODAY),
        "What era is it?": NO_TODAY,
    }
    assert not any("Sunken" in answer or "60" in answer for answer in player.values())
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED, gm=True, citations=False)
    assert gm == {
        "how old is Edric": (
            "Edric Vale is about 58 years old, born in year 2; the story stands at 3 Emberly, year 60 of the "
            "Sunken Reign."
        ),
        **dict.fromkeys(ASKED[1:3], "Today is 3 Emberly, year 60 of the Sunken Reign."),
        "What era is it?": "The era is the Sunken Reign (SR): today is 3 Emberly, year 60 of the Sunken Reign.",
    }


def test_a_scene_in_a_seen_era_dates_the_story_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    scene_on(cli_env, CAMPAIGN, "after_the_crowning.20.1.3", channel=7, title="Below the hill")
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert player == {
        "how old is Edric": (
            "Edric Vale is about 18 years old, born in year 2; the story stands at 3 Emberly, year 20 of After the "
            "Crowning."
        ),
        **dict.fromkeys(ASKED[1:3], "Today is 3 Emberly, year 20 of After the Crowning."),
        "What era is it?": (
            "The era is After the Crowning (AC): today is 3 Emberly, year 20 of After the Crowning."
        ),
    }
    # The era still running has lasted up to the story's date.
    asked = ["how long did after the crowning last", "how long has AC lasted"]
    assert ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False) == dict.fromkeys(
        asked, "After the Crowning has lasted 11 years so far, since year 10."
    )


def test_a_later_scene_in_a_gm_only_era_hides_a_seen_today(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    # The calendar's today is in an era the player sees; the scene after it is in the GM-only one.
    set_calendar(
        cli, tmp_path, HIDDEN_TODAY.replace("year 60 of the Sunken Reign", "year 20 of After the Crowning")
    )
    scene_on(cli_env, CAMPAIGN, "sunken_reign.60.1.3", channel=7, title="Below the hill")
    asked = [*ASKED[:2], "how long has after the crowning lasted"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert player == {
        "how old is Edric": NO_AGE,
        "what year is it": NO_TODAY,
        # Counted to no today: the calendar's bounds alone, as in a campaign without one.
        "how long has after the crowning lasted": (
            "The calendar gives After the Crowning no end: it runs from year 10 on."
        ),
    }
