"""The calendar a GM types (`/calendar set`, `lorekeeper canon calendar --set`): YAML, or sentences as the
calendar screen writes them (`canon.calendar_prose`), read into the block stored with the campaign's settings.

What cannot be read is refused with a sentence saying what a calendar holds, with the campaign's own calendar
as the example (never the reader's or pydantic's words). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError

from canon.calendar_block import FIELD_WORDS, CalendarBlock
from canon.calendar_checks import checked
from canon.calendar_prose import read_prose
from canon.campaign_calendar import CALENDAR_SETTINGS, CampaignCalendar
from canon.errors import InvalidInput
from canon.validation_words import problem_words
from canon.yaml_errors import syntax_problem


def parse_block(text: str, current: CampaignCalendar | None = None) -> dict[str, Any]:
    """Read a calendar a GM typed: YAML, or sentences as `/calendar show` writes them (`calendar_prose`).

    Return the block as stored, or raise `InvalidInput` saying what is expected, with an example made of the
    `current` calendar's own eras and months.
    """
    if len(text) > 20_000:
        raise InvalidInput("That calendar is too long: keep it under 20,000 characters.")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        if (prose := read_prose(text)) is not None:
            return _checked_block(prose, current)
        found = syntax_problem(error, text)
        raise InvalidInput(
            f"The calendar cannot be read: line {found.line}: {found.message}. {calendar_example(current)}"
        ) from None
    if isinstance(data, dict) and CALENDAR_SETTINGS in data and len(data) == 1:
        data = data[CALENDAR_SETTINGS]  # a timeline or culture file's `calendar:` section, or the block alone
    if isinstance(data, dict) and set(map(str, data)) & set(CalendarBlock.model_fields):
        try:
            return _checked_block(data, current)
        except InvalidInput:
            if (prose := read_prose(text)) is None:  # "eras: Third Age (TA) from year 1" is words, not YAML
                raise
            return _checked_block(prose, current)
    if (prose := read_prose(text)) is not None:
        return _checked_block(prose, current)
    raise InvalidInput(
        "That is not a calendar this campaign can read: a calendar names its eras, its months and its seasons. "
        + calendar_example(current)
    )


def calendar_example(current: CampaignCalendar | None) -> str:
    """Return how to write a calendar, made of the campaign's own (what `/calendar show` says reads back)."""
    calendar = current or CampaignCalendar()
    lines = calendar.describe().split("\n")
    if not calendar.eras:
        lines[0] = "Eras: the First Age (FA, years 1 onwards)."
    return f"Type it as /calendar show says it, such as: “{' '.join(lines)}”"


def _checked_block(data: Mapping[str, Any], current: CampaignCalendar | None) -> dict[str, Any]:
    block = check_block(data, current)
    checked(block, {})
    return block


def check_block(data: Mapping[str, Any], current: CampaignCalendar | None = None) -> dict[str, Any]:
    """Return a calendar block validated (the form stored), or raise `InvalidInput` with its first problem in
    words and an example from the `current` calendar."""
    try:
        return CalendarBlock.model_validate(data).model_dump(exclude_none=True, exclude_defaults=True)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "extra_forbidden":
            problem = _unknown_field(first["loc"])
        else:
            problem = "In the calendar, " + problem_words(error, FIELD_WORDS)
        raise InvalidInput(f"{problem}. {calendar_example(current)}") from None


#: What each part of a calendar block has, for a GM who wrote something else.
_PARTS = {
    "eras": ("an era", "name, abbreviation, start and end"),
    "months": ("a month", "name and days"),
    "seasons": ("a season", "name and months"),
}


def _unknown_field(loc: tuple[int | str, ...]) -> str:
    key = str(loc[-1])
    if len(loc) > 1 and str(loc[0]) in _PARTS:
        part, fields = _PARTS[str(loc[0])]
        return f"“{key}” is not something {part} of the calendar has: {part} has {fields}"
    return f"“{key}” is not part of a calendar: a calendar has eras, months and seasons"
