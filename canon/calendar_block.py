"""The calendar block as a GM types it (YAML or JSON) and as the campaign's settings store it.

Every part is optional; `canon.campaign_calendar.calendar_from` makes the campaign's calendar of it and canon's
eras, and `canon.calendar_checks` says whether a GM may set it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from canon.calendar import MAX_DAYS, MAX_MONTHS, MAX_YEAR, MIN_YEAR

#: At most this many eras, months and seasons in one calendar (a calendar is read on every typed date).
MAX_ENTRIES = 60

#: The longest name of an era, a month or a season, and the longest date typed as today.
NAME_LIMIT = 60
TODAY_LIMIT = 120

#: The calendar's fields in the table's words.
FIELD_WORDS = {
    "days_per_month": "the days in a month",
    "months_per_year": "the months in a year",
    "first_year": "the first year",
    "today": "today's date",
}


class EraBlock(BaseModel):
    """An era as a GM writes it: a name (or the key of an era canon has), abbreviations, years."""

    model_config = ConfigDict(extra="forbid")

    key: str | None = None
    name: str | None = Field(default=None, max_length=NAME_LIMIT)
    abbreviation: str | None = Field(default=None, max_length=20)
    abbreviations: list[str] = Field(default_factory=list, max_length=8)
    start: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)
    end: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)


class MonthBlock(BaseModel):
    """A month as a GM writes it: its name and, when not the usual, its days."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS)


class SeasonBlock(BaseModel):
    """A season as a GM writes it: its name and its months (by name or number)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    months: list[str | int] = Field(min_length=1, max_length=MAX_MONTHS)


class CalendarBlock(BaseModel):
    """The calendar block as a GM writes it (YAML or JSON): every part optional."""

    model_config = ConfigDict(extra="forbid")

    eras: list[EraBlock] = Field(default_factory=list, max_length=MAX_ENTRIES)
    months: list[MonthBlock | str] = Field(default_factory=list, max_length=MAX_MONTHS)
    seasons: list[SeasonBlock] = Field(default_factory=list, max_length=MAX_ENTRIES)
    days_per_month: int | None = Field(default=None, ge=1, le=MAX_DAYS)
    months_per_year: int | None = Field(default=None, ge=1, le=MAX_MONTHS)
    first_year: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)
    #: The campaign's present date, in the calendar's words ("3 Sheaf, 660 TY") or a plain year.
    today: Annotated[str, StringConstraints(max_length=TODAY_LIMIT)] | int | None = None


def block_yaml(block: Mapping[str, Any]) -> str:
    """Return a stored calendar block as YAML a GM can edit and set again."""
    return str(yaml.safe_dump(dict(block), sort_keys=False, allow_unicode=True))
