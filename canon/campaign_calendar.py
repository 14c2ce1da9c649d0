"""The campaign's calendar as its GM declares it: eras (names, abbreviations, bounds), months and seasons.

A campaign's eras come first from its canon (the Era entities a timeline imports, with their `start` and `end`
years); the calendar block a GM sets (stored with the campaign's settings under `calendar`) names them further
(an abbreviation such as "TA", a display name) and adds what canon lacks: eras of its own, the months with
their days, the seasons. Written in YAML as a GM would:

    eras:
      - name: Third Age
        abbreviation: TA
        start: 1
        end: 600
    months:
      - {name: Frostmoon, days: 30}
      - {name: Hearthmoon, days: 30}
    seasons:
      - {name: winter, months: [Frostmoon, Hearthmoon]}

Years stay on the campaign's one year axis (`canon.calendar`): "year 363 of the Third Age" is year 363, which
the Third Age must contain. `CampaignCalendar.words()` gives the one writer of dates (`CalendarWords`), and
`canon.date_reading.read_date` reads back every form it writes; `canon.calendar_typed` reads the block a GM
types (`canon.calendar_block`), and `canon.calendar_checks` says whether it may be set. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from canon.calendar import (
    MAX_DAYS,
    MAX_MONTHS,
    MAX_YEAR,
    MIN_YEAR,
    CalendarRules,
    EraCalendar,
    EraSpan,
    WorldDate,
    is_era_id,
)
from canon.calendar_block import (
    FIELD_WORDS,
    MAX_ENTRIES,
    NAME_LIMIT,
    TODAY_LIMIT,
    CalendarBlock,
    SeasonBlock,
)
from canon.errors import InvalidInput
from canon.validation_words import problem_words
from canon.wording.dates import CalendarWords

#: Canon's eras by key: (name, first year, last year) and optionally the abbreviations a timeline gives.
CanonEras = Mapping[str, tuple[Any, ...]]
#: The key of a campaign's settings that holds the calendar block a GM set.
CALENDAR_SETTINGS = "calendar"
#: The key of a campaign's settings that holds its glossary (`{term: meaning}`, `memory.knowledge.glossary`):
#: a term whose meaning is an era's name is read in dates as that era ("TA": "Third Age").
GLOSSARY_SETTINGS = "glossary"


@functools.lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """Return a name as the reader compares it: lowercase, without dots or a leading "the", spaces collapsed."""
    words = re.sub(r"[.’']", "", text.casefold()).replace("_", " ").replace("-", " ").split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def derived_name(key: str) -> str:
    """Return a readable name for an era known only by its key: `3rd_age` reads "the 3rd age", everywhere."""
    words = key.replace("_", " ").replace("-", " ").split()
    return "The " + " ".join(words)


def era_key(name: str) -> str:
    """Return the key a new era gets from its name: "The Tidewater Age" is `tidewater_age`."""
    key = re.sub(r"[^a-z0-9]+", "_", fold(name)).strip("_")
    if not is_era_id(key):
        key = f"era_{key}".strip("_")
    return key[:60]


def era_key_for(name: str, calendar: CampaignCalendar | None) -> str:
    """Return the key an era written by its name gets, wherever it is written (a timeline's era, a date, a
    reference): the key of the calendar's era of that name when the campaign calendar has one, else the key
    its name gives (`era_key`, a leading "the" dropped). One name is one era, whichever came first."""
    if calendar is not None:
        folded = fold(name)
        for era in calendar.eras:
            if fold(era.name) == folded:
                return era.key
    return era_key(name)


class EraDef(BaseModel):
    """One era: its key (a date's first part), its name, the abbreviations typed for it, its bounds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    abbreviations: tuple[str, ...] = ()
    start: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)
    end: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)
    #: The campaign glossary's terms for the era: read in a typed date, never written (dates say the name).
    glossary: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> EraDef:
        if not is_era_id(self.key):
            raise ValueError(f"the era “{self.name}” needs a key of lowercase letters, digits and _")
        if self.start is not None and self.end is not None and self.end < self.start:
            said = CalendarWords(eras={self.key: self.name}).era(self.key)  # never "the The Third Age"
            raise ValueError(f"{said} ends (year {self.end}) before it starts (year {self.start})")
        return self

    def span_words(self) -> str:
        """Return the era's years in words: "years 0–600", "years 601 onwards", "years unknown"."""
        if self.start is not None and self.end is not None:
            return f"years {self.start}–{self.end}"
        if self.start is not None:
            return f"years {self.start} onwards"
        if self.end is not None:
            return f"years up to {self.end}"
        return "years not set"

    def contains(self, year: int) -> bool:
        """Tell whether a year lies inside the era (an era without bounds on a side is open on that side)."""
        return (self.start is None or year >= self.start) and (self.end is None or year <= self.end)


