"""The command line's JSON in the table's words: every in-world date a script prints, said as the calendar says it.

`--json` keeps its shape and its ids (the handles a script passes back), but a date a person reads there is
written as the text output writes it ("3 Rainmoot, year 52 of the Sunken Reign"), never a stored key
(`sunken_reign.year_52.month_2.day_3`). The writer is the reader's (`CalendarWords`): for a player, a date in a
GM-only era reads as no date ("an unknown date"), and its sortable key, which holds its year, is left out (null),
as for a date nobody knows. Sentences stored with their dates as keys (a finding's message, a side's sentence)
and free text (a fact's value, a description) are said in words the same way.
"""

from __future__ import annotations

from typing import Any

from canon.calendar import UNKNOWN
from canon.wording.dates import CalendarWords

#: A stored date's field -> the field holding its sortable key (None: it has none).
DATE_FIELDS: dict[str, str | None] = {
    "world_from": "world_from_key",
    "world_until": "world_until_key",
    "world": "world_key",
    "world_date": None,
    "fork_world_date": None,
    "when": None,  # a proposal's dates
    "since": None,
    "until": None,
}
#: Fields of free text or of sentences that may hold a date key.
TEXT_FIELDS = frozenset({"value", "description", "message", "sentence", "summary", "text"})
#: Fields mapping ids to stored dates (an entity card's changed facts).
DATED_MAPS = frozenset({"changed_at"})


def dates_in_words(payload: Any, words: CalendarWords) -> Any:
    """Return a JSON payload with every stored date in it said in `words` (see the module docstring)."""
    if isinstance(payload, list | tuple):
        return [dates_in_words(item, words) for item in payload]
    if not isinstance(payload, dict):
        return payload
    out: dict[str, Any] = {}
    for name, value in payload.items():
        if name in DATE_FIELDS and isinstance(value, str):
            out[name] = words.date(value)
        elif name in DATED_MAPS and isinstance(value, dict):
            out[name] = {k: words.date(v) if isinstance(v, str) else v for k, v in value.items()}
        elif name in TEXT_FIELDS and isinstance(value, str):
            out[name] = words.told(words.in_words(value))
        else:
            out[name] = dates_in_words(value, words)
    for name, key in DATE_FIELDS.items():
        stored = payload.get(name)
        if key is not None and key in out and isinstance(stored, str) and words.seen(stored) == UNKNOWN:
            out[key] = None  # a hidden date's key holds its year: no more said than of a date nobody knows
    return out
