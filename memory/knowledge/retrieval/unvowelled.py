"""Words typed without their vowels ("spd", "hvy", "wpn", "rng"): read as the books' word they are the bones of.

Players typing fast drop a word's vowels and keep its consonants in order: "griffon spd", "hvy shield wgt",
"plasma wpn dmg". Such a word is in no book. It is read as a word of the books whose first letter is the same and
whose consonants, read in order (a doubled letter once), are the letters typed: "spd" is "speed", "hvy" is
"heavy" ("y" counts as a consonant). A word of a heading or a field's word first, when one alone fits; else the
word the books use most, when it is used at least twice as often as any other that fits (which was meant is not
known otherwise). A typed word holding a vowel, or shorter than three letters, is never read so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from memory.knowledge.retrieval.vocabulary import single_letters

__all__ = ["bones", "is_unvowelled", "unvowelled"]

_VOWELS = frozenset("aeiou")
#: The fewest and most letters of a word typed without vowels.
FEWEST = 3
MOST = 6
#: How many times more often the books use the word read than any other word of the same bones.
CLEAR_LEAD = 2


def is_unvowelled(word: str) -> bool:
    """Return whether a typed word may be a word without its vowels: three to six letters, none a vowel, and not
    one letter repeated ("hmm", "zzz")."""
    return (
        FEWEST <= len(word) <= MOST
        and word.isalpha()
        and not (_VOWELS & set(word))
        and len(single_letters(word)) >= FEWEST
    )


def bones(word: str) -> str:
    """Return a word's first letter and its consonants after it, in order, a doubled letter once ("speed" ->
    "spd", "attack" -> "atck", "people" -> "ppl")."""
    single = single_letters(word)
    return single[:1] + "".join(c for c in single[1:] if c not in _VOWELS)


def _fitting(word: str, words: Iterable[str]) -> list[str]:
    return [w for w in words if w[:1] == word[0] and len(w) > len(word) and bones(w) == word]


def unvowelled(word: str, headings: Sequence[str], frequencies: Mapping[str, int] | None) -> str | None:
    """Return the books' word a word typed without vowels stands for (see the module docstring), or None.

    `headings`: the words of the books' headings and the fields' words they hold; `frequencies`: every word of
    the books with how many passages hold it (None: the books are too large to read whole)."""
    if not is_unvowelled(word):
        return None
    headed = _fitting(word, headings)
    if len(headed) == 1:
        return headed[0]
    if frequencies is None:
        return None
    ranked = sorted(_fitting(word, frequencies), key=lambda w: (-frequencies[w], w))
    if not ranked:
        return None
    if len(ranked) > 1 and frequencies[ranked[0]] < CLEAR_LEAD * frequencies[ranked[1]]:
        return None
    return ranked[0]
