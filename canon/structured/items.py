"""An item of a list of names written as a mapping: a name only the GM may read (`{name: Bo Reed, gm_only: true}`,
in any list of names and in `aliases`), a marriage with its date (`{name: Zera Ibarra, married: 3 Frostfall,
640 CY}`, in `spouses`/`spouse_of`, or as a single `spouse:`), a child taken in with its date
(`adoptive_parents: [{name: Bran Holt, adopted: 1204}]`, `foster_parents: [{name: .., fostered: ..}]`), or a leader or a holder for a span (`{name: Tobin
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
#: The fields whose items may carry one date, and its key: a marriage's, when a child was taken in.
DATED_KEYS: dict[str, str] = {
    **dict.fromkeys(SPOUSE_FIELDS, "married"),
    "adoptive_parents": "adopted",
    "foster_parents": "fostered",
}
#: What an item with its date is, for the message that shows how to write one.
_DATED_WORDS = {
    "married": "a marriage with its date",
    "adopted": "an adoption with its date",
    "fostered": "a fostering with its date",
}


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


class _Adopted(LoreModel):
    """The date a child was adopted, read as a person's `born:` is."""

    adopted: Date


class _Fostered(LoreModel):
    """The date a child was taken in to foster, read as a person's `born:` is."""

    fostered: Date


_DATE_MODELS: dict[str, type[LoreModel]] = {"married": _Married, "adopted": _Adopted, "fostered": _Fostered}


class _Span(LoreModel):
    """A span's dates, read as a person's `born:` is (in the calendar's words too)."""

    start: Date | None = None
    end: Date | None = None


def named_item(validator: Validator, item: Map, loc: Loc, label: str) -> Node:
    """Read a name written as a mapping: return its name's node, noting its place as secret when `gm_only` is
    true, the marriage's date when it gives `married` and the span's dates when it gives `from` or `to`; report
    any other mapping."""
    field = loc[-1] if isinstance(loc[-1], str) else loc[-2] if len(loc) > 1 else None
    key = DATED_KEYS.get(field) if isinstance(field, str) else None  # `married`, `adopted`, `fostered`
    spanned = len(loc) > 1 and loc[-2] in SPAN_FIELDS
    given = _pairs(item, key is not None or spanned)
    allowed = {"name", "gm_only", *((key,) if key else ()), *(("from", "to") if spanned else ())}
    name, secret, married = given.get("name"), given.get("gm_only"), given.get(key) if key else None
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
            f" (or {key})" if key else " (or from and to)" if spanned else ""
        )
    elif secret is not None and not (
        type(secret) is Scalar and secret.plain and secret.value in ("true", "false")
    ):
        why = f'"gm_only" must be true or false (without quotes), not {got(secret)}'
    elif married is not None and type(married) is not Scalar:
        why = f'"{key}" must be a date, as a person\'s "born:" is written; got {got(married)}'
    elif any(type(node) is not Scalar for node in dated):
        why = f'"from" and "to" must be dates, as a person\'s "born:" is written; got {got(dated[0])}'
    else:
        if key and isinstance(married, Scalar) and not _read_date(validator, key, married, loc):
            return Broken(item.line, item.column)
        if dated and not _read_span(validator, given, loc):
            return Broken(item.line, item.column)
        if secret is not None and secret.value == "true":
            validator.secret_items.add(loc)
        return name
    wed = f", or {_DATED_WORDS[key]}, {{name: {example}, {key}: ...}}" if key else ""
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
        before = given.get(last) if last in (*_DATED_WORDS, "from", "to") else None
        rest = type(value) is Scalar and value.plain and not value.value and key.plain
        if dated and last is not None and rest and type(before) is Scalar and before.plain:
            given[last] = Scalar(f"{before.value}, {key.value}", None, before.line, before.column)
            continue
        given[key.value] = value
        last = key.value
    return given


def _read_date(validator: Validator, key: str, node: Scalar, loc: Loc) -> bool:
    """Read an item's date (a marriage's, an adoption's: reported at its line when it is none) and note it at
    the item's place."""
    at = (*loc, key)
    validator.positions[at] = node
    read = validator.validate(_DATE_MODELS[key], {key: node.value}, loc)
    if read is None:
        return False
    validator.item_dates[loc] = getattr(read, key)
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
