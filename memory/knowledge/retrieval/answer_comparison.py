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
from memory.knowledge.fields import KIND, fields_of
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words, has_word, same_word
from memory.knowledge.retrieval.compared_quality import asks_nothing_else, quality_labels
from memory.knowledge.retrieval.field_answer import FieldHit, field_answers

__all__ = ["comparison", "each_names_its_part", "from_fields", "glance", "part_question", "with_its_name"]

_DICE = re.compile(r"^(\d+)d(\d+)(?:\s*([+-])\s*(\d+))?")
_NUMBER = re.compile(r"^(\d[\d,]*(?:/\d+)?)(?:\s*(cp|sp|ep|gp|pp)\b)?")
#: A coin's worth in gold pieces: "5 sp" is less than "1 gp".
_COINS = {"cp": 0.01, "sp": 0.1, "ep": 0.5, "gp": 1.0, "pp": 10.0}
#: A fraction is a small one ("1/2", "1/8" of a challenge rating), not a range's two numbers ("80/320 ft.").
_FRACTION_BELOW = 16
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
    worth = _COINS.get(number.group(2) or "gp", 1.0)
    if "/" in text:
        top, bottom = (int(n) for n in text.split("/", 1))
        if 0 < bottom <= _FRACTION_BELOW and top < bottom:
            return top / bottom * worth
        return float(top) * worth  # a range's near number: "80/320 ft." is 80 feet
    return float(text) * worth


