"""A tie the family tree does not hold but a description tells: "Brought up as Tamsin's son and heir".

Asked whether two people are kin ("is Osric really Tamsin's son?") when no tie the asker may see joins them, the
answer reads the two people's descriptions as the asker's cards hold them (a description kept for the GM is no
player's) for a sentence naming the other one, by a word of their name of three letters or more, together with
a word of the tie asked ("son", "sons", not "daughter" for a son), and says that sentence of its subject by name
(`answer_told.told_sentence`): "Osric Vennard was brought up as Tamsin's son and heir." Where none tells it, the
answer says canon names no tie, as it did.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, sentences
from memory.knowledge.retrieval.kin import KIN_WORDS, kin_words

__all__ = ["described_tie"]


def _names(sentence: str, name: str) -> bool:
    """Return whether a sentence names someone: their whole name, or one of its words of three letters or more."""
    folded = sentence.casefold().replace("’", "'")
    if name.casefold() in folded:
        return True
    said = set(fold_words(sentence))
    return any(len(w) > 2 and w in said for w in fold_words(name))


def described_tie(word: str, people: Sequence[tuple[str, str, str]]) -> tuple[str, int] | None:
    """Return the first sentence of a description telling the tie a kin word asks between two people, said of
    the description's subject ("Osric Vennard was brought up as …"), and which of `people` told it; None when
    none does. `people`: (whose description, the description as the asker may read it, the other one's name)."""
    tie = KIN_WORDS[word][0]
    for index, (name, description, other) in enumerate(people):
        for sentence in sentences(description or ""):
            ties = {KIN_WORDS[w][0] for w in kin_words(sentence) if w in KIN_WORDS}
            if tie in ties and _names(sentence, other):
                return _lead(told_sentence(name, sentence)), index
    return None


def _lead(text: str) -> str:
    """Return a sentence closed by its stop."""
    text = text.strip()
    return text if re.search(r"[.!?…]$", text) else f"{text}."
