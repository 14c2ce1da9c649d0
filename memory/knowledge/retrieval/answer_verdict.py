"""Yes or no first, for a yes/no question a quoted sentence answers outright.

"Are gnomes immune to cackle fever?" is answered by "This disease targets humanoids, although gnomes are
strangely immune." under the heading Cackle Fever: the player asked yes or no, so the answer says which first
("Yes: This disease …"). A verdict is said only when the sentence (with the headings of its passage and the bold
name of its block) holds every word the question asks about, the question itself says no "not" (its yes would
mean no), and the sentence puts no condition on what it says ("unless", "except", "only"): then a sentence saying
"not", "can't", "never" answers "No", any other "Yes"; one saying a word asked and its opposite
("advantage", "disadvantage") is neither. A sentence saying "not" needs not hold an amount the question names
("cleric gives me 10 temp hp, the warlock 8 more, do they stack to 18": "they can't be added together" is no to
any sum). A sentence that limits what it says ("can't ... unless", "only if", "no more than three") answers by
its limit (`answer_restricted`); a condition word the question says itself ("a fiend instead of a celestial")
is none. The possessor the asker names ("my paladin's steed") needs not be in the sentence. The quoted sentences
are read in order, the first answering gives the verdict; a table's row quoted (names and numbers, no words
saying anything of them) gives none. Otherwise the sentences are left to speak for themselves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FILLER, Question
from memory.knowledge.retrieval.answer_described import describes
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_restricted import limit_of, limited
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
#: The openings of a yes/no question ("will" is left out: "will o wisp armor class" names a creature).
_YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|can|could|would|has|have|should)\b", re.IGNORECASE)
#: Prefixes making a word its opposite: a sentence holding both ("advantage", "disadvantage") says both.
_OPPOSITE = ("dis", "un", "non", "in", "im")


def verdict(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer:
    """Return the answer led by "Yes" or "No" when one of its sentences (the first that does) answers the yes/no
    question outright or by its limit (see the module docstring), else the answer as it is."""
    if not _YES_NO.match(question.expanded) or not answer.known or answer.mode != AnswerMode.EXTRACTIVE:
        return answer
    if (
        answer.text.startswith(("Yes", "No"))
        or _NEGATION.search(question.expanded)
        or describes(question.text)
    ):
        return answer  # "is there a spell that …" asks which one: its name answers
    first = len(facts) + 1
    asked = [
        w for w in key_words(question.expanded) if w not in FILLER and w not in _owner(question.expanded)
    ]
    for sentence, number in _sentences(answer.text):
        if number < first or number - first >= len(results):
            continue
        word = _said(question, sentence, results[number - first], results, asked)
        if word is not None:
            return answer.model_copy(update={"text": f"{word}: {answer.text}"})
    return answer


def _said(
    question: Question,
    sentence: str,
    result: LoreResult,
    results: Sequence[LoreResult],
    asked: Sequence[str],
) -> str | None:
    """Return "Yes" or "No" for a yes/no question one quoted sentence answers outright, or by its limit
    (`answer_restricted`), or None."""
    # A condition the question says too ("X instead of Y" asked of "X instead of Z") is no condition.
    typed = question.expanded.casefold()
    conditions = [
        c for c in _CONDITION.findall(sentence) if not re.search(rf"\b{re.escape(c.casefold())}\b", typed)
    ]
    if conditions or limit_of(sentence) is not None:
        return limited(question.expanded, sentence, result.heading_path, results, asked) if asked else None
    if not _speaks(sentence, asked):
        return None  # a table's row ("Mending Hum 2 1 Close") names the thing, says nothing of it
    held = fold_words(" ".join([*result.heading_path, sentence]))
    said = related_said(held, asked)
    missing = [w for w in asked if w not in said and not any(akin(w, h) for h in held)]
    negated = bool(_NEGATION.search(sentence))
    # "do they stack to 18": a sentence denying the thing asked denies it of any amount the table names.
    if not asked or (missing and not (negated and all(w.isdigit() for w in missing))):
        return None
    if any(p + w in held for w in asked for p in _OPPOSITE):
        return None  # "do I get advantage …": "disadvantage, and … advantage" says both
    return "No" if negated else "Yes"


#: The fewest words a sentence says besides the ones asked (lower-case, three letters or more) to speak of them.
SPOKEN = 2


def _speaks(sentence: str, asked: Sequence[str]) -> bool:
    """Return whether a quoted text says something of what is asked, in words: not a row of names and numbers."""
    words = [w for w in re.findall(r"\b[a-z][a-z'’-]{2,}\b", sentence) if w not in asked]
    # "You cannot Burn on a Bust.": a short sentence denying the thing asked speaks of it by its "not".
    return len(words) >= SPOKEN or (bool(words) and bool(_NEGATION.search(sentence)))


#: A quoted text's sentences, each up to the citation it is under ("S1. S2. [1] S3. [2]").
_QUOTED = re.compile(r"(.*?)\s*\[(\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?)])\s+(?=[A-Z(])")
#: "my paladin's find steed": the asker's character owns the thing asked about; its word is no word asked.
_OWNER = re.compile(r"\b(?:my|our)\s+([\w-]+)'s\b", re.IGNORECASE)


def _owner(question: str) -> set[str]:
    return {w for found in _OWNER.finditer(question) for w in fold_words(found.group(1))}


def _sentences(text: str) -> list[tuple[str, int]]:
    """Return the quoted sentences of an answer, each with the number of the source it is quoted from."""
    return [
        (sentence, int(found.group(2)))
        for found in _QUOTED.finditer(text)
        for sentence in _SENTENCE_END.split(found.group(1).strip())
        if sentence
    ]
