"""Reading `/session schedule`'s `when` in a member's time zone, daylight saving time included."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from bot.ops.timeparse import discord_time, next_occurrence, parse_when, zone
from canon.errors import InvalidInput

BERLIN = ZoneInfo("Europe/Berlin")
# A Wednesday, 10:00 in Berlin (UTC+1 in winter).
NOW = dt.datetime(2026, 1, 14, 9, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-02-01 19:30", dt.datetime(2026, 2, 1, 18, 30, tzinfo=dt.UTC)),
        ("2026-02-01T7:30pm", dt.datetime(2026, 2, 1, 18, 30, tzinfo=dt.UTC)),
        ("today 19:30", dt.datetime(2026, 1, 14, 18, 30, tzinfo=dt.UTC)),
        ("tomorrow 7pm", dt.datetime(2026, 1, 15, 18, 0, tzinfo=dt.UTC)),
        ("friday 19:30", dt.datetime(2026, 1, 16, 18, 30, tzinfo=dt.UTC)),
        ("Wed 9:00", dt.datetime(2026, 1, 21, 8, 0, tzinfo=dt.UTC)),  # today's 9:00 has passed: next week
        ("wed at 11:00", dt.datetime(2026, 1, 14, 10, 0, tzinfo=dt.UTC)),
        ("08:00", dt.datetime(2026, 1, 15, 7, 0, tzinfo=dt.UTC)),
        ("12am", dt.datetime(2026, 1, 14, 23, 0, tzinfo=dt.UTC)),
        ("in 90 minutes", NOW + dt.timedelta(minutes=90)),
        ("in 2 hours", NOW + dt.timedelta(hours=2)),
        ("in 3 days", NOW + dt.timedelta(days=3)),
    ],
)
def test_forms_are_read_in_the_members_zone(text: str, expected: dt.datetime) -> None:
    assert parse_when(text, BERLIN, NOW) == expected


def test_summer_time_changes_the_offset() -> None:
    assert parse_when("2026-07-01 19:30", BERLIN, NOW) == dt.datetime(2026, 7, 1, 17, 30, tzinfo=dt.UTC)


def test_a_time_the_clocks_skip_is_refused_and_a_repeated_one_is_the_first() -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        parse_when("2026-03-29 02:30", BERLIN, NOW)  # clocks go 02:00 -> 03:00
    first = parse_when("2026-10-25 02:30", BERLIN, NOW)  # 02:30 happens twice
    assert first == dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize("text", ["whenever", "2026-02-30 10:00", "25:00", "13pm", "someday 10:00", ""])
def test_nonsense_says_what_works(text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_when(text, BERLIN, NOW)


def test_zones_by_iana_name_with_suggestions() -> None:
    assert zone("utc").key == "UTC"
    assert zone("America/New_York").key == "America/New_York"
    with pytest.raises(InvalidInput, match="Europe/Berlin"):
        zone("berlin")


def test_weekly_sessions_keep_their_wall_clock_time_across_dst() -> None:
    first = dt.datetime(2026, 3, 20, 18, 0, tzinfo=dt.UTC)  # Friday 19:00 in Berlin (winter time)
    after_change = next_occurrence(first, BERLIN, "weekly", dt.datetime(2026, 3, 30, tzinfo=dt.UTC))
    assert after_change == dt.datetime(2026, 4, 3, 17, 0, tzinfo=dt.UTC)  # still 19:00, now UTC+2
    assert next_occurrence(first, BERLIN, "none", dt.datetime(2026, 3, 30, tzinfo=dt.UTC)) is None
    assert next_occurrence(first, BERLIN, "daily", first) == first


def test_discord_timestamps() -> None:
    moment = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert discord_time(moment) == f"<t:{int(moment.timestamp())}:F>"
    assert discord_time(moment, "R").endswith(":R>")


def test_a_time_past_the_last_day_in_the_zone_furthest_behind_is_refused_naming_the_range() -> None:
    behind = ZoneInfo("Etc/GMT+12")  # UTC-12: 9999-12-31 23:59 there is past Python's last UTC day
    with pytest.raises(InvalidInput, match="times run from 0001-01-02 to 9999-12-30"):
        parse_when("9999-12-31 23:59", behind, NOW)
    ahead = ZoneInfo("Etc/GMT-14")
    with pytest.raises(InvalidInput, match="times run from"):
        parse_when("0001-01-01 00:00", ahead, NOW)
