"""Questions about the calendar's seasons (`answer_seasons`, asked through `answer_eras.calendar_answer`), on a
calendar of our own: its months, its length, a month's season, today's season; a season the calendar lacks is no
answer of this module."""

from __future__ import annotations

import pytest

from canon.campaign_calendar import CampaignCalendar, EraDef, MonthDef, SeasonDef
from memory.knowledge.retrieval.answer_eras import NO_TODAY, asks_calendar, calendar_answer

CALENDAR = CampaignCalendar(
    eras=(EraDef(key="compact", name="The Compact Years", abbreviations=("CY",), start=1),),
    months=(
        MonthDef(name="Palmtide", days=30),
        MonthDef(name="Scorch", days=31),
        MonthDef(name="Emberfall", days=30),
        MonthDef(name="Rainmoot", days=29),
    ),
    seasons=(SeasonDef(name="the Burning", months=(2, 3)), SeasonDef(name="Wet Season", months=(4,))),
    today="14 Emberfall, year 88 of the Compact Years",
)
BURNING = "The Burning is Scorch and Emberfall."


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("which months are the burning", BURNING),
        ("what months are in the burning season?", BURNING),
        ("when is the burning", BURNING),
        ("when does the wet season start", "Wet Season is Rainmoot."),
        ("how long is the wet season", "Wet Season lasts 1 month (29 days): Rainmoot."),
        ("how long does the burning last", "The Burning lasts 2 months (61 days): Scorch and Emberfall."),
        ("what season is scorch in", "Scorch falls in the Burning."),
        ("which season does Rainmoot fall in?", "Rainmoot falls in Wet Season."),
        ("is palmtide in which season", "Palmtide falls in no season the calendar names."),
        ("what season is it", "It is the Burning: today is 14 Emberfall, year 88 of the Compact Years."),
        (
            "whats the season right now",
            "It is the Burning: today is 14 Emberfall, year 88 of the Compact Years.",
        ),
    ],
)
def test_a_season_in_the_calendar_s_words(asked: str, said: str) -> None:
    assert asks_calendar(asked)
    assert calendar_answer(asked, CALENDAR) == said


def test_no_today_is_no_season_of_today() -> None:
    assert calendar_answer("what season is it", CALENDAR.model_copy(update={"today": None})) == NO_TODAY


@pytest.mark.parametrize(
    "asked", ["when is the dry season", "which months are the harvest", "what season is the harvest fair in"]
)
def test_a_season_the_calendar_lacks_is_no_answer_here(asked: str) -> None:
    assert calendar_answer(asked, CALENDAR) is None
    assert calendar_answer(asked, CALENDAR.model_copy(update={"seasons": ()})) is None