def comparison(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the answer to each part of a comparison, and which is more, or None when a part is not found.

    A comparison naming no field weighs the one its words point to (`compared_quality`): "better armour" the
    entries' "Armour value"; a yes/no one ("is X stronger than Y") is answered yes or no first."""
    if len(question.parts) < 2:
        return None
    citations = numbered(facts, results)
    hits = _each_part(question, facts, results) if question.fields else None
    if not question.fields:
        for label in quality_labels(question, results):
            hits = _each_part(replace(question, fields=[label]), facts, results)
            if hits is not None:
                question = replace(question, fields=[label])
                break
    if hits is None and not question.fields:
        # "greataxe vs greatsword", "the difference between a longsword and a greatsword": no field asked nor
        # weighed, each part's entry said at a glance; else a line each part names ("X's bite or Y's bite").
        hits = _each_part(question, facts, results)
        if not _label_asked(question, hits) and asks_nothing_else(question):
            glanced = glance(question, facts, results)
            if glanced is not None:
                return glanced
    if hits is None:
        return None
    answer = from_fields(hits, citations)
    # One field asked: a known one ("hp"), or a book's own label the question says ("hull points", "vigour").
    labels = {h.field.label.casefold() for h in hits}
    if len(question.fields) <= 1 and len(hits) == 2 and len(labels) == 1:
        amounts = [_amount(h.field.value) for h in hits]
        if None not in amounts and amounts[0] == amounts[1]:
            answer = _alike(question, hits, answer)
        elif None not in amounts:
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


def _label_asked(question: Question, hits: Sequence[FieldHit] | None) -> bool:
    """Tell whether both parts' lines are of one label the question says ("compare the hull points of A and B")."""
    labels = {h.field.label.casefold() for h in hits or ()}
    if len(labels) != 1:
        return False
    said = set(fold_words(question.expanded))
    return all(has_word(said, w) for w in fold_words(labels.pop()))


#: How many of an entry's short fields (after its kind) say it at a glance, and how long a short one is.
GLANCE_FIELDS = 4
GLANCE_VALUE = 48


def glance(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return each part's entry at a glance, its kind and first short fields, each with its citation; None when a
    part is not an entry's whole name, or both name one entry, or an entry has no short field."""
    readable = [(n, r) for n, r in enumerate(results, len(facts) + 1) if r.is_fact]
    named = [
        [(n, r) for n, r in readable if _names_whole(part, r.heading_path[-1:] or [""])]
        for part in question.parts
    ]
    if len(named) != 2 or not all(named):
        return None
    # Two entries of one book's part ("Goblin" the monster beside an ogre, not the language), else the first each.
    pairs = [(a, b) for a in named[0] for b in named[1] if a[0] != b[0]]
    if not pairs:
        return None
    pair = next((p for p in pairs if p[0][1].heading_path[:1] == p[1][1].heading_path[:1]), pairs[0])
    said: list[str] = []
    cited: list[int] = []
    for number, result in pair:
        fields = fields_of(result)
        kind = next((f.value for f in fields if f.label == KIND), "")
        short = [
            f"{' '.join(f.label.casefold().split())} {f.value.rstrip('.')}"
            for f in fields
            if f.label != KIND and len(f.value) <= GLANCE_VALUE and ". " not in f.value
        ][:GLANCE_FIELDS]
        if not short:
            return None
        name = result.heading_path[-1]
        said.append(f"{name}{f' ({kind})' if kind else ''}: {', '.join(short)}. [{number}]")
        cited.append(number)
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in numbered(facts, results)]
    return ShortAnswer(text=" ".join(said), mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)


def _names_whole(part: Sequence[str], heading: Sequence[str]) -> bool:
    """Return whether a part names an entry whole: every word of its title, and nothing else but words before
    the name ("a full suit of plate armor" names Plate Armor)."""
    title = [w for w in fold_words(heading[0]) if w not in STOPWORDS]
    words = [w for w in part if w not in STOPWORDS]
    if not title:
        return False
    for start in range(len(words)):
        rest = words[start:]
        # One word each, in its forms ("greatsword" is no "greataxe", though both start alike).
        if len(rest) == len(title) and all(any(same_word(w, t) for t in title) for w in rest):
            return True
    return False


def part_question(question: Question, part: Sequence[str]) -> str:
    """Return a comparison's part asked on its own: its first field of the part ("damage of fireball")."""
    asked = question.fields[0]
    return f"{'level' if asked == KIND else asked} of {' '.join(part)}"


def each_names_its_part(parts: Sequence[Sequence[str]], replies: Sequence[ShortAnswer | None]) -> bool:
    """Return whether each part's own answer is known and names that part, every word of it ("Lightning Bolt:
    …" of "lightning bolt"), and no two are one."""
    if len(replies) != len(parts) or any(r is None or not r.known for r in replies):
        return False
    texts = [r.text for r in replies if r is not None]
    if len(set(texts)) < len(texts):
        return False
    for part, reply in zip(parts, replies, strict=True):
        cited = " ".join(c.label for c in reply.citations if c.cited) if reply else ""
        said = fold_words(f"{reply.text if reply else ''} {cited}")
        if not all(any(same_word(w, s) for s in said) for w in part if w not in STOPWORDS):
            return False
    return True


def with_its_name(reply: ShortAnswer) -> ShortAnswer:
    """Return a part's answer led by the name of the entry it cites when its text does not say it ("Fireball: A
    target takes 8d6 fire damage …"), so the two answers said together read apart."""
    cited = [c for c in reply.citations if c.cited and c.kind == "passage"]
    if not cited:
        return reply
    name = cited[0].label.split(" › ")[-1].strip()
    if not name or name.casefold() in reply.text.casefold():
        return reply
    return reply.model_copy(update={"text": f"{name}: {reply.text}"})


def _alike(question: Question, hits: Sequence[FieldHit], answer: ShortAnswer) -> ShortAnswer:
    """Return the answer of two parts whose values are as much: neither is more ("is X faster than Y": no)."""
    label = "level" if hits[0].field.label == KIND else hits[0].field.label.casefold()
    text = f"{answer.text} Both have the same {label}."
    if question.yes_no:
        text = f"No: {text}"
    return answer.model_copy(update={"text": text})


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
        # Two parts are two things: a part finding the line another part found ("goblin" of Hobgoblin's) is unfound.
        if not found or any(h.field == f.field for h in hits for f in found):
            return None
        hits += found
    return hits
