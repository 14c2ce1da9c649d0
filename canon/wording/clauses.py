"""Events named by a clause ("The Gilded Eel opens", "Saltmere falls", "The king is crowned") said as a table would.

Most events are named by a noun ("Battle of Gull Rock"), which reads well in "… took place at …" or "took part in
…". A name that is a clause does not: "The Gilded Eel opens took place on 3 Frostfall" says it twice. So a clause
name opening a sentence about when or where it happened is said in the past ("The Gilded Eel opened at Quillhaven
on 3 Frostfall, …"), and inside any other sentence it is quoted as a name ("Pell Varn took part in “The Gilded
Eel opens”"). A name is a clause when a word after its first is a verb in the present, in lower case, right after
a word of the subject ("Eel opens", "king is"): "Battle at the ford" and "Tamsin's Investiture" are not.
"""

from __future__ import annotations

import re

__all__ = ["clause_verb", "is_clause", "said_of_clauses"]

#: Words a noun's name joins with, never the subject a verb follows ("Fall *of* the Tower", "Battle *at* the ford").
_JOINING = frozenset(
    {
        *("of", "the", "a", "an", "and", "or", "at", "in", "on", "to", "for", "from", "with", "by"),
        *("under", "over", "upon", "into", "against", "de", "du", "la", "le", "von", "van", "its", "his"),
        *("her", "their"),
    }
)
#: Verbs in the present said in the past otherwise than by "-ed".
_IRREGULAR = {
    "is": "was",
    "are": "were",
    "has": "had",
    "have": "had",
    "falls": "fell",
    "begins": "began",
    "comes": "came",
    "rises": "rose",
    "sinks": "sank",
    "breaks": "broke",
    "wins": "won",
    "goes": "went",
    "takes": "took",
    "meets": "met",
    "leaves": "left",
    "sets": "set",
    "gives": "gave",
    "rides": "rode",
    "weds": "wed",
    "flees": "fled",
    "burns": "burned",
    "dies": "died",
    "marries": "married",
    "returns": "returned",
    "sails": "sailed",
    "runs": "ran",
    "sees": "saw",
    "strikes": "struck",
    "speaks": "spoke",
    "wakes": "woke",
    "freezes": "froze",
    "shakes": "shook",
    "lands": "landed",
    "ends": "ended",
    "opens": "opened",
}
_NOT_VERBS = ("ss", "us", "is", "ics", "'s", "’s")


def _verb_like(word: str) -> bool:
    if word in _IRREGULAR:
        return True
    return len(word) > 3 and word.endswith("s") and not word.endswith(_NOT_VERBS)


def clause_verb(name: str) -> int | None:
    """Return the place of a clause name's verb among its words ("The Gilded Eel opens": 3), or None when the
    name is a noun's (see the module docstring)."""
    words = name.split()
    for at in range(1, len(words)):
        word, before = words[at], words[at - 1]
        if not word.islower() or before.casefold() in _JOINING or re.search(r"['’]s?$", before):
            continue
        if _verb_like(word) and (before[:1].isupper() or word in ("is", "are", "has", "have")):
            return at
    return None


def is_clause(name: str) -> bool:
    """Tell whether an event's name is a clause ("Saltmere falls"), not a noun's ("Battle of Saltmere")."""
    return clause_verb(name) is not None


def _past(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    stem = verb[:-1]
    if verb.endswith(("ches", "shes", "sses", "xes", "zes")):
        stem = verb[:-2]
    elif verb.endswith("ies"):
        return verb[:-3] + "ied"
    return stem + "d" if stem.endswith("e") else stem + "ed"


def in_the_past(name: str) -> str:
    """Return a clause name said in the past: "The Gilded Eel opens" → "The Gilded Eel opened"."""
    words = name.split()
    at = clause_verb(name)
    if at is None:
        return name
    words[at] = _past(words[at])
    return " ".join(words)


def said_of_clauses(text: str, names: list[str]) -> str:
    """Return an answer's text with each event name that is a clause said as the module docstring says: "<name>
    took place …" as the name in the past, any other mention quoted (a leading "The" in lower case inside a
    sentence is the same name)."""
    for name in sorted({n for n in names if is_clause(n)}, key=len, reverse=True):
        first, _, rest = name.partition(" ")
        spelled = (
            rf"(?:{re.escape(first)}|{re.escape(first.lower())}) {re.escape(rest)}"
            if first == "The" and rest
            else re.escape(name)
        )
        opening = re.compile(rf"(^|(?<=[.!?] )|(?<=\] )){spelled} took place ")
        past, quoted = (s.replace("\\", "\\\\") for s in (in_the_past(name), f"“{name}”"))  # replacements
        text = opening.sub(rf"\g<1>{past} ", text)
        text = re.sub(rf"(?<![“\w]){spelled}(?![”\w])", quoted, text)
    return text
