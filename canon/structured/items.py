"""An item of a list of names written as a mapping: a name only the GM may read (`{name: Bo Reed, gm_only: true}`,
in any list of names and in `aliases`), a marriage with its date (`{name: Zera Ibarra, married: 3 Frostfall,
640 CY}`, in `spouses`/`spouse_of`, or as a single `spouse:`), or a leader or a holder for a span (`{name: Tobin
Aske, from: 420, to: 450}`, in a faction's `leaders` and an item's `holders`). The validator notes what the
mapping says by the item's place: the normaliser reads it there (a secret edge, the marriage's start, the span's
start and end)."""

from __future__ import annotations

from typing import Any, Protocol

from canon.calendar import WorldDate
from canon.structured.schemas import Date, LoreModel
from canon.structured.tree import Broken, Map, Node, Scalar, got

Loc = tuple[str | int, ...]


class Validator(Protocol):
    """What reading a named item needs of the validator: where things are, and what it notes and reports."""

    example_name: str | None
    positions: dict[Loc, Node]
    labels: dict[Loc, str]
    secret_items: set[Loc]
    item_dates: dict[Loc, WorldDate]

    def at(self, node: Node | Scalar, message: str) -> None: ...

    def validate(self, model: type[Any], data: dict[str, Any], loc: Loc) -> Any: ...


#: The fields that name a husband or a wife: their items may carry the marriage's date (`married`).
SPOUSE_FIELDS = frozenset({"spouse", "spouses", "spouse_of"})
#: The fields that name who held something one after another: their items may carry a span (`from`, `to`).
SPAN_FIELDS = frozenset({"leaders", "holders"})


#: The key that keeps a name for the GM: a single `spouse:` is hidden by the entry's `gm_only` list instead.
_SECRET = frozenset(("gm_only",))


def is_marriage(value: Map) -> bool:
    """Tell whether a mapping given to `spouse:` is a marriage with its date (`spouse: {name: Bo, married: 640}`;
    else it is refused as a field of one)."""
    keys = {key.value for key, _ in value.pairs}
    return "married" in keys and keys.isdisjoint(_SECRET)


class _Married(LoreModel):
    """The date of a marriage, read as a person's `born:` is (in the calendar's words too)."""

    married: Date


class _Span(LoreModel):
    """A span's dates, read as a person's `born:` is (in the calendar's words too)."""

    start: Date | None = None
    end: Date | None = None


def named_item(validator: Validator, item: Map, loc: Loc, label: str) -> Node:
    """Read a name written as a mapping: return its name's node, noting its place as secret when `gm_only` is
    true, the marriage's date when it gives `married` and the span's dates when it gives `from` or `to`; report
    any other mapping."""
    spouse = loc[-1] in SPOUSE_FIELDS or (len(loc) > 1 and loc[-2] in SPOUSE_FIELDS)
    spanned = len(loc) > 1 and loc[-2] in SPAN_FIELDS
    given = _pairs(item, spouse or spanned)
    allowed = {"name", "gm_only", *(("married",) if spouse else ()), *(("from", "to") if spanned else ())}
    name, secret, married = given.get("name"), given.get("gm_only"), given.get("married")
    dated = [given[key] for key in ("from", "to") if key in given and spanned]
    example = validator.example_name or "Bo Reed"
    other = [key for key in given if key not in allowed]
    if other:
        why = f'it holds "{other[0]}"'
    elif (
        type(name) is not Scalar
        or not name.value.strip()
        or (secret is None and married is None and not dated)
    ):
        why = "it needs both a name and gm_only" + (
            " (or married)" if spouse else " (or from and to)" if spanned else ""
        )
    elif secret is not None and not (
        type(secret) is Scalar and secret.plain and secret.value in ("true", "false")
    ):
        why = f'"gm_only" must be true or false (without quotes), not {got(secret)}'
    elif married is not None and type(married) is not Scalar:
        why = f'"married" must be a date, as a person\'s "born:" is written; got {got(married)}'
    elif any(type(node) is not Scalar for node in dated):
        why = f'"from" and "to" must be dates, as a person\'s "born:" is written; got {got(dated[0])}'
    else:
        if married is not None and not _read_married(validator, married, loc):
            return Broken(item.line, item.column)
        if dated and not _read_span(validator, given, loc):
            return Broken(item.line, item.column)
        if secret is not None and secret.value == "true":
            validator.secret_items.add(loc)
        return name
    wed = f", or a marriage with its date, {{name: {example}, married: ...}}" if spouse else ""
    wed += f", or one for a span, {{name: {example}, from: ..., to: ...}}" if spanned else ""
    validator.at(
        item,
        f"{label} must be a name, or a name only the GM may read, written {{name: {example}, gm_only: true}}"
        f"{wed}; {why}",
    )
    return Broken(item.line, item.column)


def _pairs(item: Map, dated: bool) -> dict[str, Node]:
    """Return a mapping's values by key. Of a date written on one line, `{name: Zera Ibarra, married: 3
    Frostfall, 640 CY}`, YAML reads the year as a key of its own with no value: it is the date's rest."""
    given: dict[str, Node] = {}
    last: str | None = None
    for key, value in item.pairs:
        before = given.get(last) if last in ("married", "from", "to") else None
        rest = type(value) is Scalar and value.plain and not value.value and key.plain
        if dated and last is not None and rest and type(before) is Scalar and before.plain:
            given[last] = Scalar(f"{before.value}, {key.value}", None, before.line, before.column)
            continue
        given[key.value] = value
        last = key.value
    return given


def _read_married(validator: Validator, node: Scalar, loc: Loc) -> bool:
    """Read a marriage's date (reported at its line when it is none) and note it at the item's place."""
    at = (*loc, "married")
    validator.positions[at] = node
    read = validator.validate(_Married, {"married": node.value}, loc)
    if read is None:
        return False
    validator.item_dates[loc] = read.married
    return True


def _read_span(validator: Validator, given: dict[str, Node], loc: Loc) -> bool:
    """Read a span's dates (each reported at its line when it is none) and note them at the item's place (the
    kind's normaliser checks them against the calendar, and that the end is not before the start)."""
    data: dict[str, Any] = {}
    for key, field in (("from", "start"), ("to", "end")):
        node = given.get(key)
        if isinstance(node, Scalar):
            validator.positions[(*loc, field)] = node
            validator.labels[(*loc, field)] = f'"{key}"'
            data[field] = node.value
    read = validator.validate(_Span, data, loc)
    if read is None:
        return False
    if read.start is not None:
        validator.item_dates[loc] = read.start
    if read.end is not None:
        validator.item_dates[(*loc, "end")] = read.end  # a span's end, beside its start at the item's place
    return True
