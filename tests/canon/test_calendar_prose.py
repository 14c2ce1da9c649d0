"""A calendar typed in words, as the calendar screen writes it, reads back as the same calendar; a pydantic
problem reaches the GM as a sentence saying what is expected."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from canon.calendar import WorldDate
from canon.calendar_prose import read_prose
from canon.calendar_typed import parse_block
from canon.campaign_calendar import calendar_from
from canon.date_reading import check_today, present, read_date
from canon.errors import InvalidInput
from canon.validation_words import problem_words

AGES = calendar_from(
    {
        "eras": [{"name": "The Tidewater Age", "abbreviation": "TW", "start": 601}],
        "months": [{"name": "Frostmoot", "days": 30}, {"name": "Hearthmoon", "days": 31}],
        "seasons": [{"name": "winter", "months": ["Frostmoot", "Hearthmoon"]}],
    },
    {"third_age": ("Third Age", 1, 600, ("TA",))},
)


def test_what_the_calendar_screen_says_reads_back_as_the_same_calendar() -> None:
    said = AGES.describe()
    assert calendar_from(parse_block(said), {"third_age": ("Third Age", 1, 600, ("TA",))}) == AGES
    assert (
        calendar_from(parse_block(" ".join(said.splitlines())), {"third_age": ("Third Age", 1, 600)}) == AGES
    )


#: Era names holding the reader's own words: "Years", "Age", "from", "and", a verb, a number.
_NAMES_IN_THE_READER_S_WORDS = [
    "The Tallow Years",
    "The Years of Ash",
    "The Age of Years",
    "Reckoning of the Tides",
    "The Era of Days",
    "The Days Before",
    "Before the Reckoning",
    "Kings from the North",
    "The Salt and Iron Years",
    "The Years Up To Dawn",
    "Run 7",
    "In Year Nine",
    "St. Aldric's Reign",
    "St. Aldric's Years",
    "The Reign of Mt. Oro",
    "Age of J. Harrow",
    # A title's stop of four letters, a name typed in small letters: still one era.
    "Capt. Horne's Peace",
    "The Age of Prof. Vell",
    "st. aldric's years",
]


@pytest.mark.parametrize("name", _NAMES_IN_THE_READER_S_WORDS)
@pytest.mark.parametrize(
    "era",
    [{"abbreviation": "XY", "start": 1, "end": 50}, {"start": 3}, {"abbreviation": "XY"}],
    ids=["closed", "open", "no-years"],
)
def test_an_era_named_in_the_reader_s_own_words_reads_back(name: str, era: dict[str, object]) -> None:
    calendar = calendar_from({"eras": [{"name": name, **era}]}, {})
    said = calendar.describe()
    assert calendar_from(parse_block(said), {}) == calendar
    assert calendar_from(parse_block(" ".join(said.splitlines())), {}) == calendar


@pytest.mark.parametrize("name", _NAMES_IN_THE_READER_S_WORDS)
def test_a_whole_calendar_with_such_names_reads_back(name: str) -> None:
    calendar = calendar_from(
        {
            "eras": [{"name": name, "abbreviation": "XY", "start": 10}],
            "months": [{"name": f"{name} Moon", "days": 30}, {"name": "Frostmoot", "days": 31}],
            "seasons": [{"name": f"{name} Tide", "months": [f"{name} Moon", "Frostmoot"]}],
            "today": "3 Frostmoot, 12 XY",
        },
        {"third_age": ("The Third Age", 1, 9, ("TA",))},
    )
    said = calendar.describe()
    assert calendar_from(parse_block(said), {"third_age": ("The Third Age", 1, 9, ("TA",))}) == calendar


@pytest.mark.parametrize("name", _NAMES_IN_THE_READER_S_WORDS)
def test_today_in_the_bot_s_own_words_reads_back_exactly(name: str) -> None:
    # "Today is 3 Frostfall, year 12 of St. Aldric's Years.": the date the calendar says, read as that date.
    era = {"name": name, "abbreviation": "XY", "start": 10}
    months = [{"name": "Thaw", "days": 30}, {"name": "Frostfall", "days": 30}]
    calendar = calendar_from({"eras": [era], "months": months}, {})
    written = calendar.say(WorldDate(era=calendar.eras[0].key, year=12, month=2, day=3))
    assert written == f"3 Frostfall, year 12 of {calendar.era_phrase(calendar.eras[0].key)}"
    assert read_date(written, calendar).date == WorldDate(era=calendar.eras[0].key, year=12, month=2, day=3)
    dated = calendar_from({"eras": [era], "months": months, "today": written}, {})
    block = parse_block(dated.describe())
    assert [e["name"] for e in block["eras"]] == [name] and block["today"] == written
    assert calendar_from(block, {}) == dated
    assert present(dated) == WorldDate(era=calendar.eras[0].key, year=12, month=2, day=3)


@pytest.mark.parametrize(
    ("typed", "block"),
    [
        (
            "Third Age (TA) runs from year 1 to 600.",
            {"eras": [{"name": "Third Age", "abbreviation": "TA", "start": 1, "end": 600}]},
        ),
        (
            "Eras: Third Age 1-600 (T.A.)",
            {"eras": [{"name": "Third Age", "abbreviation": "T.A.", "start": 1, "end": 600}]},
        ),
        (
            "Months: Frostmoot, Hearthmoon and Thawmoon. Each month has 30 days.",
            {
                "months": [{"name": "Frostmoot"}, {"name": "Hearthmoon"}, {"name": "Thawmoon"}],
                "days_per_month": 30,
            },
        ),
        (
            "Seasons: winter: Frostmoot, Hearthmoon; spring: Thawmoon",
            {
                "seasons": [
                    {"name": "winter", "months": ["Frostmoot", "Hearthmoon"]},
                    {"name": "spring", "months": ["Thawmoon"]},
                ]
            },
        ),
        (
            "Eras: the Tallow Years from year 3 and Kings from the North (KN) up to 2",
            {
                "eras": [
                    {"name": "The Tallow Years", "start": 3},
                    {"name": "Kings from the North", "abbreviation": "KN", "end": 2},
                ]
            },
        ),
        (
            "Third Age (TA) years 1-600, Fourth Age (FA) 601 onwards",
            {
                "eras": [
                    {"name": "Third Age", "abbreviation": "TA", "start": 1, "end": 600},
                    {"name": "Fourth Age", "abbreviation": "FA", "start": 601},
                ]
            },
        ),
        (
            "Months have no names: a year has 10 months of 36 days.",
            {"months_per_year": 10, "days_per_month": 36},
        ),
    ],
)
def test_a_calendar_in_a_gms_words_is_read(typed: str, block: dict[str, object]) -> None:
    assert read_prose(typed) == block


@pytest.mark.parametrize(
    "typed", ["We play in a grim world of ash", "eras: [{name: Old Age", "Third Age: the age of kings", ""]
)
def test_words_that_are_no_calendar_are_not_guessed_at(typed: str) -> None:
    assert read_prose(typed) is None


def test_a_refusal_gives_an_example_from_the_campaign_s_own_calendar() -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_block("Third Age: the age of kings", AGES)
    said = str(refused.value)
    assert said.startswith("That is not a calendar this campaign can read")
    assert "such as: “This campaign's eras are Third Age (TA, years 1–600) and the Tidewater Age" in said
    assert "Extra inputs" not in said
    with pytest.raises(InvalidInput, match="“colour” is not part of a calendar: a calendar has eras"):
        parse_block("eras: []\ncolour: blue", AGES)
    with pytest.raises(InvalidInput, match="the days in a month must be at most 99"):
        parse_block("days_per_month: 500", AGES)


class _Era(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    start: int


class _Calendar(BaseModel):
    model_config = ConfigDict(extra="forbid")
    eras: list[_Era]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"eras": [{"name": "A", "start": "ten"}]}, "“start” of the 1st era must be a whole number"),
        ({"eras": [{"name": "A", "start": 1}, {"start": 1}]}, "“name” of the 2nd era is missing"),
        ({"eras": [], "colour": 1}, "“colour” is not something it has"),
        ({"eras": "Third Age"}, "“eras” must be a list"),
    ],
)
def test_a_validation_problem_is_said_in_words(data: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _Calendar.model_validate(data)
    assert problem_words(caught.value) == words


def test_the_calendar_s_today_is_read_in_its_words_and_said_back() -> None:
    block = {"months": [{"name": "Frostmoot", "days": 30}, {"name": "Hearthmoon", "days": 31}]}
    eras = {"third_age": ("Third Age", 1, 600, ("TA",))}
    today = calendar_from({**block, "today": "3 Hearthmoon, 363 TA"}, eras)
    check_today(today)
    assert str(present(today)) == "third_age.year_363.month_2.day_3"
    said = today.describe()
    assert said.endswith("Today is 3 Hearthmoon, 363 TA.")
    assert calendar_from(parse_block(said), eras) == today  # what the screen says reads back, today too
    assert str(present(calendar_from({"today": 1042}, {}))) == "1042"  # a plain year
    assert present(calendar_from(block, eras)) is None


@pytest.mark.parametrize(
    ("today", "said"),
    [
        ("3 Thawmoon, 363", "“Thawmoon” is not a word of this campaign's calendar"),
        ("unknown", "“unknown” is no day the story can stand at"),
    ],
)
def test_a_today_that_is_no_date_of_the_calendar_is_refused(today: str, said: str) -> None:
    calendar = calendar_from(
        {"months": ["Frostmoot", "Hearthmoon"], "today": today}, {"third_age": ("Third Age", 1, 600)}
    )
    with pytest.raises(InvalidInput) as refused:
        check_today(calendar)
    assert str(refused.value).startswith(f"The calendar's today, “{today}”, is no date of this calendar: ")
    assert said in str(refused.value)
    assert present(calendar) is None


@pytest.mark.parametrize(
    ("name", "said"),
    [("The Third Age", "the Third Age ends"), ("Kings from the North", "Kings from the North ends")],
)
def test_an_era_that_ends_before_it_starts_is_named_as_a_sentence_says_it(name: str, said: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_block(f"This campaign's era is {name} (years 10–9).")
    assert str(refused.value) == f"In the calendar, {said} (year 9) before it starts (year 10)."


def test_a_sentence_of_the_calendar_s_own_after_a_short_word_is_a_sentence_of_its_own() -> None:
    # "Vo." and "war." may end a name, but "Each month has 30 days" is a sentence the calendar writes.
    assert read_prose("Today is year 12 of Ser Aldric Vo. Each month has 30 days.") == {
        "today": "year 12 of Ser Aldric Vo",
        "days_per_month": 30,
    }
    assert read_prose("Eras: St. Aldric's Years (SA, years 1 onwards). Today is the end of the war.") == {
        "eras": [{"name": "St. Aldric's Years", "abbreviation": "SA", "start": 1}],
        "today": "the end of the war",
    }


def test_an_era_with_several_abbreviations_is_said_with_each_and_reads_back() -> None:
    tolling = calendar_from(
        {
            "eras": [
                {"name": "The Age of Tolling", "abbreviation": "AT", "abbreviations": ["Tolling"], "start": 0}
            ]
        },
        {},
    )
    said = tolling.describe_eras()
    assert said == "This campaign's era is the Age of Tolling (AT, Tolling, years 0 onwards)."
    assert calendar_from(parse_block(tolling.describe()), {}) == tolling