class MonthDef(BaseModel):
    """One month: its name and how many days it has."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    days: int = Field(default=30, ge=1, le=MAX_DAYS)


class SeasonDef(BaseModel):
    """One season: its name and its months, by number (1 is the year's first month), in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    months: tuple[int, ...] = Field(min_length=1)


class CampaignCalendar(BaseModel):
    """A campaign's calendar: its eras, months (with their days) and seasons; or plain years and numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    eras: tuple[EraDef, ...] = ()
    months: tuple[MonthDef, ...] = ()
    seasons: tuple[SeasonDef, ...] = ()
    #: Without named months: how many months a year has and how many days each.
    months_per_year: int = Field(default=12, ge=1, le=MAX_MONTHS)
    days_per_month: int = Field(default=31, ge=1, le=MAX_DAYS)
    #: The first year a campaign without eras counts (a year before it needs an era that reaches back).
    first_year: int = Field(default=1, ge=MIN_YEAR, le=MAX_YEAR)
    #: The campaign's present as the GM wrote it (the block's `today:`, in the calendar's words): the story's
    #: date until a scene is dated later (`canon.date_reading.present` reads it).
    today: str | None = Field(default=None, max_length=TODAY_LIMIT)
    #: The keys of the eras hidden from whoever reads this calendar (a player's GM-only eras, set by
    #: `canon.calendar_seen`): every date it writes in one is no date (`CalendarWords.hidden`). Never dumped.
    hidden_eras: frozenset[str] = Field(default=frozenset(), exclude=True)
    #: Every name of those eras (names, keys, abbreviations, glossary terms), to find them in free text a GM or a
    #: model wrote (`CalendarWords.told`). Never dumped, never shown.
    hidden_names: frozenset[str] = Field(default=frozenset(), exclude=True)

    @field_validator("eras", "months", "seasons")
    @classmethod
    def _not_too_many(cls, value: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(value) > MAX_ENTRIES:
            raise ValueError(f"a calendar holds at most {MAX_ENTRIES} of each")
        return value

    @model_validator(mode="after")
    def _check(self) -> CampaignCalendar:
        for season in self.seasons:
            if any(not 1 <= m <= self.month_count for m in season.months):
                raise ValueError(f"the season “{season.name}” names a month the calendar does not have")
        return self

    def clash(self) -> str | None:
        """Return the first name that would mean two things (two eras, two months, a month and an era)."""
        seen: dict[str, str] = {}
        for owner, words in [
            *((f"era {e.key}", (e.key.replace("_", " "), e.name, *e.abbreviations)) for e in self.eras),
            *((f"month {m.name}", (m.name,)) for m in self.months),
            *((f"season {s.name}", (s.name,)) for s in self.seasons),
        ]:
            for word in dict.fromkeys(fold(w) for w in words):
                if word in seen and seen[word] != owner:
                    return word
                seen[word] = owner
        return None

    # -- the shape of the year ---------------------------------------------------------------------

    @property
    def month_count(self) -> int:
        """Return how many months a year has."""
        return len(self.months) or self.months_per_year

    def days_in(self, month: int) -> int:
        """Return how many days a month (1-based) has."""
        if not 1 <= month <= self.month_count:
            return 0
        if self.months:
            return self.months[month - 1].days
        return self.days_per_month

    @property
    def rules(self) -> CalendarRules:
        """Return the bounds the storage parser checks (the longest month's days)."""
        longest = max((m.days for m in self.months), default=self.days_per_month)
        return CalendarRules(months_per_year=self.month_count, days_per_month=longest)

    def month_name(self, month: int) -> str:
        """Return a month's name, or "month 3" where the calendar names none."""
        return (
            self.months[month - 1].name
            if self.months and 1 <= month <= len(self.months)
            else f"month {month}"
        )

    # -- eras --------------------------------------------------------------------------------------

    def era(self, key: str) -> EraDef | None:
        """Return the era with this key, or None."""
        return next((e for e in self.eras if e.key == key), None)

    def era_names(self) -> dict[str, str]:
        """Return the eras' display names by key."""
        return {e.key: e.name for e in self.eras}

    def era_phrase(self, key: str) -> str:
        """Return an era's name inside a sentence, as every card writes it."""
        return self.words().era(key)

    def spans(self) -> EraCalendar:
        """Return the eras' bounds for ordering dates."""
        return EraCalendar(EraSpan(id=e.key, start=e.start, end=e.end) for e in self.eras)

    def words(self) -> CalendarWords:
        """Return the one writer of this campaign's dates, for whoever reads this calendar (a date in an era hidden
        from them reads as no date)."""
        return CalendarWords(
            eras=self.era_names(),
            months=tuple(m.name for m in self.months),
            hidden=self.hidden_eras,
            hidden_names=self.hidden_names,
        )

    def say(self, date: WorldDate) -> str:
        """Return a date in the calendar's words."""
        return self.words().world_date(date)

    def describe_eras(self, gm_only: Collection[str] = ()) -> str:
        """Return the eras as a sentence: "This campaign's eras are the Tidewater Age (TA, years 0 onwards)."; an
        era whose key is in `gm_only` is marked so ("the Hidden Tide (years 600–620, GM only)"), for the GM."""
        if not self.eras:
            return (
                f"This campaign's calendar has no eras: a date is a plain year (from year {self.first_year})."
            )
        parts = []
        for era in self.eras:
            marks = ["GM only"] if era.key in gm_only else []
            extra = ", ".join(
                [*era.abbreviations, era.span_words(), *marks]
            )  # every abbreviation typed for it
            parts.append(f"{self.era_phrase(era.key)} ({extra})")
        lead = "This campaign's era is " if len(parts) == 1 else "This campaign's eras are "
        return lead + _join(parts) + "."

    def describe(self, gm_only: Collection[str] = ()) -> str:
        """Return the whole calendar in sentences, for the calendar screen and the command line; the eras whose
        keys are in `gm_only` marked as the GM's (`describe_eras`)."""
        lines = [self.describe_eras(gm_only)]
        if self.months:
            months = _join([f"{m.name} ({m.days} days)" for m in self.months])
            count = "1 month" if len(self.months) == 1 else f"{len(self.months)} months"
            lines.append(f"A year has {count}: {months}.")
        else:
            lines.append(
                f"Months have no names: a year has {self.months_per_year} months of {self.days_per_month} days."
            )
        if self.seasons:
            seasons = _join(
                [f"{s.name} ({_join([self.month_name(m) for m in s.months])})" for s in self.seasons]
            )
            lines.append(f"Seasons: {seasons}.")
        if self.today is not None:
            lines.append(f"Today is {self.today.rstrip('.')}.")
        return "\n".join(lines)


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def calendar_from(
    block: Mapping[str, Any] | None,
    canon_eras: CanonEras,
    glossary: Mapping[str, str] | None = None,
) -> CampaignCalendar:
    """Return the campaign's calendar: its canon's eras (name, start, end by key) named and added to by the
    GM's `block`. An era of the block matches a canon era by key or by name; raise `InvalidInput` on a clash.
    A `glossary` term whose meaning names an era is read as that era (a term that names something else of
    the calendar already is left out)."""
    parsed = CalendarBlock.model_validate(block or {})
    eras: dict[str, dict[str, Any]] = {}
    for key, (name, start, end, *more) in canon_eras.items():
        shown = derived_name(key) if not name or name == key else name
        abbreviations = tuple(more[0]) if more else ()  # a timeline's `abbreviation:`
        eras[key] = {"key": key, "name": shown, "abbreviations": abbreviations, "start": start, "end": end}
    by_name = {fold(e["name"]): k for k, e in eras.items()}
    for item in parsed.eras:
        named = by_name.get(fold(item.name or ""))
        if item.key and named is not None and named != item.key:
            raise InvalidInput(
                f"The calendar gives the era “{item.name}” the key {item.key}, but canon already has an era of "
                f"that name under the key {named}: one name is one era. Write key: {named} (or leave the key "
                "out: the name finds the era), or give the calendar's era another name."
            )
        key = item.key or named or era_key(item.name or "")
        if not item.name and key not in eras and not item.key:
            raise InvalidInput("Every era of the calendar needs a name (or the key of an era canon has).")
        era = eras.setdefault(key, {"key": key, "name": item.name or derived_name(key), "abbreviations": ()})
        if item.name and fold(item.name) != fold(era["name"]):
            era["name"] = item.name
        typed = [*(a for a in [item.abbreviation] if a), *item.abbreviations]
        era["abbreviations"] = tuple(dict.fromkeys([*typed, *era.get("abbreviations", ())]))
        for bound in ("start", "end"):
            # An era's years are canon's (a timeline's, with its evidence) where canon gives them: the block
            # fills only what canon lacks (`checked` refuses a block that says other years).
            if getattr(item, bound) is not None and era.get(bound) is None:
                era[bound] = getattr(item, bound)
    months: list[MonthDef] = []
    for m in parsed.months:
        if isinstance(m, str):
            months.append(MonthDef(name=m, days=parsed.days_per_month or 30))
        else:
            months.append(MonthDef(name=m.name, days=m.days or parsed.days_per_month or 30))
    lookup = {fold(m.name): i + 1 for i, m in enumerate(months)}
    seasons = []
    for s in parsed.seasons:
        numbers = []
        for month in s.months:
            number = month if isinstance(month, int) else lookup.get(fold(month))
            if number is None and isinstance(month, str) and month.strip().isdigit():
                number = int(month)
            if number is None:
                raise InvalidInput(
                    f"The season “{s.name}” names “{month}”, which is not one of the calendar's months."
                )
            numbers.append(number)
        seasons.append(SeasonDef(name=s.name, months=tuple(numbers)))
    _glossary_terms(eras, months, parsed.seasons, glossary or {})
    try:
        calendar = CampaignCalendar(
            eras=tuple(EraDef(**e) for e in eras.values()),
            months=tuple(months),
            seasons=tuple(seasons),
            months_per_year=parsed.months_per_year or 12,
            days_per_month=parsed.days_per_month or 31,
            first_year=parsed.first_year if parsed.first_year is not None else 1,
        )
    except ValidationError as error:
        raise InvalidInput(f"In the calendar, {problem_words(error, FIELD_WORDS)}.") from None
    if parsed.today is None:
        return calendar
    return calendar.model_copy(update={"today": " ".join(str(parsed.today).split())})


def _glossary_terms(
    eras: dict[str, dict[str, Any]],
    months: Sequence[MonthDef],
    seasons: Sequence[SeasonBlock],
    glossary: Mapping[str, str],
) -> None:
    """Give each era the glossary's terms that mean it, unless a term already names a thing of the calendar."""
    by_name = {fold(e["name"]): key for key, e in eras.items()} | {fold(key): key for key in eras}
    taken = {fold(w) for e in eras.values() for w in (e["name"], e["key"], *e.get("abbreviations", ()))}
    taken |= {fold(m.name) for m in months} | {fold(s.name) for s in seasons}
    for term, meaning in glossary.items():
        key = by_name.get(fold(str(meaning)))
        if key is None or not fold(str(term)) or fold(str(term)) in taken:
            continue
        taken.add(fold(str(term)))
        eras[key]["glossary"] = (*eras[key].get("glossary", ()), str(term))
