"""A name typed with a slip or two: the one name the asker may see that it is closest to, or none.

"whre is Belgrun Deep", "where is Halowforje": a window of the question that is no name is read as the name it is
close to, by the fuzzy ratio the search is set with, or, for a name of six letters or more, by at most two letters
changed, left out or added (first letters alike, and each word a slip of the name's word in its place: a slip,
not another word). A window is never a name with a word of the question beside it: "sergeant tobin crale spy" is
near Sergeant Tobin Crale, but "sergeant tobin crale" is nearer, so the name is that and "spy" stays the question's
(`_overlong`). Only one entity may be that close:
when two are equally close ("Kessarin", between Kessarine and Kessarion) the window names neither, and the
question reads as one about a name nobody knows; it never guesses. The names given are those the asker may see
(`entities.EntityFinder.names`), so a GM-only name is never reached by a player's slip, nor does it make one
ambiguous.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

__all__ = ["LONG_NAME", "SLIPS", "closest", "nearest_part"]

#: The fewest letters a name has for two slips in it to be read through.
LONG_NAME = 6
#: The most letters changed, left out or added in a long name.
SLIPS = 2
#: The most near names read before telling whether one is the closest.
_NEAR = 6


def _one_owner(found: Sequence[tuple[str, float]], owners: Mapping[str, tuple[str, int]]) -> list[str]:
    """Return the names found at the best score when one entity owns them all, else nothing (a tie)."""
    best = found[0][1]
    tied = [name for name, score, *_ in found if score == best]
    entities = {owners[name][1] for name in tied if name in owners}
    return [tied[0]] if len(entities) == 1 else []


def _word_by_word(key: str, name: str) -> bool:
    """Return whether each word of a window is a slip of the name's word in its place: two letters in a word of
    six or more, one in a word of four or more, none in a shorter one ("lira real" is no slip of Lira Reed)."""
    typed, named = key.split(), name.split()
    if len(typed) != len(named):
        return False
    allowed = [SLIPS if len(n) >= LONG_NAME else 1 if len(n) >= 4 else 0 for n in named]
    return all(Levenshtein.distance(t, n) <= most for t, n, most in zip(typed, named, allowed, strict=True))


def _overlong(key: str, name: str, score: float) -> bool:
    """Return whether a window holds more words than a name and the name's count of its first or last words is
    at least as near the name: the window is the name with a word of the question beside it."""
    typed, size = key.split(), len(name.split())
    if len(typed) <= size:
        return False
    return any(fuzz.ratio(" ".join(part), name) >= score for part in (typed[:size], typed[-size:]))


def closest(
    key: str, choices: Sequence[str], owners: Mapping[str, tuple[str, int]], cutoff: float
) -> tuple[list[str], float] | None:
    """Return the folded name a folded window is a slip of, with its score, or None when none is near; an
    empty list when two entities' names are equally near (the window names neither)."""
    near = process.extract(key, choices, scorer=fuzz.ratio, score_cutoff=cutoff, limit=_NEAR)
    near = [(name, score, at) for name, score, at in near if not _overlong(key, name, score)]
    if near:
        found = _one_owner([(name, score) for name, score, _ in near], owners)
        return found, float(near[0][1])
    letters = len(key.replace(" ", ""))
    if letters < LONG_NAME:
        return None
    near_slips = process.extract(key, choices, scorer=Levenshtein.distance, score_cutoff=SLIPS, limit=_NEAR)
    slips = [
        (name, -float(distance))
        for name, distance, _ in near_slips
        if name[:1] == key[:1] and len(name.replace(" ", "")) >= LONG_NAME and _word_by_word(key, name)
    ]
    if not slips:
        return None
    slips.sort(key=lambda found: -found[1])
    return _one_owner(slips, owners), cutoff


def nearest_part(
    key: str, words: Sequence[str], parts: Mapping[str, Sequence[tuple[str, int]]], cutoff: float
) -> tuple[str, float] | None:
    """Return the one word of a name a capitalised window is a slip of ("Ysolda" of Ysolde Marrow), with its
    score; None when none is near, or when words of two entities' names are equally near."""
    near = process.extract(key, words, scorer=fuzz.ratio, score_cutoff=cutoff, limit=_NEAR)
    if not near:
        return None
    best = near[0][1]
    owners = {entity for word, score, _ in near if score == best for _, entity in parts[word]}
    return (near[0][0], float(best)) if len(owners) == 1 else None
