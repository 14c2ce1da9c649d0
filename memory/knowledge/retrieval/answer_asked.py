"""Who did it, when, where, how old: a sentence quoted must hold the kind of thing asked, or it is no answer.

The word step quotes the sentence holding most of a question's words; for a question the world holds no answer
to, that is a neighbour sharing them: "The Quill Mine was closed because its lower shafts filled with bad air."
for "when did the Quill Mine close", "The fleet was founded after the old town drowned, …" for "who founded
Corvelle", "Nine bells hang in the chapel, and the largest is called Old Wend." for "who cast the bell Old Wend".
So a sentence quoted is read for the kind of thing the question asks before it is given:
- who did a deed ("who founded X", "who cast the bell", a verb of a deed done): a name the question does not hold
  (a word with its capital, not opening the sentence), and, asked by its verb, the deed (a form of the verb, or a
  deed of its kind: "set" for "started" a fire);
- when a thing was done ("when did X close", "when was X built", "what year …"): a time (a number, a season, a
  part of the day or the year, "after", "before", "during", "each spring", …);
- where a thing is or was done ("where was X born", "where is the map kept"): a place (in, at, under, beside …
  a name or a thing that is no time: "at birth" is none);
- how old, far, deep, tall … ("how deep is the lake", "how far is the shore from the town"): a word of that
  measure (years, miles, feet; "shallow" says how deep); a number alone is none ("seven standing stones on the
  north shore" says nothing of how far the shore is); how far one place is from another, a number of any unit
  (the book's own: "Cindermere to Port Hollow is 6 legs") in a sentence naming both.
The rules' present tense ("when can I take a reaction", "who speaks Deep Speech") asks how a rule works, not a
deed of the story, and is left to the other steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from canon.wording.word_forms import root
from memory.knowledge.question import HOW_UNITS
from memory.knowledge.retrieval.answer_culprits import deed_said
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words

__all__ = ["Asked", "asked_kind", "holds_kind"]

_WHO = re.compile(r"^\s*who\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)
#: Verbs after "who" that ask no deed: "who is", "who can", "who does".
_NOT_DEEDS = frozenset(
    {
        *("is", "are", "was", "were", "be", "do", "does", "did", "can", "could", "will", "would", "should"),
        *("may", "might", "must", "has", "have", "had", "gets", "get", "s", "'s", "else", "knows", "know"),
    }
)
_WHEN = re.compile(
    r"^\s*(?:when\s+(?:did|was|were|had)|(?:in\s+)?what\s+year|what\s+(?:day|month|season))\b", re.I
)
_WHERE = re.compile(r"^\s*where\s+(?:was|were|did|is|are|does|do)\b", re.IGNORECASE)
#: "How deep is the lake", "how far is the shore from the town": a size or a distance of the world. "How far does
#: the spell reach" and "how long does it last" ask a rule's range or duration ("Self", "Until dispelled").
_HOW = re.compile(
    r"^\s*how\s+(?P<measure>old|deep|tall|high|wide|heavy|far(?=\s+(?:is|are|was|were)\b)|"
    r"long(?=\s+(?:is|are|was|were)\b))",
    re.IGNORECASE,
)
#: The words that say each measure asked besides the books' units (`question.HOW_UNITS`): the world's units
#: and the measure itself ("a shallow lake" says how deep it is).
_MEASURES: dict[str, tuple[str, ...]] = {
    "old": ("year", "old", "aged", "winters", "summers", "born", "young", "ancient"),
    "far": ("league", "leagues", "days", "day", "hours", "ride", "walk", "sail", "away", "near", "paces"),
    "long": ("leagues", "league", "paces", "long"),
    "deep": ("deep", "shallow", "bottomless", "leagues", "yards"),
    "tall": ("tall", "short", "high", "towering", "yards"),
    "high": ("high", "low", "tall", "towering", "yards", "miles"),
    "wide": ("wide", "narrow", "broad", "yards", "leagues"),
    "heavy": ("stone", "tons", "ton", "heavy", "light"),
}
_YEAR = re.compile(r"^\s*(?:in\s+)?what\s+year\b", re.IGNORECASE)
_TIME_WORDS = frozenset(
    {
        *(
            "year",
            "years",
            "day",
            "days",
            "month",
            "months",
            "week",
            "weeks",
            "season",
            "seasons",
            "age",
            "ages",
        ),
        *(
            "spring",
            "summer",
            "autumn",
            "fall",
            "winter",
            "dawn",
            "dusk",
            "night",
            "nights",
            "noon",
            "midnight",
        ),
        *("morning", "evening", "era", "century", "generation", "ago", "after", "before", "during", "until"),
        *("since", "when", "while", "once", "then", "later", "earlier", "first", "last", "each", "every"),
        *("reign", "time", "today", "now", "yesterday", "hour", "hours", "moment", "birth", "death", "eve"),
        *("festival", "fair", "feast", "war", "flood", "reckoning", "long", "soon", "never", "always"),
    }
)
_NUMBER = re.compile(
    r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundreds?|thousands?|dozens?|score|half|few|several|many|some)\b",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"\b(?:in|at|on|under|beneath|below|above|near|beside|by|inside|within|from|into|across|beyond|behind|among|"
    r"along|between|outside|over|around|through|toward|towards|opposite|north|south|east|west)\s+"
    r"(?:(?:the|a|an|his|her|their|its|our|my|every|each)\s+)?(?P<what>[\w'’-]+)",
    re.IGNORECASE,
)
_OPENERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "in", "on"}
)


class Asked(NamedTuple):
    """The kind of thing a question asks of a deed ("person", "time", "year", "place", or a measure: "old",
    "deep", "far", …), and the words
    naming the deed a sentence must say (a "who" question's verb; every word of "when did the town drown")."""

    kind: str
    deed: tuple[str, ...]


#: Verbs telling a deed done, not ending in "-ed" ("who built", "who cast"); "who speaks X" asks a rule, not a deed.
_PAST_FORMS = frozenset(
    {
        *(
            "built",
            "made",
            "cast",
            "set",
            "sold",
            "wrote",
            "slew",
            "gave",
            "took",
            "stole",
            "began",
            "led",
            "won",
        ),
        *(
            "lost",
            "drew",
            "hid",
            "left",
            "brought",
            "bought",
            "taught",
            "rode",
            "sent",
            "broke",
            "burnt",
            "dug",
        ),
        *("fought", "struck", "threw", "wove", "sang", "shot", "bore", "forged", "cut", "put", "let", "held"),
        *("found", "wrought", "swore", "spoke", "told", "sank", "sunk", "stabbed", "shut", "ran", "got"),
    }
)
#: Words a "when"/"where" question asks with, never of the deed: "when did it happen".
_ASKING = frozenset(
    {"when", "where", "year", "happen", "happened", "happens", "occur", "occurred", "take", "place"}
)
_PAST = re.compile(r"^\s*(?:when|where|(?:in\s+)?what\s+\w+)\s+(?:did|was|were|had)\b", re.IGNORECASE)


def asked_kind(question: str) -> Asked | None:
    """Return what a question asks of a deed of the story (see `Asked`), or None."""
    text = question.replace("’", "'")
    who = _WHO.match(text)
    if who is not None:
        verb = who["verb"].casefold()
        past = verb.endswith("ed") or verb in _PAST_FORMS
        return Asked("person", (verb,)) if past and verb not in _NOT_DEEDS else None
    deed = tuple(w for w in key_words(text) if w not in _ASKING) if _PAST.match(text) else ()
    if _YEAR.match(text):
        return Asked("year", deed)
    if _WHEN.match(text):
        return Asked("time", deed)
    if _WHERE.match(text):
        return Asked("place", deed)
    how = _HOW.match(text)
    return Asked(how["measure"].casefold(), ()) if how is not None else None


def _says_deed(sentence: str, words: Sequence[str]) -> bool:
    """Tell whether a sentence says every word naming the deed: in any of its forms (or a deed of its kind) in its
    words without a capital, or as it is in a name ("Quill" of the Quill Mine; never "drown" of the Drowning
    Fair: a name says no deed)."""
    plain = [w for w in re.findall(r"[\w'’-]+", sentence) if not w[:1].isupper()]
    said = set(fold_words(" ".join(plain)))
    roots = {root(w) for w in said}
    named = set(fold_words(sentence))
    return all(
        w in named or has_word(said, w) or root(w) in roots or deed_said(" ".join(plain), w) for w in words
    )


def _names_new(sentence: str, typed: set[str]) -> bool:
    """Tell whether a sentence says a name the question does not: a word with its capital, past its first word
    (or its first, followed by another with a capital: "Captain Oswy Rell …")."""
    words = re.findall(r"[\w'’-]+", sentence)
    for at, word in enumerate(words):
        if not word[:1].isupper() or word.casefold() in typed or word.casefold() in _OPENERS:
            continue
        if at or (len(words) > 1 and words[1][:1].isupper()):
            return True
    return False


def _says_time(sentence: str) -> bool:
    said = set(fold_words(sentence))
    return bool(_NUMBER.search(sentence)) or bool(said & _TIME_WORDS)


def _says_place(sentence: str) -> bool:
    return any(m["what"].casefold() not in _TIME_WORDS for m in _PLACE.finditer(sentence))


def holds_kind(question: str, sentence: str) -> bool:
    """Tell whether a sentence quoted holds the kind of thing the question asks (see the module docstring); True
    for a question asking none of these."""
    asked = asked_kind(question)
    if asked is None:
        return True
    if not _says_deed(sentence, asked.deed):
        return False
    if asked.kind == "person":
        return _names_new(sentence, set(fold_words(question)))
    if asked.kind == "year":
        return bool(re.search(r"\d", sentence))
    if asked.kind == "time":
        return _says_time(sentence)
    if asked.kind == "place":
        return _says_place(sentence)
    words = set(fold_words(sentence))
    if any(has_word(words, w) for w in (*HOW_UNITS[asked.kind], *_MEASURES[asked.kind])):
        return True
    return asked.kind == "far" and _between(question, sentence, words)


#: "6 legs", "three days' ride": a number and the unit after it, whatever the book measures in.
_COUNTED_UNIT = re.compile(rf"{_NUMBER.pattern}\s+[a-z][\w'’-]*", re.IGNORECASE)
#: "how far is A from B", "how far from A to B": two places, the distance between them asked.
_TWO_PLACES = re.compile(r"\b(?:from|to|and|between)\b", re.IGNORECASE)


def _between(question: str, sentence: str, words: set[str]) -> bool:
    """Tell whether a sentence says a number of some unit (the book's own: "6 legs") and names every word of the
    two places a "how far is A from B" question names (a number beside one of them says no distance)."""
    if not _TWO_PLACES.search(question) or not _COUNTED_UNIT.search(sentence):
        return False
    named = [w for w in key_words(question) if w not in ("far", "distance")]
    return len(named) >= 2 and all(has_word(words, w) for w in named)
