"""First names several people share: "Brann" of Brann Moss and Brann Tally names both, never one of them.

The name table takes a part of a name for the entity whose name it begins (`entities.name_parts`); a part that
begins several names is no one's there. Of people, such a part is a first name: the question may mean any of
them, so each is found, with the word as typed, and the answer asks which (`answer_which`). Only people are found
so (a word beginning an event's and a faction's names, "Ember", names neither), and only where no other match
covers the word.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.graph import CanonReader
from memory import fulltext
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["first_names"]

_ARTICLES = frozenset({"the", "a", "an"})
#: A word beginning more names than this is a common word, no first name.
_MOST = 4
#: A first name given alone scores as a name given in part (`entities._PART_SCORE`).
_SCORE = 92.0


async def first_names(
    reader: CanonReader,
    question: str,
    folded_names: dict[str, tuple[str, int]],
    ranked: Sequence[EntityMatch],
) -> list[EntityMatch]:
    """Return the people whose names a word of the question begins, where it begins two people's or more."""
    covered = {w for m in ranked for w in fold_words(m.window)}
    typed = {w.casefold(): w for w in question.replace("’", "'").replace("'s ", " ").split()}
    found: list[EntityMatch] = []
    for word in dict.fromkeys(fold_words(question.replace("’", "'"))):
        if word in covered or word in fulltext.STOPWORDS or len(word) < 3 or word in folded_names:
            continue
        owners = {
            entity_id
            for folded, (_, entity_id) in folded_names.items()
            if _first_word(folded) == word and " " in folded
        }
        if not 2 <= len(owners) <= _MOST:
            continue
        entities = await reader.entities(owners)
        people = [e for e in entities.values() if reader.ontology.is_a(e.type, ("Person",))]
        if len(people) < 2:
            continue
        window = typed.get(word, word).strip("?!.,;:\"'")
        found += [EntityMatch(entity_id=e.id, matched=e.name, window=window, score=_SCORE) for e in people]
    return found


def _first_word(folded: str) -> str:
    first, _, rest = folded.partition(" ")
    return rest.partition(" ")[0] if first in _ARTICLES and rest else first
