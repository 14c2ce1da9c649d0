"""A comparison or a two-part question of fields: each part's value, and which one is more.

"Which has more hit points, an owlbear or a troll?": each part's field is found (`field_answer`), both are said
with their citations, and when the values are numbers or dice (their average) which one is more, or less when the
question asks the lesser ("which is cheaper").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.fields import KIND
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.compared_quality import quality_labels
from memory.knowledge.retrieval.field_answer import FieldHit, field_answers

__all__ = ["comparison", "from_fields"]

_DICE = re.compile(r"^(\d+)d(\d+)(?:\s*([+-])\s*(\d+))?")
_NUMBER = re.compile(r"^(\d[\d,]*(?:/\d+)?)")
_LESS = re.compile(r"\b(?:less|lower|cheaper|shorter|lighter|slower|weaker|fewer|least)\b")


def from_fields(hits: Sequence[FieldHit], citations: list, verdict: str | None = None) -> ShortAnswer:  # type: ignore[type-arg]
    """Return the answer of the fields found, each said as a sentence with its citation (after `verdict`)."""
    cited = {h.number for h in hits}
    text = " ".join(dict.fromkeys(h.sentence() for h in hits))
    if verdict is not None:
        text = f"{verdict}: {text}"
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in citations]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)


def _amount(value: str) -> float | None:
    """Return a value's size: a number, or a dice expression's average ("2d6" is 7)."""
    value = value.strip()
    dice = _DICE.match(value)
    if dice:
        count, sides = int(dice.group(1)), int(dice.group(2))
        bonus = int(dice.group(4) or 0) * (-1 if dice.group(3) == "-" else 1)
        return count * (sides + 1) / 2 + bonus
    number = _NUMBER.match(value)
    if number is None:
        return None
    text = number.group(1).replace(",", "")
    if "/" in text:
        top, bottom = text.split("/", 1)
        return int(top) / int(bottom) if int(bottom) else None
    return float(text)


def comparison(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the answer to each part of a comparison, and which is more, or None when a part is not found.

    A comparison naming no field weighs the one its words point to (`compared_quality`): "better armour" the
    entries' "Armour value"; a yes/no one ("is X stronger than Y") is answered yes or no first."""
    citations = numbered(facts, results)
    hits = _each_part(question, facts, results)
    if hits is None and not question.fields:
        for label in quality_labels(question, results):
            hits = _each_part(replace(question, fields=[label]), facts, results)
            if hits is not None:
                question = replace(question, fields=[label])
                break
    if hits is None:
        return None
    answer = from_fields(hits, citations)
    # One field asked: a known one ("hp"), or a book's own label the question says ("hull points", "vigour").
    labels = {h.field.label.casefold() for h in hits}
    if len(question.fields) <= 1 and len(hits) == 2 and len(labels) == 1:
        amounts = [_amount(h.field.value) for h in hits]
        if None not in amounts and amounts[0] != amounts[1]:
            less = bool(_LESS.search(question.expanded.casefold()))
            pick = min if less else max
            chosen = hits[amounts.index(pick(amounts))]  # type: ignore[type-var]
            label = "level" if chosen.field.label == KIND else chosen.field.label.casefold()
            word = "lower" if less else "higher"
            verdict = f"{chosen.field.subject.split(' › ')[-1]} has the {word} {label}."
            text = f"{answer.text} {verdict}"
            if question.yes_no:  # "is X stronger than Y": yes when the first named is the one
                text = f"{'Yes' if chosen is hits[0] else 'No'}: {text}"
            answer = answer.model_copy(update={"text": text})
    return answer


def _each_part(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> list[FieldHit] | None:
    """Return the fields asked of each part of a comparison, or None when a part has none."""
    hits: list[FieldHit] = []
    headings = {w for r in results for w in fold_words(" ".join(r.heading_path))}
    for part in question.parts:
        asked = Question(question.text, question.expanded, "field", question.fields, part)
        found = field_answers(asked, results, len(facts) + 1)
        # "a full suit of plate armor": the player's words before the name, in no heading, name nothing.
        lead = next((i for i, w in enumerate(part) if any(akin(w, h) for h in headings)), 0)
        if not found and lead:
            # Only a name said whole ("plate armor" of Plate Armor; "dragon silk" names no Silk Cord).
            rest = part[lead:]
            found = [
                h
                for h in field_answers(replace(asked, subject=rest), results, len(facts) + 1)
                if all(
                    any(akin(w, r) for r in rest)
                    for w in fold_words(h.field.subject.split(" › ")[-1])
                    if w not in STOPWORDS
                )
            ]
        if not found:
            return None
        hits += found
    return hits
