"""A question asking by how much a field goes up or down ("put horseshoes of speed on his warhorse, how much does
its walking speed go up") is answered by the sentence saying the change, of a passage the question names by its
title ("they increase the creature's walking speed by 30 feet"), not by the field's value of another thing it
names (the warhorse's speed)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_first import title_words
from memory.knowledge.retrieval.answer_sentence import has_amount
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences

__all__ = ["asks_change", "change_answer"]

#: The passages read for the sentence saying the change.
CHANGE_READ = 3

#: Words asking a change of an amount, after "how much" or "by how much".
_ASKS = re.compile(
    r"\bhow (?:much|many|far)\b.*\b(?:go(?:es)? (?:up|down)|increase[sd]?|raise[sd]?|boost(?:s|ed)?|"
    r"improve[sd]?|decrease[sd]?|reduce[sd]?|lower(?:s|ed)?|drop(?:s|ped)?)\b",
    re.IGNORECASE,
)
#: What says a change: "increase ... by 30 feet", "reduced by 10 feet", "a +2 bonus".
_SAYS = re.compile(
    r"\b(?:increase[sd]?|decrease[sd]?|reduce[sd]?|raise[sd]?|lower(?:s|ed)?|double[sd]?|halve[sd]?|bonus|"
    r"penalty)\b",
    re.IGNORECASE,
)


def asks_change(question: str) -> bool:
    """Return whether a question asks by how much something goes up or down."""
    return bool(_ASKS.search(question))


def _named(question: Question, result: LoreResult) -> bool:
    """Return whether the question says every word of a passage's title ("put horseshoes of speed on ...": a verb
    before a name does not qualify it here, the sentence quoted must say the change asked)."""
    title = [w for w in fold_words(" ".join(result.heading_path[-1:])) if w not in STOPWORDS]
    said = fold_words(question.text)
    return bool(title) and all(has_word(said, w) for w in title)


def change_answer(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], unknown: Sequence[str]
) -> ShortAnswer | None:
    """Return the sentence saying by how much the field asked changes, of a passage the question names by its
    title, or None (see the module docstring)."""
    if not question.fields or not asks_change(question.text):
        return None
    asked = [w for f in question.fields for w in fold_words(f)]
    first = len(facts) + 1
    for at, result in enumerate(results[:CHANGE_READ]):
        if not result.is_fact or not (title_words(question, result, unknown) or _named(question, result)):
            continue
        for sentence in sentences(result.text):
            words = fold_words(sentence)
            if all(has_word(words, w) for w in asked) and _SAYS.search(sentence) and has_amount(sentence):
                marked = [
                    c.model_copy(update={"cited": c.number == first + at}) for c in numbered(facts, results)
                ]
                return ShortAnswer(
                    text=f"{sentence} [{first + at}]",
                    mode=AnswerMode.EXTRACTIVE,
                    known=True,
                    citations=marked,
                )
    return None
