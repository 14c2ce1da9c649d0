"""Who holds a title of a place or a group: "Who rules the Saltmarch?", "Who is the lady of Saltmarch?".

Canon often says a ruler as a title ("Tamsin Vaske is Lady of Saltmarch") rather than a relation. A question
asking who rules something named, or who is "the <title> of" it, finds the title facts that name it (and hold
the title's words asked), on the campaign-and-attribute index: those holding them are found as if named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, titles_naming
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["title_holders"]

_RULES = re.compile(r"^\s*who\s+(?:rules|ruled|governs|governed|reigns|reigned|holds|held|runs|ran)\s+(.+)$")
_TITLE_OF = re.compile(r"^\s*who\s+(?:is|was|are|were)\s+the\s+(.+?)\s+of\s+(.+)$")
_ARTICLES = frozenset({"the", "a", "an"})
#: A holder found by a title scores below a name typed.
_HOLDER_SCORE = 90.0


def _asked(question: str) -> tuple[list[str], str] | None:
    """Return the title's words asked ("lady", none for "who rules") and the text naming what is held."""
    folded = " ".join(question.casefold().replace("?", " ").split())
    rules = _RULES.match(folded)
    if rules:
        return [], rules.group(1)
    titled = _TITLE_OF.match(folded)
    if titled:
        return fold_words(titled.group(1)), titled.group(2)
    return None


async def title_holders(
    reader: CanonReader, question: str, named: Sequence[EntityMatch]
) -> list[EntityMatch]:
    """Return the holders of a title of an entity the question names, as matches (the title as the words that
    found them), or none when the question asks no holder."""
    asked = _asked(question)
    if asked is None:
        return []
    words, held = asked
    found: list[EntityMatch] = []
    for match in named:
        if not set(fold_words(match.window)) <= set(fold_words(held)):
            continue
        name = [w for w in fold_words(match.matched) if w not in _ARTICLES]
        if not name:
            continue
        for statement in await titles_naming(reader, " ".join(name)):
            title = statement.value or ""
            if not all(w in fold_words(title) for w in words):
                continue
            if statement.subject_id in {m.entity_id for m in [*named, *found]}:
                continue
            found.append(
                EntityMatch(entity_id=statement.subject_id, matched=title, window=title, score=_HOLDER_SCORE)
            )
    return found
