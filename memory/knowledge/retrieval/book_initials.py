"""The initials of a book's own headings and terms, read as the terms they stand for.

A table shortens a rule's name to its initials ("ff" for a book's "Flank Fire", "sp" for its "Spirit Points")
long before anyone adds them to the glossary. So the headings of the campaign's books (a line of two to four
capitalised words, as the heading path and the titles in a passage are written) and the terms they define
(`definitions`) give their initials, a hyphen parting words as a space does ("Two-Handed Strike" gives "ths"):
a question writing those initials is searched and answered in the term's words. Initials are not read so when
- two terms give them (which one the table means is not guessed); a term written singular and plural is one;
- the books write them as a word of their own, in any case ("cut", or "DC" for a difficulty class while a
  "Dexterity Check" heading gives "dc"), or they are a common English word ("at", "is") or the table's own
  shorthand ("gm", "pcs"): there they mean what they say;
- the shipped glossary reads them and the books write its meaning ("sr" stays "short rest" in a game with short
  rests; in one without, the books' "Spell Reserve" is meant).
A heading's opening article is no initial ("The Salt Road" gives "sr"). The GM's glossary outranks them
(`memory.knowledge.glossary.merged`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.glossary import SHIPPED

__all__ = ["initials_glossary"]

#: Words a heading may hold in lower case: "Attack of the Tide" is a heading all the same.
_MINOR = frozenset(["of", "the", "and", "or", "a", "an", "to", "in", "on", "for", "with", "at", "by"])
#: The table's own shorthand, never a book's initials.
_TABLE = frozenset(
    [
        "gm",
        "dm",
        "gms",
        "dms",
        "pc",
        "pcs",
        "npc",
        "npcs",
        "ooc",
        "ic",
        "irl",
        "afk",
        "brb",
        "ok",
        "vs",
        "eg",
        "ie",
        "etc",
        "aka",
        "fyi",
    ]
)
_ARTICLES = frozenset(["the", "a", "an"])
_PART = re.compile(r"[^\W\d_][\w'’]*")
_WORD = re.compile(r"(?<![\w'’-])[^\W\d_]+(?![\w'’-])")
_NOT_HEADING = re.compile(r"[^\w\s'’-]|\d")
_MARKS = re.compile(r"^\s*(?:#+|[-*•]|\d+[.)])?\s*")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'").casefold()


def _heading_words(line: str) -> list[str] | None:
    """Return the words of a line written as a heading of two to four words, or None."""
    if len(line) > 80:
        return None
    text = _MARKS.sub("", line).replace("**", "").replace("__", "").strip()
    if not text or len(text) > 60 or _NOT_HEADING.search(text):
        return None
    words = text.replace("-", " ").split()
    if not 2 <= len(words) <= 4 or words[0] in _MINOR:
        return None
    if any(not w[:1].isupper() and w not in _MINOR for w in words):
        return None
    return words


def _parts(term: str) -> list[str]:
    return _PART.findall(_fold(term).replace("-", " "))


def initials_glossary(texts: Sequence[str], terms: Iterable[str] = ()) -> dict[str, str]:
    """Return {initials: the term they stand for} from the texts' headings and the given defined `terms`."""
    named: list[list[str]] = []
    for text in texts:
        for line in text.splitlines():
            words = _heading_words(line)
            if words is not None:
                named.append(words)
    named += [w for w in (term.replace("-", " ").split() for term in terms) if 2 <= len(w) <= 4]
    meant: dict[str, dict[tuple[str, ...], str]] = {}
    for words in named:
        parts = _parts(" ".join(words))
        if len(parts) != len(words):
            continue
        if parts[0] in _ARTICLES:
            parts = parts[1:]
        if len(parts) < 2:
            continue
        initials = "".join(p[0] for p in parts)
        same = tuple(p.removesuffix("s") for p in parts)  # "Action Point" and "Action Points" are one term
        meant.setdefault(initials, {}).setdefault(same, " ".join(parts))
    whole = _fold("\n".join(texts))
    written = set(_WORD.findall(whole))
    said = written | STOPWORDS | _TABLE
    found = {
        initials: next(iter(terms.values()))
        for initials, terms in meant.items()
        if len(terms) == 1 and initials not in said and initials.isalpha()
    }
    for initials in [i for i in found if i in SHIPPED]:
        if _written(SHIPPED[initials], whole):
            del found[initials]
    return found


def _written(meaning: str, whole: str) -> bool:
    """Return whether the books write a shipped meaning, or any spelling the shipped glossary reads as it."""
    spellings = {meaning} | {term for term, said in SHIPPED.items() if said == meaning and " " in term}
    pattern = re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(s) for s in spellings) + r")(?:e?s)?(?![\w'])")
    return pattern.search(whole) is not None
