"""Abstention by retrieval's confidence: a declined question answered from a passage the search is sure of.

The answer step's rules decline a question whenever no sentence of the passages found reads as its answer in
the rules' own terms; players ask in other words, and the rules decline answerable questions along with the
unanswerable ones. `confident` answers such a question after all when retrieval is sure of its first passage,
by three features read on every answer:
1. agreement: the word search and the meaning search both rank the passage near the top (`LEXICAL_RANK`,
   `SEMANTIC_RANK`);
2. coverage: the passage holds every content word of the question, through the glossary, an ending apart or
   in the books' words (`content_share` at least `SHARE`, of `MIN_WORDS` words or more);
3. nothing unknown: no content word of the question is one no source holds (a name the books never use: a
   neighbour's line is no answer about it).
It quotes the passage's sentence holding most of the question's words its headings do not already say (at least
one), saying the field asked if one is and what the question asks as any answer must (a reason for "why", the
number or the name asked: `answer_defined.said_as_asked`), led by the passage's subject: "Prone: An attack roll against the
creature has advantage if ... Otherwise, the attack roll has disadvantage. [1]".

Calibrated on the tuning question sets of `bench.lore_answers` (every answerable question read as if declined:
how often the sentence it would quote holds the fact), fit on half the sets and checked on the other half: the
rule fires on 509 of the 1,122 tuning questions, its sentence holds the fact for 91.5 % of the answerable ones it
fires on (88-92 % on either half), and it fires on none of the 194 unanswerable questions answered "nothing
known". Coverage is what keeps a namesake out: "how much does a tower shield weigh" finds the Shield, holding
two words of three. Measured and not used: four fifths of the words (as sure on the tuning sets, but on new
questions the one word missing named another thing), a lower coverage let through by the meaning model (the
namesakes' lines are as close in meaning as right answers), a margin over the second passage's coverage (fewer
right answers, no fewer wrong ones), and refusing an answer whose question puts a word no source holds beside
the quoted title (a made-up "kobold chieftain" beside the real Kobold: as many right answers lost as namesakes
caught).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_defined import said_as_asked
from memory.knowledge.retrieval.answer_described import (
    content_share,
    content_words,
    held_words,
    search_rank,
    subject_of,
    with_subject,
)
from memory.knowledge.retrieval.answer_first import field_words
from memory.knowledge.retrieval.answer_sentence import asks_amount, asks_measure, has_amount, says_field
from memory.knowledge.retrieval.answer_words import (
    fold_words,
    labelled_sentences,
    sections_of,
)

__all__ = ["Confidence", "confidence", "confident", "sure"]

#: The word search's rank the first passage must have at most.
LEXICAL_RANK = 3
#: The meaning search's rank the first passage must have at most.
SEMANTIC_RANK = 5
#: The least share of the question's content words the first passage must hold: all of them. One word missing
#: is most often the one that names another thing (a made-up "frost dart" finding a real Frost Wall, "nest
#: powers" finding an entry's Legendary Actions); four fifths let such namesakes answer unanswerable questions nobody tuned for.
SHARE = 1.0
#: The fewest content words a question must have to be judged by its share (one word is a lookup, not a
#: question the passage can be checked against).
MIN_WORDS = 2


@dataclass(frozen=True)
class Confidence:
    """How sure retrieval is of its first passage for a question."""

    lexical: int | None
    semantic: int | None
    share: float
    words: int
    unknown: tuple[str, ...]


def confidence(
    question: Question, results: Sequence[LoreResult], unknown: Sequence[str]
) -> Confidence | None:
    """Return the confidence features of the first passage found for a question, or None without one."""
    if not results:
        return None
    first = results[0]
    words = content_words(question)
    strange = tuple(w for w in words if w in unknown)
    return Confidence(
        lexical=search_rank(first, "lexical"),
        semantic=search_rank(first, "semantic"),
        share=content_share(question, first),
        words=len(words),
        unknown=strange,
    )


def sure(found: Confidence) -> bool:
    """Return whether retrieval is sure enough of its first passage to answer from it (module docstring)."""
    if found.lexical is None or found.semantic is None or found.unknown or found.words < MIN_WORDS:
        return False
    agreed = found.lexical <= LEXICAL_RANK and found.semantic <= SEMANTIC_RANK
    return agreed and found.share >= SHARE


def _says_fields(question: Question, text: str, seen: Sequence[str]) -> bool:
    """Return whether a sentence says every field the question asks: its label's word, an amount in its units
    ("for 1 hour" says a duration), or the question's own word for it ("reach" asking the range)."""
    words = set(seen)
    for name in question.fields:
        label = [w for w in field_words(replace(question, fields=[name]))]
        asked = [w for w in fold_words(question.asked_by.get(name, "")) if w not in STOPWORDS]
        if label and not any(says_field(w, text, words) for w in label) and not held_words(asked, seen):
            return False
    return True


def best_sentence(question: Question, result: LoreResult) -> str | None:
    """Return the passage's sentence holding most of the question's content words its headings do not say
    (at least one; the earlier on a tie), saying the field asked if one is (`_says_fields`) and an amount if
    one is asked ("how much rain floods the town": a sentence without one says no amount), or None."""
    words = content_words(question)
    heading = fold_words(" ".join([result.source_title, *result.heading_path]))
    asked = [w for w in words if not held_words([w], heading)]
    amount = asks_amount(question.text) or asks_measure(question.fields)
    best: tuple[int, str] | None = None
    for section, body in sections_of(result.text):
        for label, text in labelled_sentences(body):
            seen = fold_words(" ".join(x for x in (section, label, text) if x))
            if not _says_fields(question, text, seen) or (amount and not has_amount(text)):
                continue
            score = len(held_words(asked, seen))
            if score and (best is None or score > best[0]):
                best = (score, text)
    return best[1] if best else None


def confident(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
) -> ShortAnswer | None:
    """Return the answer of the first passage when retrieval is sure of it (`sure`), led by its subject, or None."""
    found = confidence(question, results, unknown)
    first = results[0] if results else None
    if found is None or first is None or not first.is_fact or first.out_of_date or first.overruled:
        return None
    if not sure(found):
        return None
    said = best_sentence(question, first)
    if said is None:
        return None
    number = len(facts) + 1
    subject = subject_of(first)
    text = with_subject(subject, said) if subject else said
    text = text if text.endswith((".", "!", "?", "…")) else text + "."
    citations = [c.model_copy(update={"cited": c.number == number}) for c in numbered(facts, results)]
    answer = ShortAnswer(
        text=f"{text} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations
    )
    # It must say what is asked as any answer must: a reason for "why", the number or name asked.
    said_so = said_as_asked(question.text, facts, results, answer, graphed=False)
    return answer if said_so is None else (said_so if said_so.known else None)
