"""Family names many people share: "Vaske" of five Vaskes names each of them, never one of them alone.

The name table takes a part of a name for the few entities whose names hold it (`entity_names.name_parts`); a part
more names share than that names none of them there, lest a common word name a crowd. Of people, a word that
begins or ends each of many names is a given or a family name, the one players type most: each of the people
is found, with the word as typed and as a part they share (`candidates.EntityMatch.shared`), and the answer
names them all and asks which, or answers the one the question's form fits (`answer_which.which_meant`). Only
people are found so (a word many places' and groups' names hold, "Frost", names none of them), only up to a
count, and only where no other match covers the word. The name table holds only what the asker may see, so a
GM-only namesake is neither found nor counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.graph import CanonReader
from memory import fulltext
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["family_names"]

_ARTICLES = frozenset({"the", "a", "an"})
#: Fewer names than this sharing a word are parts of the name table (`entity_names._SHARED_PART`).
_FEWEST = 4
#: A word more names begin or end than this is a common word, no family name.
_MOST = 12
#: A shared name given alone scores as a name given in part (`entity_names._PART_SCORE`).
_SCORE = 92.0


async def family_names(
    reader: CanonReader,
    question: str,
    folded_names: dict[str, tuple[str, int]],
    ranked: Sequence[EntityMatch],
) -> list[EntityMatch]:
    """Return the people whose names a word of the question begins or ends, where it begins or ends more names
    than the name table takes a part of, and two people's or more."""
    covered = {w for m in ranked for w in fold_words(m.window)}
    typed = {w.casefold(): w for w in question.replace("’", "'").replace("'s ", " ").split()}
    found: list[EntityMatch] = []
    for word in dict.fromkeys(fold_words(question.replace("’", "'"))):
        word = word[:-2] if word.endswith("'s") else word.rstrip("'")
        if word in covered or word in fulltext.STOPWORDS or len(word) < 3 or word in folded_names:
            continue
        owners = {entity_id for folded, (_, entity_id) in folded_names.items() if word in _ends(folded)}
        if not _FEWEST <= len(owners) <= _MOST:
            continue
        entities = await reader.entities(owners)
        people = [e for e in entities.values() if reader.ontology.is_a(e.type, ("Person",))]
        if len(people) < 2:
            continue
        window = typed.get(word, word).strip("?!.,;:\"'")
        found += [
            EntityMatch(entity_id=e.id, matched=e.name, window=window, score=_SCORE, shared=True)
            for e in sorted(people, key=lambda e: e.name)
        ]
    return found


def _ends(folded: str) -> tuple[str, ...]:
    """Return the first and last words of a many-word name, an article aside (none of a one-word name)."""
    words = folded.split()
    words = words[1:] if len(words) > 1 and words[0] in _ARTICLES else words
    return (words[0], words[-1]) if len(words) > 1 else ()
