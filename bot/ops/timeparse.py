"""Read the `when` of `/session schedule` in a member's time zone, and show times with Discord timestamps.

Accepted forms (case-insensitive, 24-hour or am/pm):
`2026-12-05 19:30`, `2026-12-05T19:30`, `today 19:30`, `tomorrow 7pm`, `friday 19:30`, `fri 7:30pm`,
`19:30` (the next such time), `in 90 minutes`, `in 2 hours`, `in 3 days`.
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from canon.calendar import REAL_TIME_RANGE, real_time_problem
from canon.errors import InvalidInput

WEEKDAYS = {
    name: index
    for index, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}
REPEATS = ("none", "daily", "weekly")

_TIME = r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>am|pm)?"
_ISO = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})[ t]" + _TIME + "$")
_DAY = re.compile(r"^(?P<day>[a-z]+)\s+(?:at\s+)?" + _TIME + "$")
_ONLY_TIME = re.compile(r"^(?:at\s+)?" + _TIME + "$")
_RELATIVE = re.compile(r"^in\s+(?P<count>\d{1,4})\s*(?P<unit>m|min|mins|minutes?|h|hrs?|hours?|d|days?)$")

EXAMPLES = "`2026-12-05 19:30`, `tomorrow 7pm`, `friday 19:30`, `19:30` or `in 2 hours`"


def zone(name: str) -> ZoneInfo:
    """Return the time zone of an IANA name (`Europe/Berlin`), or raise `InvalidInput` with suggestions."""
    cleaned = name.strip()
    if cleaned.upper() in {"UTC", "GMT", "Z"}:
        return ZoneInfo("UTC")
    try:
        if "/" in cleaned or cleaned in available_timezones():
            return ZoneInfo(cleaned)
    except (ZoneInfoNotFoundError, ValueError):
        pass
    lowered = cleaned.casefold().replace(" ", "_")
    close = sorted(z for z in available_timezones() if lowered and lowered in z.casefold())[:5]
    hint = f" Did you mean {', '.join(f'`{z}`' for z in close)}?" if close else ""
    raise InvalidInput(
        f"“{name}” is not a time zone I know. Use an IANA name like `Europe/Berlin` or `America/New_York`.{hint}"
    )


def _clock(match: re.Match[str]) -> tuple[int, int]:
    hour, minute = int(match["hour"]), int(match["minute"] or 0)
    ampm = match["ampm"]
    if ampm:
        if not 1 <= hour <= 12:
            raise InvalidInput(f"“{match.group(0)}”: with am/pm the hour is 1 to 12.")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise InvalidInput(f"“{match.group(0)}” is not a time of day.")
    return hour, minute


def localize(naive: dt.datetime, tz: ZoneInfo) -> dt.datetime:
    """Return a wall-clock time in a zone as an aware time; refuse a time the clocks skip (DST gap).

    An ambiguous time (the hour repeated when clocks go back) is read as its first occurrence.
    """
    aware = naive.replace(tzinfo=tz, fold=0)
    if real_time_problem(aware) is not None:
        raise InvalidInput(f"{naive:%Y-%m-%d %H:%M} cannot be used: times run {REAL_TIME_RANGE}.")
    if aware.astimezone(dt.UTC).astimezone(tz).replace(tzinfo=None) != naive:
        raise InvalidInput(
            f"{naive:%Y-%m-%d %H:%M} does not exist in {tz.key}: the clocks skip that hour. Pick another time."
        )
    return aware


def parse_when(text: str, tz: ZoneInfo, now: dt.datetime) -> dt.datetime:
    """Return the UTC time `text` means for someone in `tz` at `now`, or raise `InvalidInput`."""
    raw = " ".join(text.strip().lower().split())
    local_now = now.astimezone(tz)
    if match := _RELATIVE.match(raw):
        count, unit = int(match["count"]), match["unit"][0]
        delta = {
            "m": dt.timedelta(minutes=count),
            "h": dt.timedelta(hours=count),
            "d": dt.timedelta(days=count),
        }[unit]
        return (now + delta).astimezone(dt.UTC)
    if match := _ISO.match(raw):
        try:
            day = dt.date.fromisoformat(match["date"])
        except ValueError:
            raise InvalidInput(f"“{match['date']}” is not a real date.") from None
        hour, minute = _clock(match)
        return localize(dt.datetime.combine(day, dt.time(hour, minute)), tz).astimezone(dt.UTC)
    if match := _DAY.match(raw):
        word = match["day"]
        hour, minute = _clock(match)
        if word == "today":
            day = local_now.date()
        elif word == "tomorrow":
            day = local_now.date() + dt.timedelta(days=1)
        elif word in WEEKDAYS:
            ahead = (WEEKDAYS[word] - local_now.weekday()) % 7
            day = local_now.date() + dt.timedelta(days=ahead)
            if ahead == 0 and (hour, minute) <= (local_now.hour, local_now.minute):
                day += dt.timedelta(days=7)
        else:
            raise InvalidInput(f"“{text}” is not a time I can read. Try {EXAMPLES}.")
        return localize(dt.datetime.combine(day, dt.time(hour, minute)), tz).astimezone(dt.UTC)
    if match := _ONLY_TIME.match(raw):
        hour, minute = _clock(match)
        day = local_now.date()
        if (hour, minute) <= (local_now.hour, local_now.minute):
            day += dt.timedelta(days=1)
        return localize(dt.datetime.combine(day, dt.time(hour, minute)), tz).astimezone(dt.UTC)
    raise InvalidInput(f"“{text}” is not a time I can read. Try {EXAMPLES}.")


def next_occurrence(first: dt.datetime, tz: ZoneInfo, repeat: str, after: dt.datetime) -> dt.datetime | None:
    """Return the first start of a (repeating) session at or after `after`; wall-clock time kept across DST."""
    if repeat == "none":
        return first if first >= after else None
    step = dt.timedelta(days=1 if repeat == "daily" else 7)
    local_first = first.astimezone(tz).replace(tzinfo=None)
    if first >= after:
        return first
    periods = max(0, (after - first) // step - 1)
    candidate = local_first + step * periods
    while True:
        aware = candidate.replace(tzinfo=tz, fold=0).astimezone(dt.UTC)
        if aware >= after:
            return aware
        candidate += step


def discord_time(moment: dt.datetime, style: str = "F") -> str:
    """Return a Discord timestamp (`<t:...:F>`): every reader sees it in their own time zone."""
    return f"<t:{int(moment.timestamp())}:{style}>"
