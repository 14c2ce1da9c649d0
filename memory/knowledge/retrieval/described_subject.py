"""A question that describes its subject and asks something of it: the description and the asking apart.

"what's the CR of the demon that has the Horror Nimbus ability?", "the spell that summons an invisible guard dog -
how much damage does its bite do?", "how many times does the purple mushroom with the rotting touch attack each
turn?": the whole question, searched as one, mixes what is asked (a challenge rating, a bite's damage) with the
words describing the thing it is asked of, and neither half finds its passage. `split` finds the description, to
be searched on its own (`ask_described`), and `Described.asked` the question asked of the thing once it is named
("what's the CR of Nalfeshnee?", "how much damage does Faithful Hound's bite do?").

Two forms are read:
1. a description, then the question in a clause of its own ("the big construct bodyguard that's tied to an
   amulet can store a spell for you. what's the highest level spell it can hold?"): the description's clause
   has a relative word after its noun ("that", "which", "who", "whose", "with"), and the question's clause
   starts with a question word; a pronoun of the question ("it", "its") stands for the thing named;
2. a question with the description inside it, from its article or demonstrative to its clause's end ("... of
   the demon that has the Horror Nimbus ability"), a "with" naming one or two words of it ("the purple mushroom
   with the rotting touch"), or a demonstrative's short noun phrase before the question's last verb ("how big can
   the smoke cloud from that always-smoking bottle get").
A question that asks nothing but which thing is described ("which spell makes a zone of silence") is not split:
`answer_described` answers those.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.knowledge.models import LoreResult
from memory.knowledge.question import CHATTER, GENERIC, Question, analyse
from memory.knowledge.retrieval.answer_described import (
    LED_SHARE,
    agreed,
    content_share,
    holds_kind,
    near,
    subject_of,
    word_led,
)
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["Described", "answers_asked", "named", "split"]

_QUESTION = re.compile(
    r"^(?:how|what'?s|whats|what|which|who|whose|where|when|why|do|does|did|can|could|is|are|was|were|should"
    r"|would|will|has|have)\b",
    re.I,
)
#: Where a description's clause ends and the question's begins: a dash, an ellipsis, a sentence's end, a comma.
_CLAUSE_END = re.compile(r"\s+[-–—]+\s+|\s*(?:\.{2,}|…)\s*|[.?!;:]\s+|,\s+")
#: A noun phrase with a relative word after one to six words of it: "the spell that ...", "bug monster with ...".
_RELATIVE = re.compile(
    r"^(?:(?:the|a|an|that|this|my|our)\s+)?(?:[\w'-]+\s+){1,6}?(?:that'?s?|which|who|whose|with)\s+\S", re.I
)
#: An article or demonstrative opening a described thing inside a question, and the relative word after it.
_INSIDE = re.compile(
    r"\b(?P<det>the|that|this)\s+(?P<noun>(?:(?!(?:the|that|this|a|an)\b)[\w'-]+\s+){0,5}?[\w'-]+)\s+"
    r"(?P<rel>that|which|who|whose|with)\s+",
    re.I,
)
#: "with the rotting touch": the words a "with" names, one or two after its article.
_WITH = re.compile(
    r"^(?:(?:the|a|an|its|his|her|their)\s+)?(?P<words>[\w'-]+(?:\s+(?!(?:that|which|who|whose)\b)[\w'-]+)?)\b",
    re.I,
)
#: "how big can ... get", "how many times does ... attack": a question whose subject stands before its last verb.
_AUX_QUESTION = re.compile(
    r"^(?:how\s+(?:(?:many|much)(?:\s+[\w'-]+){1,3}?|[\w'-]+)|what(?:\s+[\w'-]+)?)\s+"
    r"(?:can|could|does|do|did|will|would)\s+",
    re.I,
)
#: "that always-smoking bottle": a demonstrative's noun phrase of one to four words.
_DEMONSTRATIVE = re.compile(r"\b(?:that|this)\s+(?P<noun>(?:[\w'-]+\s+){0,3}[\w'-]+)$", re.I)
_PRONOUNS = re.compile(r"\b(?:it|its|it's|he|his|him|she|her|they|their|them)\b", re.I)
_POSSESSIVE = frozenset({"its", "his", "her", "their"})
_PREPOSITIONS = frozenset(
    {"from", "of", "in", "on", "with", "at", "to", "by", "for", "vs", "into", "onto", "against", "about"}
)
#: The words a demonstrative follows ("from that bottle", "can that bottle"), not a noun it would relate to.
_BEFORE_DEMONSTRATIVE = _PREPOSITIONS | {"can", "could", "does", "do", "did", "will", "would"}
#: The words of a question that ask nothing of their own ("what's", "the", "of").
_ASKING_WORDS = frozenset({"what", "whats", "which", "is", "are", "s", "there", "any", "some"})


@dataclass(frozen=True, slots=True)
class Described:
    """A question split into the description of its subject and what it asks of it."""

    #: The words describing the subject: searched on their own.
    description: str
    #: The question asked, the description's place marked by `_PLACE`.
    template: str

    def asked(self, name: str) -> str:
        """Return the question asked of the thing named ("how much damage does Faithful Hound's bite do?")."""

        def pronoun(match: re.Match[str]) -> str:
            word = match.group(0).casefold()
            return f"{name}'s" if word in _POSSESSIVE else name

        if _PLACE in self.template:
            return self.template.replace(_PLACE, name)
        last = list(_PRONOUNS.finditer(self.template))[-1]  # "how hard is it to pull a friend out of it"
        return self.template[: last.start()] + pronoun(last) + self.template[last.end() :]


_PLACE = "\x00"


def split(text: str) -> Described | None:
    """Return the description a question asks something of and the question it asks (see the module docstring),
    or None when it asks nothing of a described thing."""
    said = " ".join(text.split()).rstrip("?!. ")
    if re.match(r"which\b", said, re.I):
        return None  # "which spell fills the ground with thorns that ...": which thing, `answer_described`'s
    return _clauses(said) or _inside(said)


def _asks_something(asking: str) -> bool:
    """Return whether the asking words hold a word of their own ("what's the CR of": "cr"), not just "what's"."""
    words = re.findall(r"[^\W\d_]+", asking.casefold())
    return any(w not in STOPWORDS and w not in CHATTER and w not in _ASKING_WORDS for w in words) or bool(
        re.search(r"\d", asking)
    )


def _clauses(said: str) -> Described | None:
    for end in _CLAUSE_END.finditer(said):
        head, tail = said[: end.start()].strip(), said[end.end() :].strip()
        if not head or not tail or _QUESTION.match(head) or not _QUESTION.match(tail):
            continue
        if not _RELATIVE.match(head) or not _asks_something(tail):
            return None
        if _PRONOUNS.search(tail):
            return Described(head, tail)
        return Described(head, f"{tail} of {_PLACE}")
    return None


def _inside(said: str) -> Described | None:
    if not _QUESTION.match(said):
        return None
    aux = bool(_AUX_QUESTION.match(said))
    for det in re.finditer(r"\b(?:the|that|this)\b", said, re.I):
        found = _INSIDE.match(said, det.start())
        if found is None or _demonstrative(said, found):
            continue
        start, rest = found.start(), said[found.end() :]
        clause = _CLAUSE_END.search(rest)
        stop = found.end() + (clause.start() if clause else len(rest))
        if found.group("rel").casefold() == "with":
            words = _WITH.match(rest)
            after = rest[words.end() :].lstrip() if words else ""
            if words and after and not re.match(r"(?:that|which|who|whose)\b", after, re.I):
                stop = found.end() + words.end()
        if aux and stop == len(said) and _is_word(said.rpartition(" ")[2]):
            # "how much damage does the spell that ... *do*": the last verb is the asking's
            stop = len(said.rpartition(" ")[0])
        if start and (described := _described(said, start, stop)) is not None:
            return described
    if aux:
        head, _, verb = said.rpartition(" ")
        shown = _DEMONSTRATIVE.search(head)
        before = head[: shown.start()].split()[-1:] if shown is not None else []
        if shown is not None and _is_word(verb) and before and before[0].casefold() in _BEFORE_DEMONSTRATIVE:
            return _described(said, shown.start(), len(head))
    return None


def _demonstrative(said: str, found: re.Match[str]) -> bool:
    """Return whether the relative word found is a demonstrative after a preposition ("the smoke cloud *from
    that* bottle"), not the start of a relative clause."""
    if found.group("rel").casefold() != "that":
        return False
    return said[: found.start("rel")].split()[-1].casefold() in _PREPOSITIONS


def _is_word(word: str) -> bool:
    return word.isalpha() and word.casefold() not in GENERIC


def _described(said: str, start: int, stop: int) -> Described | None:
    before, after = said[:start].rstrip(), said[stop:].lstrip()
    if not _asks_something(f"{before} {after}"):
        return None  # "what's the floating eye tyrant with ...": which thing, asked by `answer_described`
    description = said[start:stop].strip()
    template = " ".join(p for p in (before, _PLACE, after) if p)
    return Described(description, template)


def named(description: Question, results: Sequence[LoreResult], unknown: Sequence[str]) -> str | None:
    """Return the name of the thing a description's own search found (the best passage's subject), when both
    searches put it at or near the top (`answer_described.agreed`, `near`, `word_led`), it holds half the
    description's words or more and the kind it names ("the *demon* that ..."), and no capitalised word of the
    description is in no source ("the Zorbl that ...": something the books do not hold); else None."""
    if not results:
        return None
    first = results[0]
    if not first.is_fact or first.out_of_date or first.overruled:
        return None
    if not (agreed(first) or near(first) or word_led(results, description)):
        return None
    typed = re.findall(r"[^\W\d_][\w'-]*", description.text)
    if any(w[:1].isupper() and w.casefold() in unknown for w in typed):
        return None
    if content_share(description, first) < LED_SHARE:
        return None
    if not holds_kind(description.text, first):
        return None
    return subject_of(first)


def answers_asked(parts: Described, glossary: Mapping[str, str], answer: str) -> bool:
    """Return whether an answer holds a word of what is asked, beyond the description ("what's the threat of the
    hag that curdles milk": a line saying the milk curdles answers the description, not the threat)."""
    asked = analyse(parts.asked(""), glossary).expanded
    described = set(fold_words(parts.description))
    words = [
        w
        for w in fold_words(asked)
        if w not in STOPWORDS and w not in CHATTER and w not in GENERIC and w not in described
    ]
    said = fold_words(answer)
    return not words or any(akin(w, s) for w in words for s in said)
