"""A field asked of a thing the question describes instead of naming: the field of the passage both searches agree on.

"ok so there's this big bug that eats metal, how much damage does its bite do?" asks the damage of the rust
monster's bite without naming it. The field step (`field_answer`) wants the question's subject in a field's
subject's name, and no passage is headed by "big bug that eats metal", so it finds nothing, and a field asked of
something no passage is headed by is answered "nothing known" (a nearby line about something else is no answer).
The field is read from the best passage instead, its title standing for what the question describes, when:
1. both searches rank that passage at the top (`answer_described.agreed`): two readings of the question that share
   no scoring found the same section;
2. the question does not name its whole title: a question naming the title with other words besides ("armor class
   of the frost wyrmling hydra") asks about another thing of that name, which no source holds;
3. the question describes it in more than `answer_scope.SHORT_SUBJECT` words (a shorter subject names the thing
   asked with every word: "the duration of booming blade" is no description of Blade Barrier), some of which the
   passage holds (`answer_described.MIN_DESCRIBED_SHARE`);
4. the passage has a line of the field asked, of its own subject (a named line the question says too: the bite).
A word no source holds that names what is asked still means "nothing known" (`answer_scope.strange_words`, read
before this step).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, FILLER, Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_comparison import from_fields
from memory.knowledge.retrieval.answer_described import MIN_DESCRIBED_SHARE, agreed, held_words, subject_of
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_scope import SHORT_SUBJECT
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.field_answer import field_answers

__all__ = ["described_field"]


def described_field(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the field asked of the thing the question describes, read from the passage both searches agree on
    (see the module docstring), or None."""
    if not question.fields or not question.subject or not results:
        return None
    first = results[0]
    if not first.is_fact or first.out_of_date or first.overruled or not agreed(first):
        return None
    subject = subject_of(first)
    title = [w for w in fold_words(subject or "") if w not in STOPWORDS]
    typed = fold_words(question.text) + fold_words(question.expanded)
    if not title or all(any(akin(w, t) for t in typed) for w in title):
        return None  # named, not described: a namesake the best passage is not
    words = [w for w in question.subject if w not in STOPWORDS and w not in CHATTER and w not in FILLER]
    seen = fold_words(" ".join([*first.heading_path, first.text]))
    if len(words) <= SHORT_SUBJECT or len(held_words(words, seen)) < MIN_DESCRIBED_SHARE * len(words):
        return None
    # The title stands for the description; a line the question names ("its bite") is read as the field step
    # reads one (`field_answer._named_field`).
    hits = field_answers(replace(question, subject=title), [first], len(facts) + 1)
    return from_fields(hits, numbered(facts, results)) if hits else None
