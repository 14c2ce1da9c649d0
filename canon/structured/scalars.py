"""A lore file's scalars read by their field's kind, from the scalar's source text (docs/structured-lore.md).

text             the text exactly as written: `NO`, `yes`, `on`, `off`, `1e3`, `012`, `0x1F`, `1:20`,
                 `~`, `null` and an empty value stay those strings (the Norway problem cannot happen).
id / reference   a lowercase slug `[a-z0-9][a-z0-9_-]*` (hyphens allowed: the SRD bestiary uses them).
                 An optional single reference written as plain `null`, `~` or nothing means "none".
whole number     an unquoted decimal integer (`340`, `-100`). Quoted numbers (`"340"`) are refused:
                 quotes mean text, and a strict loader does not guess. `012`, `0x1F`, `1e3`, `1_000`,
                 `3.0` are refused too. Optional numbers accept plain `null`.
number           (coordinates) an unquoted decimal: `12`, `-3.5`.
boolean          only unquoted `true` / `false`.
date             see `canon.calendar`; optional dates accept plain `null`.
list             a YAML sequence; an optional list written as `null` or nothing means empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from canon.structured.schemas import ScalarKind
from canon.structured.shapes import NULLS, Shape, expected
from canon.structured.tree import Node, Scalar, got

__all__ = ["FAILED", "MAX_DIGITS", "NULLS", "Failed", "read_scalar"]
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_LEADING_ZERO_INT = re.compile(r"[-+]?0[0-9]+")
# The most digits a number's whole part may have: far beyond any field's range (a year has at most 12).
MAX_DIGITS = 30
_NUMBER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


class Failed:
    """Marker for a value that could not be converted (already reported)."""


FAILED = Failed()


def read_scalar(
    node: Node, shape: Shape, label: str, at: Callable[[Node | Scalar, str], None], example: str | None = None
) -> Any:
    """A scalar of the given shape read from its YAML text (`FAILED`, said through `at`, when it is not one)."""
    if not isinstance(node, Scalar):
        at(node, f"{label} must be {expected(shape, example)}; got {got(node)}")
        return FAILED
    kind = shape.scalar
    text = node.value
    if shape.nullable and node.plain and text in NULLS and kind is not ScalarKind.TEXT:
        return None
    if kind in (ScalarKind.ID, ScalarKind.REF, ScalarKind.ERA_REF) and node.plain and text in NULLS:
        written = f'"{text}"' if text else "nothing"
        at(
            node,
            f"{label} must be {expected(shape, example)}; got {written} (write it in quotes if it really is one)",
        )
        return FAILED
    if kind in (ScalarKind.INT, ScalarKind.NUMBER):
        pattern = _INT if kind is ScalarKind.INT else _NUMBER
        if not node.plain:
            if pattern.fullmatch(text):
                at(
                    node,
                    f"{label} must be {expected(shape)} written without quotes; got {got(node)} in quotes",
                )
            else:
                at(node, f"{label} must be {expected(shape)}; got {got(node)}")
            return FAILED
        number = pattern.fullmatch(text) is not None
        if number or _LEADING_ZERO_INT.fullmatch(text):
            digits = len(text.lstrip("+-").split(".", 1)[0])
            if digits > MAX_DIGITS:  # never turned into an int (nor echoed): no field holds one so long
                at(
                    node,
                    f"{label} must be {expected(shape)} of at most {MAX_DIGITS} digits; got one of {digits:,} "
                    "digits",
                )
                return FAILED
        if number:
            return int(text) if _INT.fullmatch(text) else float(text)
        hint = ""
        if _LEADING_ZERO_INT.fullmatch(text):
            hint = f" (leading zeros are not allowed: write {int(text)})"
        at(node, f"{label} must be {expected(shape)}; got {got(node)}{hint}")
        return FAILED
    if kind is ScalarKind.BOOL:
        if node.plain and text in ("true", "false"):
            return text == "true"
        at(node, f"{label} must be true or false (without quotes); got {got(node)}")
        return FAILED
    # Text, ids, references, choices and dates: the scalar's own text, never a resolved value.
    return text
