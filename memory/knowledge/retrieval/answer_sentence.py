"""Read what one sentence says against a question: the amount it names, its words in the question's terms.

The extractive answer (`answer_extractive`) and the answers quoting a passage's blocks (`answer_first`,
`answer_described`) weigh a sentence by the same readings: whether the question asks an amount and the sentence
says one, whether it counts what "how many" asks, whether it is an example, and the words it says once its
abbreviations, dice and the books' wording are read out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from canon.number_words import CARDINALS, TENS
from memory.fulltext import STOPWORDS
from memory.knowledge.question import FIELD_UNITS, HOW_UNITS
from memory.knowledge.retrieval.answer_words import (
    ABBREVIATIONS,
    EXAMPLE_OPENS,
    fold_words,
    has_word,
    related_said,
    same_word,
)

__all__ = [
    "AMOUNT_FIELDS",
    "EXAMPLE",
    "NO_AMOUNT",
    "asks_amount",
    "asks_measure",
    "counted",
    "has_amount",
    "is_example",
    "paired",
    "says_field",
    "text_words",
    "word_pairs",
]

#: A question asking an amount ("how much damage", "how many berries", "what DC", "max number of items", "up to
#: how many"), and what says one.
_ASKS_AMOUNT = re.compile(
    r"\bhow (?:much|many|long|far|big|heavy|fast|deep|high|tall|old|wide|often)\b|\bwhat (?:dc|difficulty)\b"
    r"|\bdc\b|\b(?:max|maximum|min|minimum)\s+(?:[\w'-]+\s+)?(?:number|amount|count)\b|\bnumber of\b"
)
_AMOUNT = re.compile(
    r"\d|\b(?:"
    + "|".join(w for w, n in {**CARDINALS, **TENS}.items() if n)
    + r"|hundreds?|thousands?|half|twice|double|triple)\b",
    re.IGNORECASE,
)
#: How much less a sentence without an amount weighs when the question asks one.
NO_AMOUNT = 0.6
#: "How many willing creatures can ...", "max number of tendrils at once": the words counted, up to the verb.
_HOW_MANY = re.compile(
    r"\b(?:how many|number of)\s+(?:[^\W\d_]+\s+){0,2}?([^\W\d_]+)"
    r"(?=\s+(?:do|does|did|can|could|will|would|should|may|might|must|is|are|was|were|has|have|had|in|on|at|per|"
    r"for|of)\b|\s*[?!.]*$)"
)
_COUNT = (
    r"(?:\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|several|many)"
)
#: How much less an example weighs than the rule it illustrates ("For example, a creature with ...").
EXAMPLE = 0.5
#: A die or dice as the books write them: "1d6", "2d8 + 4", "d20".
_DICE_ROLL = re.compile(r"(?<![\w])\d*d\d+\b")
#: The fields whose value is an amount: a question asking one in prose ("lay on hands pool size", "bag of holding
#: capacity") asks an amount as "how much" does, and the sentence saying one answers it. Not damage: "what's
#: thunder damage" asks what a kind of damage is as often as how much of it.
AMOUNT_FIELDS = frozenset({*FIELD_UNITS, "size", "amount", "number", "total", "dc", "bonus", "capacity"})


def asks_amount(question: str) -> bool:
    """Return whether a question asks an amount ("how much damage", "how many berries", "what DC")."""
    return bool(_ASKS_AMOUNT.search(question.casefold()))


def asks_measure(fields: Sequence[str]) -> bool:
    """Return whether a field a question asks is an amount (`AMOUNT_FIELDS`: its last word, "pool size")."""
    return any(f.split() and f.casefold().split()[-1] in AMOUNT_FIELDS for f in fields)


def has_amount(text: str) -> bool:
    """Return whether a sentence says an amount (a number, "ten", "half", "twice")."""
    return bool(_AMOUNT.search(text))


#: "How much water ...": the thing whose amount is asked, the word after "how much" (no verb, no article).
_HOW_MUCH = re.compile(r"\bhow much\s+([^\W\d_]{3,})\b")
_NOT_MEASURED = frozenset(
    {
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "the",
        "for",
        "per",
        "more",
        "less",
        "time",
        "longer",
        "further",
        "farther",
    }
)


def measured(question: str) -> str | None:
    """Return the thing whose amount "how much" asks ("water" of "how much water do we need"), or None ("how
    much is a kit", "how much does it cost": the amount of what is named after)."""
    match = _HOW_MUCH.search(question.casefold())
    if match is None or match.group(1) in _NOT_MEASURED:
        return None
    return match.group(1)


def counted(question: str) -> re.Pattern[str] | None:
    """Return what says a count of the thing "how many" asks, in the form asked ("ten berries", "up to eight
    willing creatures" for "how many berries", "how many willing creatures"; not "one berry"), or None."""
    match = _HOW_MANY.search(question.casefold())
    if match is None:
        return None
    return re.compile(rf"\b{_COUNT}\s+(?:[\w-]+\s+){{0,2}}?{re.escape(match.group(1))}\b", re.IGNORECASE)


def word_pairs(question: str) -> list[tuple[str, str]]:
    """Return the pairs of content words a question says side by side ("long rest", "hit dice")."""
    return [(a, b) for a, b in pairwise(fold_words(question)) if a not in STOPWORDS and b not in STOPWORDS]


def paired(pairs: Sequence[tuple[str, str]], text: str) -> int:
    """Return how many of a question's word pairs a sentence says side by side (an ending apart)."""
    if not pairs:
        return 0
    words = fold_words(text)
    return sum(1 for a, b in pairs if any(same_word(a, x) and same_word(b, y) for x, y in pairwise(words)))


def is_example(text: str) -> bool:
    """Return whether a sentence is an example of a rule ("For example, ...")."""
    return bool(EXAMPLE_OPENS.match(text))


def text_words(text: str, asked: Sequence[str], how: str | None = None) -> set[str]:
    """Return a sentence's folded words, its abbreviations read out when the question asks every word of them
    ("+2 bonus to AC" holds "armor" and "class" for "armor class", not "class" for "which class"), and the
    question's words it says in the books' words ("at least 1 hour" says "minimum": `related_said`; "1d6" says
    "die" and "dice"). `how`, the
    word asking an amount ("long" of "how long"), is said by an amount of its kind ("3 rounds") or with one."""
    folded = fold_words(text)
    words = set(folded)
    for short in words & ABBREVIATIONS.keys():
        if all(w in asked for w in ABBREVIATIONS[short]):
            words |= set(ABBREVIATIONS[short])
    words |= related_said(folded, asked)
    if _DICE_ROLL.search(text):
        words |= {"die", "dice"} & set(asked)  # "an extra 1d6" says the die asked
    if how is not None:
        # "How long": said by an amount of time or length ("at least 1 hour long"), not by "a long rest".
        amount = has_amount(text)
        if not amount:
            words.discard(how)
        elif words & set(HOW_UNITS[how]):
            words.add(how)
    return words


def says_field(word: str, text: str, words: set[str]) -> bool:
    """Return whether a sentence (its folded `words`) says a field's word: the word itself, or, for a field that
    is an amount (`question.FIELD_UNITS`), an amount in its units ("for 1 hour" says the duration)."""
    if has_word(words, word):
        return True
    units = FIELD_UNITS.get(word)
    return units is not None and has_amount(text) and bool(words & set(units))
