"""The best passage, when the question names it: answered from it after the stricter reading found nothing.

Players seldom ask in the book's words ("can he still walk away" of Grappled, "what stops a troll's
regeneration", "greatsword damage die", "what does uncanny dodge do"), and the sentence reading of
`memory.knowledge.retrieval.answer` wants most of the question's words in the sentence it quotes. When the best
passage's own title is named by the question (every word of it, an ending apart: "Uncanny Dodge" of "Rogue:
Uncanny Dodge", "Rope, hempen" of "Rope, hempen (50 feet)"), that passage is what is asked about, and it answers:
1. the field asked, of that passage's subject ("Greatsword's damage is 2d6 slashing.");
2. else the block the question names by its bold name or inner heading ("Regeneration", "Engulf"): its sentences
   holding most of the question's other words, at most two, in the book's order; of several blocks named, the one
   saying most of them;
3. else the sentence holding most of the question's other words, when it holds more than half of them, or any
   of them and the amount asked (an amount preferred when one is asked, a rule before its example; the most a
   thing holds, carries or takes, when that is asked: "how much can it hold");
4. else, when the question asks nothing but what the passage is ("what does uncanny dodge do", "rules for being
   frightened", "spell description for polymorph": `SUMMARY`), its first sentence of prose; when it asks a
   field and nothing else ("petrified: does he get heavier"), its first sentence saying the field. A question asking something the passage does not say is not answered from it.
A passage the question does not name never answers here: "nothing known" stays the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memory.fulltext import STOPWORDS
from memory.knowledge.models import LoreResult
from memory.knowledge.question import FILLER, HOW_UNITS, KIND_LINE, Question, ending_verb, how_word
from memory.knowledge.retrieval.amount_limits import LIMIT, asks_limit, says_limit_asked
from memory.knowledge.retrieval.answer_scope import CHATTER
from memory.knowledge.retrieval.answer_sentence import (
    EXAMPLE,
    NO_AMOUNT,
    asks_amount,
    asks_measure,
    counted,
    has_amount,
    is_example,
    says_field,
    text_words,
)
from memory.knowledge.retrieval.answer_words import (
    asked_words,
    examples,
    fold_words,
    kind_line,
    labelled_sentences,
    same_start,
    same_word,
    sections_of,
)
from memory.knowledge.retrieval.field_answer import FieldHit, field_answers
from memory.knowledge.retrieval.vocabulary import single_letters

__all__ = ["FirstPassage", "akin", "field_words", "from_first", "title_words"]

#: The most sentences quoted from a block the question names.
BLOCK_SENTENCES = 2
#: The least share of the question's other words a sentence must hold to be quoted for them.
MIN_SHARE = 0.5
#: A common beginning this long makes two words one ("twinning" and "twinned", "regenerating", "regeneration").
COMMON_START = 5
_BRACKETS = re.compile(r"\([^)]*\)")
#: Words asking what a thing is, not something it says ("rules for being frightened", "spell description for
#: polymorph", "tome of leadership item details", "how does arcane sword work").
SUMMARY = frozenset(
    {
        *("rule", "rules", "description", "describe", "details", "detail", "info", "information", "lore"),
        *("overview", "summary", "explain", "explained", "work", "works", "mean", "means", "meaning", "tell"),
    }
)


def akin(a: str, b: str) -> bool:
    """Return whether two folded words are one word in other forms: an ending apart ("rage", "raging")."""
    if a[:2] != b[:2] and (same_start(a) is not None or same_start(b) is not None):
        return False  # no ending, irregular form or number makes them one (`answer_words.same_start`)
    if same_word(a, b):
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= COMMON_START and long_.startswith(short[:COMMON_START]) and len(long_) - len(short) <= 4:
        return True
    return (
        len(short) >= 4
        and short.endswith("e")
        and long_.startswith(short[:-1])
        and len(long_) <= len(short) + 3
    )


def _akin_any(word: str, words: Sequence[str] | set[str]) -> bool:
    start = same_start(word)
    if start is None:
        return any(akin(word, w) for w in words)
    return any(akin(word, w) for w in words if w[:2] == start)


def title_words(
    question: Question, result: LoreResult, unknown: Sequence[str] = (), section: str | None = None
) -> list[str]:
    """Return the words of a passage's own title (or of `section`, a heading inside it) when the question names
    every one of them and does not qualify them (`_qualified`), else none. `unknown`: the question's words no
    source holds.

    The title is the last heading's last part ("Twinned Spell" of "Sorcerer: Metamagic: Twinned Spell"),
    without what is in brackets."""
    heading = section or (result.heading_path[-1] if result.heading_path else "")
    title = _BRACKETS.sub(" ", heading).split(":")[-1]
    words = [w for w in fold_words(title) if w not in STOPWORDS and not w.isdigit()]
    # The words as typed (through the glossary): a title reached by a search's correction ("toll" read as
    # "troll") is not named; one typed with a doubled letter single ("supresion") is: it is no other word.
    typed = fold_words(question.typed) + fold_words(question.text)
    singles = {single_letters(w) for w in typed}
    if not words or not all(_akin_any(w, typed) or single_letters(w) in singles for w in words):
        return []
    around = fold_words(" ".join([result.source_title, *result.heading_path, section or ""]))
    held = set(around) | set(fold_words(result.text))
    foreign = [w for w in question.subject if not _akin_any(w, held)] if question.fields else []
    return [] if _qualified(question, words, around, unknown, foreign) else words


def _qualified(
    question: Question,
    title: Sequence[str],
    around: Sequence[str],
    unknown: Sequence[str],
    foreign: Sequence[str] = (),
) -> bool:
    """Return whether the question's subject qualifies the title's name, so names something else: a word just
    before it ("ironjaw basilisk", "greater mending") or joined after it ("crossbow of ice"), or just after it
    a word no source holds ("kobold dragonshield") or, asking a field, one the passage does not hold
    (`foreign`: "spyglass lens kit weight", where "unicorn telepathy range" is the unicorn's). The passage's
    own headings never qualify it ("paladin devotion aura" of "Paladin (Devotion): Aura of Devotion")."""
    words = fold_words(question.typed)
    extra = {w for w in question.subject if not _akin_any(w, title) and not _akin_any(w, around)}
    at = [i for i, w in enumerate(words) if _akin_any(w, title)]
    if not at or not extra:
        return False
    start, end = min(at), max(at)
    after = words[end + 1 : end + 3]
    return (
        (start > 0 and words[start - 1] in extra)
        or (after[:1] == ["of"] and after[1:] and after[1] in extra)
        or bool(after[:1] and after[0] in extra and (after[0] in unknown or after[0] in foreign))
    )


@dataclass(frozen=True, slots=True)
class FirstPassage:
    """What the best passage answers: a field, or sentences (with the passage's number)."""

    number: int
    fields: tuple[FieldHit, ...] = ()
    sentences: tuple[str, ...] = ()
    #: The block the question names ("Regeneration"), when the sentences are its.
    block: str | None = None


@dataclass(slots=True)
class _Unit:
    position: int
    name: str | None
    text: str
    words: set[str]
    example: bool = False
    #: Whether it says an amount of the kind asked ("10 minutes" for "how long", not "DC 10").
    amount: bool = False


def _how(question: Question) -> str | None:
    """Return the word after "how" asking an amount of a kind ("long"), unless it asks a field ("how far does X
    reach": the range's line says it)."""
    how = how_word(question.expanded)
    if how is None or any(f"how {how}" in phrase for phrase in question.asked_by.values()):
        return None
    return how


def _units(question: Question, result: LoreResult) -> list[_Unit]:
    asked = asked_words(question.expanded)
    how = _how(question)
    units: list[_Unit] = []
    shown = examples(result.text)
    for section, body in sections_of(result.text):
        kind = kind_line(body)
        for label, text in labelled_sentences(body):
            if text == kind and KIND_LINE not in question.fields:
                continue
            name = label or section
            words = text_words(text, asked) | set(fold_words(name or ""))
            amount = has_amount(text) and (how is None or how in words or bool(words & set(HOW_UNITS[how])))
            units.append(_Unit(len(units), name, text, words, text in shown, amount))
    return units


def _score(unit: _Unit, others: Sequence[str], amount: bool, limit: str | None = None) -> float:
    """Return how well a sentence answers: the question's other words it holds, an amount when one is asked, the
    limit asked (`limit`: the question, when it asks the most a thing holds), a rule before its example."""
    held = float(sum(1 for w in others if _akin_any(w, unit.words)))
    if limit is not None and says_limit_asked(limit, unit.text):
        # "how much can it hold": the sentence saying the most it holds says what is asked, as in `compose`
        held = (held + 1) * LIMIT
    if amount and not unit.amount:
        held *= NO_AMOUNT
    if unit.example or is_example(unit.text):
        held *= EXAMPLE
    return held - 0.001 * unit.position


def _best_block(named: Sequence[_Unit], others: Sequence[str]) -> str | None:
    """Return the name of the block, of several the question names, whose sentences say most of its other words,
    the first on a tie: "the DC on the dex save vs its fire breath" names the Saving Throws line and the Fire
    Breath block, and the block saying "DC 21 Dexterity saving throw" answers."""
    names = list(dict.fromkeys(u.name for u in named))
    said = {n: {w for u in named if u.name == n for w in u.words} for n in names}
    return max(names, key=lambda n: (sum(1 for w in others if _akin_any(w, said[n])), -names.index(n)))


def from_first(
    question: Question, results: Sequence[LoreResult], first: int, unknown: Sequence[str] = ()
) -> FirstPassage | None:
    """Return what the best passage answers when the question names it (see the module docstring), or None.
    `unknown`: the question's words no source holds."""
    readable = [r for r in results[:1] if r.is_fact]
    if not readable:
        return None
    result = readable[0]
    title = title_words(question, result, unknown)
    if not title:
        return None
    if question.fields:
        hits = field_answers(replace(question, subject=title), [result], first)
        if hits:
            return FirstPassage(first, fields=tuple(hits))
    units = _units(question, result)
    if question.fields:
        # A field no line gives: a sentence answers only when it says the field's words ("bonus to AC").
        said = field_words(question)
        units = [
            u for u in units if all(_akin_any(w, u.words) or says_field(w, u.text, u.words) for w in said)
        ]
    if not units:
        return None
    around = set(fold_words(" ".join([result.source_title, *result.heading_path])))
    others = [
        w
        for w in asked_words(question.expanded)
        if w not in CHATTER
        and w not in FILLER
        and w not in SUMMARY
        and not _akin_any(w, title)
        and not _akin_any(w, around)
    ]
    amount = asks_amount(question.expanded) or asks_measure(question.fields)
    limit = question.expanded if amount and asks_limit(question.expanded) else None
    named = [
        u
        for u in units
        if u.name
        and _named(u.name, question, title)
        # The passage's own heading ("Lantern of Lost Ways") is no block of it.
        and not all(_akin_any(w, title) for w in fold_words(u.name) if w not in STOPWORDS)
    ]
    count = counted(question.expanded)
    if count is not None and named and not any(count.search(u.text) for u in named):
        # "roper max number of tendrils": the sentence counting them ("up to six tendrils"), not the block named.
        counting = [u for u in units if count.search(u.text)]
        named, units = ([], counting) if counting else (named, units)
    if named:
        name = _best_block(named, others)
        block = [u for u in named if u.name == name]
        ranked = sorted(block, key=lambda u: -_score(u, others, amount))[:BLOCK_SENTENCES]
        quoted = tuple(u.text for u in sorted(ranked, key=lambda u: u.position))
        return FirstPassage(first, sentences=quoted, block=name)
    # Asked what it is ("rules for being frightened"): the first sentence under its own heading too.
    summary = any(w in SUMMARY for w in fold_words(question.expanded))
    # The field asked (the sentences left say it), or an amount of the kind asked ("how long": a time), when
    # the question's other words only ask ("how long does it *last*"), naming nothing else ("a grellmoth").
    saying: list[_Unit] = []
    verb = ending_verb(question.expanded)
    if all(w not in question.subject or w == verb for w in others):
        saying = list(units) if question.fields else [u for u in units if u.amount] if _how(question) else []
    # A field the passage's book or part is named by ("languages" under Languages) is none of its own lines.
    alone = [] if any(_akin_any(w, around) for w in field_words(question)) else saying
    chosen = _sentence(units, others, amount, title if summary else (), saying, alone, limit=limit)
    return FirstPassage(first, sentences=(chosen.text,)) if chosen is not None else None


def _sentence(
    units: Sequence[_Unit],
    others: Sequence[str],
    amount: bool,
    title: Sequence[str] = (),
    said: Sequence[_Unit] = (),
    alone: Sequence[_Unit] = (),
    *,
    limit: str | None = None,
) -> _Unit | None:
    """Return the sentence answering the question's other words, or the passage's first prose sentence (under no
    name, or under the title's own heading) when the question asks nothing but what the passage is ("what does
    uncanny dodge do"), or None: a question asking something the passage does not say is not answered from it.
    `said`: the sentences saying the field or the amount of the kind asked ("how long"), one of which answers
    when no sentence says the question's other words; `alone`: those of a field asked, one of which answers a
    question asking nothing else."""
    if not others:
        first = next(
            (u for u in units if u.name is None or all(_akin_any(w, title) for w in fold_words(u.name))), None
        )
        # "petrified: does he get heavier": nothing else asked, the first sentence saying the field answers.
        return first or next((u for u in alone if not u.example), None)
    best = max(units, key=lambda u: _score(u, others, amount, limit))
    score = _score(best, others, amount, limit)
    if score > MIN_SHARE * len(others):
        return best
    if score > 0 and amount and best.amount:
        return best  # "how much extra damage": the line with the amount
    if score <= 0:
        # "potion of climbing, how long does it last": the first line saying what is asked (an amount of time).
        return next((u for u in said if not u.example), None)
    return None


def field_words(question: Question) -> list[str]:
    """Return the words of the fields a question asks (the kind line's aside), that a sentence answering them
    in the book's prose says ("a +2 bonus to AC" says the armor class)."""
    return [w for f in question.fields if f != KIND_LINE for w in fold_words(f) if w not in STOPWORDS]


def _named(name: str, question: Question, title: Sequence[str] = ()) -> bool:
    """Return whether the question names a block by every word of its name, the words naming the passage's title
    counted once ("cast time stop" names no "Casting Time": "time" is the title's)."""
    words = [w for w in fold_words(name) if w not in STOPWORDS]
    asked = fold_words(question.expanded)
    if all(_akin_any(t, words) for t in title):
        title = ()  # the block's name holds the title ("Knight: Iron Will"): the question's words say both
    for word in title:
        at = next((i for i, w in enumerate(asked) if akin(word, w)), None)
        if at is not None:
            del asked[at]
    return bool(words) and all(_akin_any(w, set(asked)) for w in words)
