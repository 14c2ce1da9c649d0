"""A question about a known entity that canon and the sources do not answer: said so, not answered with another fact.

A question names something the table knows ("who founded Thistlewick", "who is the mayor of Thistlewick") and asks
a thing nothing says. A passage about the entity holds its name, and so half the question's words: quoted, it
answers something else ("Thistlewick is a market town of the Heathlands, …"). `beside_the_point` tells such an
answer: quoted from passages for a question naming an entity canon holds, its sentences say none of the words the
question asks besides the names, or it says the counterpart of a tie asked ("her real father is …" for "her real
mum"). The answer is then "nothing known", in the question's own words (`answer_nothing.
nothing_known`), word for word as of a name nobody wrote.

`another_kind`: a question naming a thing by a qualifier and a noun ("the *aristocratic* lifestyle", "a *silver*
key") is not answered by a sentence saying that noun with another qualifier before it ("a *modest* lifestyle",
"the *iron* key") and the question's qualifier neither in it nor in the headings it is quoted under: it tells of
another kind of the thing, even when another sentence of its passage names the kind asked. A number or a
little word before the noun ("one key", "your key") qualifies nothing, nor does a verb before a name the sentence
goes on with as the question does ("can I *fire* plasma lance cells" / "*charge* plasma lance cells": the noun
starts the same name in both, and the words before it act on it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from rapidfuzz import fuzz

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, Question
from memory.knowledge.retrieval.answer_qualified import other_sex
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words

__all__ = ["another_kind", "beside_the_point", "named_in", "off_the_point"]

_CITATION = re.compile(r"\s*\[\d+\]")
#: A qualifier the sentence spells this close to the question's is the same one ("mucus", "mucous").
_SPELT_ALIKE = 75
#: Two words one after the other in a clause (no mark between them).
_PAIR = re.compile(r"(?=\b([^\W\d_]+)\s+([^\W\d_]+)\b)")
#: The word right after another, in the same clause.
_NEXT = re.compile(r"\s+([^\W\d_]+)")
#: Words before a noun that count or point, never a kind: "one key", "each key", "any key".
_NO_KIND = frozenset(
    {
        *(
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "each",
            "every",
            "any",
        ),
        *(
            "another",
            "other",
            "same",
            "first",
            "second",
            "third",
            "last",
            "next",
            "more",
            "less",
            "most",
            "least",
        ),
    }
)


def named_in(question: str, facts: Sequence[CanonFact]) -> CanonFact | None:
    """Return the first card the question names by every word it was found by, or None."""
    asked = set(fold_words(question.replace("’", "'")))
    for fact in facts:
        words = [w for w in fold_words(fact.matched) if w not in ("the", "a", "an")]
        if words and all(w in asked for w in words) and len(fact.matched) <= 80:
            return fact
    return None


def beside_the_point(question: str, facts: Sequence[CanonFact], answer: str) -> bool:
    """Tell whether an answer quoted from passages, to a question naming an entity canon holds, says none of the
    words the question asks besides the names of the entities found (see the module docstring)."""
    if named_in(question, facts) is None:
        return False
    names = {w for f in facts for w in (*fold_words(f.matched), *fold_words(f.entity_name))}
    asked = [w for w in key_words(question) if not has_word(names, w) and len(w) > 2]
    if not asked:
        return False
    said = set(fold_words(_CITATION.sub("", answer)))
    # "her real father is …" for "who is her real mum": the other tie, no answer
    return not any(has_word(said, w) for w in asked) or other_sex(fold_words(question), list(said))


def _content(word: str) -> bool:
    return len(word) > 2 and word not in STOPWORDS and word not in CHATTER and word not in _NO_KIND


def another_kind(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> bool:
    """Tell whether an answer quoted from passages tells of another kind of the thing the question names by a
    qualifier and a noun: a sentence says the noun after another qualifier, and the question's qualifier is in
    neither the sentences nor the passages quoted, their headings included (see the module docstring)."""
    subject = set(question.subject)
    typed = fold_words(question.expanded)
    # "which beast haunts …": the word after "which" is the kind asked, not a qualifier.
    start = 2 if typed[:1] in (["which"], ["what"]) else 0
    rest = typed[start:]
    pairs = [
        (a, n, rest[i + 2] if i + 2 < len(rest) else "")
        for i, (a, n) in enumerate(pairwise(rest))
        if a in subject and n in subject and _content(a) and _content(n) and a != n
    ]
    first = len(facts) + 1
    quoted = [
        results[c.number - first]
        for c in answer.citations
        if c.cited and 0 <= c.number - first < len(results)
    ]
    if not pairs or not quoted:
        return False
    text = _CITATION.sub("", answer.text)
    # The qualifier in the passage's other sentences only ("… support a wealthy lifestyle instead") does not make
    # a sentence saying "a modest lifestyle" about the kind asked: the sentence quoted or the headings must say it.
    said = set(fold_words(" ".join([text, *(" ".join(r.heading_path) for r in quoted)])))
    for qualifier, noun, after in pairs:
        if has_word(said, qualifier):
            continue
        for match in _PAIR.finditer(text):
            other, named = match.group(1).casefold(), match.group(2).casefold()
            if (
                has_word({named}, noun)
                and _content(other)
                and not has_word(set(typed), other)
                and fuzz.ratio(other, qualifier) < _SPELT_ALIKE  # "mucus cloud": the book's "Mucous Cloud"
            ):
                # "fire plasma lance" / "charge plasma lance": the noun goes on as in the question, the name it
                # starts is the same; the word before it is a verb acting on it, no other kind.
                if after and _goes_on_as(text[match.end(2) :], after):
                    continue
                return True
    return False


def _goes_on_as(rest: str, after: str) -> bool:
    """Return whether the text after a noun goes on with the question's word after it, an ending apart."""
    following = _NEXT.match(rest)
    return following is not None and has_word({following.group(1).casefold()}, after)


def off_the_point(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> bool:
    """Tell whether an answer quoted from passages says nothing the question asks of an entity canon holds
    (`beside_the_point`) or tells of another kind of the thing asked (`another_kind`)."""
    return beside_the_point(question.text, facts, answer.text) or another_kind(
        question, facts, results, answer
    )
