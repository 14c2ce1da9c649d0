"""What a named thing is, and why something was done: the sentence that says it, never one that only names it.

A world bible names a thing in passing far more often than it says what the thing is: "The Salt Road ends at the
Gloam Gate." holds every word of "what is the Gloam Gate", and so the word step may quote it, though it says
nothing of what the gate is. So, when the prose answers (the canon graph did not: a card's description outranks
any sentence), two forms are read again over the sentences of the passages the asker may read:
- "what is X" and the table's other forms of it ("what's a X", "define X", "what does X mean"): the sentence
  defining X answers, else, X a name, one of which X is the subject, else nothing is known of what X is
  (`answer_terms`);
- "why did X …": a sentence naming what the question names and saying its other words (a verb in any of its
  forms: "left" for "leave") with a reason (because, since, so that, in order to, for fear of, after, to do
  something); a sentence that says what was done without why is no answer, nor one telling it as the reason or
  the time of another deed ("founded after the old town drowned"), and with none, nothing is known of the why.
An answer must also hold the number or the name a question asks (`answer_holds`), and the person, time, place
or amount asked of a deed of the story (`answer_asked`), and the GM asking by a secret
name is told whose it is (`answer_secret`): `said_as_asked` applies them all.
Only what the asker may see reaches this module (the retriever filtered it), so a GM-only section answers the GM
alone, and to a player the answer reads as of a world that never wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import nothing_known, numbered
from memory.knowledge.retrieval.answer_asked import holds_kind
from memory.knowledge.retrieval.answer_holds import holds_asked
from memory.knowledge.retrieval.answer_secret import told_secret
from memory.knowledge.retrieval.answer_terms import (
    asked_term,
    defines,
    defining,
    measured_term,
    of_subject,
    term_named,
    titled,
    written_as_name,
)
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sections_of, sentences

__all__ = ["defined_answer", "gives_reason", "said_as_asked"]

_WHY = re.compile(
    r"^\s*why\s+(?:do|does|did|is|are|was|were|would|has|have|had|can|could|will|should)\b", re.IGNORECASE
)
#: Words that say a reason: "because the galleries flooded", "so that no coin …", "after the flood".
_REASON = re.compile(
    r"\b(?:because|since|so\s+that|so\s+as\s+to|in\s+order\s+to|for\s+fear|lest|due\s+to|owing\s+to|"
    r"thanks\s+to|after|therefore|hence|for\s+that\s+reason|that\s+is\s+why)\b"
    # "to" before a verb: "to honour the drowned", never "to the Cinder Stair" nor "to strangers"
    r"|\bto\s+(?!(?:the|a|an|his|her|its|their|our|my|your|this|that|these|those|him|them|me|us|it|each|"
    r"every|and|or|be|no|one|two|three)\b)[a-z]+(?<![^s]s)\b"
)
_ARTICLES = frozenset({"the", "a", "an"})
#: An amount a definition says ("half a day", "six hours", "20 metres").
_AMOUNT = re.compile(
    r"\d|\b(?:half|quarter|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen)\b",
    re.IGNORECASE,
)
#: A sentence saying the reason is not known ("Nobody knows why the sea left."): what the book says of the why.
_UNKNOWN_WHY = re.compile(
    r"\b(?:nobody|no one|none|no man|no scholar)\s+(?:\w+\s+)?(?:knows|know|knew|can say|remembers)\s+why\b"
    r"|\b(?:it is|it's|it was)\s+(?:not|un)\s*known\s+why\b|\bfor reasons? (?:unknown|no one knows)\b",
    re.IGNORECASE,
)


def _prose(results: Sequence[LoreResult], offset: int) -> list[tuple[int, str]]:
    """Return the sentences of the fact passages (Inspiration is never quoted as fact), each with its number."""
    found: list[tuple[int, str]] = []
    for number, result in enumerate(results, offset):
        if result.is_fact:
            for _, text in sections_of(result.text):
                found += [(number, s) for s in sentences(text)]
    return found


def _quoted(answer: ShortAnswer) -> list[str]:
    """Return the sentences an answer quotes, its citation marks and notes left out."""
    return [s for s in sentences(re.sub(r"\s*\[\d+\]", "", answer.text)) if s]


def _said(
    text: str, numbers: Sequence[int], facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer:
    cited = set(numbers)
    citations = [c.model_copy(update={"cited": c.number in cited}) for c in numbered(facts, results)]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def _nothing(question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult]) -> ShortAnswer:
    return ShortAnswer(
        text=nothing_known(question), mode=AnswerMode.NOTHING, known=False, citations=numbered(facts, results)
    )


def _quote(number: int, sentence: str) -> str:
    return f"{sentence.rstrip('.')}. [{number}]"


# ---- "what is X" --------------------------------------------------------------------------------------------


def _what_is(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer | None:
    term = asked_term(question) or measured_term(question)
    if term is None:
        return None
    name = term.name
    named = [(n, s) for n, s in _prose(results, len(facts) + 1) if term_named(name, s)]
    # X has an entry of its own (a heading naming it: "This spell …"): the word step's answer from it stands; one
    # quoted from another passage (a line naming X in passing) does not.
    cited = {c.number for c in answer.citations if c.cited}
    own = [r for n, r in enumerate(results, len(facts) + 1) if n in cited] if answer.known else results
    if not named or titled(name, own or results):
        return None
    quoted = _quoted(answer) if answer.known else []
    if any(defines(s, name) for s in quoted):
        return None
    found = defining(name, named)
    if term.measured and (found is None or not _AMOUNT.search(found[1])):
        return None  # a definition saying no amount tells not how long X is: the word step's answer stands
    if found is not None:
        return _said(_quote(*found), [found[0]], facts, results)
    if not term.strict or not written_as_name(name, [s for _, s in named]):
        return (
            None  # a common word (a rule's) or "what does X do": only a definition takes the answer's place
        )
    if any(of_subject(s, name) for s in quoted):
        return None  # what is known of X, said of X: it stands when nothing defines X
    found = next(((n, s) for n, s in named if of_subject(s, name)), None)
    if found is not None:
        return _said(_quote(*found), [found[0]], facts, results)
    return _nothing(question, facts, results)  # only named in passing: nothing says what X is


# ---- "why …" -------------------------------------------------------------------------------------------------


def gives_reason(sentence: str) -> bool:
    """Tell whether a sentence says a reason (because, so that, after, to do something, …)."""
    return bool(_REASON.search(sentence))


#: Words opening a clause that tells when or why something else was done ("founded *after* the town drowned").
_SUBORDINATE = frozenset(
    {"after", "because", "since", "before", "when", "once", "until", "as", "while", "lest"}
)


def _told_as_reason(sentence: str, asked: Sequence[str]) -> bool:
    """Tell whether the deed asked is itself the reason or the time of another in the sentence: the clause saying
    it opens with "after", "because", "when" … ("The fleet was founded after the old town drowned, so that …" is
    no answer to "why did the old town drown")."""
    for clause in re.split(r"[,;:—–]", sentence):
        words = fold_words(clause)
        at = next((i for i, w in enumerate(words) if any(has_word({w}, a) for a in asked)), None)
        if at is not None:
            return bool(set(words[:at]) & _SUBORDINATE)
    return False


def _about(sentence: str, names: Sequence[list[str]], asked: Sequence[str]) -> bool:
    """Tell whether a sentence names everything the question names and says its other words (a verb in any of
    its forms); of three words or more, one may be said otherwise."""
    said = set(fold_words(sentence))
    if not all(all(w in said for w in name) for name in names):
        return False
    missing = sum(not has_word(said, w) for w in asked)
    return missing == 0 or (missing == 1 and len(asked) >= 3)


def _why(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer | None:
    if not _WHY.match(question):
        return None
    typed = set(fold_words(question))
    names = [
        [w for w in fold_words(f.matched) if w not in _ARTICLES]
        for f in facts
        if f.matched and set(fold_words(f.matched)) <= typed
    ]
    named = {w for name in names for w in name}
    asked = [w for w in key_words(question) if w not in named and w != "why"]
    if not names and not asked:
        return None
    quoted = _quoted(answer) if answer.known else []
    if any((gives_reason(s) or _UNKNOWN_WHY.search(s)) and _about(s, names, asked) for s in quoted):
        return None  # the reason, or the book's word that nobody knows it
    for number, sentence in _prose(results, len(facts) + 1):
        if gives_reason(sentence) and _about(sentence, names, asked) and not _told_as_reason(sentence, asked):
            return _said(_quote(number, sentence), [number], facts, results)
    if not answer.known:
        return None
    return _nothing(question, facts, results)  # what was done, but never why: nothing known of the why


def defined_answer(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer | None:
    """Return the answer to "what is X" or "why …" from the sentence that says it, "nothing known" when the
    prose only names X or tells what was done without why, or None when the answer given stands (another form,
    or the canon graph answered)."""
    if answer.mode not in (AnswerMode.EXTRACTIVE, AnswerMode.NOTHING):
        return None
    return _what_is(question, facts, results, answer) or _why(question, facts, results, answer)


def said_as_asked(
    question: str,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    *,
    graphed: bool,
) -> ShortAnswer | None:
    """Return the answer saying what is asked in place of `answer`: what X is or why (`defined_answer`, when the
    canon graph did not answer), "nothing known" for an answer not holding the number or the name asked
    (`answer_holds`), or the canon answer opened by whose secret name the GM asked by (`answer_secret`); None
    when `answer` stands."""
    if not graphed:
        defined = defined_answer(question, facts, results, answer)
        if defined is not None:
            return defined
    if not holds_asked(question, facts, results, answer) or (
        answer.mode == AnswerMode.EXTRACTIVE and not holds_kind(question, " ".join(_quoted(answer)))
    ):
        return _nothing(question, facts, results)
    return told_secret(answer, facts)
