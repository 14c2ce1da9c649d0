"""Whether a sentence speaks of a person, by their name or a word of it that is theirs there: "Nella Tamsin, the
Provost's youngest, was carried off" names Nella Tamsin, not Aurelio Tamsin, though both are Tamsins. A word of
the name beside another capitalised word that is no word of it (another given name, a title) is taken as another
one's name: a sentence is passed over rather than told of the wrong person. And whether a question asks the
name someone went by before ("what was X called before"). Pure."""

from __future__ import annotations

import re

__all__ = ["FORMER_NAME", "name_words", "names_one"]

#: A name someone went by before the one canon calls them: "what was X called before", "X's former name".
FORMER_NAME = re.compile(
    r"\b(?:former|old|earlier|previous|prior)\s+names?\b|\bname\s+(?:before|once|used\s+to\s+be)\b"
    r"|\b(?:called|named|known(?:\s+as)?)\s+(?:before|once|formerly|earlier|at\s+first)\b"
    r"|\bused\s+to\s+be\s+(?:called|named|known\s+as)\b|\bformerly\b",
    re.I,
)
_BEFORE = re.compile(r"([A-Z][^\W\d_]*)\s+$")
_AFTER = re.compile(r"\s+([A-Z][^\W\d_]*)")
#: Words that open a sentence with a capital and are no name ("The Tamsin heir", "Old Brenn").
_OPENERS = frozenset({"The", "A", "An", "This", "That", "His", "Her", "Their", "Its", "Old", "Young", "Poor"})


def name_words(name: str) -> list[str]:
    """Return the words of a name that may stand for it alone (more than two letters)."""
    return [w for w in re.findall(r"[^\W\d_]+", name) if len(w) > 2]


def names_one(sentence: str, name: str, words: list[str] | None = None) -> bool:
    """Tell whether `sentence` names the one called `name`: the whole name, or one of its `words` (by default
    `name_words`) standing for them, not inside another's name ("Nella Tamsin" is no Aurelio Tamsin)."""
    if name in sentence:
        return True
    own = set(re.findall(r"[^\W\d_]+", name))
    for word in name_words(name) if words is None else words:
        for found in re.finditer(rf"\b{re.escape(word)}\b", sentence):
            head = sentence[: found.start()]
            before = _BEFORE.search(head)
            after = _AFTER.match(sentence, found.end())
            if before is not None and before[1] not in own and before[1] not in _OPENERS:
                continue  # "Nella Tamsin": another's given name
            if after is not None and after[1] not in own:
                continue  # "Aurelio Marsh": another's family name
            return True
    return False
