"""A count and its noun in English, for every sentence a person reads: "1 problem", "3 problems"."""

from __future__ import annotations

_SIBILANT = ("s", "x", "z", "ch", "sh")


def plural_of(noun: str) -> str:
    """Return a noun's plural by the regular rules: "entity" → "entities", "match" → "matches", "turn" → "turns"."""
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
