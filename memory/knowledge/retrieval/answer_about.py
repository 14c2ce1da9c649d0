"""The entry's name first, when a question about a named thing is answered by that entry's own sentences.

A book's sentences speak of their entry as "it", "this spell", "they" or not at all ("You create a sword-shaped
plane of force"): under its heading that is clear, quoted alone it is not. So a question that asks no field and
no yes or no ("how does arcane sword work", "tell me about the staff of fire", "how long do dwarves live") and
names the title of the passage quoted first (`answer_first.title_words`) is answered led by that title
("Arcane Sword: You create …"), unless the answer already says it. A question describing its subject is
`answer_described.named_subject`'s; a yes or no answer leads with its verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_described import describes, subject_of, with_subject
from memory.knowledge.retrieval.answer_first import title_words

__all__ = ["titled"]


def titled(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    unknown: Sequence[str] = (),
) -> ShortAnswer:
    """Return the answer led by the title of the passage it quotes first when the question names that title and
    asks about the thing as a whole (see the module docstring), else the answer as it is."""
    if not answer.known or answer.mode != AnswerMode.EXTRACTIVE or question.fields or question.yes_no:
        return answer
    first = len(facts) + 1
    cited = [c.number for c in answer.citations if c.cited and c.number >= first]
    if not cited or min(cited) - first >= len(results) or describes(question.text):
        return answer
    result = results[min(cited) - first]
    subject = subject_of(result)
    if subject is None or subject.casefold() in answer.text.casefold():
        return answer
    if not title_words(question, result, unknown):
        return answer
    return answer.model_copy(update={"text": with_subject(subject, answer.text)})
