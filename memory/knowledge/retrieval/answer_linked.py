"""Two entries a question names, and the sentence of one that names the other: it says how they meet.

A player often asks how two things of the books meet ("can I spam magic missile at the tarrasque", "can
darkvision see through the darkness spell"). Each is an entry of its own, found among the best passages; what
the question asks is where one entry speaks of the other: the tarrasque's trait that names the magic missile
spell, the darkness spell's sentence that names darkvision. Neither entry's own best sentence says it, and the
question holds too few of that sentence's words for the stricter readings (`answer_extractive`,
`answer_first`). So when the question names the titles of two of the best passages (every word of each, an
ending apart), a sentence of one that names the other's title answers; among several, the one saying most of the
question's other words (its passage's headings count), then the better passage's. A title inside the other
("Darkvision" and "Darkvision (spell)") links nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import (
    asked_words,
    fold_words,
    kind_line,
    labelled_sentences,
    sections_of,
)

__all__ = ["linked", "quoted_link"]

#: The passages whose titles a question may name (the best few).
PASSAGES_READ = 3
_BRACKETS = re.compile(r"\([^)]*\)")
#: A sentence with this many commas or semicolons or more is a list (`_listing`).
LISTING = 4
_SEPARATOR = re.compile(r"[,;]")


def _title(result: LoreResult) -> list[str]:
    """Return the words of a passage's title: its last heading's last part, without what is in brackets."""
    if not result.heading_path:
        return []
    title = _BRACKETS.sub(" ", result.heading_path[-1]).split(":")[-1]
    return [w for w in fold_words(title) if w not in STOPWORDS and not w.isdigit()]


def _says(words: Sequence[str], title: Sequence[str]) -> bool:
    """Return whether every word of a title is among `words` (an ending apart)."""
    return bool(title) and all(any(akin(t, w) for w in words) for t in title)


def _listing(text: str) -> bool:
    """Return whether a sentence lists many things ("1st: Expertise, Sneak Attack; 2nd: ..."): an index naming the
    other entry among many says nothing of it."""
    return len(_SEPARATOR.findall(text)) >= LISTING


def quoted_link(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], said: str
) -> bool:
    """Return whether an answer's text quotes the sentence linking two entries the question names (`linked`)."""
    link = linked(question, facts, results)
    return link is not None and link.text.rsplit(" [", 1)[0].rstrip(".") in said


def linked(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the sentence of one passage the question names that names another one it names (see the module
    docstring), quoted with its passage's number, or None."""
    typed = fold_words(f"{question.typed} {question.text} {question.expanded}")
    named = [
        (at, result, title)
        for at, result in enumerate(results[:PASSAGES_READ])
        if result.is_fact and _says(typed, title := _title(result))
    ]
    asked = asked_words(question.expanded)
    best: tuple[float, int, str] | None = None
    for at, result, title in named:
        # "Mage" is named only inside "Mage Armor": a title within the other's names nothing of its own.
        others = [t for _, _, t in named if not (set(t) <= set(title) or set(title) <= set(t))]
        if not others:
            continue
        heading = fold_words(" ".join(result.heading_path))
        for _section, body in sections_of(result.text):
            kind = kind_line(body)
            for position, (_, text) in enumerate(labelled_sentences(body)):
                words = fold_words(text)
                link = next((t for t in others if _says(words, t)), None)
                if text == kind or link is None or _listing(text):
                    continue
                rest = [w for w in asked if not any(akin(w, t) for t in [*title, *link])]
                held = sum(1 for w in rest if any(akin(w, x) for x in [*words, *heading]))
                score = held - 0.1 * at - 0.001 * position
                if best is None or score > best[0]:
                    best = (score, at, text)
    if best is None:
        return None
    number = len(facts) + 1 + best[1]
    text = best[2] if best[2].endswith((".", "!", "?", "…")) else best[2] + "."
    citations = [c.model_copy(update={"cited": c.number == number}) for c in numbered(facts, results)]
    return ShortAnswer(text=f"{text} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)
