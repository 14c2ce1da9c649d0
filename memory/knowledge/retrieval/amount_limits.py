"""An amount asked as a limit, and a table row read under its columns' names.

"How much weight can a bag of holding take", "max number of items I can be attuned to", "up to how many
creatures": the question asks the most something can hold, carry or reach (`asks_limit`), so the sentence saying
a limit ("can hold up to 500 pounds", "no more than three items") answers it, not one saying the thing's own
weight ("The bag weighs 15 pounds") (`says_limit`).

A table's rows say their facts under the names of its columns, which `answer_words` leaves out of the rows
themselves ("| Large | 10 by 10 ft. |" under "| Size | Space |"): `row_headers` gives each row's sentence the
header it stands under, so a question asking the space of a size finds the row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.question import FIELD_UNITS
from memory.knowledge.retrieval.answer_sentence import has_amount
from memory.knowledge.retrieval.answer_words import fold_words, sentences

__all__ = ["LIMIT", "asks_limit", "limit_words", "row_headers", "says_limit", "says_limit_asked"]

#: How much more a sentence saying a limit weighs when the question asks one.
LIMIT = 1.5

_ASKS_LIMIT = re.compile(
    r"\b(?:max|maximum|at most|up to|limit|capacity)\b"
    r"|\bhow (?:much|many)\b.*\b(?:can|could|may)\b.*\b(?:carry|hold|take|contain|store|lift|fit|have|be)\b"
)
_SAYS_LIMIT = re.compile(
    r"\b(?:up to|at most|maximum|no more than|not more than|not exceeding|can't exceed|cannot exceed|capacity"
    r"|limit|can (?:hold|carry|contain|store|lift))\b"
    # "The hand can't attack or carry more than 10 pounds": what it cannot do past an amount is its limit.
    r"|\b(?:can't|cannot|can not|won't|mustn't|may not)\b[^.;]*?\bmore than\b"
)


def asks_limit(question: str) -> bool:
    """Return whether a question asks the most of something ("max number of", "how much can it carry")."""
    return bool(_ASKS_LIMIT.search(question.casefold().replace("’", "'")))


def says_limit(text: str) -> bool:
    """Return whether a sentence says a limit ("up to 500 pounds", "no more than three", "can hold")."""
    return bool(_SAYS_LIMIT.search(text.casefold().replace("’", "'")))


#: The words of a question asking a limit that a sentence saying one says too ("take" of "how much can it take").
_LIMIT_VERBS = frozenset({"take", "carry", "hold", "contain", "store", "lift", "fit"})
_LIMIT_NAMES = frozenset({"max", "maximum", "limit", "capacity", "number"})
_LIMIT_WORDS = _LIMIT_VERBS | _LIMIT_NAMES


#: "How much mass can ...": the word measured, which the limit's amount says ("up to 300 kilos").
_MEASURED = re.compile(r"\bhow (?:much|many)\s+([^\W\d_]+)")


def limit_words(question: str, asked: Sequence[str], text: str) -> set[str]:
    """Return the question's words a sentence saying a limit with an amount says by saying it: the limit's own
    words ("take", "max"), the word measured ("mass" of "how much mass can it take") and a measure in its units
    ("weight" by "500 pounds"); none for another sentence. A measure with units of its own is said by those
    only: "move the hand up to 30 feet" is no weight the hand can carry; what is held and the verb holding it, by
    a limit of holding only."""
    if not says_limit(text) or not has_amount(text):
        return set()
    words = set(fold_words(text))
    measured = _MEASURED.search(question.casefold())
    limit = _LIMIT_WORDS | ({measured.group(1)} if measured else set())
    # What is held ("stuff") and the verb holding it are said by a limit of holding ("can hold up to 500 pounds"
    # for "how much can it take"), not by any limit ("can survive for up to 10 minutes").
    holding = bool(_verbs(words) & _LIMIT_VERBS)
    return {
        w
        for w in asked
        if (w in limit and w not in FIELD_UNITS and (holding or w in _LIMIT_NAMES))
        or words & set(FIELD_UNITS.get(w, ()))
    }


def _verbs(words: set[str]) -> set[str]:
    """Return words with a verb's "s" read off ("holds" -> "hold")."""
    return words | {w[:-1] for w in words if w.endswith("s")}


def says_limit_asked(question: str, text: str) -> bool:
    """Return whether a sentence says the limit a question asks: a limit with an amount, by the question's own
    verb of holding ("hold" of "how much can it hold": "can hold up to 500 pounds") or in the units of the measure
    asked ("how much weight": "no more than 10 pounds"); "can survive up to 10 minutes" is no limit of what it
    holds."""
    if not says_limit(text) or not has_amount(text):
        return False
    words = set(fold_words(text))
    asked = set(fold_words(question))
    measured = _MEASURED.search(question.casefold())
    units = set(FIELD_UNITS.get(measured.group(1), ())) if measured else set()
    return bool(_verbs(words) & _verbs(asked) & _LIMIT_VERBS) or bool(words & units)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row_headers(text: str) -> dict[str, str]:
    """Return the header of the table each row's sentence (as `answer_words.sentences` gives it) stands
    under, its columns' names joined ("Size Space"), for the tables of a passage."""
    found: dict[str, str] = {}
    header: str | None = None
    previous = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            header, previous = None, stripped
            continue
        if set(stripped) <= set("|-: "):
            header = " ".join(_cells(previous)) if previous.startswith("|") else None
        elif header is not None:
            for sentence in sentences(stripped):
                found.setdefault(sentence, header)
        previous = stripped
    return found
