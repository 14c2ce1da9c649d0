"""A rule worked out with the player's own number: the answer keeps the rule and its citation, and says the result.

A question giving a number of its own ("with Strength 15, how much can I carry", "took 30 damage while
concentrating, what DC") asks what a rule makes of it. `worked` reads the numbers the question gives
(`given_numbers`) and, in the passages the answer quotes (and the best one, the only one read when nothing
answered):
1. a table keyed by numbers (`range_rows`) whose key column the number is tied to ("an ability score of 27": the
   column Score), that the question names past its key (its title's or a column's word: "modifier"): the row
   holding the number answers, in the columns the question names (all of them when it names none), naming the
   number ("In the Ability Scores and Modifiers table, Score 27 falls in the row 26-27: Modifier +8.");
2. else a sentence saying a formula (`formulas`) whose quantity the number is tied to ("your Strength score"),
   that says what the question asks (a word of the question, not of the passage's title, before the formula:
   "DC", "carrying capacity"): the
   answer keeps the sentence, or quotes it after the one it quoted of the same passage, and adds the result in a
   plain sentence naming the number ("If your Strength score is 15, that is 225.").
The result is said only when the mapping is plain: one number tied to the quantity (`given_numbers.tied`), one
formula or one row, a whole result (or the rounding the sentence says). Otherwise the answer stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_words import fold_words, same_word
from memory.knowledge.retrieval.formulas import Formula, formulas
from memory.knowledge.retrieval.given_numbers import Given, givens, tied
from memory.knowledge.retrieval.passage_sentences import sentences
from memory.knowledge.retrieval.range_rows import Keyed, KeyedRow, keyed_tables

__all__ = ["worked"]

#: A quoted sentence and its citation in an answer's text: "… multiplied by 15. [1]".
_QUOTED = re.compile(r"(.+?)\s*\[(\d+)\](?=\s|$)", re.DOTALL)
#: A unit a question asks the result in: "in lbs", "in feet".
_ASKED_UNIT = re.compile(
    r"\bin\s+(lbs?|pounds|feet|ft|miles|minutes|hours|rounds|days|gp|gold)\b", re.IGNORECASE
)
#: The words that ask a roll of a die ("rolled a 37"): a table keyed by a die ("d100") is keyed by them.
_ROLL_WORDS = ("roll", "rolled", "rolls", "rolling")
_DIE = re.compile(r"^d\d+$")


def worked(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer:
    """Return the answer with the rule worked out with the question's own number (see the module docstring)."""
    if answer.mode not in (AnswerMode.EXTRACTIVE, AnswerMode.NOTHING) or not results:
        return answer
    numbers = givens(question.expanded)
    if not numbers:
        return answer
    first = len(facts) + 1
    quoted = [c.number - first for c in answer.citations if c.cited and 0 <= c.number - first < len(results)]
    read = list(dict.fromkeys([*quoted, 0]))  # where nothing answered, the best passage's table alone
    row = _row(question, numbers, results, read, first, facts)
    if row is not None:
        return row
    if not answer.known:
        return answer
    return _formula(question, numbers, results, quoted, answer, first) or answer


def _asked(question: Question) -> list[str]:
    return [w for w in fold_words(question.expanded) if w not in STOPWORDS]


def _holds(words: Sequence[str], asked: Sequence[str]) -> bool:
    return any(same_word(w, a) for w in words for a in asked)


def _key_words(table: Keyed) -> tuple[str, ...]:
    """Return the words naming a table's key column: its header's, and a roll's for a die ("d100")."""
    header = table.key.casefold().strip()
    if _DIE.match(header):
        return (header, *_ROLL_WORDS)
    return tuple(w for w in fold_words(table.key) if w not in STOPWORDS)


