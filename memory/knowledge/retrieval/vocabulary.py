"""A campaign's own words: every word its readable chunks hold, and in how many chunks (its document frequency).

Read once per set of allowed source versions (and GM-only chunks left out) and kept, as the heading words are
(`memory.knowledge.retrieval.words`). Two uses:

- typo tolerance: a question word the campaign never uses is searched as the closest word it does use
  (`closest`): one edit away, where swapping two neighbouring letters counts as one edit ("posion" -> "poison",
  "wizzard" -> "wizard"); ties go to the more frequent word. A doubled letter typed single is no edit of its own
  (players type a doubled letter once as often as they mistype anything else): a word one edit from a campaign's
  word once both read their doubled letters single is that word ("grapel" -> "grapple", "ocasion" -> "occasion"),
  after any word one edit away as typed;
- how telling a word is (`weight`, the bm25 idf): a passage holding the question's rare words covers more of it
  than one holding its common ones (`memory.knowledge.retrieval.coverage`);
- which of a question's words are common (`common`: held by at least `COMMON_SHARE` of the chunks, and by
  `COMMON_LEAST` of them): such a word sets a question's scene ("enemy", "check") rather than naming what it is
  about, which the books call by rarer words (`RetrievalTrace.common_words`).

Campaigns above `SearchConfig.large_campaign_chunks` are not read whole (it would cost seconds and much memory):
there the caller falls back to the heading words alone and to even weights.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from rapidfuzz.distance import OSA

__all__ = ["Vocabulary", "fold", "single_letters", "words_of"]

_WORD = re.compile(r"[^\W\d_]+")
_DOUBLED = re.compile(r"(.)\1")
#: The share of a campaign's chunks a common word is in, and the fewest chunks (a small campaign's share is a few).
COMMON_SHARE = 0.01
COMMON_LEAST = 10


def fold(text: str) -> str:
    """Return text folded as the vocabulary stores it (NFKC, case-folded, curly apostrophes straight)."""
    return unicodedata.normalize("NFKC", text).casefold().replace("’", "'")


def single_letters(word: str) -> str:
    """Return a word with its doubled letters read single ("grapple" -> "graple")."""
    return _DOUBLED.sub(r"\1", word)


def words_of(text: str) -> list[str]:
    """Return the letter-only words of a text, folded."""
    return _WORD.findall(fold(text))


class Vocabulary:
    """The words of a set of chunks and how many chunks hold each."""

    def __init__(self, frequencies: Mapping[str, int], chunks: int) -> None:
        self.frequencies = dict(frequencies)
        self.chunks = chunks
        self._by_letter: dict[str, list[str]] = {}
        #: The words holding a doubled letter, by first letter, each with its doubled letters read single.
        self._doubled: dict[str, list[tuple[str, str]]] = {}
        for word in sorted(self.frequencies):
            self._by_letter.setdefault(word[0], []).append(word)
            if (single := single_letters(word)) != word:
                self._doubled.setdefault(word[0], []).append((word, single))

    @classmethod
    def of_texts(cls, texts: Iterable[str]) -> Vocabulary:
        """Return the vocabulary of some chunk texts (each text one chunk)."""
        counts: Counter[str] = Counter()
        chunks = 0
        for text in texts:
            chunks += 1
            counts.update(set(words_of(text)))
        return cls(counts, chunks)

    def __contains__(self, word: object) -> bool:
        return word in self.frequencies

    def weight(self, word: str) -> float:
        """Return how telling a word is: bm25's idf (a word in few chunks weighs more; an unknown word most)."""
        held = self.frequencies.get(word, 0)
        return math.log(1 + (self.chunks - held + 0.5) / (held + 0.5))

    def common(self, words: Iterable[str]) -> list[str]:
        """Return the words held by at least `COMMON_SHARE` of the chunks and by `COMMON_LEAST` of them."""
        least = max(COMMON_LEAST, COMMON_SHARE * self.chunks)
        return [w for w in words if self.frequencies.get(w, 0) >= least]

    def closest(self, word: str, fits: Callable[[str, str], bool] = lambda word, known: True) -> str | None:
        """Return the campaign's word a misspelt one most likely means, or None (see the module docstring).

        Only words of six letters or more that the campaign never uses are read (one edit from a short word is
        too often another real word: "pest" and "pets"), and only against words of the same first letter one
        edit away that `fits` accepts (the caller's rule for which slips are typos). Among those, one of the same
        length (a swap or a changed letter) before one letter more or less, then the more frequent. When no word
        is, a word holding a doubled letter is read as if that letter were single (`_doubled_closest`).
        """
        if len(word) < 6 or word in self.frequencies or not word.isalpha():
            return None
        best: tuple[int, int, str] | None = None
        for known in self._by_letter.get(word[0], ()):
            if abs(len(known) - len(word)) > 1 or OSA.distance(word, known, score_cutoff=1) > 1:
                continue
            if not fits(word, known):
                continue
            key = (abs(len(known) - len(word)), -self.frequencies[known], known)
            if best is None or key < best:
                best = key
        return best[2] if best else self._doubled_closest(word, fits)

    def _doubled_closest(self, word: str, fits: Callable[[str, str], bool]) -> str | None:
        """Return the campaign's word holding a doubled letter that a misspelt word means once both read their
        doubled letters single: the same ("ocasion"), else one edit away that `fits` accepts ("grapel" for
        "graple", "grapple"); the nearer, then the more frequent; or None."""
        typed = single_letters(word)
        best: tuple[int, int, str] | None = None
        for known, single in self._doubled.get(word[0], ()):
            if abs(len(single) - len(typed)) > 1:
                continue
            if single != typed and (
                OSA.distance(typed, single, score_cutoff=1) > 1 or not fits(typed, single)
            ):
                continue
            key = (int(single != typed), -self.frequencies[known], known)
            if best is None or key < best:
                best = key
        return best[2] if best else None
