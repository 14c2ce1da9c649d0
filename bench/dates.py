"""Benchmark: dates as the table types them, read on three campaign calendars, against the stored-key parser.

    .venv/bin/python -m bench.dates

1,000 phrases generated from templates (seeded) over three calendars: one with eras, named months and seasons;
one with a single era and no month names; one with plain years. Of them, most name one date (each with the date
it must be read as) and the rest are bad (a typo'd era, full-width digits, the 31st of a 30-day month, two eras,
200 characters, ...), of which some have readings to offer. Half the templates (`HELD_OUT`) were written once and
never tuned against: their share is reported apart. The baseline is the stored-key parser commands used before
(`canon.calendar.parse_date` with the era check), on the same phrases in the same run.

One JSON line: the share of good phrases understood as their date (tuned and held-out), the share of bad ones
refused with choices that read back (of those that have a reading) and refused at all, p50/p95 milliseconds per
phrase, and the baseline's share understood.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable

from canon.calendar import DateError, WorldDate, check_era, parse_date
from canon.campaign_calendar import CampaignCalendar, calendar_from
from canon.date_reading import read_date

AGES = calendar_from(
    {
        "eras": [
            {"name": "The First Age", "abbreviation": "FA", "start": -3000, "end": -1},
            {"key": "3rd_age", "name": "The Third Age", "abbreviation": "TA", "start": 1, "end": 600},
            {"name": "The Fourth Age", "abbreviation": "FoA", "start": 601},
        ],
        "months": [{"name": n, "days": d} for n, d in (("Frostmoon", 30), ("Hearthmoon", 31), ("Greenmoon", 30),
                                                       ("Rainmoon", 30), ("Suncrown", 31), ("Harvest", 30))],
        "seasons": [{"name": "spring", "months": ["Greenmoon", "Rainmoon"]}, {"name": "winter", "months": [1, 2]}],
    },
    {},
)  # fmt: skip
TIDE = calendar_from({"eras": [{"name": "The Tidewater Age", "abbreviation": "TW", "start": 0}]}, {})
PLAIN = CampaignCalendar()
CALENDARS = {"ages": AGES, "tide": TIDE, "plain": PLAIN}
ANCHORS = {
    "ages": WorldDate(era="3rd_age", year=340, month=3, day=12),
    "tide": WorldDate(era="tidewater_age", year=320, month=4, day=9),
    "plain": WorldDate(year=1210, month=6, day=20),
}
ERA_WORDS = {"ages": ("the Third Age", "TA", "3rd_age"), "tide": ("the Tidewater Age", "TW", "tidewater_age")}
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

Good = tuple[str, str, str]  # (calendar, phrase, stored form expected)
Template = Callable[[random.Random, str], Good | None]


def _year(rng: random.Random, cal: str) -> int:
    return rng.randint(1, 600) if cal == "ages" else rng.randint(1, 2000)


def _key(cal: str, year: int, month: int | None = None, day: int | None = None) -> str:
    era = {"ages": "3rd_age", "tide": "tidewater_age"}.get(cal)
    return str(WorldDate(era=era, year=year, month=month, day=day))


def _month(rng: random.Random, cal: str) -> tuple[int, str, int]:
    calendar = CALENDARS[cal]
    month = rng.randint(1, calendar.month_count)
    return month, calendar.month_name(month), rng.randint(1, calendar.days_in(month))


def _era_year(fmt: str) -> Template:
    def make(rng: random.Random, cal: str) -> Good | None:
        if cal == "plain":
            return None
        name, abbr, _ = ERA_WORDS[cal]
        year = _year(rng, cal)
        return cal, fmt.format(y=year, era=name, abbr=abbr, Era=name.removeprefix("the ")), _key(cal, year)

    return make


def _dated(fmt: str, needs_names: bool = True) -> Template:
    def make(rng: random.Random, cal: str) -> Good | None:
        if needs_names and not CALENDARS[cal].months:
            return None
        year = _year(rng, cal)
        month, name, day = _month(rng, cal)
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day not in (11, 12, 13) else 0, "th")
        phrase = fmt.format(y=year, m=name, d=day, o=f"{day}{suffix}", n=month)
        return cal, phrase, _key(cal, year, month, day if "{d}" in fmt or "{o}" in fmt else None)

    return make


def _relative(fmt: str, unit: str) -> Template:
    def make(rng: random.Random, cal: str) -> Good | None:
        from canon.date_relative import shift

        amount = rng.randint(1, 10)
        phrase = fmt.format(n=amount, w=NUMBER_WORDS[amount - 1], s="s" if amount > 1 else "")
        days = amount * 7 if unit == "week" else amount
        step = "day" if unit == "week" else unit
        sign = -1 if any(w in phrase for w in ("earlier", "before", "ago", "-")) else 1
        return cal, phrase, str(shift(ANCHORS[cal], sign * days, step, CALENDARS[cal]))

    return make


def _plain(fmt: str) -> Template:
    def make(rng: random.Random, cal: str) -> Good | None:
        year = _year(rng, cal)
        return cal, fmt.format(y=year), _key(cal, year)

    return make


def _stored(rng: random.Random, cal: str) -> Good | None:
    year = _year(rng, cal)
    key = _key(cal, year)
    return cal, key, key


TUNED: list[Template] = [
    _era_year("year {y} of {era}"), _era_year("{y} {abbr}"), _era_year("{Era} {y}"), _plain("year {y}"),
    _dated("{d} {m}, {y}"), _dated("the {o} of {m}, {y}"), _dated("{m} of {y}"),
    _dated("day {d} of month {n}, year {y}", needs_names=False), _relative("{w} day{s} later", "day"),
    _relative("+{n} day{s}", "day"), _relative("{n} year{s} earlier", "year"), _stored,
]  # fmt: skip
HELD_OUT: list[Template] = [
    _era_year("in the year {y} {abbr}"), _era_year("{abbr}{y}"), _era_year("{y} in {era}"),
    _era_year("{Era}, year {y}"), _plain("{y}"), _dated("{m} {o}, {y}"), _dated("{o} {m} {y}"),
    _dated("on the {o} day of {m} in {y}"), _relative("after {w} week{s}", "week"),
    _relative("{n} month{s} later", "month"), _relative("in {n} day{s}", "day"), _dated("{m}, {y}"),
]  # fmt: skip

BAD: list[tuple[str, str, bool]] = [  # (calendar, phrase, has a reading to offer)
    ("ages", "３６３ TA", True), ("ages", "Thrid Age 363", True), ("ages", "the 31st of Frostmoon, 340", True),
    ("ages", "year 700 of the Third Age", True), ("ages", "3/2/340", True), ("ages", "around 363 TA", True),
    ("ages", "363 TA, 12 FA", True), ("tide", "Tidewatr Age 12", True), ("plain", "１２１０", True),
    ("ages", "Frostmoon 3", True), ("ages", "3 Snowmoon 340", False), ("ages", "x" * 200, False),
    ("ages", "363 TA 1210", False), ("plain", "year 0", False), ("plain", "year -20", False),
    ("ages", "363 @ TA", False), ("tide", "17 March 320", False), ("ages", "some days later", False),
]  # fmt: skip


def generate(count: int = 1000, seed: int = 25) -> tuple[list[Good], list[Good], list[tuple[str, str, bool]]]:
    """Return the tuned and held-out good phrases and the bad ones (about a sixth of `count`)."""
    rng = random.Random(seed)
    tuned: list[Good] = []
    held: list[Good] = []
    bad = [BAD[i % len(BAD)] for i in range(count // 6)]
    while len(tuned) + len(held) + len(bad) < count:
        pool, out = (TUNED, tuned) if rng.random() < 0.5 else (HELD_OUT, held)
        made = rng.choice(pool)(rng, rng.choice(list(CALENDARS)))
        if made is not None:
            out.append(made)
    return tuned, held, bad


def baseline(cal: str, phrase: str) -> str | None:
    """Return what the stored-key parser made of a phrase (with the campaign's era check), or None."""
    eras = CALENDARS[cal].era_names()
    try:
        return str(check_era(parse_date(phrase.strip()), phrase, eras))
    except (DateError, ValueError):
        return None


def main() -> None:
    """Print one JSON line of figures."""
    tuned, held, bad = generate()
    times: list[float] = []

    def share(goods: list[Good]) -> float:
        right = 0
        for cal, phrase, want in goods:
            start = time.perf_counter()
            reading = read_date(phrase, CALENDARS[cal], anchor=ANCHORS[cal])
            times.append((time.perf_counter() - start) * 1000)
            right += reading.date is not None and str(reading.date) == want
        return round(right / max(len(goods), 1), 3)

    understood_tuned, understood_held = share(tuned), share(held)
    with_choices = refused = offered = 0
    for cal, phrase, readable in bad:
        start = time.perf_counter()
        reading = read_date(phrase, CALENDARS[cal], anchor=ANCHORS[cal])
        times.append((time.perf_counter() - start) * 1000)
        refused += not reading.understood and bool(reading.sentence())
        if readable:
            offered += 1
            back = [read_date(c, CALENDARS[cal], anchor=ANCHORS[cal]).understood for c in reading.choices]
            with_choices += not reading.understood and bool(back) and all(back)
    goods = tuned + held
    base = sum(baseline(cal, phrase) == want for cal, phrase, want in goods) / len(goods)
    quantiles = statistics.quantiles(times, n=100)
    print(
        json.dumps(
            {
                "bench": "dates",
                "phrases": len(goods) + len(bad),
                "calendars": len(CALENDARS),
                "understood_tuned": understood_tuned,
                "understood_held_out": understood_held,
                "refused_with_choices": round(with_choices / max(offered, 1), 3),
                "bad_refused": round(refused / max(len(bad), 1), 3),
                "p50_ms": round(quantiles[49], 4),
                "p95_ms": round(quantiles[94], 4),
                "goal_p95_ms": 1.0,
                "baseline_key_parser_understood": round(base, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
