"""Choose the one or two sentences of the best passages that answer a question, when no canon fact does.

A passage answers when it holds every name of the question and at least half of its other words; a sentence, when
it and its headings hold most of the question's weight (a word rarer among the passages found weighs more, a name
double). Short sentences are preferred; a second sentence is quoted only when it answers too, or when the best one
goes on from it ("Each time …") or says "He" or "She" of whom it names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.knowledge.fields import fields_of
from memory.knowledge.models import LoreResult
from memory.knowledge.question import analyse, how_word
from memory.knowledge.retrieval.amount_limits import LIMIT, asks_limit, limit_words, row_headers, says_limit
from memory.knowledge.retrieval.answer_sentence import (
    EXAMPLE,
    NO_AMOUNT,
    asks_amount,
    counted,
    has_amount,
    is_example,
    measured,
    paired,
    says_field,
    text_words,
    word_pairs,
)
from memory.knowledge.retrieval.answer_words import (
    RELATION_WORDS,
    covers,
    examples,
    fold_words,
    has_word,
    key_words,
    kind_line,
    labelled_sentences,
    names_in,
    sections_of,
)

__all__ = ["QuotedSentence", "asks_what_happens", "extract", "unnumbered", "value_only"]

#: A heading's number ahead of its name: "2.4 Bust", "3. Gunplay", "Chapter 4: Tests", "IV. The Void".
_NUMBERED = re.compile(
    r"^\s*(?:(?:chapter|part|section|§)\s*)?(?:\d+(?:\.\d+)+\.?|\d{1,2}[.):]?|[IVXLC]+[.):])\s+(?=\S)", re.I
)


def _condition_words(question: str) -> list[str]:
    """Return the words of the condition a question asks what happens on ("damp", "limit" of "what happens when
    damp is at its limit"), none for another question."""
    asked = _HAPPENS.match(question)
    if asked is None:
        return []
    return [w for w in fold_words(question[asked.end() :]) if w not in STOPWORDS]


def _states_condition(text: str, words: Sequence[str]) -> bool:
    """Return whether a sentence states the condition asked: a clause opened by "when", "if", ... that holds
    every word of it ("When a keeper's Damp reaches the limit, ...")."""
    for found in _CONDITION.finditer(text):
        clause = set(fold_words(re.split(r"[,;:]", text[found.end() :], maxsplit=1)[0]))
        if all(covers(clause, w) for w in words):
            return True
    return False


def asks_what_happens(question: str) -> bool:
    """Return whether a question asks what follows on a condition ("what happens when my Rust maxes out")."""
    return bool(_HAPPENS.match(question))


def value_only(value: str) -> bool:
    """Return whether a field's value opens with a number ("5, whatever the tinker"): it says how much, not
    what happens."""
    return bool(re.match(r"^[+−-]?\d", value.strip()))


def unnumbered(heading: str) -> str:
    """Return a heading without its number ("Bust" of "2.4 Bust"): a book numbers its sections, a player names
    them by their words."""
    return _NUMBERED.sub("", heading, count=1)


#: Passages whose sentences may answer (the best few).
PASSAGES_READ = 3
#: Share of the question's words a passage must hold to answer it.
MIN_COVERAGE = 0.5
#: Share of the question's weight a quoted sentence and its headings must hold.
SENTENCE_COVERAGE = 0.6
#: Share of the question's words a second quoted sentence must hold itself (not through its headings).
SECOND_OVERLAP = 0.5
#: Share of the best sentence's score a second quoted sentence must have.
SECOND_SCORE = 0.7
#: A question asking who: a relation it names ("who rules X", "who is Y's brother") must be in the sentence.
_ASKS_WHO = re.compile(r"(?i)^\s*(?:who|whom|whose)\b")
#: How much less a sentence weighs that speaks of its own entry's subject ("The plesiosaurus can hold its breath
#: for 1 hour") when the question names no word of it ("how long can I hold my breath").
ANOTHER = 0.75
#: How much more a sentence counting what "how many" asks weighs ("up to ten berries" for "how many berries").
COUNTED = 1.5
#: How much more a sentence saying a condition weighs for a question asking what happens on one.
CONDITIONED = 1.5
#: "What happens when/if/once …": what follows on a condition, which the sentence answering states with it.
_HAPPENS = re.compile(r"^\s*what\s+happens\s+(?:when|if|once|after|whenever)\b", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:when|whenever|if|once|after)\b", re.IGNORECASE)
#: A field's line, its label and a value that is a number: it says how much, never what happens.
_VALUE_LINE = re.compile(r"^[^.:]{1,40}:\s*[+−-]?\d")
#: How much more a sentence weighs under an inner heading or a bold name every word of which the question holds.
NAMED_BLOCK = 1.3
#: How much more a sentence weighs for each pair of the question's words it says side by side, in order ("a long
#: rest ... at least 8 hours" over "a short rest ... at least 1 hour long" for "how long is a long rest").
PAIRED = 0.2


@dataclass(slots=True)
class QuotedSentence:
    text: str
    number: int
    score: float
    words: set[str]
    #: The heading inside the passage the sentence is under (a passage may hold several small sections).
    section: str | None = None
    #: Its place among the passage's sentences, and the bold name of its block (None outside one).
    position: int = 0
    label: str | None = None
    #: The sentence before it under the same heading, when it opens with "He" or "She" (who they are).
    antecedent: str | None = None


def _asked(question: str) -> tuple[list[str], str | None]:
    """Return the words a sentence answering the question says, and among them the word asking an amount of a
    kind ("long" of "how long"); when that word asks a field ("how far does X reach" asks the range: the
    field's line or sentence says it, not any distance), it is left out."""
    keys = key_words(question)
    how = how_word(question)
    if how is None or how not in keys:
        return keys, None
    if any(f"how {how}" in phrase for phrase in analyse(question, {}).asked_by.values()):
        return [w for w in keys if w != how], None
    return keys, how


def _entry_name(result: LoreResult) -> list[str]:
    """Return the words of a passage's entry name: its last heading's last part, without what is in brackets
    ("plesiosaurus" of "Bestiary › Plesiosaurus")."""
    if not result.heading_path:
        return []
    title = re.sub(r"\([^)]*\)", " ", result.heading_path[-1]).split(":")[-1]
    return [w for w in fold_words(title) if w not in STOPWORDS]


def _weights(
    keys: Sequence[str], names: Sequence[str], results: Sequence[LoreResult], how: str | None = None
) -> dict[str, float]:
    """Return each question word's weight: rarer among the passages found weighs more, a name double."""
    texts = [text_words(" ".join([r.source_title, *r.heading_path, r.text]), keys, how) for r in results]
    weight = {}
    for w in keys:
        found = sum(1 for words in texts if covers(words, w))
        # A word no passage holds cannot be quoted: it weighs nothing here (a passage must still hold it).
        rarity = 1.0 + math.log((1 + len(texts)) / (1 + found)) if found else 0.0
        weight[w] = rarity * (2.0 if w in names else 1.0)
    return weight


def _stat_line(label: str | None, text: str, result: LoreResult) -> bool:
    """Return whether a sentence is a stat line of a passage (a field's label and a short value): it is its
    entry's, so a question naming no word of the entry is not answered by it ("Carrying Capacity 540 lb." of a
    horse for "how do i calculate carrying capacity"); a rule's bold-named paragraph ("Long Jump. When you
    ...") is no stat line. The kind line answers its own field only (see `compose`)."""
    if label is None or len(text.split()) > len(label.split()) + 4:
        return False
    return label.casefold() in {f.label.casefold() for f in fields_of(result)}


def _holds(thing: str | None, words: set[str], label: str | None) -> bool:
    """Return whether a sentence (or its block's bold name) says the thing whose amount is asked, if one is."""
    return thing is None or covers(words | set(fold_words(label or "")), thing)


def _scored(
    question: str,
    results: Sequence[LoreResult],
    first: int,
    only: Callable[[LoreResult], bool] | None = None,
    kind_lines: bool = False,
    needs: Callable[[LoreResult, str | None], Sequence[str]] | None = None,
    measure: bool = False,
) -> list[QuotedSentence]:
    """Return the sentences of the passages that answer the question, scored against it, best first.

    A passage answers when it holds every name of the question and at least half of its other words (a name
    alone is not an answer to "Who is Eliza Crane's brother?"); a sentence, when it and its headings hold most
    of the question's weight. Short sentences are preferred ("Range 60 feet" over a paragraph naming a range).
    """
    keys, how = _asked(question)
    names = [n for n in names_in(question) if n in keys]
    others, weight = [w for w in keys if w not in names], _weights(keys, names, results, how)
    total = sum(weight.values()) or 1.0
    amount = measure or asks_amount(question)
    count, thing = counted(question), measured(question) if amount else None
    limit = amount and asks_limit(question)
    relation = [w for w in keys if w in RELATION_WORDS] if _ASKS_WHO.match(question) else []
    pairs = word_pairs(question)
    happens = _condition_words(question)
    scored: list[QuotedSentence] = []
    readable = [(i, r) for i, r in enumerate(results) if r.is_fact and (only is None or only(r))]
    for rank, (index, result) in enumerate(readable[:PASSAGES_READ]):
        heading = set(fold_words(" ".join([result.source_title, *result.heading_path])))
        passage = heading | text_words(result.text, keys, how)
        own_name = _entry_name(result)
        shown, columns = examples(result.text), row_headers(result.text)  # a row: under its columns' names
        other = bool(own_name) and not any(has_word(set(keys), w) for w in own_name)
        if not all(has_word(passage, n) for n in names):
            continue
        if others and sum(1 for w in others if covers(passage, w)) / len(others) < MIN_COVERAGE:
            continue
        damp = (1.0 - 0.12 * rank) * (0.5 if result.out_of_date or result.overruled else 1.0)
        placed = _placed(result, kind_lines=kind_lines, other=other)
        for position, (section, label, text) in enumerate(placed):
            words = text_words(text, keys, how) | (limit_words(question, keys, text) if limit else set())
            needed = needs(result, section) if needs is not None else ()
            if needed and not all(says_field(w, text, words | set(fold_words(label or ""))) for w in needed):
                continue  # a field asked: the sentence says it ("a +2 bonus to AC")
            # A sentence is under its section's heading and its block's bold name ("Engulf": every sentence); one
            # going on from the sentence before (`_GOES_ON`: "On a failure, …") is about what that one says.
            above = heading | set(fold_words(f"{section or ''} {label or ''} {columns.get(text, '')}"))
            if position and placed[position - 1][:2] == (section, label) and _GOES_ON.match(text):
                above |= set(fold_words(placed[position - 1][2]))
            if (relation and not all(covers(words, w) for w in relation)) or not _holds(thing, words, label):
                continue  # "who rules X" needs a ruler, "how much water per leg" water (not a price per leg)
            # read once: each word's cover is asked four times
            matched = {w for w in keys if covers(words, w)}
            own = sum(weight[w] for w in keys if w in matched)
            by_heading = sum(weight[w] for w in keys if w != how and w not in matched and has_word(above, w))
            if not own or (own + by_heading) / total < SENTENCE_COVERAGE:
                continue
            density = 1.0 / (1.0 + len(words) / 30)
            if amount and not has_amount(text):
                density *= NO_AMOUNT  # "how much damage from falling": the sentence with the dice
            if other and all(has_word(words, w) for w in own_name):
                density *= ANOTHER  # about the entry's own subject, which the question does not name
            if count is not None and count.search(text):
                density *= COUNTED  # "how many berries": "up to ten berries", not "eat one berry"
            density *= LIMIT if limit and says_limit(text) else 1.0  # "can hold up to 500 pounds"
            density *= EXAMPLE if is_example(text) or text in shown else 1.0
            density *= _on_condition(happens, text)  # "what happens when …": the sentence stating it
            # Pairs the headings say name the passage's own subject, which every sentence under them shares.
            density *= 1.0 + PAIRED * paired([p for p in pairs if not set(p) <= heading], text)
            if _names_block(section, label, keys):
                density *= NAMED_BLOCK  # under a heading or bold name the question names ("Short Rest")
            own += 0.5 * _said_by_pronoun(text, keys, matched, own_name, weight)  # "They age": its name said
            score = (own + 0.5 * by_heading) * damp * density - 0.01 * position
            antecedent = _antecedent(placed, position)
            scored.append(
                QuotedSentence(text, first + index, score, matched, section, position, label, antecedent)
            )
    scored.sort(key=lambda s: -s.score)
    return scored


def _on_condition(happens: Sequence[str], text: str) -> float:
    """Return how much more a sentence weighs for a question asking what happens on a condition (its words,
    `happens`): "When … reaches the limit, …" states it, "Damp limit: 6" says a value, no consequence."""
    if not happens:
        return 1.0
    weight = CONDITIONED if _states_condition(text, happens) else 1.0
    return weight / CONDITIONED if _VALUE_LINE.match(text) else weight


def _names_block(section: str | None, label: str | None, keys: Sequence[str]) -> bool:
    """Return whether the question names every word of the inner heading (without its number) and bold name a
    sentence is under."""
    inner = [w for w in fold_words(f"{unnumbered(section or '')} {label or ''}") if w not in STOPWORDS]
    return bool(inner) and all(has_word(set(keys), w) for w in inner)


def _said_by_pronoun(
    text: str, keys: Sequence[str], matched: set[str], own_name: Sequence[str], weight: dict[str, float]
) -> float:
    """Return the weight of the question's words that are the entry's own name ("Half-Orc") a sentence says by
    its pronoun ("They age ... 75 years"), 0 for a sentence not opening with one; `matched`: the question's words
    the sentence holds."""
    if not _PRONOUN_LED.match(text):
        return 0.0
    return sum(weight[w] for w in keys if w not in matched and has_word(set(own_name), w))


def extract(
    question: str,
    results: Sequence[LoreResult],
    first: int,
    only: Callable[[LoreResult], bool] | None = None,
    kind_lines: bool = False,
    needs: Callable[[LoreResult, str | None], Sequence[str]] | None = None,
    measure: bool = False,
) -> list[QuotedSentence]:
    """Return the one or two sentences that best answer the question (none when no passage does)."""
    scored = _scored(question, results, first, only, kind_lines, needs, measure)
    if not scored:
        return []
    chosen = [scored[0]]
    top = scored[0]
    if top.antecedent is not None:
        # "He is Maren Marrow's elder brother" says who only with the sentence before it: both, in order.
        said = QuotedSentence(
            top.antecedent, top.number, top.score, set(), top.section, top.position - 1, top.label
        )
        return [said, top]
    before = next((s for s in scored[1:] if _goes_on(s, scored[0])), None)
    if before is not None:
        # "Each time you use it again, the damage increases by 1d12" goes on from the sentence before it ("If you
        # use this feature again, you take 2d12 necrotic damage"): both, in the book's order.
        return [before, scored[0]]
    after = _what_it_does(question, top, results, first, kind_lines)
    if after is not None:
        return [top, after]
    keys = _asked(question)[0]
    for other in scored[1:4]:
        # A second sentence must answer too: it holds most of the question's words, not only a new one.
        if len(other.words) < SECOND_OVERLAP * len(keys):
            continue
        if other.score >= SECOND_SCORE * scored[0].score and other.words - scored[0].words:
            chosen.append(other)
            break
    return chosen


#: "What does a mooring do", "what do wards do", "what happens on a crack": what a thing does, not what it is.
_DOES = re.compile(
    r"^\s*what\s+(?:(?:does|do)\b.+\bdo(?:\s+to\s+\w+)?|happens\s+(?:on|with|after|when|if)\b.+)\s*[?!.]*\s*$",
    re.IGNORECASE,
)
#: A sentence saying what a thing is ("A Lull is an hour of rest", "Wards: are circles of salt").
_IS_A = re.compile(
    r"^(?:[^.:]{1,60}:\s*)?(?:[^.]{0,60}?\s)?(?:is|are)\s+(?:a|an|the|one|any)\b", re.IGNORECASE
)


def _what_it_does(
    question: str, top: QuotedSentence, results: Sequence[LoreResult], first: int, kind_lines: bool
) -> QuotedSentence | None:
    """Return the sentence after the best one, under the same heading and bold name, when the question asks what
    a thing does and the best one only says what the thing is: what it does is said next ("A Lull is an hour of
    rest. Recover Strain equal to your Nerve.")."""
    if not _DOES.match(question) or not _IS_A.match(top.text):
        return None
    placed = _placed(results[top.number - first], kind_lines=kind_lines, other=False)
    at = top.position + 1
    if at >= len(placed) or placed[at][:2] != (top.section, top.label) or placed[top.position][2] != top.text:
        return None
    return QuotedSentence(placed[at][2], top.number, top.score, set(), top.section, at, top.label)


#: A sentence opening with a pronoun standing for the entry it is in: "They age faster", "It can ...".
_PRONOUN_LED = re.compile(r"^(?:they|it|he|she)\b", re.IGNORECASE)
#: A sentence about someone the sentence before names: "Brannoc Marrow keeps the bar. He is Maren's brother."
_PRONOUN = re.compile(r"^(?:he|she|his|her)\b", re.IGNORECASE)


def _placed(result: LoreResult, *, kind_lines: bool, other: bool) -> list[tuple[str | None, str | None, str]]:
    """Return a passage's sentences with the inner heading and bold name each is under: an entry's kind line only
    when asked (`kind_lines`), a stat line of an entry the question does not name (`other`) never."""
    return [
        (section, label, text)
        for section, body in sections_of(result.text)
        for label, text in labelled_sentences(body)
        if (kind_lines or text != kind_line(body)) and not (other and _stat_line(label, text, result))
    ]


def _antecedent(placed: Sequence[tuple[str | None, str | None, str]], position: int) -> str | None:
    """Return the sentence before the one at `position` under the same heading and bold name, when that one opens
    with "He" or "She" (the one before says who), else None."""
    if not position or not _PRONOUN.match(placed[position][2]):
        return None
    before = placed[position - 1]
    return before[2] if before[:2] == placed[position][:2] else None


#: The opening of a sentence that goes on from the one before it: "Each time …", "This damage …", "It …".
_GOES_ON = re.compile(
    r"^(?:each time|every time|this|that|these|those|it|its|they|their|such|otherwise|however|instead|"
    r"in addition|additionally|also|on a (?:failure|success|failed|successful)|if it (?:fails|succeeds))\b",
    re.IGNORECASE,
)


def _goes_on(before: QuotedSentence, sentence: QuotedSentence) -> bool:
    """Return whether a sentence goes on from `before`, the one just before it in its passage, under the same
    heading and bold name (`_GOES_ON`), and `before` answers well enough to be quoted with it."""
    return (
        bool(_GOES_ON.match(sentence.text))
        and before.number == sentence.number
        and before.position == sentence.position - 1
        and before.section == sentence.section
        and before.label == sentence.label
        and before.score >= SECOND_SCORE * sentence.score
    )
