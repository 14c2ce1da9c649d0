"""How /lore answers questions about the calendar itself on the Ashcrown world (tests/fixtures/ashcrown): what an
era is, when it began or ended and how long it lasted, and what today is, in the calendar's words; a GM-only era
(the Sunken Reign, SR) is no era of a player's, asked by name or abbreviation, and a today in it no today of
theirs. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bot.cli.main import app
from tests.bot.cli.test_lore_ashcrown import (
    ARMOR_CLASS,
    CAMPAIGN,
    HIDDEN_TODAY,
    SHORT_REST,
    cli,
    set_calendar,
)
from tests.helpers.lore_worlds import ask_world

__all__ = ["cli"]

DAWN = "The Dawn Reckoning (DR) is an era of the calendar, from year 1 to year 9; After the Crowning followed it."
CROWNING = (
    "After the Crowning (AC) is an era of the calendar, from year 10 on; it followed the Dawn Reckoning."
)

BEGAN = "After the Crowning began in year 10, with the Crowning of Edric on 1 Emberly, year 10 of After the Crowning."

#: Question -> its whole answer, as a player asks in Ashcrown.
ERAS = {
    "what is the dawn reckoning": DAWN,
    "What is the Dawn Reckoning?": DAWN,
    "whats the dawn reckoning": DAWN,
    "what is DR": DAWN,
    "what does DR stand for": DAWN,
    "what is AC": CROWNING,
    "what is after the crowning": CROWNING,
    "when did the dawn reckoning end": (
        "The Dawn Reckoning ended in year 9; After the Crowning began with the Crowning of Edric on 1 Emberly, "
        "year 10 of After the Crowning."
    ),
    "when did the Dawn Reckoning begin?": "The Dawn Reckoning began in year 1.",
    "when did after the crowning begin": BEGAN,
    "when did AC start": BEGAN,
    "when did after the crowning end": "The calendar gives After the Crowning no end: it runs from year 10 on.",
    "how long did the dawn reckoning last": "The Dawn Reckoning lasted 9 years, from year 1 to year 9.",
    "when was the dawn reckoning": "The Dawn Reckoning ran from year 1 to year 9.",
    "how long did DR last?": "The Dawn Reckoning lasted 9 years, from year 1 to year 9.",
}
TODAY_ASKED = [
    "what year is it",
    "what's the date today",
    "whats the date",
    "wat year is it",
    "What era is it?",
]
NO_TODAY = "Canon holds no date for today."
SUNKEN = ["what is the sunken reign", "what is SR", "when did the sunken reign begin", "how long did SR last"]


def test_the_calendar_s_eras_are_answered_in_its_words(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask_world(cli, tmp_path, CAMPAIGN, list(ERAS), citations=False)
    assert {q: a for q, a in answers.items() if a != ERAS[q]} == {}


def test_today_is_the_calendar_s_today_or_none(cli: CliRunner, tmp_path: Path) -> None:
    assert ask_world(cli, tmp_path, CAMPAIGN, TODAY_ASKED, citations=False) == dict.fromkeys(
        TODAY_ASKED, NO_TODAY
    )
    set_calendar(
        cli, tmp_path, HIDDEN_TODAY.replace("year 60 of the Sunken Reign", "year 60 of After the Crowning")
    )
    answers = ask_world(cli, tmp_path, CAMPAIGN, TODAY_ASKED, citations=False)
    today = "Today is 3 Emberly, year 60 of After the Crowning."
    assert answers == {
        **dict.fromkeys(TODAY_ASKED[:4], today),
        "What era is it?": "The era is After the Crowning (AC): today is 3 Emberly, year 60 of After the Crowning.",
    }


def test_a_today_in_a_gm_only_era_is_no_today_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(cli, tmp_path, HIDDEN_TODAY)
    player = ask_world(cli, tmp_path, CAMPAIGN, TODAY_ASKED, citations=False)
    assert player == dict.fromkeys(TODAY_ASKED, NO_TODAY)
    gm = ask_world(cli, tmp_path, CAMPAIGN, TODAY_ASKED[:1], gm=True, citations=False)
    assert gm == {"what year is it": "Today is 3 Emberly, year 60 of the Sunken Reign."}


def test_a_gm_only_era_is_an_unknown_name_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, SUNKEN[:1] + SUNKEN[2:3], citations=False)
    unknown = ["what is the drowned reign", "when did the drowned reign begin"]
    nowhere = ask_world(cli, tmp_path, CAMPAIGN, unknown, citations=False)
    # Word for word what a name canon does not hold gets, the question aside.
    assert [a.replace("sunken", "drowned") for a in player.values()] == list(nowhere.values())
    assert not any("Sunken" in a or "50" in a for a in player.values())
    # "SR" is a short rest for a player, as in any campaign.
    assert ask_world(cli, tmp_path, CAMPAIGN, ["what is SR"], citations=False) == {"what is SR": SHORT_REST}
    gm = ask_world(cli, tmp_path, CAMPAIGN, SUNKEN, gm=True, citations=False)
    reign = (
        "The Sunken Reign (SR) is an era of the calendar, from year 50 on; it followed After the Crowning."
    )
    assert gm == {
        "what is the sunken reign": reign,
        "what is SR": reign,
        "when did the sunken reign begin": "The Sunken Reign began in year 50.",
        "how long did SR last": "The calendar gives the Sunken Reign no end: it runs from year 50 on.",
    }


def test_ac_stays_armor_class_where_the_gm_said_so(cli: CliRunner, tmp_path: Path) -> None:
    added = cli.invoke(app, ["glossary", "add", "AC", "armor class", "-c", CAMPAIGN])
    assert added.exit_code == 0, added.output
    answers = ask_world(
        cli, tmp_path, CAMPAIGN, ["what is AC", "what is after the crowning"], citations=False
    )
    assert answers == {"what is AC": ARMOR_CLASS, "what is after the crowning": CROWNING}


def test_the_months_and_a_two_part_question_of_today(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(
        cli, tmp_path, HIDDEN_TODAY.replace("year 60 of the Sunken Reign", "year 60 of After the Crowning")
    )
    asked = [
        "How many months does the Ashcrown year have?",
        "list the months",
        "how long is Highsun?",
        "What's today's date in the campaign, and what age are we in?",
    ]
    assert ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False) == {
        **dict.fromkeys(
            asked[:2], "The year has four months: Emberly, Rainmoot, Highsun and Max, each of 30 days."
        ),
        "how long is Highsun?": "Highsun has 30 days.",
        asked[3]: "The era is After the Crowning (AC): today is 3 Emberly, year 60 of After the Crowning.",
    }
    set_calendar(cli, tmp_path, HIDDEN_TODAY)  # a today in the GM-only Sunken Reign: none of a player's
    player = ask_world(cli, tmp_path, CAMPAIGN, asked[3:], citations=False)
    assert player == {asked[3]: NO_TODAY}
