"""A title held for a span of time: an item of a person's `titles` written as a mapping, `{title: High Warden,
from: 3 Frostfall, 702 AT, to: 731 AT}`, its dates in the calendar's words as a `born:` is written.

`to` left out: still held, or, of one who died, held until the death (a death kept for the GM leaves it open: its
date would tell the death). `gm_only: true` keeps the span, holder and office, for the GM; `shared: true` says the
office has several holders at once (otherwise two holders of it at one time are a warning). The validator notes
what the mapping says by the item's place (`Validator.title_spans`); the kinds of people read it there
(`kinds.titles.held_titles`), and the import writes each span as the attribute `tenure`, valid from `from` to `to`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from canon.calendar import WorldDate
from canon.structured.schemas import Date, LoreModel
from canon.structured.tree import Broken, Map, Node, Scalar, got

Loc = tuple[str | int, ...]

#: The attribute a title held for a span is stated as (many at once, each with its own validity).
HELD_TITLE = "tenure"
#: The keys of a title's mapping, as written.
_KEYS = ("title", "from", "to", "gm_only", "shared")
_FLAGS = ("gm_only", "shared")


@dataclass(frozen=True, slots=True)
class TitleSpan:
    """What a title's mapping says besides the title: its dates, and whether it is the GM's or shared."""

    start: WorldDate | None
    end: WorldDate | None
    secret: bool
    shared: bool


class Validator(Protocol):
    """What reading a title's span needs of the validator: where things are, and what it notes and reports."""

    positions: dict[Loc, Node]
    labels: dict[Loc, str]
    title_spans: dict[Loc, TitleSpan]

    def at(self, node: Node | Scalar, message: str) -> None: ...

    def validate(self, model: type[Any], data: dict[str, Any], loc: Loc) -> Any: ...


class _Dates(LoreModel):
    """A span's dates, read as a person's `born:` is (in the calendar's words too)."""

    start: Date | None = None
    end: Date | None = None


def title_item(validator: Validator, item: Map, loc: Loc, label: str) -> Node:
    """Read a title written as a mapping: return the title's node, noting its span at the item's place; report a
    mapping that is no title with a span."""
    given = _pairs(item)
    title = given.get("title")
    other = [key for key in given if key not in _KEYS]
    flags = {key: given[key] for key in _FLAGS if key in given}
    said = {key: node.value for key, node in flags.items() if type(node) is Scalar and node.plain}
    flag = next((key for key in flags if said.get(key) not in ("true", "false")), None)
    if other:
        why = f'it holds "{other[0]}" (a title\'s span takes {", ".join(_KEYS)})'
    elif type(title) is not Scalar or not title.value.strip():
        why = "it needs the title itself, written title: ..."
    elif flag is not None:
        why = f'"{flag}" must be true or false (without quotes), not {got(given[flag])}'
    else:
        dates = _read_dates(validator, given, loc)
        if dates is None:
            return Broken(item.line, item.column)
        start, end = dates
        validator.title_spans[loc] = TitleSpan(
            start, end, said.get("gm_only") == "true", said.get("shared") == "true"
        )
        return title
    validator.at(
        item,
        f"{label} must be a title, or a title held for a span written {{title: High Warden, from: ..., to: ...}}; "
        f"{why}",
    )
    return Broken(item.line, item.column)


def _pairs(item: Map) -> dict[str, Node]:
    """Return a mapping's values by key. Of a date written on one line, `{title: X, from: 3 Frostfall, 702 AT}`,
    YAML reads the year as a key of its own with no value: it is the date's rest."""
    given: dict[str, Node] = {}
    last: str | None = None
    for key, value in item.pairs:
        before = given.get(last) if last in ("from", "to") else None
        rest = type(value) is Scalar and value.plain and not value.value and key.plain
        if last is not None and rest and type(before) is Scalar and before.plain:
            given[last] = Scalar(f"{before.value}, {key.value}", None, before.line, before.column)
            continue
        given[key.value] = value
        last = key.value
    return given


def _read_dates(
    validator: Validator, given: dict[str, Node], loc: Loc
) -> tuple[WorldDate | None, ...] | None:
    """Read a span's dates (each reported at its line when it is none), or None when one could not be read."""
    data: dict[str, Any] = {}
    for key, field in (("from", "start"), ("to", "end")):
        node = given.get(key)
        if node is None:
            continue
        if type(node) is not Scalar:
            validator.at(node, f'"{key}" must be a date, as a person\'s "born:" is written; got {got(node)}')
            return None
        validator.positions[(*loc, field)] = node
        validator.labels[(*loc, field)] = f'"{key}"'
        data[field] = node.value
    read = validator.validate(_Dates, data, loc)
    return None if read is None else (read.start, read.end)
