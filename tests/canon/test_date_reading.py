"""Dates as the table types them: read on the campaign's calendar, written back in its words, never guessed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canon.calendar import WorldDate
from canon.calendar_block import block_yaml
from canon.calendar_typed import parse_block
from canon.campaign_calendar import CampaignCalendar, calendar_from
from canon.date_reading import MAX_LENGTH, read_date
from canon.errors import InvalidInput

AGES = calendar_from(
    parse_block(
        """
eras:
  - {name: The First Age, abbreviation: FA, start: -3000, end: -1}
  - {key: 3rd_age, abbreviation: TA, start: 1, end: 600}
  - {name: The Fourth Age, abbreviations: [FoA], start: 601}
months:
  - {name: Frostmoon, days: 30}
  - {name: Hearthmoon, days: 31}
  - {name: Greenmoon, days: 30}
  - {name: Deep Rain, days: 28}
seasons:
  - {name: spring, months: [Greenmoon, Deep Rain]}
  - {name: midwinter, months: [Frostmoon]}
"""
    ),
    {"3rd_age": ("The Third Age", 1, 600)},
)
TIDEWATER = calendar_from({"eras": [{"name": "The Tidewater Age", "abbreviation": "TW", "start": 0}]}, {})
PLAIN = CampaignCalendar()
SCENE = WorldDate(era="3rd_age", year=363, month=2, day=30)


def understood(text: str, calendar: CampaignCalendar = AGES, anchor: WorldDate | None = SCENE) -> str:
    reading = read_date(text, calendar, anchor=anchor)
    assert reading.understood, reading.sentence()
    assert reading.date is not None
    return str(reading.date)


def refused(text: str, calendar: CampaignCalendar = AGES, anchor: WorldDate | None = SCENE) -> str:
    reading = read_date(text, calendar, anchor=anchor)
    assert not reading.understood, reading.date
    sentence = reading.sentence()
    assert sentence and "_" not in sentence and "year_" not in sentence
    for choice in reading.choices:  # every choice offered reads back as a date
        assert read_date(choice, calendar, anchor=anchor).understood, choice
    return sentence


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("year 363 of the Third Age", "3rd_age.year_363"),
        ("363 TA", "3rd_age.year_363"),
        ("Third Age 363", "3rd_age.year_363"),
        ("T.A. 363", "3rd_age.year_363"),
        ("in the 363rd year of the Third Age", "3rd_age.year_363"),
        ("17 Hearthmoon, 340 TA", "3rd_age.year_340.month_2.day_17"),
        ("Hearthmoon 17, 340", "3rd_age.year_340.month_2.day_17"),
        ("the 3rd of Frostmoon, 1042", "fourth_age.year_1042.month_1.day_3"),
        ("the third day of Deep Rain, 12 TA", "3rd_age.year_12.month_4.day_3"),
        ("Frostmoon of 340", "3rd_age.year_340.month_1"),
        ("midwinter of 340", "3rd_age.year_340.month_1"),
        ("spring of 12 TA", "3rd_age.year_12"),
        ("the Third Age", "3rd_age"),
        ("-50 FA", "first_age.year_-50"),
        ("17/3/340", "3rd_age.year_340.month_3.day_17"),
        ("3rd_age.year_363", "3rd_age.year_363"),
        ("unknown", "unknown"),
    ],
)
def test_the_forms_the_table_types_are_understood(text: str, stored: str) -> None:
    assert understood(text) == stored


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("three days later", "3rd_age.year_363.month_3.day_2"),
        ("+3 days", "3rd_age.year_363.month_3.day_2"),
        ("a week later", "3rd_age.year_363.month_3.day_6"),
        ("the next day", "3rd_age.year_363.month_2.day_31"),
        ("yesterday", "3rd_age.year_363.month_2.day_29"),
        ("2 years earlier", "3rd_age.year_361.month_2.day_30"),
        ("next year", "3rd_age.year_364.month_2.day_30"),
        ("next spring", "3rd_age.year_363"),
        ("last midwinter", "3rd_age.year_363.month_1"),
        ("next midwinter", "3rd_age.year_364.month_1"),
        ("238 years later", "fourth_age.year_601.month_2.day_30"),
    ],
)
def test_dates_relative_to_the_scene_follow_the_calendars_months_and_eras(text: str, stored: str) -> None:
    assert understood(text) == stored


def test_a_plain_year_finds_the_campaigns_only_era() -> None:
    assert understood("year 320", TIDEWATER, None) == "tidewater_age.year_320"
    assert TIDEWATER.say(WorldDate(era="tidewater_age", year=320)) == "year 320 of the Tidewater Age"


def test_a_season_is_kept_as_its_year_and_says_so() -> None:
    reading = read_date("spring of 12 TA", AGES)
    assert "kept as its year" in reading.note


@pytest.mark.parametrize(
    ("text", "calendar", "said"),
    [
        ("year 0", PLAIN, "count from 1"),
        ("year -4", PLAIN, "no year -4"),
        ("-5000 FA", AGES, "not in the First Age"),
        ("the 31st of Frostmoon, 340", AGES, "Frostmoon has 30 days"),
        ("3 Snowmoon, 340", AGES, "“Snowmoon” is not a word of this campaign's calendar"),
        ("Thrid Age 363", AGES, "the nearest is the Third Age"),
        ("yesterday", AGES, "there is none here yet"),
        ("x" * 200, AGES, "200 characters"),
        ("363 TA 1210", AGES, "more than one year"),
        ("363 TA, 12 FA", AGES, "two eras"),
        ("３６３ TA", AGES, "type them as 0–9"),
        ("363 <@123>", AGES, "which no date has"),
        ("Frostmoon 3", AGES, "could be the 3rd of Frostmoon"),
        ("3/2/340", AGES, "more than one way"),
        ("around 363", AGES, "approximate"),
        ("a few days later", AGES, "approximate"),
        ("year 700 of the Third Age", AGES, "not in the Third Age"),
        ("year 5000 of the First Age", AGES, "not in the First Age"),
        ("", AGES, "No date"),
        ("month 9 of 340", AGES, "no month 9"),
    ],
)
def test_bad_dates_are_refused_in_the_calendars_words(
    text: str, calendar: CampaignCalendar, said: str
) -> None:
    anchor = None if text == "yesterday" else SCENE
    assert said in refused(text, calendar, anchor)


def test_refusals_offer_the_readings_to_choose_from() -> None:
    assert read_date("３６３ TA", AGES).choices == ("year 363 of the Third Age",)
    assert read_date("Thrid Age 363", AGES).choices == ("year 363 of the Third Age",)
    assert read_date("the 31st of Frostmoon, 340", AGES).choices == (
        "30 Frostmoon, year 340 of the Third Age",
    )
    assert len(read_date("3/2/340", AGES).choices) == 2
    assert read_date("year 700 of the Third Age", AGES).choices == ("year 700 of the Fourth Age",)
    assert "Tidewater Age (TW, years 0 onwards)" in read_date("year -3", TIDEWATER).sentence()


def test_an_era_known_only_by_its_key_reads_the_same_everywhere() -> None:
    calendar = calendar_from({}, {"3rd_age": ("3rd_age", 1, 600)})
    assert calendar.say(WorldDate(era="3rd_age", year=5)) == "year 5 of the 3rd age"
    assert str(read_date("year 5 of the 3rd age", calendar).date) == "3rd_age.year_5"


def test_a_bad_calendar_block_is_refused_with_a_sentence() -> None:
    with pytest.raises(InvalidInput, match="not one of the calendar's months"):
        parse_block("months: [Frostmoon]\nseasons: [{name: spring, months: [Greenmoon]}]")
    with pytest.raises(InvalidInput, match="ends"):
        parse_block("eras: [{name: Old Age, start: 10, end: 5}]")
    with pytest.raises(InvalidInput, match=r"line 1: the file ends in the middle of a value: close every \["):
        parse_block("eras: [")
    with pytest.raises(InvalidInput, match="would name two things"):
        parse_block("eras: [{name: Old Age, abbreviation: OA}, {name: Other Age, abbreviation: OA}]")


def test_a_stored_block_reads_back_as_the_same_calendar() -> None:
    block = parse_block(block_yaml(parse_block("eras: [{name: Old Age, abbreviation: OA, start: 1}]")))
    assert calendar_from(block, {}).eras[0].abbreviations == ("OA",)


_YEARS = st.integers(min_value=-3000, max_value=2000).filter(lambda y: y != 0)


@given(year=_YEARS, month=st.integers(1, 4), day=st.integers(1, 28), precision=st.sampled_from(range(4)))
def test_every_date_written_in_words_reads_back_as_itself(
    year: int, month: int, day: int, precision: int
) -> None:
    era = next(e.key for e in AGES.eras if e.contains(year))
    date = [
        WorldDate(era=era),
        WorldDate(era=era, year=year),
        WorldDate(era=era, year=year, month=month),
        WorldDate(era=era, year=year, month=month, day=day),
    ][precision]
    assert read_date(AGES.say(date), AGES).date == date
    plain = WorldDate(year=abs(year), month=month, day=day)
    assert read_date(PLAIN.say(plain), PLAIN).date == plain


def test_no_reading_is_longer_than_the_limit() -> None:
    assert len("the 17th day of Hearthmoon, year 1042 of the Fourth Age") <= MAX_LENGTH


def test_the_examples_of_a_date_are_in_the_campaigns_own_words_and_read_back() -> None:
    from canon.date_reading import example, examples

    assert examples(AGES) == ["year 2 of the Third Age", "17 Greenmoon, year 2 of the Third Age"]
    assert examples(TIDEWATER) == ["year 1 of the Tidewater Age"]  # no months named: a year only
    assert example(PLAIN) == "year 412"
    for calendar in (AGES, TIDEWATER, PLAIN):
        for shown in examples(calendar):  # what a hint shows, typed back, is that very date
            reading = read_date(shown, calendar)
            assert reading.date is not None and calendar.say(reading.date) == shown, shown
