"""Tests for the in-world calendar: parsing, precision, era bounds, comparison and ordering."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from pydantic import ValidationError

from canon.calendar import (
    DATE_FORMS,
    DEFAULT_RULES,
    MAX_YEAR,
    MIN_YEAR,
    REAL_TIME_RANGE,
    YEAR_RANGE,
    CalendarRules,
    DateError,
    EraCalendar,
    EraSpan,
    WorldDate,
    compare,
    is_era_id,
    parse_date,
    real_time_problem,
    sort_key,
)

CALENDAR = EraCalendar(
    [
        EraSpan(id="1st_age", start=-3000, end=-1201),
        EraSpan(id="2nd_age", start=-1200, end=-101),
        EraSpan(id="3rd_age", start=-100, end=600),
        EraSpan(id="age_of_iron", start=250, end=400, parent="3rd_age"),
        EraSpan(id="late_iron", start=350, parent="age_of_iron"),
        EraSpan(id="4th_age", start=601),
        EraSpan(id="lost_age"),
    ]
)


def d(text: str) -> WorldDate:
    return parse_date(text)


# --- parsing --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3rd_age.year_300", WorldDate(era="3rd_age", year=300)),
        ("3rd_age.year_300.month_3.day_17", WorldDate(era="3rd_age", year=300, month=3, day=17)),
        ("3rd_age.300", WorldDate(era="3rd_age", year=300)),
        ("3rd_age.300.3.17", WorldDate(era="3rd_age", year=300, month=3, day=17)),
        ("3rd_age.year_300.month_3", WorldDate(era="3rd_age", year=300, month=3)),
        ("3rd_age.300.03.07", WorldDate(era="3rd_age", year=300, month=3, day=7)),
        ("3rd_age.year_-50", WorldDate(era="3rd_age", year=-50)),
        ("3rd_age.-50.12.31", WorldDate(era="3rd_age", year=-50, month=12, day=31)),
        ("3rd_age.year_300.3.day_17", WorldDate(era="3rd_age", year=300, month=3, day=17)),
        ("3rd_age", WorldDate(era="3rd_age")),
        ("age-of-ash.12", WorldDate(era="age-of-ash", year=12)),
        ("unknown", WorldDate.unknown()),
    ],
)
def test_parse_date_accepts_every_documented_form(text: str, expected: WorldDate) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("3rd_age.year_abc", '"year_abc" is not a year'),
        ("300 TA", None),
        ("340.x", '"x" is not a month'),
        ("", None),
        ("3rd_age.", '"" is not a year'),
        ("3rd_Age.year_300", "era ids are lowercase"),
        ("3rd_age.300.100", "month 100 is not a month of the calendar (1 to 99)"),
        ("3rd_age.300.0", "month 0 is not a month of the calendar (1 to 99)"),
        ("3rd_age.300.2.100", "day 100 is not a day of a month (1 to 99)"),
        ("3rd_age.300.2.3.4", "too many parts"),
        ("3rd_age.month_3", '"month_3" is not a year'),
        ("3rd_age.year_300.day_17", '"day_17" is not a month'),
        ("3rd_age. 300", '" 300" is not a year'),
        ("unknown.300", None),
        ("Unknown", None),
    ],
)
def test_parse_date_rejects_malformed_dates_with_the_expected_forms(text: str, reason: str | None) -> None:
    with pytest.raises(DateError) as caught:
        parse_date(text)
    message = caught.value.describe('"born"')
    assert message.startswith(f'"born" must be a date like {DATE_FORMS}; got "{text}"')
    if reason is not None:
        assert reason in message
    assert "3rd_age.300 (an era and a year)" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "3rd_age.year_99999999999999999999",
        "3rd_age.1000000000000",
        "3rd_age.year_-1000000000000",
        "3rd_age." + "9" * 5000,  # more digits than Python turns into an int
    ],
)
def test_a_year_outside_the_calendar_is_refused_naming_the_range(text: str) -> None:
    with pytest.raises(DateError) as caught:
        parse_date(text)
    assert YEAR_RANGE in caught.value.describe("The date")
    assert YEAR_RANGE == "years -999,999,999,999 to 999,999,999,999"


def test_the_calendar_s_first_and_last_years_are_dates_whose_keys_fit_64_bits() -> None:
    assert parse_date(f"3rd_age.{MAX_YEAR}.12.31").year == MAX_YEAR
    assert parse_date(f"3rd_age.{MIN_YEAR}").year == MIN_YEAR
    assert (MAX_YEAR + 1) * 10000 < 2**63 and (MIN_YEAR - 1) * 10000 > -(2**63)
    with pytest.raises(DateError, match="not one of the calendar's"):
        parse_date("3rd_age.300." + "1" * 40)


def test_real_times_are_bounded_so_any_time_zone_can_show_them() -> None:
    plus14 = dt.timezone(dt.timedelta(hours=14))
    assert real_time_problem(dt.datetime(1, 1, 1, tzinfo=plus14)) == f"real times run {REAL_TIME_RANGE}"
    assert real_time_problem(dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.UTC)) is not None
    assert real_time_problem(dt.datetime(2026, 11, 30, 18, tzinfo=plus14)) is None
    naive = dt.datetime(2026, 11, 30, 18, tzinfo=plus14).replace(tzinfo=None)
    assert real_time_problem(naive) == "it names no time zone"


def test_calendar_rules_change_the_month_and_day_limits() -> None:
    rules = CalendarRules(months_per_year=13, days_per_month=28)
    assert parse_date("3rd_age.300.13.28", rules) == WorldDate(era="3rd_age", year=300, month=13, day=28)
    with pytest.raises(DateError, match="day 29"):
        parse_date("3rd_age.300.13.29", rules)
    with pytest.raises(DateError, match=r"day 32 is not a day of a month \(1 to 31\)"):
        parse_date("3rd_age.300.2.32", DEFAULT_RULES)


def test_a_stored_date_reads_any_day_and_month_a_calendar_may_have() -> None:
    # A calendar's months may run to 99 days and its year to 99 months: the stored form reads them back.
    assert parse_date("3rd_age.year_638.month_6.day_45") == WorldDate(
        era="3rd_age", year=638, month=6, day=45
    )
    assert parse_date("412.99.99") == WorldDate(year=412, month=99, day=99)


def test_str_gives_the_canonical_form_that_parses_back() -> None:
    for text in ["3rd_age.300.3.17", "3rd_age.year_-5", "3rd_age", "unknown", "2nd_age.7.1"]:
        date = d(text)
        assert parse_date(str(date)) == date
    assert str(d("3rd_age.300.3.17")) == "3rd_age.year_300.month_3.day_17"
    assert str(WorldDate.unknown()) == "unknown"


def test_a_plain_year_is_a_date_without_an_era_on_the_same_axis() -> None:
    for text in ["412", "412.3.17", "-50", "0", "412.month_3.day_17"]:
        date = d(text)
        assert date.era is None and date.year is not None
        assert parse_date(str(date)) == date
        assert not date.is_unknown
    assert str(d("412.3.17")) == "412.month_3.day_17"
    assert d("412").precision == "year"
    assert d("412.3").precision == "month"
    assert compare(d("412"), d("413")) == "before"
    assert compare(d("412.3.17"), d("412")) == "overlap"
    assert compare(d("412"), d("3rd_age.412")) == "same"
    assert compare(d("412"), d("unknown")) == "unknown"
    with pytest.raises(DateError, match="plain year"):
        parse_date("412.100")
    with pytest.raises(DateError, match="too many parts"):
        parse_date("412.3.17.1")


def test_precision_is_kept() -> None:
    assert WorldDate.unknown().precision == "unknown"
    assert WorldDate.unknown().is_unknown
    assert d("3rd_age").precision == "era"
    assert d("3rd_age.300").precision == "year"
    assert d("3rd_age.300.3").precision == "month"
    assert d("3rd_age.300.3.17").precision == "day"
    assert not d("3rd_age").is_unknown


@pytest.mark.parametrize(
    "fields",
    [
        {"month": 3},
        {"era": "3rd_age", "month": 3},
        {"era": "3rd_age", "year": 300, "day": 3},
        {"era": "3rd_age", "year": 300, "month": 0},
        {"era": "3rd_age", "year": 300, "month": 1, "day": 0},
        {"era": "Third Age", "year": 300},
        {"era": "300", "year": 300},
        {"era": "unknown"},
    ],
)
def test_world_date_refuses_impossible_shapes(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        WorldDate.model_validate(fields)


def test_world_dates_are_frozen_and_hashable() -> None:
    date = d("3rd_age.300")
    with pytest.raises(ValidationError):
        date.year = 301  # type: ignore[misc]
    assert {date, d("3rd_age.year_300")} == {date}


def test_era_ids_need_a_letter() -> None:
    assert is_era_id("3rd_age")
    assert is_era_id("age-of-ash")
    assert not is_era_id("300")
    assert not is_era_id("unknown")
    assert not is_era_id("3rd age")
    assert not is_era_id("_age")


# --- era bounds -----------------------------------------------------------------------------------------------


def test_bounds_inherit_missing_ends_from_parent_eras() -> None:
    assert CALENDAR.bounds("3rd_age") == (-100, 600)
    assert CALENDAR.bounds("late_iron") == (350, 400)
    assert CALENDAR.bounds("4th_age") == (601, None)
    assert CALENDAR.bounds("lost_age") == (None, None)
    assert CALENDAR.bounds("5th_age") is None
    assert CALENDAR.knows("age_of_iron")
    assert not CALENDAR.knows("5th_age")


def test_bounds_survive_a_parent_cycle() -> None:
    looped = EraCalendar([EraSpan(id="a_age", parent="b_age"), EraSpan(id="b_age", start=5, parent="a_age")])
    assert looped.bounds("a_age") == (5, None)


def test_an_era_defined_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="defined twice"):
        EraCalendar([EraSpan(id="a_age"), EraSpan(id="a_age")])


def test_check_reports_years_outside_their_era() -> None:
    assert CALENDAR.check(d("3rd_age.700")) == "year 700 is outside 3rd_age (years -100 to 600)"
    assert CALENDAR.check(d("3rd_age.600")) is None  # both bounds are inclusive
    assert CALENDAR.check(d("3rd_age.-100")) is None
    assert CALENDAR.check(d("age_of_iron.401")) == "year 401 is outside age_of_iron (years 250 to 400)"
    assert CALENDAR.check(d("4th_age.600")) == "year 600 is outside 4th_age (from year 601)"
    assert CALENDAR.check(d("4th_age.100000")) is None
    assert CALENDAR.check(d("5th_age.1")) is None  # unknown era: cannot tell
    assert CALENDAR.check(d("3rd_age")) is None
    assert CALENDAR.check(WorldDate.unknown()) is None


# --- comparison -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("3rd_age.300", "3rd_age.301", "before"),
        ("3rd_age.301", "3rd_age.300", "after"),
        ("3rd_age.300.3.17", "3rd_age.300.3.18", "before"),
        ("3rd_age.300.3.17", "3rd_age.300.3.17", "same"),
        ("3rd_age.300", "3rd_age.300", "same"),
        ("3rd_age.300.3", "3rd_age.year_300.month_3", "same"),
        ("3rd_age.300", "3rd_age.300.3.17", "overlap"),
        ("3rd_age.300.3", "3rd_age.300.3.17", "overlap"),
        ("3rd_age.300.2", "3rd_age.300.3.1", "before"),
        ("3rd_age.299", "3rd_age.300.1.1", "before"),
        # Years are absolute: the era does not shift them.
        ("2nd_age.-150", "3rd_age.-50", "before"),
        ("2nd_age.87", "3rd_age.87", "same"),
        ("1st_age.412", "2nd_age.87", "after"),
        # Era-only dates are the era's span.
        ("2nd_age", "3rd_age", "before"),
        ("2nd_age", "3rd_age.-100", "before"),
        ("3rd_age", "3rd_age.300", "overlap"),
        ("3rd_age", "3rd_age", "same"),
        ("age_of_iron", "3rd_age", "overlap"),
        ("age_of_iron", "3rd_age.401", "before"),
        ("late_iron", "age_of_iron.349", "after"),
        ("4th_age", "3rd_age.600", "after"),
        ("4th_age", "4th_age.1000000", "overlap"),
        # Unplaceable dates.
        ("unknown", "3rd_age.300", "unknown"),
        ("3rd_age.300", "unknown", "unknown"),
        ("unknown", "unknown", "unknown"),
        ("lost_age", "3rd_age.300", "unknown"),
        ("5th_age", "3rd_age", "unknown"),
        ("5th_age.1", "3rd_age.0", "after"),
    ],
)
def test_compare_with_a_calendar(a: str, b: str, expected: str) -> None:
    assert compare(d(a), d(b), CALENDAR) == expected
    assert CALENDAR.compare(d(a), d(b)) == expected


def test_compare_is_antisymmetric() -> None:
    flip = {"before": "after", "after": "before", "same": "same", "overlap": "overlap", "unknown": "unknown"}
    dates = [
        d(t) for t in ["3rd_age.300", "3rd_age", "2nd_age.5", "unknown", "age_of_iron", "3rd_age.300.3.1"]
    ]
    for a, b in itertools.product(dates, repeat=2):
        assert CALENDAR.compare(b, a) == flip[CALENDAR.compare(a, b)]


def test_without_a_calendar_era_only_dates_are_unknown_but_years_still_compare() -> None:
    assert compare(d("2nd_age"), d("3rd_age")) == "unknown"
    assert compare(d("2nd_age.5"), d("3rd_age.6")) == "before"
    assert compare(d("3rd_age.6"), d("3rd_age.6")) == "same"


def test_interval_pads_coarse_dates() -> None:
    point = CALENDAR.interval(d("3rd_age.300.3.17"))
    assert point is not None
    assert point.lo == point.hi == (300, 3, 17)
    year = CALENDAR.interval(d("3rd_age.300"))
    assert year is not None
    assert year.lo == (300, 0, 0)
    assert year.hi[0] == 300
    assert CALENDAR.interval(d("lost_age")) is None
    assert CALENDAR.interval(WorldDate.unknown()) is None


def test_sort_key_is_a_total_order_consistent_with_compare() -> None:
    texts = [
        "3rd_age.300.3.17",
        "unknown",
        "3rd_age",
        "2nd_age",
        "3rd_age.300",
        "3rd_age.300.3",
        "age_of_iron",
        "1st_age.-2000",
        "lost_age",
        "4th_age",
        "3rd_age.-100",
        "3rd_age.600",
    ]
    dates = [d(t) for t in texts]
    ordered = sorted(dates, key=CALENDAR.sort_key)
    for a, b in itertools.combinations(ordered, 2):
        assert CALENDAR.compare(a, b) != "after", (a, b)
    for a, b in itertools.permutations(dates, 2):
        if CALENDAR.compare(a, b) == "before":
            assert CALENDAR.sort_key(a) < CALENDAR.sort_key(b)
    # Coarser first when two dates start together; unplaceable dates last.
    assert ordered.index(d("3rd_age.300")) < ordered.index(d("3rd_age.300.3"))
    assert {str(x) for x in ordered[-2:]} == {"unknown", "lost_age"}
    assert sort_key(d("2nd_age")) == sort_key(WorldDate.unknown())  # no calendar: era-only is unplaceable
