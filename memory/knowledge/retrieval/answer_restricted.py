"""Yes or no from a sentence that limits what it allows: "can't ... unless", "only if", "no more than three".

A rule often answers a yes/no question by its limit rather than outright: "The warden can't be charmed unless it
is asleep" answers "can I charm the warden?" with no (the player said nothing of sleep) and "can I charm the
warden while it sleeps?" with yes; "A ship can tow no more than two barges" answers "can my ship tow three
barges?" with no and "... one barge?" with yes; "Rust can be scoured off only with vinegar" answers "can I scour
it with sand?" with no. `restricted` reads such a sentence against the question:
1. a bound on an amount ("up to", "no more than", "at most", "N or lower", "at least", "N or more") the question
   names an amount of, in the same unit ("a 5th level spell" against "spells of 6th level or lower"): within the
   bound, the sentence's own yes or no (a negated sentence: no); beyond it, the opposite of a positive sentence
   (beyond a negated one the rule says nothing);
2. an exception ("unless", "except", "only if", "only when", "only by"): the question meeting it (holding most of
   its words) turns a negated rule's no into yes; not meeting it, a negated rule is no, a positive rule with
   "unless" yes, and an "only" rule no when the question offers something else where the rule names what it
   allows ("scour it *with sand*" of "only with vinegar"); an "only" rule the question offers nothing to ("can a
   stunned creature talk" of "can speak only falteringly") gives no verdict.
`unsaid` says which of a question's words a limiting sentence may leave out: the amount it bounds, and the name
of a thing of a kind the sentence speaks of ("a 5th level *hold monster*": a spell, of "spells of 6th level or
lower"), when a passage found is that thing's, under a part of its book the sentence names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.knowledge.models import LoreResult
from memory.knowledge.retrieval.amounts import amount
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words, related_said

__all__ = ["Limit", "limit_of", "limited", "restricted", "unsaid"]

#: Ordinals and counts in words the amounts reader (`amounts.amount`) leaves to this module.
_NUMBER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_NUMBER_WORDS |= {"eighth": 8, "ninth": 9, "tenth": 10, "once": 1, "twice": 2, "thrice": 3}
_COUNTS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty"
)
_N = r"(\d+(?:st|nd|rd|th)?|" + _COUNTS + "|" + "|".join(_NUMBER_WORDS) + r")"
#: A bound allowing an amount ("up to three", "no more than two", "at least 10 feet"): within it, yes.
_MOST = re.compile(
    rf"\b(?:up to|no more than|not more than|at most|a maximum of|maximum of|no higher than|only)\s+{_N}\b",
    re.I,
)
_LEAST = re.compile(
    rf"\b(?:at least|no less than|no fewer than|a minimum of|minimum of|no lower than)\s+{_N}\b", re.I
)
#: A range the sentence speaks of ("6th level or lower", "more than three items"): within it, what the sentence
#: says; beyond it, the opposite.
_OR_BELOW = re.compile(rf"\b{_N}\s+(?:[\w-]+\s+){{0,2}}?or (?:lower|less|fewer|below)\b", re.I)
_OR_ABOVE = re.compile(rf"\b{_N}\s+(?:[\w-]+\s+){{0,2}}?or (?:higher|more|greater|above)\b", re.I)
_ABOVE = re.compile(rf"\b(?:more than|over|greater than|higher than)\s+{_N}\b", re.I)
_BELOW = re.compile(rf"\b(?:fewer than|less than|under|lower than)\s+{_N}\b", re.I)
#: Each bound: its pattern, whether it allows (else it is a range spoken of), and the amounts it holds, from the
#: number said.
_INF = 10**9
_BOUNDS: tuple[tuple[re.Pattern[str], bool, Callable[[int], tuple[int, int]]], ...] = (
    (_MOST, True, lambda n: (-_INF, n)),
    (_LEAST, True, lambda n: (n, _INF)),
    (_OR_BELOW, False, lambda n: (-_INF, n)),
    (_OR_ABOVE, False, lambda n: (n, _INF)),
    (_ABOVE, False, lambda n: (n + 1, _INF)),
    (_BELOW, False, lambda n: (-_INF, n - 1)),
)
#: An amount named in a question ("a 5th level spell", "three barges", "4th-level slot").
_AMOUNT = re.compile(rf"\b{_N}(?:-|\s+)((?:[a-z][\w']*\s+){{0,2}}[a-z][\w']*)", re.IGNORECASE)
#: Where an exception starts, and its kind.
_EXCEPTION = re.compile(
    r"\b(?:(unless)|(except)(?: (for|when|if|that|as))?|(only)(?: (if|when|while|by|with|on|to|for))?)\b"
    rf"(?!\s+{_N}\b)",  # "only one creature at a time" is a bound
    re.IGNORECASE,
)
#: Words that turn a statement into its opposite (a bound's own "no more than" is no negation).
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|won't|isn't|aren't|doesn't|don't|\w+n't)\b", re.IGNORECASE
)
#: The words after "only" that name what a question may offer instead ("only with vinegar": "with sand").
_OFFERED = frozenset({"by", "with", "on", "to", "for"})
#: The share of an exception's words the question must hold to meet it.
MET = 0.5


@dataclass(frozen=True, slots=True)
class Limit:
    """What limits a sentence: its main clause negated or not, the amounts it bounds (`least` to `most`, both
    included; `allows`: a bound allowing them, else a range the sentence speaks of; `unit`: the words after the
    amount), the exception's words and kind ("unless", "except", "only")."""

    negated: bool
    least: int | None = None
    most: int | None = None
    allows: bool = False
    unit: tuple[str, ...] = ()
    exception: tuple[tuple[str, ...], ...] = ()
    kind: str | None = None
    #: The word the exception goes on with ("with" of "only with a tar knife").
    by: str | None = None