def _row(
    question: Question,
    numbers: Sequence[Given],
    results: Sequence[LoreResult],
    read: Sequence[int],
    first: int,
    facts: Sequence[CanonFact],
) -> ShortAnswer | None:
    """Return the answer of the row of a table keyed by numbers that the question's number falls in, or None."""
    found: list[tuple[int, Keyed, KeyedRow, Given]] = []
    asked = _asked(question)
    for at in read:
        heading = results[at].heading_path[-1] if results[at].heading_path else ""
        for table in keyed_tables(results[at].text, heading):
            keys = _key_words(table)
            given = tied(numbers, keys)
            row = table.holding(given.value) if given is not None else None
            if given is None or row is None:
                continue
            # The question names the table or a column of it past its key: "what modifier", "trap damage".
            own = [w for w in asked if not _holds([w], keys)]
            named = fold_words(" ".join([table.title, *table.columns]))
            if _holds([w for w in named if w not in STOPWORDS], own):
                found.append((at, table, row, given))
    if len(found) != 1:
        return None  # no table keyed by the number, or two: which one is not said
    at, table, row, given = found[0]
    named = [h for h, v in row.cells if v and _holds(fold_words(h), asked)]
    cells = [(h, v) for h, v in row.cells if v and (not named or h in named)]
    if not cells:
        return None
    said = "; ".join(f"{h} {v}".strip() for h, v in cells)
    number = _number_said(given)
    named_table = table.title if table.title.casefold().endswith("table") else f"{table.title} table"
    text = f"In the {named_table}, {table.key} {number} falls in the row {row.label}: {said}. [{first + at}]"
    marked = [c.model_copy(update={"cited": c.number == first + at}) for c in numbered(facts, results)]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)


def _number_said(given: Given) -> str:
    """Return the number as the question gave it, in figures ("twenty seven": "27")."""
    value = given.value
    figure = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return f"+{figure}" if given.signed and value > 0 else figure


def _formula(
    question: Question,
    numbers: Sequence[Given],
    results: Sequence[LoreResult],
    quoted: Sequence[int],
    answer: ShortAnswer,
    first: int,
) -> ShortAnswer | None:
    """Return the answer with the result of the formula its quoted sentence (or its quoted passage's) says."""
    asked = _asked(question)
    for match in _QUOTED.finditer(answer.text):
        at = int(match.group(2)) - first
        if not 0 <= at < len(results):
            continue
        found = _worked_in(match.group(1), numbers, _unnamed(asked, results[at]), question)
        if found is not None:
            said = f"{match.group(0)} {found}"
            return answer.model_copy(update={"text": answer.text.replace(match.group(0), said, 1)})
    for at in quoted:
        hits = []
        for sentence in sentences(results[at].text):
            found = _worked_in(sentence, numbers, _unnamed(asked, results[at]), question)
            if found is not None:
                hits.append((sentence, found))
        if len(hits) == 1:
            sentence, found = hits[0]
            ended = sentence if sentence.endswith((".", "!", "?")) else sentence + "."
            return answer.model_copy(update={"text": f"{answer.text} {ended} [{first + at}] {found}"})
    return None


def _unnamed(asked: Sequence[str], result: LoreResult) -> list[str]:
    """Return the question's words but those of the passage's title: they name the passage, not what is asked of
    it ("necklace of fireballs" is no word of its bead rule's result)."""
    title = fold_words(" ".join(result.heading_path[-1:]))
    return [w for w in asked if not _holds([w], title)]


def _worked_in(
    sentence: str, numbers: Sequence[Given], asked: Sequence[str], question: Question
) -> str | None:
    """Return the sentence saying a formula's result with the question's number, or None: one formula of the
    sentence with one number tied to its quantity, whose words before it say something the question asks."""
    results = []
    for formula in formulas(sentence):
        given = tied(numbers, formula.words)
        if given is None:
            continue
        own = [w for w in asked if not _holds([w], formula.words)]
        before = [w for w in fold_words(sentence[: formula.span[0]]) if w not in STOPWORDS]
        value = formula.worked(given.value)
        if value is not None and _holds(before, own):
            results.append(_said(formula, given, value, question))
    return results[0] if len(results) == 1 else None


def _said(formula: Formula, given: Given, value: int, question: Question) -> str:
    """Return the plain sentence of a result: "If your Strength score is 15, that is 225."."""
    unit = formula.unit or (given.unit if formula.scaled else None)
    if unit is None and (asked := _ASKED_UNIT.search(question.expanded)) is not None:
        unit = asked.group(1)
    result = f"{value:,}" + (f" {unit}" if unit else "")
    number = _number_said(given) + (f" {given.unit}" if given.unit else "")
    quantity = formula.quantity
    if quantity.split()[0].casefold() in (
        "your",
        "its",
        "their",
        "his",
        "her",
        "the",
        "a",
        "an",
        "this",
        "that",
    ):
        quantity = quantity[0].casefold() + quantity[1:]
        return f"If {quantity} is {number}, that is {result}."
    counted = number if given.unit else f"{number} {quantity}{'' if given.value == 1 else 's'}"
    return f"For {counted}, that is {result}."
