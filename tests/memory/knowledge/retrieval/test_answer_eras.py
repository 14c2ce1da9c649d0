"""Questions about the calendar itself (`answer_eras`), on a calendar of our own: the phrasings read, an era's
card's description, an abbreviation the glossary takes, and a question that asks nothing of the calendar."""

from __future__ import annotations

import pytest

from canon.campaign_calendar import CampaignCalendar, EraDef, MonthDef, SeasonDef
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_eras import NO_TODAY, asked_era, bordering, calendar_answer

DUSK = EraDef(key="long_dusk", name="The Long Dusk", abbreviations=("LD",), start=1, end=300)
LAMPS = EraDef(key="reign_of_lamps", name="Reign of Lamps", abbreviations=("RL",), start=301)
CALENDAR = CampaignCalendar(
    eras=(LAMPS, DUSK),
    months=(MonthDef(name="Frost"), MonthDef(name="Thaw")),
    today="4 Thaw, year 320 of Reign of Lamps",
)
LONG_DUSK = (
    "The Long Dusk (LD) is an era of the calendar, from year 1 to year 300; Reign of Lamps followed it."
)


def card(name: str, description: str | None) -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name=name,
        entity_type="Era",
        matched=name,
        match_score=1.0,
        hidden=False,
        description=description,
        facts=[],
    )


@pytest.mark.parametrize(
    "asked",
    ["what is the long dusk", "What is the Long Dusk?", "whats LD", "wat is long dusk", "what does LD mean"],
)
def test_what_an_era_is(asked: str) -> None:
    assert calendar_answer(asked, CALENDAR) == LONG_DUSK


def test_its_card_s_description_adds_its_first_sentence() -> None:
    facts = [card("Long Dusk", "The sun hung low for three centuries. Nobody knows why.")]
    assert calendar_answer("what is LD", CALENDAR, facts=facts) == (
        f"{LONG_DUSK} The sun hung low for three centuries."
    )


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("what year is it", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("whats the date today?", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("what day is it", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("what's today's date", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        # The table says it means the story's time, not the real one.
        ("whats the date today in game", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("what's today's date in-game", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("what year is it in the world", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        ("what year is it right now", "Today is 4 Thaw, year 320 of Reign of Lamps."),
        (
            "what era are we in",
            "The era is Reign of Lamps (RL): today is 4 Thaw, year 320 of Reign of Lamps.",
        ),
    ],
)
def test_today(asked: str, said: str) -> None:
    assert calendar_answer(asked, CALENDAR) == said
    assert calendar_answer(asked, CALENDAR.model_copy(update={"today": None})) == NO_TODAY


def test_bounds_and_the_opening_event() -> None:
    opened = {"reign_of_lamps": ("the Lighting of the Lamps", "on 1 Frost, year 301 of Reign of Lamps")}
    assert calendar_answer("when did the long dusk end", CALENDAR, opened=opened) == (
        "The Long Dusk ended in year 300; Reign of Lamps began with the Lighting of the Lamps on 1 Frost, "
        "year 301 of Reign of Lamps."
    )
    assert calendar_answer("when did RL begin", CALENDAR) == "Reign of Lamps began in year 301."
    assert calendar_answer("how long did the long dusk last", CALENDAR) == (
        "The Long Dusk lasted 300 years, from year 1 to year 300."
    )
    assert bordering(CALENDAR, DUSK) == [DUSK, LAMPS]
    assert bordering(CALENDAR, LAMPS) == [LAMPS]


def test_an_abbreviation_the_glossary_takes_is_not_the_era_s() -> None:
    assert asked_era("what is LD", CALENDAR, glossary={"ld": "lethal dose"}) is None
    assert calendar_answer("what is LD", CALENDAR, glossary={"ld"}) is None
    assert asked_era("what is the long dusk", CALENDAR, glossary={"ld"}) == DUSK


@pytest.mark.parametrize(
    "asked",
    [
        "what is the lantern guild",
        "what year did the dusk end",
        "what age was Edric",
        "when did Tove die",
        "what year is it in the lantern guild's ledger",
    ],
)
def test_a_question_of_no_era_is_left_to_the_other_answers(asked: str) -> None:
    assert calendar_answer(asked, CALENDAR) is None


def test_how_long_the_open_era_has_lasted_counts_to_today() -> None:
    asked = [
        "how long did reign of lamps last",
        "how long has RL lasted",
        "how long has reign of lamps gone on",
    ]
    for question in asked:
        assert (
            calendar_answer(question, CALENDAR)
            == "Reign of Lamps has lasted 20 years so far, since year 301."
        )
    first_year = CALENDAR.model_copy(update={"today": "4 Thaw, year 301 of Reign of Lamps"})
    assert calendar_answer(asked[0], first_year) == "Reign of Lamps has lasted 1 year so far, since year 301."
    # Without a today (or a GM-only one, which a player's calendar leaves out), the calendar's bounds alone.
    without = CALENDAR.model_copy(update={"today": None})
    assert (
        calendar_answer(asked[0], without)
        == "The calendar gives Reign of Lamps no end: it runs from year 301 on."
    )
    # A closed era still reads its whole span, whatever today is.
    assert (
        calendar_answer("how long did LD last", CALENDAR)
        == "The Long Dusk lasted 300 years, from year 1 to year 300."
    )


@pytest.mark.parametrize(
    "asked",
    ["what year is it now", "what year is it in the campaign", "what's the date today in the setting"],
)
def test_today_read_with_the_table_s_words_for_the_story_s_time(asked: str) -> None:
    assert calendar_answer(asked, CALENDAR) == "Today is 4 Thaw, year 320 of Reign of Lamps."


@pytest.mark.parametrize("asked", ["what season is it in the campaign", "which season is it in the setting"])
def test_the_season_read_with_the_same_words(asked: str) -> None:
    calendar = CALENDAR.model_copy(update={"seasons": (SeasonDef(name="the thaw", months=(2,)),)})
    assert calendar_answer(asked, calendar) == "It is the thaw: today is 4 Thaw, year 320 of Reign of Lamps."
