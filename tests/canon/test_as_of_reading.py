"""The wiki's as-of point, typed in the campaign's words: read with the one date reading, refused in words."""

from __future__ import annotations

import pytest

from canon.as_of_reading import read_as_of
from canon.campaign_calendar import calendar_from
from canon.models import NOW

AGES = calendar_from(
    {"eras": [{"key": "3rd_age", "abbreviation": "TA"}]},
    {"2nd_age": ("The Second Age", -1200, -101), "3rd_age": ("The Third Age", -100, 600)},
)
ERAS = ("the Second Age (years -1200–-101)", "the Third Age (TA, years -100–600)")


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("year 363 of the Third Age", 3_630_000),
        ("363 TA", 3_630_000),
        ("  year   363 ", 3_630_000),  # a year inside one era only
        ("day 17 of month 3, year 340 of the Third Age", 3_400_317),
        ("year -500", -5_000_000),
    ],
)
def test_a_date_in_the_campaign_s_words_is_the_point_to_look_from_and_reads_back_as_itself(
    typed: str, key: int
) -> None:
    reading = read_as_of(typed, AGES)
    assert reading.understood and reading.as_of.world_key == key and not reading.problem
    again = read_as_of(reading.said, AGES)  # the page writes the point in words; reading them gives it back
    assert again.as_of == reading.as_of and again.said == reading.said
    assert reading.query().startswith("as_of=") and "_" not in reading.query().removeprefix("as_of=")  # words


def test_nothing_typed_is_the_present() -> None:
    for typed in (None, "", "   "):
        reading = read_as_of(typed, AGES)
        assert reading.understood and reading.as_of == NOW and reading.query() == ""


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("year 5000 of the Third Age", "Year 5000 is not in the Third Age"),
        ("year 9000", "Year 9000 is in none of this campaign's eras"),
        ("the Third Age", "names no year to look from; say which year of the Third Age"),
        ("unknown", "names no year to look from; say a year"),
        ("three days later", "counts from the scene's date"),
        ("<script>alert(1)</script>", "which no date has"),
        ("Fourth Age 12", "is not a word of this campaign's calendar"),
        ("x" * 10_000, "is 10000 characters long, not a date"),
    ],
)
def test_a_date_outside_every_era_or_not_a_date_is_refused_with_the_campaign_s_eras(
    typed: str, says: str
) -> None:
    reading = read_as_of(typed, AGES)
    assert not reading.understood and says in reading.problem
    assert reading.as_of == NOW and reading.said == "" and reading.query() == ""
    assert reading.eras == ERAS and reading.example
