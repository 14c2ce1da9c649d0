"""Bring a text to the plain words it shows a reader, whatever it was dressed in.

A reply can hide a word from a naive comparison in many ways a reader never notices: compatibility forms
(NFKC), look-alike letters from other scripts (Cyrillic С and Р for Latin C and P, by Unicode's confusables
table), invisible characters (soft hyphens, zero-width spaces and joiners, tag characters: whatever
`memory.untrusted` takes out of a prompt), a word broken by a hyphen ("Crim-son", "Crim-\\nson"), leetspeak
inside a word (0→o 1→i 3→e 4→a 5→s 7→t @→a $→s), letters spaced, dotted, dashed or underscored apart
("C r i m s o n P a c t", "C.r.i.m.s.o.n", "C_r_i_m_s_o_n"), case and accents, a possessive ("Brann's") or a
plural ("pacts"). `tokens` undoes all of them, so a secret and a reply are compared as what they say; both sides go
through the same steps, so a step that merges two words (l and i read alike) merges them on both sides.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from memory.untrusted import is_invisible

__all__ = ["Clause", "clauses", "fold_word", "tokens"]

#: Leetspeak digits and signs, read as letters inside a word that has letters.
LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})

_HYPHENS = "-\u2010\u2011\u2012\u2013\u2043\ufe63\uff0d"
# A hyphen between two letters (optionally at a line's end) breaks a word, it does not separate two.
_BROKEN_WORD = re.compile(rf"(?<=[^\W\d_])[{_HYPHENS}](?:[ \t]*\n[ \t]*)?(?=[^\W\d_])")
_POSSESSIVE = re.compile(r"(?<=[^\W_])['\u2019\u02bc]s\b", re.IGNORECASE)
_WORD = re.compile(r"(?:[^\W_]|[@$])+")
_CLAUSE_END = re.compile(r"[.!?;\n\u2026\u3002]+")
# A letter (or a leetspeak digit) standing alone, as in "C r i m s o n" or "C.r.i.m.s.o.n".
_LONE = r"(?:[^\W\d_]|[013457@$])"
_SEPARATORS = r"[ ._\-\u00b7\u2022*~|/+\u2010\u2011\u2013]{1,3}"
# Three or more lone letters, each pair parted by the same separator: one word spelled out.
_SPACED = re.compile(rf"(?<![^\W_])({_LONE})(?P<sep>{_SEPARATORS})(?:{_LONE}(?P=sep)){{1,}}{_LONE}(?![^\W_])")
# In a spelled-out run, a capital after a small letter starts the next word ("CrimsonPact": two words).
_CAMEL = re.compile(r"(?<=[^\W\dA-Z_])(?=[A-Z])")


@functools.lru_cache(maxsize=4096)
def _latin(char: str) -> str:
    """Return the Latin letter a non-Latin letter looks like (itself when it looks like none)."""
    # Imported on the first non-Latin letter: its tables take a tenth of a second to load, and most texts are ASCII.
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(char, preferred_aliases=["latin"], greedy=True)
    if found:
        for glyph in found[0]["homoglyphs"]:
            candidate = glyph["c"]
            if candidate.isascii() and candidate.isalnum():
                return str(candidate)
    return char


def _visible(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    out = []
    for char in text:
        if is_invisible(char) and char not in "\n\t":
            continue
        out.append(_latin(char) if not char.isascii() and char.isalpha() else char)
    return "".join(out)


@functools.lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """Return the comparable form of one word: casefolded, unaccented, leetspeak read, plural and l/i merged."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    if any(c.isalpha() for c in plain):
        plain = plain.translate(LEET)
    plain = plain.strip("@$")
    if len(plain) > 3 and plain.endswith("s") and not plain.endswith(("ss", "us", "is")):
        plain = plain[:-1]
    # A "1" read as "i" could have been an "l" ("ki11ed"): l and i are one letter for the comparison.
    return plain.replace("l", "i")


def _joined(match: re.Match[str]) -> str:
    """Return a spelled-out run as the word(s) it spells; a run of mere initials ("a b c") stays as it is."""
    run = match.group(0)
    letters = run.replace(match.group("sep"), "")
    if sum(c.isalpha() for c in letters) < len(letters) / 2:
        return run
    return _CAMEL.sub(" ", letters)


def _prepared(text: str) -> str:
    return _POSSESSIVE.sub("", _BROKEN_WORD.sub("", _SPACED.sub(_joined, _visible(text))))


def tokens(text: str) -> list[str]:
    """Return the comparable words of a text, in order (see the module's docstring for what is undone)."""
    return [w for w in (fold_word(m) for m in _WORD.findall(_prepared(text))) if w]


class Clause:
    """A clause of a text: its comparable words, and the same words as written (names are capitalised)."""

    __slots__ = ("index", "raw", "words")

    def __init__(self, words: Sequence[str], raw: Sequence[str]) -> None:
        self.words = tuple(words)
        self.raw = tuple(raw)
        #: Where each word stands: a phrase is looked for only where its first word is.
        self.index: dict[str, list[int]] = {}
        for i, word in enumerate(self.words):
            self.index.setdefault(word, []).append(i)

    def find(self, phrase: Sequence[str]) -> list[int]:
        """Return where the words of `phrase` stand together in the clause (their first word's places)."""
        if not phrase:
            return []
        size = len(phrase)
        return [
            i
            for i in self.index.get(phrase[0], ())
            if size == 1 or tuple(self.words[i : i + size]) == tuple(phrase)
        ]

    def capitalised(self, index: int) -> bool:
        """Return whether the word at `index` was written with a capital (a name, mostly)."""
        return self.raw[index][:1].isupper()

    def quote(self, start: int, end: int) -> str:
        """Return the words from `start` to `end` (included) as written."""
        return " ".join(self.raw[start : end + 1])


def clauses(text: str) -> list[Clause]:
    """Return a text's clauses (split at full stops, semicolons, question and exclamation marks, line ends)."""
    found: list[Clause] = []
    for part in _CLAUSE_END.split(_prepared(text)):
        raw = _WORD.findall(part)
        kept = [(fold_word(w), w) for w in raw if fold_word(w)]
        if kept:
            found.append(Clause([w for w, _ in kept], [w for _, w in kept]))
    return found
