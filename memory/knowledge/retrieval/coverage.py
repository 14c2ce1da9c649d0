"""Coverage: how much of a question a passage holds, each word weighed by how telling it is.

Words and meaning each score a passage on their own terms: bm25 adds up its words, so a passage holding one
rare question word many times can outrank one holding most of the question; a vector can sit close to a
passage that shares none of its telling words. A passage that holds most of what the question says, weighed
by each word's idf in the campaign (`memory.knowledge.retrieval.vocabulary`), is the likelier answer to a
question describing something without naming it ("which spider can blink into the Ethereal Plane?"). The share,
raised to `SearchConfig.coverage_power`, times `SearchConfig.coverage_weight`, is added to the fused score of
the best candidates. Words are compared by a light stem (plural and verb endings dropped), as a player's "drinks"
meets a book's "drink".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

__all__ = ["Coverage", "coverage", "stem"]

_ENDINGS = ("ing", "ed", "es", "s")
_RUN = re.compile(r"\w+")
#: The only characters outside ASCII that a case-blind pattern of ASCII letters matches ("K", the kelvin sign,
#: is "k"), or that lowercase to an ASCII letter or to two characters ("İ"): a passage without them is read by its
#: words' lowercase forms.
_CASE_TWINS = ("\u0130", "\u0131", "\u017f", "\u212a")
#: Passages whose words are kept (a question reads some sixty; the same ones come back question after question).
_PASSAGES_KEPT = 2048


def stem(word: str) -> str:
    """Return a word without a plural or verb ending (at least three letters kept)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            return word[: -len(ending)]
    return word


class Coverage:
    """The question's words by stem with their weights, and one pattern finding them in a passage.

    A passage is read as the set of its words' lowercase forms, kept per passage (`_read`): a question is
    read against some sixty passages, mostly the ones earlier questions read, and scanning each for the
    question's words would cost more than the rest of the rerank. Each word form is held for the one stem the
    pattern (a stem, longest first, then at most an ending) would find in it. A passage or a question holding a
    character whose case-blind match is not its lowercase form (`_CASE_TWINS`, any non-ASCII stem) is scanned by
    the pattern itself.
    """

    def __init__(self, asked: Sequence[str], weight: Callable[[str], float]) -> None:
        self.weights: dict[str, float] = {}
        for word in asked:
            key = stem(word.casefold())
            self.weights[key] = max(self.weights.get(key, 0.0), weight(word))
        self.total = sum(self.weights.values())
        # A word with digits ("d20s", "3rd") is never read as held (a passage's "1d20" is not it): it keeps its
        # weight, so a question resting on numbers leans less on coverage.
        stems = sorted((w for w in self.weights if w.isalpha()), key=lambda w: (-len(w), w))
        self._stems = stems
        self._compiled: re.Pattern[str] | None = None
        # Each word form the pattern finds, and the stem it is found for (the first of `stems` it is formed of).
        self._forms: dict[str, str] = {}
        for word in reversed(stems):
            for ending in ("", *_ENDINGS):
                self._forms[word + ending] = word
        self._by_words = all(w.isascii() for w in stems)

    def _pattern(self) -> re.Pattern[str]:
        """Return the pattern of the question's stems, compiled when first needed (most passages are read by
        their words: a pattern of some twenty stems costs more to compile than the rest of a question's rerank)."""
        if self._compiled is None:
            stems = "|".join(map(re.escape, self._stems))
            self._compiled = re.compile(r"\b(" + stems + r")(?:ing|ed|es|s)?\b", re.IGNORECASE)
        return self._compiled

    def share(self, heading_path: Sequence[str], text: str) -> float:
        """Return the weighed share of the question's words a passage (its headings and text) holds, 0 to 1."""
        if not self._stems or self.total <= 0:
            return 0.0
        passage, places = _read(tuple(heading_path), text)
        if self._by_words and places is not None:
            # The forms the passage holds, taken in the order of its words' set as `keys() & words` takes them
            # (so the same set, summed in the same order), looked up by the question's few forms.
            found = [form for form in self._forms if form in places]
            found.sort(key=places.__getitem__)
            held = {self._forms[form] for form in set(found)}
        else:
            held = {m.group(1).casefold() for m in self._pattern().finditer(passage)}
        return sum(self.weights.get(key, 0.0) for key in held) / self.total


@functools.lru_cache(maxsize=_PASSAGES_KEPT)
def _read(headings: tuple[str, ...], text: str) -> tuple[str, dict[str, int] | None]:
    """Return a passage (its headings and text) and the lowercase forms of its words (runs of word characters, as
    the pattern's `\\b` sees them), each with its place in their set's order, or None for those when it holds a
    character read otherwise (`_CASE_TWINS`). Kept by headings and text, whose strings the kept chunks share: no
    passage is joined and hashed again."""
    passage = " ".join(headings) + "\n" + text
    if not (passage.isascii() or not any(c in passage for c in _CASE_TWINS)):
        return passage, None
    return passage, {word: place for place, word in enumerate(frozenset(_RUN.findall(passage.lower())))}


def coverage(
    asked: Sequence[str], weight: Callable[[str], float], heading_path: Sequence[str], text: str
) -> float:
    """Return the weighed share of the question's words a passage holds (`Coverage.share`), 0 to 1."""
    return Coverage(asked, weight).share(heading_path, text)
