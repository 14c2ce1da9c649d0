"""Questions about the months of the year (`answer_months`) and two calendar questions in one (`answer_eras`), on
a calendar of our own as a player reads it: a GM-only era and a today in it are no player's."""

from __future__ import annotations

import pytest

from canon.calendar_seen import calendar_seen
from canon.campaign_calendar import CampaignCalendar, EraDef, MonthDef
from memory.knowledge.retrieval.answer_eras import NO_TODAY, asks_calendar, calendar_answer
from memory.knowledge.retrieval.answer_months import NO_MONTHS

WHOLE = CampaignCalendar(
    eras=(
        EraDef(key="brine", name="Age of Brine", abbreviations=("AB",), start=1, end=400),
        EraDef(key="veil", name="Veiled Years", abbreviations=("VY",), start=401),
    ),
    months=(
        MonthDef(name="Rimewake", days=28),
        MonthDef(name="Thawling", days=30),
        MonthDef(name="Greenrise", days=30),
        MonthDef(name="Emberwane", days=31),
    ),
    today="9 Thawling, year 212 of Age of Brine",
)
#: The player's calendar: the Veiled Years are the GM's.
SEEN = calendar_seen(WHOLE, WHOLE, {"veil"})
YEAR = "The year has four months: Rimewake (28 days), Thawling (30 days), Greenrise (30 days) and Emberwane (31 days)."


@pytest.mark.parametrize(
    "asked",
    [
        "How many months does the Brinish year have?",
        "how many months are in a year",
        "how many months are there in the year?",
        "what are the months",
        "What are the months of the year?",
        "list the months",
        "name the months in a year",
        "what are the names of the months",
    ],
)
def test_the_months_of_the_year(asked: str) -> None:
    assert asks_calendar(asked)
    assert calendar_answer(asked, SEEN) == YEAR


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("how many days in Rimewake?", "Rimewake has 28 days."),
        ("how many days does emberwane have", "Emberwane has 31 days."),
        ("how long is Thawling?", "Thawling has 30 days."),
        ("how many days are in a year", "The year has 119 days, in four months."),
    ],
)
def test_a_month_s_days(asked: str, said: str) -> None:
    assert calendar_answer(asked, SEEN) == said


def test_months_of_one_length_are_said_once() -> None:
    even = WHOLE.model_copy(
        update={"months": (MonthDef(name="Sowing", days=30), MonthDef(name="Reaping", days=30))}
    )
    assert (
        calendar_answer("list the months", even)
        == "The year has two months: Sowing and Reaping, each of 30 days."
    )


def test_a_campaign_without_a_calendar_says_it_has_none() -> None:
    assert calendar_answer("how many months are in a year", CampaignCalendar()) == NO_MONTHS
    assert calendar_answer("how long is Rimewake", CampaignCalendar()) is None


def test_the_date_and_the_age_in_one_question() -> None:
    asked = "What's today's date in the campaign, and what age are we in?"
    assert asks_calendar(asked)
    said = "The era is Age of Brine (AB): today is 9 Thawling, year 212 of Age of Brine."
    assert calendar_answer(asked, SEEN) == said
    assert calendar_answer("what's the date in the world and what year is it in game", SEEN) == (
        "Today is 9 Thawling, year 212 of Age of Brine."
    )


def test_two_calendar_questions_are_answered_part_by_part() -> None:
    asked = "what year is it, and how many months are in a year?"
    assert calendar_answer(asked, SEEN) == f"Today is 9 Thawling, year 212 of Age of Brine. {YEAR}"
    assert calendar_answer("what year is it and who rules Saltmere", SEEN) is None


def test_a_today_in_a_gm_only_age_is_no_player_s() -> None:
    veiled = WHOLE.model_copy(update={"today": "2 Rimewake, year 500 of the Veiled Years"})
    seen = calendar_seen(veiled, veiled, {"veil"})
    answer = calendar_answer("what's today's date, and what age are we in?", seen)
    assert answer == NO_TODAY
    assert "Veiled" not in (calendar_answer("what year is it, and list the months", seen) or "")
