"""A chain's step said before the answer read from the one it found: "who killed Mara's mother" is answered "Mara
Quell's mother is Ysolde Quell; Hob Greave killed Ysolde Quell.", "who is the father of the queen's husband" is
answered "Queen Alys is married to Orrin Vale; Orrin Vale's father is Old Vale." — never the last tie alone, which
leaves the asker to guess who the mother or the queen is. Each step is found as the asker may see it (`steps`): a
tie kept for the GM is no step of a player's, and the answer is then the step's own "nothing known"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["step_first"]

_MARK = re.compile(r"\s*\[\d+\]$")


def step_first(found: tuple[str, int], steps: Sequence[tuple[int, CanonFact]]) -> tuple[str, int]:
    """Return an answer read from the card a question's inner step found, with that step said first; as it is
    when it came from another card, when the step is a whole answer already (a chain broken, "nothing known")
    or when the answer says the step's words itself ("who is the queen's husband")."""
    if not steps:
        return found
    number, first = steps[0]
    step = first.step or ""
    if found[1] != number or not step or step.endswith((".", "?")):
        return found
    text = _MARK.sub("", found[0]).rstrip(".")
    if set(fold_words(step)) <= set(fold_words(text)):
        return found
    inner = text[0].lower() + text[1:] if text.startswith("Nothing ") else text
    return f"{step}; {inner}. [{number}]", number
