"""The entry's name first, when a question about a named thing is answered by that entry's own sentences.

A book's sentences speak of their entry as "it", "this spell", "they" or not at all ("You create a sword-shaped
plane of force"): under its heading that is clear, quoted alone it is not. So a question that asks no field and
no yes or no ("how does arcane sword work", "tell me about the staff of fire", "how long do dwarves live") and
names the title of the passage quoted first (`answer_first.title_words`) is answered led by that title
("Arcane Sword: You create …"), unless the answer already says it. A question asking who, where, when or why ("who
knows about the queen's illness", "why did the king close the mint") asks a person, a place, a time or a reason,
not the thing as a whole: its answer is left as it is. A question describing its subject is
`answer_described.named_subject`'s; a yes or no answer leads with its verdict.

A passage whose body is a list of rules (a condition's effects, a feature's steps, a hazard's stages) is said by
its items, not by the first alone: a question asking about that thing as a whole ("what happens when I'm X",
"how does X work": no word asked besides its title's and the asking words) answered by one item of the list is
answered by the list's first items, at most `LISTED` (or, quoting an item further down, by it and the next ones:
`listed`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, FILLER, Question
from memory.knowledge.retrieval.answer_described import describes, subject_of, with_subject
from memory.knowledge.retrieval.answer_first import SUMMARY, akin, title_words
from memory.knowledge.retrieval.answer_words import asked_words, fold_words

__all__ = ["listed", "titled"]

#: Questions asking a person, a place, a time or a reason rather than about the thing they name.
_ASKS_OTHER = re.compile(r"^\W*(?:who|whom|whose|where|when|why)\b", re.IGNORECASE)

#: The most items of a list of rules quoted for a question about the thing as a whole.
LISTED = 3
#: An item of a list: a line led by a dash, an asterisk, a bullet or a number (what follows it).
_ITEM = re.compile(r"(?m)^[ \t]*(?:[-*•]|\d+[.)])[ \t]+(\S.*)$")
#: The words asking what something does as a whole ("what happens when ...").
_WHOLE = frozenset({"happen", "happens", "happening", "does", "do", "get", "gets", "got", "being", "become"})
_CITED = re.compile(r"\s*\[(\d+)\]\s*")


def listed(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    unknown: Sequence[str] = (),
) -> ShortAnswer:
    """Return the answer said by the items of the list it quotes one of, when the question asks about the
    passage's subject as a whole (see the module docstring), else the answer as it is."""
    if not answer.known or answer.mode != AnswerMode.EXTRACTIVE or question.fields or question.yes_no:
        return answer
    if _ASKS_OTHER.match(question.text):
        return answer
    first = len(facts) + 1
    cited = {c.number for c in answer.citations if c.cited}
    pieces = [p for p in _CITED.split(answer.text) if p.strip()]
    if len(cited) != 1 or len(pieces) != 2 or min(cited) < first or min(cited) - first >= len(results):
        return answer
    number = min(cited)
    result = results[number - first]
    title = title_words(question, result, unknown)
    if not title or describes(question.text):
        return answer
    around = fold_words(" ".join(result.heading_path))
    asking = CHATTER | FILLER | SUMMARY | _WHOLE | STOPWORDS
    others = [
        w for w in asked_words(question.expanded) if w not in asking and not any(akin(w, t) for t in around)
    ]
    if others:
        return answer
    items = [m.group(1).strip() for m in _ITEM.finditer(result.text)]
    sentence = pieces[0].strip()
    at = next((i for i, item in enumerate(items) if sentence.rstrip(".") in item), None)
    if at is None or len(items) < 2 or at + 1 >= len(items):
        return answer
    # From the list's start when the item quoted is among its first ones: the list is asked, not that item.
    said = items[:LISTED] if at < LISTED else [sentence, *items[at + 1 : at + LISTED]]
    text = " ".join(f"{s if s.endswith(('.', '!', '?')) else s + '.'} [{number}]" for s in said)
    return answer.model_copy(update={"text": text})


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
    if _ASKS_OTHER.match(question.text):
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
