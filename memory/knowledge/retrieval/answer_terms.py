"""What a thing or a word is, when only the bible's prose says it: the sentence that defines it.

A world bible defines far more than its cards hold: "The Greyhush is the silence that falls …", "Mirelings are
small grey-skinned folk …", "A wickwright is a craftsman who …", "In the fen-speech, "ulvo" means …",
"Ferrymen call the deepest channel the Black Throat.". It names the same things in passing far more often still:
"The Salt Road ends at the Gloam Gate." holds every word of "what is the Gloam Gate" and says nothing of the gate.
So a question asking what X is, in any of the table's forms ("what is X", "what's a X", "who are the X", "define
X", "what does X mean", "meaning of X", "what does a X do"), is answered by the sentence defining X ("X is …",
"X, a …, …", "X: …", "… called X", "X means …", "X refers to …"), X in the singular or the plural as the
question has it. When none defines it:
- X is a name the bible writes with its capital, asked "what is X": a sentence of which X is the subject ("X
  keeps a hall at …") answers; a sentence only mentioning X does not, and with none but such, nothing is known
  of what X is (the other forms leave the word step's answer be);
- X is a common word ("a wickwright", "saltglass"): the word step's answer stands (only a definition may take its
  place);
- a passage headed by X (singular or plural: "Dragons" of "a dragon") is X's own entry ("This spell …"): the
  word step's answer from it stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from memory.knowledge.models import LoreResult
from memory.knowledge.retrieval.answer_words import sections_of

__all__ = [
    "Term",
    "asked_term",
    "defines",
    "defining",
    "measured_term",
    "of_subject",
    "term_named",
    "titled",
    "written_as_name",
]

_ARTICLES = frozenset({"the", "a", "an"})
_QUOTES = "\"'“”‘’*_"
_WHAT_IS = re.compile(
    r"^\s*(?:what|wat|who)(?:\s+(?:(?:kind|sort|type)\s+of\s+[\w-]+\s+)?(?:is|are|was|were|r|counts\s+as)|'s|s)\s+"
    r"(?:(?:the|a|an)\s+)?(?P<x>[^?!.]+?)\s*[?!.]*\s*$",
    re.IGNORECASE,
)
#: "define X", "the meaning of X", "what is meant by X", "what does X mean", "what does a X do".
_MEANS = (
    re.compile(
        r"^\s*(?:define|(?:(?:what\s+is|what's|whats)\s+)?(?:the\s+)?(?:meaning|definition)\s+of|"
        r"what\s+is\s+meant\s+by)\s+(?P<x>[^?!.]+?)\s*[?!.]*\s*$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^\s*(?:what|wat)\s+(?:does|do|did)\s+(?P<x>[^?!.]+?)\s+(?:mean|stand\s+for)\s*[?!.]*\s*$",
        re.IGNORECASE,
    ),
)
_DOES = re.compile(
    r"^\s*what\s+(?:does|do)\s+(?:(?:an?|the)\s+)?(?P<x>[^?!.]+?)\s+do\s*[?!.]*\s*$", re.IGNORECASE
)
#: A word of the question that opens no name ("what is *of* …", "what are *your* …"): another form.
_NOT_NAMES = frozenset(
    {
        "of",
        "for",
        "does",
        "do",
        "did",
        "your",
        "my",
        "his",
        "her",
        "their",
        "our",
        "it",
        "this",
        "i",
        "you",
        "we",
    }
    | {"they", "he", "she", "that", "these", "those", "one"}
)
#: Words after X that ask nothing of it: "what is the Greyhush *exactly*", "what are the Mirelings *like*".
_FILLER = re.compile(
    r"\s+(?:exactly|really|actually|again|anyway|like|supposed\s+to\s+be|all\s+about|about)$", re.IGNORECASE
)
#: "the word 'ulvo'", "the term …": the word asked is what follows.
_WORD = re.compile(r"^(?:the\s+)?(?:word|term|name|phrase)\s+", re.IGNORECASE)


#: "how long is a leg", "how far is a span", "how big is a hand": what one X measures, which its definition says
#: ("A leg is half a day on foot.") when the book defines X by an amount.
_MEASURED = re.compile(
    r"^\s*how\s+(?:long|far|big|large|heavy|much|wide|deep|tall)\s+(?:is|are)\s+(?:(?:the|a|an|one)\s+)?"
    r"(?P<x>[^?!.]+?)\s*[?!.]*\s*$",
    re.IGNORECASE,
)


class Term(NamedTuple):
    """The X a question asks the meaning of, and whether a sentence only naming it is no answer (`strict`: "what
    is X"; "define X", "who are X", "what does X mean" take a definition but leave any other answer be);
    `measured`: how long (far, big) one X is, which only a definition saying an amount answers."""

    name: str
    strict: bool
    measured: bool = False


def asked_term(question: str) -> Term | None:
    """Return the X a question asks the meaning of (its article and quotes left out), or None."""
    text = question.replace("’", "'")
    for pattern, strict in ((_WHAT_IS, True), *((p, False) for p in _MEANS), (_DOES, False)):
        match = pattern.match(text)
        if match is not None:
            # "who is X": a sentence naming a person says who they are ("Its harbor master is Eliza Crane.")
            strict = strict and not text.lstrip().casefold().startswith("who")
            name = _WORD.sub("", _FILLER.sub("", match["x"].strip())).strip(_QUOTES + " ")
            name = re.sub(r"^(?:the|a|an)\s+", "", name, flags=re.IGNORECASE).strip(_QUOTES + " ")
            words = name.split()
            if words and len(words) <= 6 and words[0].casefold() not in _NOT_NAMES:
                return Term(name, strict)
            return None
    return None


def measured_term(question: str) -> Term | None:
    """Return the X a question asks how long (far, big) one of is ("how long is a leg"), or None."""
    measured = _MEASURED.match(question.replace("’", "'"))
    if measured is None:
        return None
    words = measured["x"].strip(_QUOTES + " ").split()
    if 0 < len(words) <= 3 and words[0].casefold() not in _NOT_NAMES:
        return Term(" ".join(words), False, True)
    return None


def _pattern(name: str) -> str:
    """Return a pattern finding X in a sentence: its article, quotes, hyphens or spaces between its words, the
    last word in the singular or the plural ("a mireling" of "Mirelings")."""
    words = [w for w in re.split(r"[\s-]+", name) if w]
    last = words[-1]
    stem = (
        last[:-2] if last.casefold().endswith("es") else last[:-1] if last.casefold().endswith("s") else last
    )
    ending = (
        rf"(?:{re.escape(last)}|{re.escape(stem)}(?:s|es)?)"
        if stem != last
        else rf"{re.escape(last)}(?:s|es)?"
    )
    body = r"[\s-]+".join([*(re.escape(w) for w in words[:-1]), ending])
    quote = f"[{re.escape(_QUOTES)}]*"
    return rf"(?:the\s+|a\s+|an\s+)?{quote}{body}{quote}(?:'s|’s)?"


def term_named(name: str, sentence: str) -> bool:
    """Tell whether a sentence names X."""
    return bool(re.search(rf"(?<!\w){_pattern(name)}(?!\w)", sentence, re.IGNORECASE))


def written_as_name(name: str, named: Sequence[str]) -> bool:
    """Tell whether the bible writes X as a name: a word of it with its capital, where a sentence says it."""
    pattern = re.compile(rf"(?<!\w){_pattern(name)}(?!\w)", re.IGNORECASE)
    for sentence in named:
        for match in pattern.finditer(sentence):
            words = [w for w in re.split(r"[\s-]+", match.group(0)) if w.casefold() not in _ARTICLES]
            if any(w.strip(_QUOTES)[:1].isupper() for w in words):
                return True
    return False


def titled(name: str, results: Sequence[LoreResult]) -> bool:
    """Tell whether a passage found is X's own entry: a heading of it, or of a section inside it, names X."""
    wanted = re.compile(rf"{_pattern(name)}", re.IGNORECASE)
    for result in results:
        headings = [*result.heading_path, *(h for h, _ in sections_of(result.text) if h)]
        if any(wanted.fullmatch(h.strip()) for h in headings):
            return True
    return False


def defines(sentence: str, name: str) -> bool:
    """Tell whether a sentence says what X is: "X is …", "X, a …, …", "X: …", "… called X", "X means …", "… is X"."""
    x = _pattern(name)
    return bool(
        re.match(
            rf"^{x}\s*(?:,|\(|—|–|:|\s+(?:is|are|was|were|remains|means|stands\s+for|refers\s+to)\b)",
            sentence,
            re.IGNORECASE,
        )
        or re.search(rf"\b(?:called|named|known\s+as)\s+{x}(?!\w)", sentence, re.IGNORECASE)
        # "Ferrymen call the deepest channel of the lake the Black Throat."
        or re.search(rf"\bcall(?:s)?\s+(?:[\w'’-]+\s+){{1,8}}?{x}\s*[.!]?$", sentence, re.IGNORECASE)
        or re.search(rf"(?<!\w){x}\s+(?:is|are|was|were)\s+(?:a|an|the|one)\b", sentence, re.IGNORECASE)
        or re.search(rf"(?<!\w){x}\s+(?:means|refers\s+to|stands\s+for)\b", sentence, re.IGNORECASE)
        # "The longest night of the year, the 1st of Thaw, is the Night of Lamps.": X said last, after "is"
        or re.search(rf"\s(?:is|are|was|were)\s+{x}\s*[.!]?$", sentence, re.IGNORECASE)
    )


def of_subject(sentence: str, name: str) -> bool:
    """Tell whether X is what a sentence is about: it opens the sentence ("The Order of the Lamp left …")."""
    return bool(re.match(rf"^{_pattern(name)}(?!\w)", sentence, re.IGNORECASE))


def defining(name: str, prose: Sequence[tuple[int, str]]) -> tuple[int, str] | None:
    """Return the first sentence (with its passage's number) that defines X, or None."""
    return next(((n, s) for n, s in prose if term_named(name, s) and defines(s, name)), None)
