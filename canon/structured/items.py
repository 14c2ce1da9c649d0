"""An item of a list of names written as a mapping: a name only the GM may read (`{name: Bo Reed, gm_only: true}`,
in any list of names and in `aliases`), a marriage with its date (`{name: Zera Ibarra, married: 3 Frostfall,
640 CY}`, in `spouses`/`spouse_of`, or as a single `spouse:`), or a child taken in with the year of it
(`adoptive_parents: [{name: Bran Holt, adopted: 1204}]`, `foster_parents: [{name: .., fostered: ..}]`). The validator notes what the mapping says by the
item's place: the normaliser reads it there (a secret edge, the marriage's start)."""

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
    secret_items: set[Loc]
    item_dates: dict[Loc, WorldDate]

    def at(self, node: Node | Scalar, message: str) -> None: ...

    def validate(self, model: type[Any], data: dict[str, Any], loc: Loc) -> Any: ...


#: The fields that name a husband or a wife: their items may carry the marriage's date (`married`).
SPOUSE_FIELDS = frozenset({"spouse", "spouses", "spouse_of"})


#: The fields whose items may carry a date, and its key: a marriage's, the year a child was taken in.
DATED_KEYS: dict[str, str] = {
    **dict.fromkeys(SPOUSE_FIELDS, "married"),
    "adoptive_parents": "adopted",
    "foster_parents": "fostered",
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


def named_item(validator: Validator, item: Map, loc: Loc, label: str) -> Node:
    """Read a name written as a mapping: return its name's node, noting its place as secret when `gm_only` is
    true and the date when it gives its field's date key (`married`, `adopted`, `fostered`); report any other
    mapping."""
    field = loc[-1] if isinstance(loc[-1], str) else loc[-2] if len(loc) > 1 else None
    key = DATED_KEYS.get(field) if isinstance(field, str) else None
    given = _pairs(item, key)
    allowed = {"name", "gm_only", *((key,) if key else ())}
    name, secret, dated = given.get("name"), given.get("gm_only"), given.get(key) if key else None
    example = validator.example_name or "Bo Reed"
    other = [k for k in given if k not in allowed]
    if other:
        why = f'it holds "{other[0]}"'
    elif type(name) is not Scalar or not name.value.strip() or (secret is None and dated is None):
        why = "it needs both a name and gm_only" + (f" (or {key})" if key else "")
    elif secret is not None and not (
        type(secret) is Scalar and secret.plain and secret.value in ("true", "false")
    ):
        why = f'"gm_only" must be true or false (without quotes), not {got(secret)}'
    elif key and dated is not None and type(dated) is not Scalar:
        why = f'"{key}" must be a date, as a person\'s "born:" is written; got {got(dated)}'
    else:
        if key and isinstance(dated, Scalar) and not _read_date(validator, key, dated, loc):
            return Broken(item.line, item.column)
        if secret is not None and secret.value == "true":
            validator.secret_items.add(loc)
        return name
    what = _DATED_WORDS.get(key or "", "")
    dated_form = f", or {what}, {{name: {example}, {key}: ...}}" if key else ""
    validator.at(
        item,
        f"{label} must be a name, or a name only the GM may read, written {{name: {example}, gm_only: true}}"
        f"{dated_form}; {why}",
    )
    return Broken(item.line, item.column)


_DATED_WORDS = {
    "married": "a marriage with its date",
    "adopted": "the one who adopted them with the date",
    "fostered": "the one who fostered them with the date",
}


def _pairs(item: Map, key: str | None) -> dict[str, Node]:
    """Return a mapping's values by key. Of a marriage written on one line, `{name: Zera Ibarra, married: 3
    Frostfall, 640 CY}`, YAML reads the year as a key of its own with no value: it is the date's rest (so for the
    date of an adoption)."""
    given: dict[str, Node] = {}
    last: str | None = None
    dated = key
    for name, value in item.pairs:
        before = given.get(dated) if dated else None
        rest = type(value) is Scalar and value.plain and not value.value and name.plain
        if dated and last == dated and rest and type(before) is Scalar and before.plain:
            given[dated] = Scalar(f"{before.value}, {name.value}", None, before.line, before.column)
            continue
        given[name.value] = value
        last = name.value
    return given


def _read_date(validator: Validator, key: str, node: Scalar, loc: Loc) -> bool:
    """Read an item's date (a marriage's, an adoption's: reported at its line when it is none) and note it at the
    item's place."""
    at = (*loc, key)
    validator.positions[at] = node
    read = validator.validate(_DATE_MODELS[key], {key: node.value}, loc)
    if read is None:
        return False
    validator.item_dates[loc] = getattr(read, key)
    return True
