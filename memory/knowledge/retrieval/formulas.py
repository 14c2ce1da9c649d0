"""Simple formulas a rule's sentence says in words, worked with one number.

A rule often says how a result follows from one quantity: "your carrying capacity is your Strength score multiplied
by 15", "the DC equals 10 + the spell's level", "10 or half the damage you take, whichever number is higher",
"an amount of movement equal to half your speed", "DC 10 + 1 for each hour past 8 hours". `formulas` reads them
from a sentence: the quantity (its words as the sentence says them: "your speed"), the result's unit where the
sentence names one ("a number of minutes equal to …"), and how to work it (`Formula.worked`).

The forms read: a constant added to or taken from the quantity ("10 + X", "X plus 2", "X - 1"); the quantity
multiplied or divided ("X multiplied by 15", "3 times X", "X × 2", "X divided by 4"); a part or a multiple of it
("half X", "double X", "twice X", "a third of X", "two-thirds of X"); a constant for each unit of it, past a
threshold or not ("1 for each hour past 8 hours", "10 + 1 for each hour …"); one of two, "whichever is higher"
(or lower); a bound in brackets ("(minimum of 1 round)"); and, after "a number of <unit> equal to", the quantity
itself. A sentence whose expression goes on with a second quantity ("10 + your Dexterity modifier + your
proficiency bonus") works out nothing: one given number cannot fill two. A result that is not a whole number is
rounded as the sentence says ("round down"), else not worked out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from memory.fulltext import STOPWORDS

__all__ = ["Formula", "formulas"]

_NUMBER_WORDS = {
    **{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9},
    **{"ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50},
    **{"a hundred": 100, "one hundred": 100},
}
_NUM = (
    r"((?<![\w./])\d+(?:\.\d+)?(?![\w/])|\b(?:"
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + r")\b)"
)
#: A part or a multiple of a quantity said in words.
_PARTS = {
    "half": Fraction(1, 2),
    "one-half": Fraction(1, 2),
    "one half": Fraction(1, 2),
    "double": Fraction(2),
    "twice": Fraction(2),
    "triple": Fraction(3),
    "a third of": Fraction(1, 3),
    "one-third of": Fraction(1, 3),
    "one third of": Fraction(1, 3),
    "two-thirds of": Fraction(2, 3),
    "two thirds of": Fraction(2, 3),
    "a quarter of": Fraction(1, 4),
    "one-quarter of": Fraction(1, 4),
    "one quarter of": Fraction(1, 4),
    "three-quarters of": Fraction(3, 4),
    "a fourth of": Fraction(1, 4),
    "a tenth of": Fraction(1, 10),
}
_PART = "(" + "|".join(re.escape(p) for p in sorted(_PARTS, key=len, reverse=True)) + r")"
#: A quantity: a determiner or a possessive, then up to four words ("your Strength score", "the spell's level",
#: "the damage you take", "its Constitution modifier").
_WORD = r"(?!(?:is|are|multiplied|times|divided|plus|minus|whichever)\b)[a-z][\w'’-]*"
_QUANTITY = r"((?:your|its|their|his|her|the|a|an|this|that|each)\s+" + _WORD + r"(?:\s+" + _WORD + r"){0,3})"
#: The words a quantity ends before: an operator, a clause's start.
_QUANTITY_ENDS = frozenset(
    {"multiplied", "times", "divided", "plus", "minus", "whichever", "rounded", "round", "and", "or", "but"}
    | {"for", "to", "in", "on", "at", "if", "when", "that", "which", "with", "instead", "per", "until", "as"}
    | {"by", "from", "after", "before", "is", "are", "was", "equals", "becomes", "so"}
)
_DETERMINERS = frozenset({"your", "its", "their", "his", "her", "the", "a", "an", "this", "that", "each"})
#: What goes on from an expression: an operator starting a second term.
_GOES_ON = re.compile(r"^\s*(?:[+×*−-]|plus\b|minus\b|multiplied\b|times\b|divided\b)", re.IGNORECASE)
_CHOICE = re.compile(
    r"^\s*,?\s*whichever\s+(?:number\s+|one\s+|value\s+)?is\s+(higher|greater|larger|lower|smaller|less)"
)
_BOUND = re.compile(r"^\s*\((minimum|maximum) of " + _NUM + r"(?:\s+([a-z]+))?\)", re.IGNORECASE)
_COUNTED = re.compile(r"\b(?:a|the)\s+number\s+of\s+([a-z]+)\s+equal\s+to\s+$", re.IGNORECASE)
#: "(minimum of 30 seconds)" of a number of minutes: below 1, a bound in another unit decides.
_ROUNDING = re.compile(r"\bround(?:ed|ing)?\s+(down|up)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Formula:
    """A formula a sentence says: the quantity's words as said, its content words, the result's unit (None when
    the sentence names none), whether the result is in the quantity's own unit (a part or a multiple of it), the
    span of the sentence it takes, and how it works a number out."""

    quantity: str
    words: tuple[str, ...]
    unit: str | None
    scaled: bool
    span: tuple[int, int]
    work: Callable[[Fraction], Fraction]
    rounding: str | None = None
    #: The least result worked out: below it, a bound the sentence gives in another unit decides.
    least: Fraction | None = None

    def worked(self, value: Fraction) -> int | None:
        """Return the whole number the formula gives for `value`, rounded as the sentence says, or None."""
        result = self.work(value)
        if self.least is not None and result < self.least:
            return None
        if result.denominator == 1:
            return int(result)
        if self.rounding == "down":
            return math.floor(result)
        if self.rounding == "up":
            return math.ceil(result)
        return None


def _one(unit: str) -> str:
    """Return a unit said of one ("round" of "rounds")."""
    return unit.casefold().removesuffix("s")


def _number(text: str) -> Fraction:
    return Fraction(_NUMBER_WORDS[text.casefold()]) if text.casefold() in _NUMBER_WORDS else Fraction(text)


def _quantity(said: str) -> tuple[str, tuple[str, ...]] | None:
    """Return a quantity cut before the first word that ends it, with its content words, or None."""
    kept: list[str] = []
    for at, word in enumerate(said.split()):
        if at > 0 and word.casefold() in _QUANTITY_ENDS:
            break
        kept.append(word)
    while kept and kept[-1].casefold() in STOPWORDS | _DETERMINERS:
        kept.pop()  # "a minimum bonus of", "the target gains a": no quantity ends so
    words = tuple(
        w.casefold().removesuffix("'s").removesuffix("’s")
        for w in kept
        if w.casefold() not in _DETERMINERS and w.casefold() not in STOPWORDS
    )
    return (" ".join(kept), words) if words else None


#: The forms read, each a pattern and how its groups make the working: (constant or part, quantity).
_Make = Callable[[re.Match[str]], tuple[str, Callable[[Fraction], Fraction], bool] | None]


def _add(m: re.Match[str]) -> tuple[str, Callable[[Fraction], Fraction], bool]:
    c = _number(m.group(1))
    return m.group(2), lambda q: c + q, False


def _added(m: re.Match[str]) -> tuple[str, Callable[[Fraction], Fraction], bool]:
    c = _number(m.group(3))
    sign = -1 if m.group(2).strip().casefold() in ("-", "−", "minus") else 1
    return m.group(1), lambda q: q + sign * c, False


def _times(m: re.Match[str]) -> tuple[str, Callable[[Fraction], Fraction], bool] | None:
    c = _number(m.group(3))
    if m.group(2).casefold().startswith("divided"):
        return (m.group(1), lambda q: q / c, True) if c else None
    return m.group(1), lambda q: q * c, True


def _times_first(m: re.Match[str]) -> tuple[str, Callable[[Fraction], Fraction], bool]:
    c = _number(m.group(1))
    return m.group(2), lambda q: c * q, True


def _part(m: re.Match[str]) -> tuple[str, Callable[[Fraction], Fraction], bool]:
    c = _PARTS[" ".join(m.group(1).casefold().split())]
    return m.group(2), lambda q: c * q, True


_FORMS: tuple[tuple[re.Pattern[str], _Make], ...] = (
    (re.compile(_NUM + r"\s*(?:\+|plus)\s*" + _QUANTITY, re.IGNORECASE), _add),
    # "+ 2" or "plus 2": "a +2" is a signed number, no operator.
    (re.compile(_QUANTITY + r"(\s*(?:[+−-]\s+|\bplus\s+|\bminus\s+))" + _NUM, re.IGNORECASE), _added),
    (
        re.compile(
            _QUANTITY + r"\s*(?:is\s+|are\s+)?(multiplied by|times|×|divided by)\s*" + _NUM, re.IGNORECASE
        ),
        _times,
    ),
    (re.compile(r"\b" + _NUM + r"\s*(?:times|×)\s*" + _QUANTITY, re.IGNORECASE), _times_first),
    (re.compile(r"\b" + _PART + r"\s+(?:of\s+)?" + _QUANTITY, re.IGNORECASE), _part),
)
#: "10 + 1 for each hour past 8 hours", "1 for each bead beyond the first": a constant for each unit of a
#: quantity, past a threshold or not.
_EACH = re.compile(
    r"(?:\b"
    + _NUM
    + r"\s*(?:\+|plus)\s*)?\b"
    + _NUM
    + r"\s+(?:for each|per|for every)\s+(?:additional\s+|extra\s+|full\s+)?([a-z]+)"
    r"(?:\s+(?:past|beyond|over|above|after)\s+(?:the\s+(first)\b|" + _NUM + r"(?:\s+[a-z]+)?))?",
    re.IGNORECASE,
)
#: "equal to your level": the quantity itself, after "a number of <unit> equal to".
_ITSELF = re.compile(r"\bequal\s+to\s+" + _QUANTITY, re.IGNORECASE)


def _cut(sentence: str, start: int, said: str) -> tuple[str, tuple[str, ...], int] | None:
    """Return a quantity said from `start`, its content words and where it ends in the sentence, or None."""
    found = _quantity(said)
    if found is None:
        return None
    quantity, words = found
    return quantity, words, sentence.index(quantity, start) + len(quantity)


def formulas(sentence: str) -> list[Formula]:
    """Return the formulas a sentence says (see the module docstring)."""
    rounding = _ROUNDING.search(sentence)
    rounded = rounding.group(1).casefold() if rounding else None
    found: list[Formula] = []
    taken: list[tuple[int, int]] = []
    for pattern, make in _FORMS:
        for match in pattern.finditer(sentence):
            made = make(match)
            if made is None or any(a < match.end() and match.start() < b for a, b in taken):
                continue
            said, work, scaled = made
            group = 2 if said == match.group(2) else 1
            cut = _cut(sentence, match.start(group), said)
            if cut is None:
                continue
            quantity, words, quantity_end = cut
            if group == 1 and quantity_end < match.end(1):
                continue  # the quantity ends before the operator: the operator is no part of it
            end = quantity_end if group == match.lastindex else match.end()
            formula = _shaped(sentence, match.start(), end, quantity, words, work, scaled, rounded)
            if formula is not None:
                found.append(formula)
                taken.append(formula.span)
    found.extend(_each(sentence, taken, rounded))
    if not found:
        found.extend(_itself(sentence, rounded))
    return found


def _shaped(
    sentence: str,
    start: int,
    end: int,
    quantity: str,
    words: tuple[str, ...],
    work: Callable[[Fraction], Fraction],
    scaled: bool,
    rounded: str | None,
) -> Formula | None:
    """Return the formula of an expression with what goes around it (a choice of two, a bound, the unit
    counted before it), or None when a second term goes on from it."""
    if _GOES_ON.match(sentence[end:]) or re.search(r"(?:[+×*−]|\bplus|\btimes)\s*$", sentence[:start]):
        return None  # a second term: one given number cannot fill it
    choice = re.search(_NUM + r"\s+or\s+$", sentence[:start], re.IGNORECASE)
    after = _CHOICE.match(sentence[end:])
    if choice is not None and after is not None:
        higher = after.group(1).casefold() in ("higher", "greater", "larger")
        work = _picked(work, _number(choice.group(1)), higher)
        start, end, scaled = choice.start(), end + after.end(), False
    counted = _COUNTED.search(sentence[:start])
    unit = counted.group(1).casefold() if counted else None
    bound = _BOUND.match(sentence[end:])
    least = None
    if bound is not None and (bound.group(3) is None or _one(bound.group(3)) == _one(unit or bound.group(3))):
        work = _picked(work, _number(bound.group(2)), bound.group(1).casefold() == "minimum")
        end += bound.end()
    elif bound is not None:
        least = Fraction(1)  # a bound in another unit ("minimum of 30 seconds" of minutes) decides below 1
        end += bound.end()
    return Formula(quantity, words, unit, scaled and unit is None, (start, end), work, rounded, least)


def _picked(
    work: Callable[[Fraction], Fraction], other: Fraction, higher: bool
) -> Callable[[Fraction], Fraction]:
    """Return a working giving the higher (or the lower) of its result and `other`."""
    if higher:
        return lambda q: max(other, work(q))
    return lambda q: min(other, work(q))


def _each(sentence: str, taken: list[tuple[int, int]], rounded: str | None) -> list[Formula]:
    found = []
    for match in _EACH.finditer(sentence):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        base = _number(match.group(1)) if match.group(1) else Fraction(0)
        step = _number(match.group(2))
        past = Fraction(1) if match.group(4) else _number(match.group(5)) if match.group(5) else Fraction(0)
        unit = match.group(3).casefold()
        word = unit.removesuffix("s")

        def work(
            q: Fraction, base: Fraction = base, step: Fraction = step, past: Fraction = past
        ) -> Fraction:
            return base + step * max(Fraction(0), q - past)

        found.append(Formula(word, (word,), None, False, match.span(), work, rounded))
    return found


def _itself(sentence: str, rounded: str | None) -> list[Formula]:
    found = []
    for match in _ITSELF.finditer(sentence):
        counted = _COUNTED.search(sentence[: match.start()] + "equal to ")
        cut = _cut(sentence, match.start(1), match.group(1))
        if counted is None or cut is None:
            continue
        quantity, words, end = cut
        if _GOES_ON.match(sentence[end:]):
            continue
        formula = _shaped(sentence, match.start(1), end, quantity, words, lambda q: q, False, rounded)
        if formula is not None:
            found.append(formula)
    return found
