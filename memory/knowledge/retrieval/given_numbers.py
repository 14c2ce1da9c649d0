"""The numbers a question gives of its own, each with the words around it that say what it counts.

A player asks a rule's result with their own figures: "with Strength 15, how much can I carry", "a 5th-level spell
against counterspell", "took 30 damage", "a score of twenty seven". `givens` reads each number, in figures or in
words ("twenty seven", "fifth"; "one" only before the word it counts), with its sign ("+2"), its unit when one follows ("30 ft") and the content words
near it in its clause (two on each side, not past a comma, "vs", "and", "while" …): what it is tied to. A die
("1d6"), a factor ("ten times her Strength score"), a number past `LARGEST` or a negative one is no number a rule
is worked with.

`tied` picks the one given number a quantity of the books' ("your Strength score", "the spell's level") names:
the one whose near words hold most of the quantity's words, alone in holding that many; two numbers tied alike,
or none, pick none (the answer is then not worked out). A quantity that is a modifier, a bonus or a penalty is a
signed amount: a bare number said beside an ability's name is its score, not its modifier, unless the question
says "modifier" (or "mod", "bonus") by it or signs it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from canon.number_words import CARDINALS, ORDINALS, TENS
from memory.fulltext import STOPWORDS
from memory.knowledge.retrieval.answer_words import same_word

__all__ = ["LARGEST", "Given", "givens", "tied"]

#: The largest number a question gives that a rule is worked with: past it, a figure is not a player's amount.
LARGEST = 1_000_000

_UNITS = CARDINALS
_TENS = TENS
#: Ordinals in words ("second" is left out: it is a time as often).
_ORDINALS = {w: n for w, n in ORDINALS.items() if w != "second" and n <= 20}

#: A question's tokens: a die ("2d6", never a number), a number in figures (signed, with an ordinal's ending or
#: a unit run into it: "30ft"), a word, or a clause's end.
_TOKEN = re.compile(
    r"(?P<die>\b\d*d\d+\b)"
    r"|(?P<number>(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:st|nd|rd|th)?)"
    r"|(?P<word>[a-z][a-z'’]*)"
    r"|(?P<stop>[,;:?!()]|\.(?!\d)|\s-\s|—|–)",
)
#: The words that end a clause: a number's near words are in its own.
_CLAUSE_WORDS = frozenset({"vs", "versus", "and", "but", "while", "when", "whereas", "then", "or", "against"})
#: Units a number may carry ("30 ft", "225 lbs"): kept as said, and near words too ("10 hours" counts hours).
_UNIT = re.compile(
    r"^(?:ft|feet|foot|lbs?|pounds?|gp|sp|cp|pp|miles?|mi|minutes?|mins?|hours?|hrs?|rounds?|days?|turns?"
    r"|seconds?|secs?|yards?|inches|inch|weeks?|months?|years?)$"
)
#: The words naming a signed quantity: such a quantity takes a number said with one of them, or signed.
SIGNED = frozenset({"modifier", "modifiers", "mod", "mods", "bonus", "penalty"})
#: The words after a number that make it a factor of another amount ("ten times", "5 percent").
_FACTORS = frozenset({"times", "x", "percent", "%", "fold"})
#: Near words read: this many content words on each side.
_NEAR = 2


@dataclass(frozen=True, slots=True)
class Given:
    """A number a question gives: its value, as typed, its unit, its sign, and the content words near it."""

    value: Fraction
    said: str
    unit: str | None
    signed: bool
    near: tuple[str, ...]


def _word_number(words: Sequence[str], at: int) -> tuple[int, int] | None:
    """Return the number spelled from `words[at]` on ("twenty seven", "twenty-seven", "fifth") and how many
    words it takes, or None."""
    word = words[at]
    if "-" in word:
        tens, _, unit = word.partition("-")
        if tens in _TENS and unit in _UNITS and 0 < _UNITS[unit] < 10:
            return _TENS[tens] + _UNITS[unit], 1
        return None
    if word in _TENS:
        following = words[at + 1] if at + 1 < len(words) else ""
        if following in _UNITS and 0 < _UNITS[following] < 10:
            return _TENS[word] + _UNITS[following], 2
        return _TENS[word], 1
    if word == "one" and not _counting_one(words, at):
        return None  # "a fresh one", "which one is": a pronoun, not a count ("with one hour left" is one)
    if word in _UNITS:
        return _UNITS[word], 1
    if word in _ORDINALS:
        return _ORDINALS[word], 1
    return None


#: The words before a pronoun "one" ("this one", "a new one"): a count of one follows none of them.
_BEFORE_PRONOUN = frozenset(
    {"a", "an", "the", "this", "that", "which", "each", "every", "no", "any", "another"}
)


def _counting_one(words: Sequence[str], at: int) -> bool:
    """Return whether "one" at `at` counts what follows it: a content word follows, and no determiner or other
    word describing it comes before ("one hour", "with one bead"; not "a fresh one", "which one is")."""
    following = words[at + 1] if at + 1 < len(words) else ""
    before = words[at - 1] if at > 0 else ""
    return (
        bool(following)
        and following not in STOPWORDS
        and (not before or before in STOPWORDS)
        and (before not in _BEFORE_PRONOUN)
    )


def _tokens(question: str) -> list[tuple[str, str]]:
    """Return the question's tokens as (kind, text): "number", "word", "stop" (a clause's end) or "die"."""
    found: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(question.casefold().replace("’", "'")):
        kind = match.lastgroup or "stop"
        text = match.group(kind)
        if kind == "word" and text in _CLAUSE_WORDS:
            kind = "stop"
        found.append((kind, text))
    return found


def _value(text: str) -> tuple[Fraction, bool] | None:
    """Return a figure's value and whether it is signed ("+2"), or None when it is no plain figure."""
    bare = re.sub(r"(?:st|nd|rd|th)$", "", text).replace(",", "")
    try:
        return Fraction(bare), bare[0] in "+-"
    except (ValueError, ZeroDivisionError):
        return None


