"""A field asked of an entry the question calls by one of its traits: "the CR of the demon with Horror Nimbus".

A player who forgets a creature's or an item's name calls it by what it does: the bold name of one of its blocks
("Horror Nimbus"), said whole and in order. When no line answers the field of the subject as the question names
it, the one entry among the best passages holding a block so named is the one asked about: its own line answers,
named ("Nalfeshnee's challenge is 13 (10,000 XP). [1]"). A block named by one word ("Bite", "Claw") is every
creature's and names none; a name two entries found share ("Magic Resistance") names neither; a question naming
something the entry does not hold ("the beholder with ...") is about another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memory.fulltext import STOPWORDS
from memory.knowledge.models import LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_words import fold_words, labelled_sentences, sections_of
from memory.knowledge.retrieval.field_answer import PASSAGES_READ, FieldHit, field_answers, word_in

__all__ = ["by_trait"]

#: Words calling a block what it is ("the Horror Nimbus *ability*"), not naming an entry.
BLOCK_WORDS = frozenset(
    {"ability", "abilities", "trait", "traits", "power", "powers", "feature", "action", "move"}
)
#: The fewest words of a block's name that call its entry (one word is every creature's "Bite").
NAME_WORDS = 2


def _said_whole(name: str, typed: Sequence[str], asked: set[str]) -> bool:
    """Return whether the question says a block's name whole, its words in order and together, and the name is
    not the field asked ("Armor Class" is every entry's line)."""
    words = fold_words(name)
    if len([w for w in words if w not in STOPWORDS]) < NAME_WORDS or set(words) <= asked:
        return False
    return any(list(typed[i : i + len(words)]) == words for i in range(len(typed) - len(words) + 1))


def _named_blocks(result: LoreResult, typed: Sequence[str], asked: set[str]) -> bool:
    """Return whether a passage holds a block whose bold name the question says whole."""
    return any(
        label and _said_whole(label, typed, asked)
        for _, body in sections_of(result.text)
        for label, _ in labelled_sentences(body)
    )


def by_trait(question: Question, results: Sequence[LoreResult], first: int) -> list[FieldHit]:
    """Return the fields asked of the one entry among the best passages holding a block the question names
    whole (see the module docstring), or none. `first`: the number of the first passage."""
    if not question.fields:
        return []
    typed = fold_words(question.expanded)
    asked = {w for f in question.fields for w in fold_words(f)}
    found = [
        (at, r)
        for at, r in enumerate(results[:PASSAGES_READ])
        if r.is_fact and r.heading_path and _named_blocks(r, typed, asked)
    ]
    if len(found) != 1:
        return []
    at, result = found[0]
    # The question's other words must all be the entry's: "the *demon* that has ...", never another's name.
    held = fold_words(" ".join([*result.heading_path, result.text]))
    if any(not word_in(w, held) and w not in BLOCK_WORDS for w in question.subject):
        return []
    title = [w for w in fold_words(result.heading_path[-1]) if w not in STOPWORDS]
    return field_answers(replace(question, subject=title), [result], first + at)