def _number(said: str) -> int | None:
    said = said.casefold()
    if said in _NUMBER_WORDS:
        return _NUMBER_WORDS[said]
    read = amount(said)
    return int(read[0]) if read is not None and read[0] == read[1] else None


def limit_of(sentence: str) -> Limit | None:
    """Return what limits a sentence (see the module docstring), or None when nothing does."""
    exception = _EXCEPTION.search(sentence)
    main = sentence[: exception.start()] if exception else sentence
    least = most = None
    allows = False
    unit: tuple[str, ...] = ()
    for pattern, allowing, held in _BOUNDS:
        found = pattern.search(main)
        if found is None or (said := _number(found.group(1))) is None:
            continue
        least, most = held(said)
        allows = allowing
        # The unit follows the number: "6th level or lower", "no more than three magic items".
        after = main[found.start(1) : found.end()] if found.start(1) == found.start() else main[found.end() :]
        unit = tuple(w for w in fold_words(after)[:4] if w not in STOPWORDS and not w[:1].isdigit())
        main = main[: found.start()] + main[found.end() :]
        break
    if exception is None and least is None:
        return None
    negated = bool(_NEGATION.search(main))
    if exception is None:
        return Limit(negated, least, most, allows, unit)
    kind = (exception.group(1) or exception.group(2) or exception.group(4)).casefold()
    by = (exception.group(3) or exception.group(5) or "").casefold() or None
    return Limit(negated, least, most, allows, unit, _alternatives(sentence[exception.end() :]), kind, by)


def _alternatives(said: str) -> tuple[tuple[str, ...], ...]:
    """Return the content words of each alternative an exception names ("vinegar or lye": two)."""
    parts = (tuple(w for w in fold_words(p) if w not in STOPWORDS) for p in _OR.split(said))
    return tuple(p for p in parts if p)


_OR = re.compile(r",|\bor\b|\band\b", re.IGNORECASE)


#: A question's own bound on the amount it names: "more than three" asks four or more.
_ASKED_ABOVE = re.compile(r"\b(?:more than|over|greater than|higher than)\s+$", re.IGNORECASE)
_ASKED_BELOW = re.compile(r"\b(?:fewer than|less than|under|lower than)\s+$", re.IGNORECASE)


def _asked_amount(question: str, unit: Sequence[str]) -> int | None:
    """Return the amount the question names in the bound's unit (a word of it among the three after), or None;
    "more than three" is four, "fewer than three" two."""
    for found in _AMOUNT.finditer(question):
        after = fold_words(found.group(2))
        said = _number(found.group(1))
        if said is None or not any(akin(a, u) for a in after for u in unit):
            continue
        before = question[: found.start()]
        return said + 1 if _ASKED_ABOVE.search(before) else said - 1 if _ASKED_BELOW.search(before) else said
    return None


def _meets(question: str, exception: Sequence[Sequence[str]]) -> bool:
    """Return whether a question meets an exception: it says the first word of one of its alternatives and most
    of that one's words ("a cantrip with a casting time of 1 action" is not met by "cast ... with my action")."""
    typed = fold_words(question)
    for words in exception:
        said = [w for w in words if not w.isdigit()]
        if not said or not any(akin(said[0], t) for t in typed):
            continue
        if sum(any(akin(w, t) for t in typed) for w in said) >= MET * len(said):
            return True
    return False


