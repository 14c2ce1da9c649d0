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

import re
from collections.abc import Callable, Sequence

__all__ = ["Coverage", "coverage", "stem"]

_ENDINGS = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """Return a word without a plural or verb ending (at least three letters kept)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            return word[: -len(ending)]
    return word


class Coverage:
    """The question's words by stem with their weights, and one pattern finding them in a passage.

    A passage is scanned once by a compiled pattern (a stem, then at most an ending): a question is read against
    some sixty passages, and splitting each into words would cost more than the rest of the rerank.
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
        self._pattern = (
            re.compile(r"\b(" + "|".join(map(re.escape, stems)) + r")(?:ing|ed|es|s)?\b", re.IGNORECASE)
            if stems
            else None
        )

    def share(self, heading_path: Sequence[str], text: str) -> float:
        """Return the weighed share of the question's words a passage (its headings and text) holds, 0 to 1."""
        if self._pattern is None or self.total <= 0:
            return 0.0
        held = {m.group(1).casefold() for m in self._pattern.finditer(" ".join(heading_path) + "\n" + text)}
        return sum(self.weights.get(key, 0.0) for key in held) / self.total


def coverage(
    asked: Sequence[str], weight: Callable[[str], float], heading_path: Sequence[str], text: str
) -> float:
    """Return the weighed share of the question's words a passage holds (`Coverage.share`), 0 to 1."""
    return Coverage(asked, weight).share(heading_path, text)
