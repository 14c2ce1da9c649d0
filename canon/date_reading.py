"""Read a date as the table types it, on the campaign's calendar; never guess.

`read_date(text, calendar, anchor=...)` understands what `CampaignCalendar.say` writes and what people type:

    year 363 of the Third Age · 363 TA · Third Age 363 · TA 363 · the 363rd year of the Third Age
    17 Hearthmoon, 340 TA · the 3rd of Frostmoon, 1042 · Frostmoon 3rd, 1042 · Frostmoon of 1042
    day 17 of month 3, year 340 · spring of 12 AR · the Third Age · 412 (a campaign without eras)
    three days later · +3 days · a week later · 2 years earlier · the next day · yesterday · next spring
    3rd_age.year_363 (the stored form, still accepted) · unknown

A year with no era is placed in the one era that contains it. Anything that could mean two things ("Frostmoon
3": the 3rd, or year 3?), names what the calendar lacks (a month, an era, the 31st of a 30-day month), or is
not a date (full-width digits, symbols, 200 characters) is refused: the answer is a sentence in the
calendar's words and, where there are any, the readings to choose from, each of which reads back as itself.
A season is kept as its year (a month if the season has one): a date holds a year, a month or a day.
Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from canon.calendar import MAX_YEAR, UNKNOWN, DateError, WorldDate, parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.date_relative import read_relative
from canon.date_words import (
    ORDINAL,
    Name,
    ascii_digits,
    calendar_names,
    find_names,
    foreign_digits,
    junk,
    nearest,
    ordinal_word,
    tokens,
)
from canon.errors import InvalidInput
from canon.wording.counts import listed

#: A typed date is a few words; longer text is refused before it is read.
MAX_LENGTH = 80
_KEY = re.compile(r"^[a-z0-9_-]*[a-z][a-z0-9_-]*(\.[a-z_]*[+-]?[0-9]+){0,3}$|^[+-]?[0-9]+(\.[0-9]+){1,2}$")
_NUMERIC = re.compile(r"(?<![\d/])(\d{1,12})\s*/\s*(\d{1,12})\s*/\s*(\d{1,12})(?![\d/])")
_FILLER = {"the", "of", "in", "on", "at", "during", "and", "year", "day", "month", "ad"}
_VAGUE = {
    "around",
    "about",
    "circa",
    "c",
    "ca",
    "approximately",
    "early",
    "late",
    "mid",
    "roughly",
    "before",
    "after",
}
_UNKNOWN_WORDS = ({"unknown"}, {"an", "unknown", "date"}, {"not", "known"})


@dataclass(frozen=True)
class DateReading:
    """What a typed date says: the date understood, or why not and the readings to choose from (in words)."""

    text: str
    date: WorldDate | None = None
    problem: str = ""
    choices: tuple[str, ...] = ()
    note: str = ""

    @property
    def understood(self) -> bool:
        """Tell whether the text names exactly one date."""
        return self.date is not None

    def sentence(self) -> str:
        """Return the refusal as the person reads it: the problem, then the choices or how to write a date."""
        if self.understood:
            return ""
        if self.choices:
            listed = " or ".join(f"“{c}”" for c in self.choices)
            return f"{self.problem} Did you mean {listed}?"
        return self.problem


class _Refusal(Exception):
    def __init__(self, problem: str, choices: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.choices = choices


def _example_date(calendar: CampaignCalendar) -> WorldDate:
    """Return a year of the calendar to show dates with: in its first dated era (or plainly, without eras)."""
    era = next((e for e in calendar.eras if e.start is not None or e.end is not None), None)
    era = era or (calendar.eras[0] if calendar.eras else None)
    if era is None:
        return WorldDate(year=max(calendar.first_year, 412))
    year = era.start + 1 if era.start is not None else (era.end if era.end is not None else 300)
    return WorldDate(era=era.key, year=year)


def example(calendar: CampaignCalendar) -> str:
    """Return a date in the calendar's words to show how one is written (every hint, placeholder and error
    showing a date takes it from here, or from `examples`: never a fixed date of another world)."""
    return calendar.say(_example_date(calendar))


def examples(calendar: CampaignCalendar) -> list[str]:
    """Return dates in the calendar's words to show how they are written: a year, and where the calendar names
    its months a day of one ("17 Hearthmoon, year 301 of the Third Age")."""
    year = _example_date(calendar)
    shown = [calendar.say(year)]
    if calendar.months:
        month = min(3, len(calendar.months))
        day = min(17, calendar.months[month - 1].days)
        shown.append(calendar.say(year.model_copy(update={"month": month, "day": day})))
    return shown


def read_date(text: str, calendar: CampaignCalendar, *, anchor: WorldDate | None = None) -> DateReading:
    """Return what `text` says as a date of `calendar`; `anchor` (the scene's date) places relative dates."""
    try:
        date, note = _read(text, calendar, anchor)
    except _Refusal as refusal:
        choices = tuple(dict.fromkeys(c for c in refusal.choices if c))[:4]
        return DateReading(text=text, problem=refusal.problem, choices=choices)
    return DateReading(text=text, date=date, note=note)


def _read(text: str, calendar: CampaignCalendar, anchor: WorldDate | None) -> tuple[WorldDate, str]:
    raw = " ".join(text.split())
    if not raw:
        raise _Refusal(f"No date was given; write one like “{example(calendar)}”.")
    if len(raw) > MAX_LENGTH:
        raise _Refusal(
            f"That is {len(raw)} characters long, not a date: a date is a few words, like “{example(calendar)}”."
        )
    if foreign_digits(raw):
        plain = ascii_digits(raw)
        reading = read_date(plain, calendar, anchor=anchor) if not foreign_digits(plain) else None
        choice = (calendar.say(reading.date),) if reading is not None and reading.date is not None else ()
        raise _Refusal(f"“{raw}” writes its digits in another script; type them as 0–9.", choice)
    if (bad := junk(raw)) is not None:
        raise _Refusal(f"“{raw}” holds “{bad}”, which no date has; write one like “{example(calendar)}”.")
    if raw == UNKNOWN or "_" in raw or (_KEY.fullmatch(raw) and ("." in raw or calendar.era(raw))):
        return _stored(raw, calendar), ""
    words = tokens(raw)
    if set(words) in _UNKNOWN_WORDS:
        return WorldDate.unknown(), ""
    relative = read_relative(words, raw, calendar, anchor, example(calendar))
    if relative is not None:
        if isinstance(relative, tuple):
            return relative
        raise _Refusal(relative.problem, relative.choices)
    return _absolute(raw, words, calendar)


def _stored(raw: str, calendar: CampaignCalendar) -> WorldDate:
    try:
        date = parse_date(raw, calendar.rules)
    except DateError as error:
        reason = f" ({error.reason})" if error.reason and not re.search(r"[_.]\w", error.reason) else ""
        raise _Refusal(
            f"That is not a date this campaign's calendar knows{reason}; write one like “{example(calendar)}”."
        ) from None
    if date.era is not None and calendar.eras and calendar.era(date.era) is None:
        guess = nearest(date.era.replace("_", " "), calendar_names(calendar), ("era",))
        choice: tuple[str, ...] = ()
        if guess is not None:
            choice = (calendar.say(date.model_copy(update={"era": str(guess.value)})),)
        era = date.era.replace("_", " ")
        raise _Refusal(f"There is no era “{era}” in this campaign. {calendar.describe_eras()}", choice)
    return date  # the stored form is exact: it is taken as written


def _absolute(raw: str, words: list[str], calendar: CampaignCalendar) -> tuple[WorldDate, str]:
    names = calendar_names(calendar)
    numeric = _NUMERIC.search(raw)
    if numeric is not None:
        return _numeric(raw, numeric, calendar, names), ""
    found, rest = find_names(words, names)
    eras = list(dict.fromkeys(str(n.value) for _, n in found if n.kind == "era"))
    months = list(dict.fromkeys(int(n.value) for _, n in found if n.kind == "month"))
    seasons = list(dict.fromkeys(int(n.value) for _, n in found if n.kind == "season"))
    _unknown_words(raw, words, rest, calendar, names)
    if len(eras) > 1:
        raise _Refusal(
            f"“{raw}” names two eras, {listed([calendar.era_phrase(e) for e in eras])}; a date is in one.",
            _era_choices(rest, calendar, eras),
        )
    if len(months) > 1 or len(seasons) > 1 or (months and seasons):
        raise _Refusal(f"“{raw}” names more than one month or season; a date has one.")
    month_at = next((at for at, n in found if n.kind == "month"), -1)
    year, month, day = _numbers(raw, rest, months, calendar, month_at)
    era = eras[0] if eras else None
    if year is None:
        if month is not None or day is not None or seasons:
            raise _Refusal(f"“{raw}” gives no year; add one, like “{_with_year(month, day, calendar)}”.")
        if era is None:
            raise _Refusal(f"“{raw}” is not a date; write one like “{example(calendar)}”.")
        return WorldDate(era=era), ""
    note = ""
    if seasons:
        season = calendar.seasons[seasons[0]]
        if len(season.months) == 1:
            month = season.months[0]
        else:
            note = f"{season.name.capitalize()} is kept as its year: a date holds a year, a month or a day."
    date = _placed(raw, year, month, day, era, calendar)
    return settle(date, calendar, raw), note


def _numbers(
    raw: str, rest: list[str | None], months: list[int], calendar: CampaignCalendar, month_at: int = -1
) -> tuple[int | None, int | None, int | None]:
    """Return the year, month and day the numbers of the text say (labels, ordinals and positions)."""
    year = day = None
    month = months[0] if months else None
    bare: list[tuple[int, int]] = []  # (position, value)
    items = [(i, w) for i, w in enumerate(rest) if w is not None]
    labels = ("year", "day", "month")
    for index, (at, word) in enumerate(items):
        value = _int(word)
        if value is None:
            continue
        ordinal = ORDINAL.fullmatch(word) is not None or ordinal_word(word) is not None
        before = items[index - 1][1] if index and items[index - 1][0] == at - 1 else None
        after = items[index + 1][1] if index + 1 < len(items) and items[index + 1][0] == at + 1 else None
        label = before if before in labels else (after if after in labels else None)
        if label == "year":
            year = _set(raw, year, value, "year")
        elif label == "day":
            day = _set(raw, day, value, "day")
        elif label == "month":
            if months:
                raise _Refusal(f"“{raw}” names its month twice.")
            month = _set(raw, month, value, "month")
        elif ordinal and month is not None:
            day = _set(raw, day, value, "day")
        elif ordinal_word(word) is not None:
            continue  # "first" without a month is not a number of this date
        else:
            bare.append((at, value))
    if len(bare) == 2 and month is not None and day is None and year is None:
        (first_at, first), (_, second) = bare
        if first_at < month_at or first <= calendar.days_in(month):
            day, year = first, second
        else:
            day, year = second, first
        bare = []
    if len(bare) == 1 and month is not None and day is None and year is not None:
        day, bare = bare[0][1], []
    if len(bare) > 1 or (bare and year is not None):
        years = [v for _, v in bare] + ([year] if year is not None else [])
        raise _Refusal(
            f"“{raw}” names more than one year ({listed([str(y) for y in years])}); a date has one."
        )
    if bare:
        value = bare[0][1]
        after_of = bare[0][0] > month_at >= 0 and rest[bare[0][0] - 1] == "of"
        if month is not None and day is None and 1 <= value <= calendar.days_in(month) and not after_of:
            name = calendar.month_name(month)
            raise _Refusal(
                f"“{raw}” could be the {_ordinal(value)} of {name} or {name} of year {value}; "
                "say which, with its year.",
                (f"{name} of year {value}",),
            )
        year = value
    return year, month, day


def _placed(
    raw: str, year: int, month: int | None, day: int | None, era: str | None, calendar: CampaignCalendar
) -> WorldDate:
    if month is not None and not 1 <= month <= calendar.month_count:
        raise _Refusal(f"This calendar has {calendar.month_count} months, so there is no month {month}.")
    if day is not None and month is None:
        raise _Refusal(f"“{raw}” gives a day but not its month.")
    if era is None and calendar.eras:
        holding = [e for e in calendar.eras if e.contains(year)]
        if len(holding) == 1:
            era = holding[0].key
        elif holding:
            raise _Refusal(
                f"Year {year} is in more than one era; say which.",
                tuple(calendar.say(WorldDate(era=e.key, year=year, month=month, day=day)) for e in holding),
            )
        else:
            raise _Refusal(f"Year {year} is in none of this campaign's eras. {calendar.describe_eras()}")
    if month is not None and day is not None and not 1 <= day <= calendar.days_in(month):
        name = calendar.month_name(month)
        last = calendar.days_in(month)
        fixed = calendar.say(WorldDate(era=era, year=year, month=month, day=last))
        raise _Refusal(
            f"{name.capitalize()} has {last} days, so there is no {_ordinal(day)} of {name}.", (fixed,)
        )
    return WorldDate(era=era, year=year, month=month, day=day)


def settle(date: WorldDate, calendar: CampaignCalendar, raw: str) -> WorldDate:
    """Return the date when its year lies in its era (or, without eras, from the calendar's first year)."""
    if date.year is None:
        return date
    if abs(date.year) > MAX_YEAR:
        raise _Refusal(f"Year {date.year} is outside the calendar.")
    if date.era is None:
        if calendar.eras:
            return _placed(raw, date.year, date.month, date.day, None, calendar)
        if date.year < calendar.first_year:
            raise _Refusal(
                f"This campaign's years count from {calendar.first_year}, so there is no year {date.year}; "
                f"a GM can give the calendar an era that reaches back further."
            )
        return date
    era = calendar.era(date.era)
    if era is not None and not era.contains(date.year):
        others = [e for e in calendar.eras if e.contains(date.year)]
        choices = tuple(
            calendar.say(WorldDate(era=e.key, year=date.year, month=date.month, day=date.day)) for e in others
        )
        raise _Refusal(
            f"Year {date.year} is not in {calendar.era_phrase(era.key)} ({era.span_words()}).", choices
        )
    return date


def _numeric(raw: str, match: re.Match[str], calendar: CampaignCalendar, names: list[Name]) -> WorldDate:
    a, b, c = (int(g) for g in match.groups())
    around = raw[: match.start()] + " " + raw[match.end() :]
    found, rest = find_names(tokens(around), names)
    if any(w is not None and w not in _FILLER for w in rest):
        raise _Refusal(f"“{raw}” mixes numbers with words the calendar does not have.")
    era = next((str(n.value) for _, n in found if n.kind == "era"), None)
    readings: list[WorldDate] = []
    for year, month, day in ((c, b, a), (c, a, b), (a, b, c)):
        if 1 <= month <= calendar.month_count and 1 <= day <= calendar.days_in(month):
            try:
                date = settle(WorldDate(era=era, year=year, month=month, day=day), calendar, raw)
            except _Refusal:
                continue
            if date not in readings:
                readings.append(date)
    if len(readings) == 1:
        return readings[0]
    if not readings:
        raise _Refusal(f"“{raw}” is not a day of this calendar; write one like “{example(calendar)}”.")
    raise _Refusal(f"“{raw}” can be read more than one way.", tuple(calendar.say(d) for d in readings))


def _unknown_words(
    raw: str, words: list[str], rest: list[str | None], calendar: CampaignCalendar, names: list[Name]
) -> None:
    """Refuse a text with words the calendar does not know, suggesting the nearest name or the plain date."""
    strange = [w for w in rest if w is not None and _int(w) is None and w not in _FILLER]
    strange = [w for w in strange if not (ORDINAL.fullmatch(w) or ordinal_word(w))]
    if not strange:
        return
    if set(strange) <= _VAGUE:
        kept = [w for w in words if w not in _VAGUE]
        plain = read_date(" ".join(kept), calendar) if kept else None
        choice = (calendar.say(plain.date),) if plain is not None and plain.date is not None else ()
        raise _Refusal(
            f"“{raw}” is approximate; canon keeps a date exactly, at a year, a month or a day.", choice
        )
    wordy = [w for w in rest if w is not None and w not in _FILLER and not re.fullmatch(r"[+-]?\d+\w*", w)]
    phrase = " ".join(_as_typed(raw, w) for w in wordy)  # ordinals in words too: "third age"
    guess = nearest(" ".join(strange), names) or next(
        (nearest(w, names) for w in strange if nearest(w, names)), None
    )
    if guess is not None:
        fixed = _replace(words, wordy, guess)
        again = read_date(fixed, calendar)
        kinds = {"era": "era", "month": "month", "season": "season"}
        what = f"“{phrase}” is not a{'n' if guess.kind == 'era' else ''} {kinds[guess.kind]} of this calendar"
        choice = (calendar.say(again.date),) if again.date is not None else (guess.shown,)
        shown = calendar.era_phrase(str(guess.value)) if guess.kind == "era" else guess.shown
        raise _Refusal(f"{what}; the nearest is {shown}.", choice)
    if calendar.months:
        months = ", ".join(m.name for m in calendar.months[:12])
        more = "" if len(calendar.months) <= 12 else ", …"
        detail = f" Its months: {months}{more}."
    else:
        detail = " Its months have no names: write month 3."
    raise _Refusal(
        f"“{phrase}” is not a word of this campaign's calendar. {calendar.describe_eras()}{detail}"
    )


def _as_typed(raw: str, word: str) -> str:
    found = re.search(re.escape(word), raw, re.IGNORECASE)
    return found[0] if found else word


def _replace(words: list[str], strange: list[str], guess: Name) -> str:
    out: list[str] = []
    placed = False
    for word in words:
        if word in strange:
            if not placed:
                out.extend(guess.words)
                placed = True
            continue
        out.append(word)
    return " ".join(out)


def _era_choices(rest: list[str | None], calendar: CampaignCalendar, eras: list[str]) -> tuple[str, ...]:
    years = [int(w) for w in rest if w is not None and re.fullmatch(r"[+-]?\d{1,12}", w)]
    choices = []
    for key in eras:
        era = calendar.era(key)
        for year in years:
            if era is not None and era.contains(year):
                choices.append(calendar.say(WorldDate(era=key, year=year)))
    return tuple(choices)


def _with_year(month: int | None, day: int | None, calendar: CampaignCalendar) -> str:
    sample = example(calendar)
    if month is None:
        return sample
    name = calendar.month_name(month)
    return f"{day} {name}, {sample}" if day is not None else f"{name} of {sample}"


def _int(word: str) -> int | None:
    match = ORDINAL.fullmatch(word)
    if match:
        return int(match[1])
    if re.fullmatch(r"[+-]?\d{1,13}", word):
        return int(word)
    return ordinal_word(word)


def _set(raw: str, current: int | None, value: int, what: str) -> int:
    if current is not None and current != value:
        raise _Refusal(f"“{raw}” names two {what}s ({current} and {value}); a date has one.")
    return value


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def typed_date(
    text: str | None, calendar: CampaignCalendar, *, anchor: WorldDate | None = None, what: str = "The date"
) -> str | None:
    """Return a typed date in its stored form (None when nothing was typed); raise `InvalidInput` with the
    refusal in the calendar's words (`what` names the field: "born", "since")."""
    if text is None or not text.strip():
        return None
    reading = read_date(text, calendar, anchor=anchor)
    if reading.date is None:
        lead = "" if what == "The date" else f"“{what}”: "
        raise InvalidInput(lead + reading.sentence())
    return str(reading.date)


def scene_anchor(stored: str | None) -> WorldDate | None:
    """Return a scene's stored date as the anchor of relative dates ("three days later"), or None."""
    if not stored:
        return None
    try:
        date = parse_date(stored)
    except DateError:
        return None
    return None if date.is_unknown else date


def present(calendar: CampaignCalendar) -> WorldDate | None:
    """Return the campaign's present, the calendar's `today:` read in its own words, or None (none given, or one
    that no longer reads: `check_today` refuses it when the GM sets it)."""
    if calendar.today is None:
        return None
    date = read_date(calendar.today, calendar).date
    return None if date is None or date.is_unknown else date


def check_today(calendar: CampaignCalendar) -> None:
    """Refuse a calendar whose `today:` is no date of it (raise `InvalidInput` with the reader's sentence)."""
    if calendar.today is None or present(calendar) is not None:
        return
    reading = read_date(calendar.today, calendar)
    why = reading.sentence() if reading.date is None else "“unknown” is no day the story can stand at."
    raise InvalidInput(f"The calendar's today, “{calendar.today}”, is no date of this calendar: {why}")
