"""Yes or no first, for a yes/no question a quoted sentence answers outright.

"Are gnomes immune to cackle fever?" is answered by "This disease targets humanoids, although gnomes are
strangely immune." under the heading Cackle Fever: the player asked yes or no, so the answer says which first
("Yes: This disease …"). A verdict is said only when the sentence (with the headings of its passage and the bold
name of its block) holds every word the question asks about, the question itself says no "not" (its yes would
mean no), and the sentence puts no condition on what it says ("unless", "except", "only"): then a sentence saying
"not", "can't", "never" answers "No", any other "Yes"; one saying a word asked and its opposite
("advantage", "disadvantage") is neither. A sentence saying "not" needs not hold an amount the question names
("cleric gives me 10 temp hp, the warlock 8 more, do they stack to 18": "they can't be added together" is no to
any sum). Otherwise the sentence is left to speak for itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FILLER, Question
from memory.knowledge.retrieval.answer_described import describes
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words, key_words, related_said

__all__ = ["verdict"]

#: Words that turn a statement into its opposite.
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|can't|won't|isn't|aren't|doesn't|don't|"
    r"\w+n't|without)\b",
    re.IGNORECASE,
)
#: Words that put a condition on a statement: neither yes nor no outright.
_CONDITION = re.compile(
    r"\b(?:unless|except|only|instead of|depends|may|might|usually|sometimes)\b", re.IGNORECASE
)
_CITED = re.compile(r"\s*\[\d+\]\s*")
#: The openings of a yes/no question ("will" is left out: "will o wisp armor class" names a creature).
_YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|can|could|has|have|should)\b", re.IGNORECASE)
#: Prefixes making a word its opposite: a sentence holding both ("advantage", "disadvantage") says both.
_OPPOSITE = ("dis", "un", "non", "in", "im")


def verdict(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer:
    """Return the answer led by "Yes" or "No" when its first sentence answers the yes/no question outright (see
    the module docstring), else the answer as it is."""
    if not _YES_NO.match(question.expanded) or not answer.known or answer.mode != AnswerMode.EXTRACTIVE:
        return answer
    if (
        answer.text.startswith(("Yes", "No"))
        or _NEGATION.search(question.expanded)
        or describes(question.text)
    ):
        return answer  # "is there a spell that …" asks which one: its name answers
    first = len(facts) + 1
    cited = [c.number for c in answer.citations if c.cited and c.number >= first]
    sentence = _CITED.split(answer.text, maxsplit=1)[0]
    if not cited or not sentence or _CONDITION.search(sentence):
        return answer
    result = results[cited[0] - first]
    asked = [w for w in key_words(question.expanded) if w not in FILLER]
    held = fold_words(" ".join([*result.heading_path, sentence]))
    said = related_said(held, asked)
    missing = [w for w in asked if w not in said and not any(akin(w, h) for h in held)]
    negated = bool(_NEGATION.search(sentence))
    # "do they stack to 18": a sentence denying the thing asked denies it of any amount the table names.
    if not asked or (missing and not (negated and all(w.isdigit() for w in missing))):
        return answer
    if any(p + w in held for w in asked for p in _OPPOSITE):
        return answer  # "do I get advantage …": "disadvantage, and … advantage" says both
    word = "No" if negated else "Yes"
    return answer.model_copy(update={"text": f"{word}: {answer.text}"})
