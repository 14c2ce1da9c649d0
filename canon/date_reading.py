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

from canon.calendar import UNKNOWN, DateError, WorldDate, parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.date_numbers import DateRefusal, number_in, placed, read_numbers, settle
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
    except DateRefusal as refusal:
        choices = tuple(dict.fromkeys(c for c in refusal.choices if c))[:4]
        return DateReading(text=text, problem=refusal.problem, choices=choices)
    return DateReading(text=text, date=date, note=note)


def _read(text: str, calendar: CampaignCalendar, anchor: WorldDate | None) -> tuple[WorldDate, str]:
    raw = " ".join(text.split())
    if not raw:
        raise DateRefusal(f"No date was given; write one like “{example(calendar)}”.")
    if len(raw) > MAX_LENGTH:
        raise DateRefusal(
            f"That is {len(raw)} characters long, not a date: a date is a few words, like “{example(calendar)}”."
        )
    if foreign_digits(raw):
        plain = ascii_digits(raw)
        reading = read_date(plain, calendar, anchor=anchor) if not foreign_digits(plain) else None
        choice = (calendar.say(reading.date),) if reading is not None and reading.date is not None else ()
        raise DateRefusal(f"“{raw}” writes its digits in another script; type them as 0–9.", choice)
    if (bad := junk(raw)) is not None:
        raise DateRefusal(f"“{raw}” holds “{bad}”, which no date has; write one like “{example(calendar)}”.")
    if raw == UNKNOWN or "_" in raw or (_KEY.fullmatch(raw) and ("." in raw or calendar.era(raw))):
        return _stored(raw, calendar), ""
    words = tokens(raw)
    if set(words) in _UNKNOWN_WORDS:
        return WorldDate.unknown(), ""
    relative = read_relative(words, raw, calendar, anchor, example(calendar))
    if relative is not None:
        if isinstance(relative, tuple):
            return relative
        raise DateRefusal(relative.problem, relative.choices)
    return _absolute(raw, words, calendar)


def _stored(raw: str, calendar: CampaignCalendar) -> WorldDate:
    try:
        date = parse_date(raw, calendar.rules)
    except DateError as error:
        reason = f" ({error.reason})" if error.reason and not re.search(r"[_.]\w", error.reason) else ""
        raise DateRefusal(
            f"That is not a date this campaign's calendar knows{reason}; write one like “{example(calendar)}”."
        ) from None
    if date.era is not None and calendar.eras and calendar.era(date.era) is None:
        guess = nearest(date.era.replace("_", " "), calendar_names(calendar), ("era",))
        choice: tuple[str, ...] = ()
        if guess is not None:
            choice = (calendar.say(date.model_copy(update={"era": str(guess.value)})),)
        era = date.era.replace("_", " ")
        raise DateRefusal(f"There is no era “{era}” in this campaign. {calendar.describe_eras()}", choice)
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
        raise DateRefusal(
            f"“{raw}” names two eras, {listed([calendar.era_phrase(e) for e in eras])}; a date is in one.",
            _era_choices(rest, calendar, eras),
        )
    if len(months) > 1 or len(seasons) > 1 or (months and seasons):
        raise DateRefusal(f"“{raw}” names more than one month or season; a date has one.")
    month_at = next((at for at, n in found if n.kind == "month"), -1)
    year, month, day = read_numbers(raw, rest, months, calendar, month_at)
    era = eras[0] if eras else None
    if year is None:
        if month is not None or day is not None or seasons:
            raise DateRefusal(f"“{raw}” gives no year; add one, like “{_with_year(month, day, calendar)}”.")
        if era is None:
            raise DateRefusal(f"“{raw}” is not a date; write one like “{example(calendar)}”.")
        return WorldDate(era=era), ""
    note = ""
    if seasons:
        season = calendar.seasons[seasons[0]]
        if len(season.months) == 1:
            month = season.months[0]
        else:
            note = f"{season.name.capitalize()} is kept as its year: a date holds a year, a month or a day."
    date = placed(raw, year, month, day, era, calendar)
    return settle(date, calendar, raw), note


def _numeric(raw: str, match: re.Match[str], calendar: CampaignCalendar, names: list[Name]) -> WorldDate:
    a, b, c = (int(g) for g in match.groups())
    around = raw[: match.start()] + " " + raw[match.end() :]
    found, rest = find_names(tokens(around), names)
    if any(w is not None and w not in _FILLER for w in rest):
        raise DateRefusal(f"“{raw}” mixes numbers with words the calendar does not have.")
    era = next((str(n.value) for _, n in found if n.kind == "era"), None)
    readings: list[WorldDate] = []
    for year, month, day in ((c, b, a), (c, a, b), (a, b, c)):
        if 1 <= month <= calendar.month_count and 1 <= day <= calendar.days_in(month):
            try:
                date = settle(WorldDate(era=era, year=year, month=month, day=day), calendar, raw)
            except DateRefusal:
                continue
            if date not in readings:
                readings.append(date)
    if len(readings) == 1:
        return readings[0]
    if not readings:
        raise DateRefusal(f"“{raw}” is not a day of this calendar; write one like “{example(calendar)}”.")
    raise DateRefusal(f"“{raw}” can be read more than one way.", tuple(calendar.say(d) for d in readings))


def _unknown_words(
    raw: str, words: list[str], rest: list[str | None], calendar: CampaignCalendar, names: list[Name]
) -> None:
    """Refuse a text with words the calendar does not know, suggesting the nearest name or the plain date."""
    strange = [w for w in rest if w is not None and number_in(w) is None and w not in _FILLER]
    strange = [w for w in strange if not (ORDINAL.fullmatch(w) or ordinal_word(w))]
    if not strange:
        return
    if set(strange) <= _VAGUE:
        kept = [w for w in words if w not in _VAGUE]
        plain = read_date(" ".join(kept), calendar) if kept else None
        choice = (calendar.say(plain.date),) if plain is not None and plain.date is not None else ()
        raise DateRefusal(
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
        raise DateRefusal(f"{what}; the nearest is {shown}.", choice)
    if calendar.months:
        months = ", ".join(m.name for m in calendar.months[:12])
        more = "" if len(calendar.months) <= 12 else ", …"
        detail = f" Its months: {months}{more}."
    else:
        detail = " Its months have no names: write month 3."
    raise DateRefusal(
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
