"""An entry the question names by its whole title, answered by a sibling entry's passage: no answer.

Entries of one kind stand side by side under the same headings (the dragons of a bestiary, the ropes of a price
list), and their passages share most words. "What is the frightful presence of a young green dragon" finds the
Young Green Dragon, but the line saying "Frightful Presence" is the Ancient Green Dragon's: quoted, it tells of
another creature, and the young one has no such trait. `sibling_named` returns the title of a passage found that
the question names whole (every word of a title of two words or more, an ending or a typo apart, `_same`) when the answer
quotes a passage under the same headings whose own title the question does not name, and whose text does not hold
that title's words: the entry asked is not the one the answer is about. A question describing what it asks
("spell that opens a passage through a stone wall") may use a sibling's words: it is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from memory.fulltext import STOPWORDS
from memory.knowledge.models import LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_described import describes
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.field_answer import PASSAGES_READ

__all__ = ["sibling_named"]

_BRACKETS = re.compile(r"\([^)]*\)")
#: The fewest words of a title naming one entry among its siblings ("young green dragon"); a title of one word
#: ("Lion") is as often a word of a description ("the flying lion thing with spikes").
NAME_WORDS = 2
#: A typed word this close to a title's word (and as long) is that word misspelt; a shorter one is another word
#: ("pass" is not "passive").
TYPO_RATIO = 85
TYPO_LEAST = 5


def _title(result: LoreResult) -> list[str]:
    """Return the words of a passage's own title: its last heading's last part, without what is in brackets."""
    heading = result.heading_path[-1] if result.heading_path else ""
    title = _BRACKETS.sub(" ", heading).split(":")[-1]
    return [w for w in fold_words(title) if w not in STOPWORDS and not w.isdigit()]


def _same(word: str, typed: str) -> bool:
    """Return whether a typed word is a title's word: a plural apart ("checks"), or misspelt ("grene"); a longer
    word starting alike is another ("pass" is not "passive")."""
    short, long_ = sorted((word, typed), key=len)
    if long_ in (short, short + "s", short + "es") or (short.endswith("f") and long_ == short[:-1] + "ves"):
        return True
    return (
        len(short) >= TYPO_LEAST
        and len(long_) - len(short) <= 1
        and word[:1] == typed[:1]
        and fuzz.ratio(word, typed) >= TYPO_RATIO
    )


def _named(title: Sequence[str], typed: Sequence[str]) -> bool:
    return bool(title) and all(any(_same(w, t) for t in typed) for w in title)


def sibling_named(
    question: Question, results: Sequence[LoreResult], quoted: Sequence[LoreResult]
) -> str | None:
    """Return the title of the entry the question names whole when the answer quotes a sibling entry it does not
    name (see the module docstring), or None."""
    if describes(question.text):
        return (
            None  # "spell that opens a passage through a stone wall": Wall of Stone's words describe Passwall
        )
    typed = [*fold_words(question.expanded), *fold_words(question.text)]
    for said in quoted:
        own = _title(said)
        if not said.heading_path or all(any(akin(w, t) for t in typed) for w in own):
            continue  # its own title named, an ending apart ("giant spiders")
        text = fold_words(said.text)
        for found in results[:PASSAGES_READ]:
            title = _title(found)
            if (
                len(title) >= NAME_WORDS
                and found.heading_path[:-1] == said.heading_path[:-1]
                and title != own
                and _named(title, typed)
                and not _named(title, text)
            ):
                return found.heading_path[-1]
    return None
