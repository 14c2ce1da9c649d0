"""What only the GM may read, for the GM where it is the answer: the sentence of a GM-only section that says it.

The GM reads the bible whole: a `(GM only)` section reaches the GM's answer step beside the public text (a
player's never: the retriever leaves it out). The word step weighs both alike, so the GM asking "what is the
secret of the old mine" or "is the bad air in the Quill Mine real" would read the public tale, or nothing. So,
when passages only the GM may read are among those found, their sentences are read for the question:
- a sentence of such a passage answers when it, with its headings ("The Truth of the Quill Mine"), holds every
  word the question asks about (in any of its forms, or a deed of the kind asked: "set" for "started" a fire;
  not the word after "how": "how old" asks an age; a state in another word of its family, `hidden_senses`: "sick"
  said "dying of the grey cough"), at least one of them in the sentence itself;
- a question asking a secret ("what is the secret of …", "who is really behind …", "is … real", "what is wrong
  with …") asks nothing by those words;
- of several, the one saying most, then most of the words its headings do not say, then the first.
It takes the place of the answer given when that answer is "nothing known", when the question asks a secret and
that answer quotes the public prose (canon's own answer, the GM's notes' too, outranks prose), or when it says more
of the question's words than that answer; an answer quoting a GM-only passage already stands.
The sentence must hold the number or the name asked too (`answer_holds`), and the person, time, place or amount
asked of a deed (`answer_asked`).
A player's passages hold no GM-only section, so nothing here reaches a player: a player reads, word for word,
what a world that never wrote it answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from canon.wording.word_forms import root
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_asked import holds_kind
from memory.knowledge.retrieval.answer_culprits import deed_said
from memory.knowledge.retrieval.answer_holds import holds_asked
from memory.knowledge.retrieval.answer_words import asked_words, fold_words, has_word, sections_of, sentences
from memory.knowledge.retrieval.hidden_senses import same_sense

__all__ = ["asks_secret", "gm_reading"]

#: Words that ask for what is hidden, not about anything: "the *secret* of the mine", "*really* behind".
_SECRET = frozenset(
    {"secret", "secrets", "really", "truly", "actually", "truth", "true", "real", "hidden", "behind", "wrong"}
)
_CITATION = re.compile(r"\s*\[\d+\]")


class _Found(NamedTuple):
    number: int
    sentence: str
    held: int
    own: int


def asks_secret(question: str) -> bool:
    """Tell whether a question asks for what is hidden ("what is the secret of …", "who is really behind …")."""
    return bool(set(fold_words(question)) & _SECRET)


def _holds(word: str, said: set[str], roots: set[str], sentence: str) -> bool:
    # A state in other words than the question's: "sick" said "dying of the grey cough" (`hidden_senses`).
    return has_word(said, word) or root(word) in roots or deed_said(sentence, word) or same_sense(word, said)


def _best(words: Sequence[str], hidden: Sequence[tuple[int, LoreResult]]) -> _Found | None:
    """Return the GM-only sentence holding the words asked (see the module docstring), or None."""
    best: _Found | None = None
    for number, result in hidden:
        for heading, text in sections_of(result.text):
            above = set(fold_words(" ".join([*result.heading_path, heading or ""])))
            above_roots = {root(w) for w in above}
            for sentence in sentences(text):
                said = set(fold_words(sentence))
                roots = {root(w) for w in said}
                inside = [w for w in words if _holds(w, said, roots, sentence)]
                by_heading = [w for w in words if w not in inside and _holds(w, above, above_roots, "")]
                if not inside or len(inside) + len(by_heading) < len(words):
                    continue
                own = sum(not _holds(w, above, above_roots, "") for w in inside)
                found = _Found(number, sentence, len(inside) + len(by_heading), own)
                if best is None or (found.held, found.own) > (best.held, best.own):
                    best = found
    return best


def _said_by(answer: ShortAnswer, words: Sequence[str]) -> int:
    said = set(fold_words(_CITATION.sub("", answer.text)))
    roots = {root(w) for w in said}
    return sum(has_word(said, w) or root(w) in roots for w in words)


def gm_reading(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer | None:
    """Return the answer a GM-only section gives in place of `answer` (see the module docstring), or None when
    `answer` stands (always, for a player: none of their passages is GM-only)."""
    first = len(facts) + 1
    hidden = [(n, r) for n, r in enumerate(results, first) if r.hidden and r.is_fact]
    if not hidden or any(c.cited and c.number in {n for n, _ in hidden} for c in answer.citations):
        return None
    secret = asks_secret(question)
    words = [w for w in asked_words(question) if w not in _SECRET]
    if not words:
        return None
    found = _best(words, hidden)
    if found is None:
        return None
    # Canon's "names no heir" is no answer; "names no mother; Corin's parent is Pell Varn" is canon's, and stands.
    told = answer.known and (not answer.text.startswith("Nothing the table knows") or ";" in answer.text)
    # A secret asked overrules the public prose, never canon's own answer (the GM's notes are canon's).
    overrules = secret and answer.mode != AnswerMode.GRAPH
    if told and not overrules and found.held <= _said_by(answer, words):
        return None
    citations = [c.model_copy(update={"cited": c.number == found.number}) for c in numbered(facts, results)]
    text = f"{found.sentence.rstrip('.')}. [{found.number}]"
    said = ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)
    return (
        said if holds_asked(question, facts, results, said) and holds_kind(question, found.sentence) else None
    )
