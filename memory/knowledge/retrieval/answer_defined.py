"""What a named thing is, and why something was done: the sentence that says it, never one that only names it.

A world bible names a thing in passing far more often than it says what the thing is: "The Salt Road ends at the
Gloam Gate." holds every word of "what is the Gloam Gate", and so the word step may quote it, though it says
nothing of what the gate is. So, when the prose answers (the canon graph did not: a card's description outranks
any sentence), two forms are read again over the sentences of the passages the asker may read:
- "what is X", X a name (written with a capital in the bible): the sentence defining X answers ("X is …",
  "X, a …, …", "… called X"); else one of which X is the subject ("X keeps a hall at …"); a sentence that only
  mentions X is no answer, and with none but such, nothing is known of what X is (a passage headed by X is X's
  own entry, "This spell …": the word step's answer from it stands);
- "why did X …": a sentence naming what the question names and saying its other words (a verb in any of its
  forms: "left" for "leave") with a reason (because, since, so that, in order to, for fear of, after, to do
  something); a sentence that says what was done without why is no answer, and with none, nothing is known of the
  why.
An answer must also hold the number or the name a question asks (`answer_holds`), and the GM asking by a secret
name is told whose it is (`answer_secret`): `said_as_asked` applies all three.
Only what the asker may see reaches this module (the retriever filtered it), so a GM-only section answers the GM
alone, and to a player the answer reads as of a world that never wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import nothing_known, numbered
from memory.knowledge.retrieval.answer_holds import holds_asked
from memory.knowledge.retrieval.answer_secret import told_secret
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sections_of, sentences

__all__ = ["defined_answer", "gives_reason", "said_as_asked"]

_WHAT_IS = re.compile(
    r"^\s*(?:what|wat)(?:\s+(?:is|are|was|were)|'s|’s|s)\s+(?:(?:the|a|an)\s+)?(?P<x>[^?!.]+?)\s*[?!.]*\s*$",
    re.IGNORECASE,
)
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


def _asked_name(question: str) -> str | None:
    """Return the X of "what is X" (its article left out), or None for another form."""
    match = _WHAT_IS.match(question.replace("’", "'"))
    if match is None:
        return None
    name = match["x"].strip()
    words = name.split()
    if not words or len(words) > 6 or any(w.casefold() in ("of", "for", "does", "do") for w in words[:1]):
        return None
    return name


def _name_pattern(name: str) -> str:
    words = [re.escape(w) for w in name.split()]
    return r"(?:the\s+|a\s+|an\s+)?" + r"\s+".join(words) + r"(?:'s|’s)?"


def _written_as_name(name: str, prose: Sequence[tuple[int, str]]) -> bool:
    """Tell whether the bible writes X as a name: a word of it with its capital, where a sentence says it."""
    pattern = re.compile(rf"\b{_name_pattern(name)}\b", re.IGNORECASE)
    for _, sentence in prose:
        for match in pattern.finditer(sentence):
            words = [w for w in match.group(0).split() if w.casefold() not in _ARTICLES]
            if any(w[:1].isupper() for w in words):
                return True
    return False


def _titled(name: str, results: Sequence[LoreResult]) -> bool:
    """Tell whether a passage found is X's own entry: a heading of it, or of a section inside it, names X."""
    wanted = _unarticled(name)
    for result in results:
        headings = [*result.heading_path, *(h for h, _ in sections_of(result.text) if h)]
        if any(_unarticled(h) == wanted for h in headings):
            return True
    return False


def _unarticled(text: str) -> str:
    return " ".join(w for w in fold_words(text) if w not in _ARTICLES)


def _defines(sentence: str, name: str) -> bool:
    """Tell whether a sentence says what X is: "X is …", "X, a …, …", "… called X", "X (…)"."""
    x = _name_pattern(name)
    return bool(
        re.match(
            rf"^{x}\s*(?:,|\(|—|–|:|\s+(?:is|are|was|were|remains|means|stands\s+for)\b)", sentence, re.I
        )
        or re.search(rf"\b(?:called|named|known\s+as)\s+{x}\b", sentence, re.I)
        or re.search(rf"\b{x}\s+(?:is|are|was|were)\s+(?:a|an|the|one)\b", sentence, re.I)
    )


def _of_subject(sentence: str, name: str) -> bool:
    """Tell whether X is what a sentence is about: it opens the sentence ("The Order of the Lamp left …")."""
    return bool(re.match(rf"^{_name_pattern(name)}\b", sentence, re.I))


def _what_is(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer | None:
    name = _asked_name(question)
    if name is None:
        return None
    prose = _prose(results, len(facts) + 1)
    named = [(n, s) for n, s in prose if re.search(rf"\b{_name_pattern(name)}\b", s, re.I)]
    if not named or not _written_as_name(name, named) or _titled(name, results):
        # Not a name the bible writes (a rule's common words), or X has an entry of its own (a heading naming
        # it: its sentences say "This spell …"): the word step's answer stands.
        return None
    quoted = _quoted(answer) if answer.known else []
    if any(_defines(s, name) for s in quoted):
        return None
    for test in (_defines, _of_subject):
        if test is _of_subject and any(_of_subject(s, name) for s in quoted):
            return None  # what is known of X, said of X: it stands when nothing defines X
        found = [(n, s) for n, s in named if test(s, name)]
        if found:
            return _said(_quote(*found[0]), [found[0][0]], facts, results)
    return _nothing(question, facts, results)  # only named in passing: nothing says what X is


# ---- "why …" -------------------------------------------------------------------------------------------------


def gives_reason(sentence: str) -> bool:
    """Tell whether a sentence says a reason (because, so that, after, to do something, …)."""
    return bool(_REASON.search(sentence))


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
    if any(gives_reason(s) and _about(s, names, asked) for s in quoted):
        return None
    for number, sentence in _prose(results, len(facts) + 1):
        if gives_reason(sentence) and _about(sentence, names, asked):
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
    if not holds_asked(question, facts, results, answer):
        return _nothing(question, facts, results)
    return told_secret(answer, facts)
