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

from collections.abc import Callable, Sequence

from memory.knowledge.retrieval.vocabulary import words_of

__all__ = ["coverage", "stem"]

_ENDINGS = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """Return a word without a plural or verb ending (at least three letters kept)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            return word[: -len(ending)]
    return word


def coverage(
    asked: Sequence[str], weight: Callable[[str], float], heading_path: Sequence[str], text: str
) -> float:
    """Return the weighed share of the question's words a passage (its headings and text) holds, 0 to 1."""
    weights: dict[str, float] = {}
    for word in asked:
        key = stem(word)
        weights[key] = max(weights.get(key, 0.0), weight(word))
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    held = {stem(w) for w in words_of(" ".join(heading_path)) + words_of(text)}
    return sum(w for key, w in weights.items() if key in held) / total
