"""A count and its noun in English, for every sentence a person reads: "1 problem", "3 problems"."""

from __future__ import annotations

from collections.abc import Sequence

_SIBILANT = ("s", "x", "z", "ch", "sh")
_SMALL = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women"}


def plural_of(noun: str) -> str:
    """Return a noun's plural: "entity" → "entities", "match" → "matches", "turn" → "turns", "person" → "people"."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(_SIBILANT):
        return noun + "es"
    return noun + "s"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """Return `n` and the noun in English: "1 proposal", "2 proposals", "1,200 entities".

    `plural` is for a noun the rules get wrong ("person" → "people") or a noun phrase whose first word
    counts ("piece of the transcript" → "pieces of the transcript").
    """
    return f"{n:,} {noun if n == 1 else plural or plural_of(noun)}"


def listed(items: Sequence[str]) -> str:
    """Return items as a sentence lists them: "A", "A and B", "A, B and C"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def in_words(n: int) -> str:
    """Return a small count as a sentence says it: "no", "one" … "twelve"; a larger one in digits ("13")."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else f"{n:,}"
