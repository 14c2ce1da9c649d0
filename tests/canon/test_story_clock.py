"""The story's clock: a scene's date moves by a shift on the calendar's months and days, or to a new date."""

from __future__ import annotations

import pytest

from canon.calendar import parse_date
from canon.campaign_calendar import calendar_from
from canon.errors import InvalidInput
from canon.proposals import EventContent, FactContent, Ref, RelationshipContent, dated_by_scene
from canon.story_clock import date_and_key, scene_time

DAY = parse_date("3rd_age.300.12.30")
PLAIN = calendar_from(None, {"3rd_age": ("Third Age", None, None)})


@pytest.mark.parametrize(
    ("shift", "expected"),
    [
        ("+3 days", "3rd_age.year_301.month_1.day_2"),
        ("+1 day", "3rd_age.year_300.month_12.day_31"),
        ("+ 2 weeks", "3rd_age.year_301.month_1.day_13"),
        ("+1 Month", "3rd_age.year_301.month_1.day_30"),
        ("+10 years", "3rd_age.year_310.month_12.day_30"),
        ("3rd_age.400", "3rd_age.year_400"),
        ("year 363 of the Third Age", "3rd_age.year_363"),
    ],
)
def test_a_shift_moves_the_date_on_the_calendar(shift: str, expected: str) -> None:
    assert str(scene_time(shift, DAY, PLAIN)) == expected


def test_a_shift_follows_the_calendars_own_months() -> None:
    ten = calendar_from(
        {"months_per_year": 10, "days_per_month": 36}, {"2nd_age": ("Second Age", None, None)}
    )
    assert str(scene_time("+7 days", parse_date("2nd_age.5.10.30"), ten)) == "2nd_age.year_6.month_1.day_1"


def test_a_shift_counts_each_months_own_days() -> None:
    """Months of different lengths: a shift from the short month's last day lands in the next month's first."""
    block = {"months": [{"name": "Frostmoon", "days": 28}, {"name": "Thaw", "days": 31}]}
    uneven = calendar_from(block, {"2nd_age": ("Second Age", None, None)})
    assert str(scene_time("+1 day", parse_date("2nd_age.5.1.28"), uneven)) == "2nd_age.year_5.month_2.day_1"
    assert str(scene_time("+31 days", parse_date("2nd_age.5.2.1"), uneven)) == "2nd_age.year_6.month_1.day_1"


@pytest.mark.parametrize(
    ("text", "current", "message"),
    [
        ("+3 days", None, "there is none here yet"),
        ("+3 days", parse_date("3rd_age.300"), "names no day"),
        ("3rd_age.year_abc", DAY, "not a date this campaign.s calendar knows"),
        ("unknown", DAY, "cannot be “unknown”"),
        ("+999999 years", parse_date(f"3rd_age.{10**12 - 5}"), "outside the calendar"),
    ],
)
def test_a_bad_shift_or_date_is_refused(text: str, current: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        scene_time(text, current, PLAIN)  # type: ignore[arg-type]


def test_a_date_is_stored_with_its_world_key() -> None:
    assert date_and_key(parse_date("3rd_age.300.3.17")) == ("3rd_age.year_300.month_3.day_17", 3000317)


def test_facts_of_a_dated_scene_take_its_date_unless_they_say_their_own() -> None:
    date = "3rd_age.year_300"
    fact = FactContent(subject=Ref(name="Mara"), attribute="title", value="Queen")
    assert dated_by_scene(fact, date).when == date  # type: ignore[union-attr]
    own = fact.model_copy(update={"when": "3rd_age.year_200"})
    assert dated_by_scene(own, date) == own
    ally = RelationshipContent(subject=Ref(name="A"), relation="ALLY_OF", object=Ref(name="B"))
    assert dated_by_scene(ally, date).since == date  # type: ignore[union-attr]
    event = EventContent(name="The storm")
    assert dated_by_scene(event, None) == event
