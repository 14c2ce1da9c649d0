"""Why, as a part of a two-part question: "where did Corvin go into exile, and why?".

The "why" part is answered by a reason: its answer when that holds one ("because", "for treason", "out of
spite"), else a sentence the asker may read about the one asked of that holds a reason for what the parts ask (it
shares their words), or that tells what was done to them just after a sentence saying it ("He was banished because
he struck the queen's cousin", after "Corvin went into exile …": read "Corvin was banished because …"), from a
passage or a card's description; else the part is said not known, in the words any question nothing answers
gets. Never the first part's answer said again as if it were the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import nothing_known, numbered
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sentences

__all__ = ["reasoned"]

_WHY = re.compile(r"^\s*why\b", re.IGNORECASE)
#: The words that give a reason.
_CAUSE = re.compile(
    r"\b(?:because|since|as\s+punishment|in\s+punishment|so\s+that|in\s+order\s+to|out\s+of|due\s+to|owing\s+to"
    r"|for\s+(?:his|her|their|the\s+crime|treason|murder|theft|heresy|\w+ing)|to\s+escape|to\s+avoid|fearing)\b",
    re.IGNORECASE,
)
_OPENING = re.compile(r"^(?:He|She|They|It)\b")
_DONE = re.compile(
    r"^(?:(?:He|She|They)\s+(?:was|were|had\s+been)\s+\w+ed\b|(?:This|That|It)\s+was\s+because\b)"
)


def _subject(part: str, facts: Sequence[CanonFact]) -> CanonFact | None:
    """Return the card the why-part asks of: the one whose name's words stand in it, the longest."""
    words = set(fold_words(part))
    named = [f for f in facts if set(fold_words(f.entity_name)) & words]
    return max(named, key=lambda f: len(set(fold_words(f.entity_name)) & words), default=None)


def _reason(asked: str, card: CanonFact, texts: Sequence[tuple[int, str]]) -> tuple[str, int] | None:
    """Return a sentence of the texts (each with its citation number) giving a reason about the card's entity
    for what is asked (the why-part and the part before it), or beside a sentence saying it, and its number."""
    name = set(fold_words(card.entity_name))
    words = set(key_words(asked)) - name
    for number, text in texts:
        said = sentences(text)
        for at, sentence in enumerate(said):
            if not _CAUSE.search(sentence):
                continue
            before = said[at - 1] if at else ""
            about = bool(set(fold_words(sentence)) & name) or (
                _OPENING.match(sentence) is not None and bool(set(fold_words(before)) & name)
            )
            # Beside the sentence saying it, a reason is one told of what was done to them ("He was banished
            # because …"), never any reason at all ("She sings because she is happy").
            near = set(key_words(sentence)) | (set(key_words(before)) if _DONE.match(sentence) else set())
            if about and any(has_word(near, w) for w in words):
                return _OPENING.sub(card.entity_name, sentence, count=1), number
    return None


def reasoned(
    part: str,
    answer: ShortAnswer,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    before: str = "",
) -> ShortAnswer:
    """Return the answer to a why-part: its own when it gives a reason, else the reason the cards and passages
    give for what it and the part `before` it ask, else "nothing known" (see the module docstring); any other
    part's answer as it is."""
    if not _WHY.match(part) or (answer.known and _CAUSE.search(answer.text)):
        return answer
    citations = numbered(facts, results)
    card = _subject(part, facts)
    if card is not None:
        texts = [(n, r.text) for n, r in enumerate(results, len(facts) + 1)]
        texts += [(n, f.description) for n, f in enumerate(facts, 1) if f.description]
        found = _reason(f"{before} {part}", card, texts)
        if found is not None:
            sentence, number = found
            marked = [c.model_copy(update={"cited": c.number == number}) for c in citations]
            text = f"{sentence.rstrip('.')}. [{number}]"
            return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)
    return ShortAnswer(text=nothing_known(part), mode=AnswerMode.NOTHING, known=False, citations=citations)
