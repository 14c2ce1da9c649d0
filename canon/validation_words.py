"""A pydantic validation problem as a plain sentence for the table: what was expected, where, never its jargon.

pydantic says "Extra inputs are not permitted", "Input should be a valid integer, unable to parse string as an
integer" at a location like `('eras', 0, 'start')`. A GM reads "“start” of the 1st era must be a whole number";
`problem_words` writes that (without a capital or a full stop, for the caller's sentence).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

_TYPES = {
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "string_type": "must be text",
    "bool_parsing": "must be yes or no",
    "bool_type": "must be yes or no",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be a block of fields (name: value)",
    "model_type": "must be a block of fields (name: value)",
    "model_attributes_type": "must be a block of fields (name: value)",
    "string_too_short": "must not be empty",
    "too_short": "must not be empty",
}
_PYTHON_TYPES = {"str", "int", "float", "bool", "list", "dict", "tuple", "none"}


def problem_words(
    error: ValidationError, fields: Mapping[str, str] | None = None, *, tagged: bool = False
) -> str:
    """Return the first problem of a validation as words: "“start” of the 1st era must be a whole number".

    `fields` says a field in the table's words where its name would not ("days_per_month": "days in a month");
    `tagged`: the model is a tagged union, whose tag (the location's first part) is no field.
    """
    first = error.errors()[0]
    if tagged:
        first = {**first, "loc": tuple(first["loc"])[1:]}
    return problem_sentence(first, fields)


def problem_sentence(problem: Mapping[str, Any], fields: Mapping[str, str] | None = None) -> str:
    """Return one problem of a validation (an item of `ValidationError.errors()`) as words."""
    where = _where(tuple(problem.get("loc", ())), fields or {})
    return f"{where} {_what(problem)}" if where else _what(problem)


def _what(problem: Mapping[str, Any]) -> str:
    kind, ctx = str(problem.get("type", "")), problem.get("ctx") or {}
    if kind == "extra_forbidden":
        return "is not something it has"
    if kind == "missing":
        return "is missing"
    if kind in ("greater_than_equal", "greater_than"):
        return f"must be at least {ctx.get('ge', ctx.get('gt'))}"
    if kind in ("less_than_equal", "less_than"):
        return f"must be at most {ctx.get('le', ctx.get('lt'))}"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "too_long":
        return f"may hold at most {ctx.get('max_length')}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected')}"
    if kind == "value_error":
        return str(problem.get("msg", "")).removeprefix("Value error, ").rstrip(".")
    return _TYPES.get(kind, "is not what is expected here")


def _where(loc: tuple[int | str, ...], fields: Mapping[str, str]) -> str:
    """Return a location in words: ('eras', 0, 'start') → "“start” of the 1st era"."""
    parts = [p for p in loc if isinstance(p, int) or _is_field(p)]
    field = parts.pop() if parts and isinstance(parts[-1], str) else None
    owners: list[str] = []
    while parts:
        name = parts.pop(0)
        index = parts[0] if parts else None
        if isinstance(index, int) and isinstance(name, str):
            parts.pop(0)
            owners.append(f"the {_ordinal(index + 1)} {_one_of(name)}")
        elif isinstance(name, str):
            owners.append(f"“{name}”")
    owner = " of ".join(reversed(owners))
    if field is None:
        return owner
    said = fields.get(str(field)) or f"“{field}”"
    return f"{said} of {owner}" if owner else said


def _is_field(part: int | str) -> bool:
    text = str(part)
    return not text.startswith("_") and "[" not in text and text.casefold() not in _PYTHON_TYPES


def _one_of(plural: str) -> str:
    """Return one item of a list field by name: "eras" → "era", "entries" → "entry", "matches" → "match"."""
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    if plural.endswith(("ches", "shes", "sses", "xes")):
        return plural[:-2]
    return plural[:-1] if plural.endswith("s") else plural


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