def _by_amount(question: str, limit: Limit) -> str | None:
    """Return the verdict of a bound on the amount the question names, or None (no amount of its unit named, or
    beyond a negated bound allowing it: "can't carry more than up to ..." says nothing there)."""
    if limit.least is None or limit.most is None:
        return None
    asked = _asked_amount(question, limit.unit)
    if asked is None:
        return None
    within = limit.least <= asked <= limit.most
    if limit.allows:
        return None if limit.negated else ("Yes" if within else "No")
    said = "No" if limit.negated else "Yes"
    return said if within else ("Yes" if said == "No" else "No")


def restricted(question: str, sentence: str) -> str | None:
    """Return "Yes" or "No" for a yes/no question a limiting sentence answers (see the module docstring), or
    None when the limit does not decide it."""
    limit = limit_of(sentence)
    if limit is None:
        return None
    word = _by_amount(question, limit)
    if limit.kind is None:
        return word
    asked = _asked_amount(question, limit.unit) if limit.least is not None else None
    if asked is not None and (word is None or (limit.negated and word == "Yes")):
        return word  # beyond the range the exception is about: the exception does not matter
    met = _meets(question, limit.exception)
    if limit.negated:
        return "Yes" if met else "No"
    if limit.kind == "only":
        if met:
            return "Yes" if word != "No" else "No"
        # Only "with a tar knife": a question offering something else ("with a chisel") is answered no; one
        # offering nothing ("can a stunned creature talk" of "can speak only falteringly") is the rule's to say.
        offered = limit.by in _OFFERED and re.search(rf"\b{limit.by}\b", question, re.IGNORECASE)
        return "No" if offered or word == "No" else None
    if word is not None:
        return "No" if met else word
    return "No" if met else "Yes"


def unsaid(question: str, sentence: str, results: Sequence[LoreResult], missing: Sequence[str]) -> list[str]:
    """Return the words of `missing` (the question's, which the sentence and its headings do not say) that a
    limiting sentence may leave out: the amount it bounds, what the question offers where the exception says
    what it allows ("with a chisel" of "only with a tar knife"), and the title of a passage found
    whose book or part the sentence names ("hold monster", of Spells, for "spells of 6th level or lower")."""
    limit = limit_of(sentence)
    if limit is None:
        return list(missing)
    left = [w for w in missing if not (limit.least is not None and _number(w) is not None)]
    if limit.by is not None and (offered := re.search(rf"\b{limit.by}\b(.*)", question, re.IGNORECASE)):
        # "scraped with a chisel" against "only with a tar knife": what the question offers is not the rule's.
        left = [w for w in left if w not in fold_words(offered.group(1))]
    said, typed = fold_words(sentence), fold_words(question)
    for result in results:
        if not result.heading_path or len(result.heading_path) < 2:
            continue
        title = [w for w in fold_words(result.heading_path[-1]) if w not in STOPWORDS]
        part = [
            w
            for w in fold_words(" ".join([result.source_title, result.heading_path[0]]))
            if w not in STOPWORDS
        ]
        named = title and all(any(akin(w, t) for t in typed) for w in title)
        if named and any(akin(p, s) for p in part for s in said):
            left = [w for w in left if w not in title]
    return left


#: Where a sentence's clauses part: "...at a time, and a creature can be attuned to no more than three ...".
_CLAUSE = re.compile(r";\s*|,\s*(?:and|but|while)\s+", re.IGNORECASE)


def limited(
    question: str, sentence: str, headings: Sequence[str], results: Sequence[LoreResult], asked: Sequence[str]
) -> str | None:
    """Return "Yes" or "No" for a yes/no question (its `asked` words) by the first clause of a quoted sentence
    that limits what it says and, with the `headings` it is under, holds the question's words (but the ones it
    may leave out, `unsaid`; one more when the question names an amount the clause bounds), or None."""
    for clause in _CLAUSE.split(sentence):
        limit = limit_of(clause)
        if limit is None:
            continue
        held = fold_words(" ".join([*headings, clause]))
        said = related_said(held, list(asked))
        missing = [w for w in asked if w not in said and not any(akin(w, h) for h in held)]
        slack = 1 if len(asked) >= 4 and _by_amount(question, limit) is not None else 0
        if len(unsaid(question, clause, results, missing)) > slack:
            continue
        word = restricted(question, clause)
        if word is not None:
            return word
    return None