def givens(question: str) -> list[Given]:
    """Return the numbers a question gives with their units and near words (see the module docstring)."""
    tokens = _tokens(question)
    words = [t if k == "word" else "" for k, t in tokens]
    read: list[tuple[int, int, Fraction, str, bool]] = []  # first token, past its last, value, said, signed
    at = 0
    while at < len(tokens):
        kind, text = tokens[at]
        if kind == "number":
            figure = _value(text)
            if figure is not None:
                read.append((at, at + 1, figure[0], text, figure[1]))
            at += 1
            continue
        spelled = _word_number(words, at) if kind == "word" else None
        if spelled is not None:
            number, taken = spelled
            said = " ".join(t for _, t in tokens[at : at + taken])
            read.append((at, at + taken, Fraction(number), said, False))
            at += taken
            continue
        at += 1
    found = []
    for start, end, amount, said, signed in read:
        if amount < 0 or amount > LARGEST:
            continue  # no amount of a player's: a rule is not worked with it
        if end < len(tokens) and tokens[end][1] in _FACTORS:
            continue  # "ten times her Strength score" says a rule's factor, not an amount of the player's
        unit = tokens[end][1] if end < len(tokens) and _UNIT.match(tokens[end][1]) else None
        found.append(Given(amount, said, unit, signed, _near(tokens, start, end)))
    return found


def _near(tokens: Sequence[tuple[str, str]], start: int, end: int) -> tuple[str, ...]:
    """Return the content words near a number in its clause: up to `_NEAR` before it and after it."""
    near: list[str] = []
    for step, begin in ((-1, start - 1), (1, end)):
        taken, at = 0, begin
        while 0 <= at < len(tokens) and taken < _NEAR:
            kind, text = tokens[at]
            if kind == "stop":
                break
            if kind == "word" and text not in STOPWORDS and _word_number([text], 0) is None:
                near.append(text.removesuffix("'s"))
                taken += 1
            at += step
    return tuple(near)


def _held(quantity: Sequence[str], near: Sequence[str]) -> int:
    return sum(any(same_word(q, n) for n in near) for q in quantity)


def tied(numbers: Sequence[Given], quantity: Sequence[str]) -> Given | None:
    """Return the one number the quantity's content words name (see the module docstring), or None."""
    if not quantity:
        return None
    signed = any(w in SIGNED for w in quantity)
    scored = []
    for given in numbers:
        held = _held(quantity, given.near)
        if signed and not given.signed and not any(w in SIGNED for w in given.near):
            held = 0  # an ability's bare number is its score, not the modifier the rule asks
        scored.append((held, given))
    best = max((h for h, _ in scored), default=0)
    chosen = [g for h, g in scored if h == best]
    return chosen[0] if best > 0 and len(chosen) == 1 else None
