"""Title fit: how much of a candidate's section title the question names.

Words and meaning both find "Zombie" and "Ogre Zombie" for "how much health does a zombie have", "Mass Heal" and
"Heal" for "what is the range of Heal?", a class's features and the class itself for "barbarian hit die?": the
section the question names is the one whose title it names whole. The share of a title's words the question
holds (plurals folded), squared, times `SearchConfig.title_weight`, is added to the candidate's fused score, so a
title named whole outranks one named in part; a title the question does not name gets nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from memory.fulltext import query_words

__all__ = ["title_fit"]

#: Titles whose words are kept (a question reads some sixty sections; the same ones come back question after
#: question).
_TITLES_KEPT = 4096


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@functools.lru_cache(maxsize=_TITLES_KEPT)
def _title_words(title: str) -> frozenset[str]:
    """Return a section title's words, plurals folded."""
    return frozenset(_fold(w) for w in query_words(title))


def title_fit(asked: Iterable[str], heading_path: Sequence[str]) -> float:
    """Return the share of the section title's words among the question's words, squared (0 when no title)."""
    if not heading_path:
        return 0.0
    title = _title_words(heading_path[-1])
    if not title:
        return 0.0
    words = {_fold(w) for w in asked}
    share = len(title & words) / len(title)
    return share * share
