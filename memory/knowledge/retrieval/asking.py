"""The words a question asks with, read through a typo: "whos wenna marrid to", "wher was ansel born".

A table types fast: the words that say what is asked ("married", "where", "parents", "alive") come misspelt as often
as the names do, and an answer rule that looks for "married" finds nothing in "marrid". A question's word that is
one slip from exactly one word of `ASKING` (a letter dropped, two neighbours swapped, and in a longer word a letter
added or changed) is read as that word, unless it is a word in its own right here:
- a word of `ASKING` or a stopword ("own" is not "won"), or typed with a capital (a name: "Alve"), or the second
  word of an asking word of two ("old man": "how man" is still "how many");
- a word of a name the asker may see in canon ("mary" when the campaign has a Mary), or of a source the asker may
  read (the retriever's check, `Retriever.respelled`).
"hwo", a slip of both "who" and "how", is read by the word after it; "were did he die" is "where did he die".
The words it may become are this fixed list, never a campaign's: nothing hidden decides what a word is read as.
Pure.
"""

from __future__ import annotations

import functools
import re

from rapidfuzz.distance import OSA

from memory.fulltext import STOPWORDS

__all__ = ["ASKING", "as_of_today", "misspelt", "were_where"]

_ASKING_TEXT = """
    who whom whose what when where which why how
    alive living live lives lived dead death died die dies dying killed kill kills murdered slain
    born birth birthday married marry marries marriage wed wedded wife wives husband husbands spouse widow widower
    father mother parent parents son sons daughter daughters child children brother brothers sister sisters
    sibling siblings uncle aunt cousin cousins grandfather grandmother grandson granddaughter nephew niece heir
    family related dad mom mum missus hubby kid kids grandkids grandchildren maiden origin originally
    lead leads led leader leaders leading rule rules ruled ruler rulers ruling reign reigns reigned king queen
    lord lady command commands commanded commander found founded founder member members belong belongs
    located location happened happen happens battle battles treaty terms winner fought fight war siege
    old older oldest elder eldest younger youngest age aged
    many much population people still ever name named called capital region prisoner held imprisoned
"""
#: The words questions ask with, in every form a question uses them: a real word here is never "corrected".
ASKING = frozenset(_ASKING_TEXT.split())

_WORD = re.compile(r"[^\W\d_]+")
#: Asking words of two, whose second word alone may be a slip of another ("man" of "many"): "old man", a father.
_TWO_WORDS = frozenset({("old", "man")})
#: Each slip's shortest typed word read as a typo (a changed letter in a short word most often makes another word).
_DROPPED, _SWAPPED, _ADDED, _CHANGED = 3, 3, 5, 6


def _slip(typed: str, word: str) -> bool:
    """Return whether `typed` is one slip from `word` of a kind long enough to read as a typo of it."""
    if OSA.distance(typed, word, score_cutoff=1) > 1:
        return False
    if len(typed) == len(word) - 1:
        return len(typed) >= _DROPPED and typed[0] == word[0]
    if len(typed) == len(word) + 1:
        return len(typed) >= _ADDED and typed[0] == word[0]
    if sorted(typed) == sorted(word):
        return len(typed) >= _SWAPPED
    return len(typed) >= _CHANGED and typed[0] == word[0]


#: The words after "how" rather than "who" ("hwo many", "hwo old"): a slip of both is read by what follows it.
_AFTER_HOW = frozenset(
    ["do", "does", "did", "many", "much", "old", "long", "far", "big", "tall", "often", "come", "can"]
)
#: "were did he die": "were" before a verb asking, at the start of a question, is "where".
_WERE = re.compile(r"(?i)^(\W*)(w)ere(?=\s+(?:did|does|do|is|was|are|can|could|would|will|should)\b)")


@functools.lru_cache(maxsize=4096)
def _slips(typed: str) -> frozenset[str]:
    """Return the asking words a typed word is one slip from (kept: a question's words come back)."""
    return frozenset(word for word in ASKING if _slip(typed, word))


def misspelt(question: str) -> dict[str, str]:
    """Return {typed word: the asking word it is one slip from} for a question's lowercase words (see above)."""
    found: dict[str, str] = {}
    words = _WORD.findall(question)
    for at, typed in enumerate(words):
        if (
            typed in found
            or typed != typed.lower()
            or typed in ASKING
            or typed in STOPWORDS
            or len(typed) < 3
            or (at > 0 and (words[at - 1].lower(), typed) in _TWO_WORDS)
        ):
            continue
        close = set(_slips(typed))
        if close == {"who", "how"}:  # "hwo": by the word after it
            close = {"how" if at + 1 < len(words) and words[at + 1].lower() in _AFTER_HOW else "who"}
        if len(close) == 1:
            found[typed] = close.pop()
    return found


def were_where(question: str) -> str:
    """Return a question opening "were did …" as "where did …" (any other "were" stays)."""
    return _WERE.sub(lambda m: f"{m[1]}{m[2]}here", question)


#: A time word at a question's end, "as of today": "what's Tamsin's title now?", "where does she live these days".
_NOW_AT_END = re.compile(
    r"(?:,?\s+(?:right\s+now|now|these\s+days|nowadays|currently|presently|at\s+the\s+moment|at\s+present"
    r"|today))+(\s*[?.!]*\s*)$",
    re.IGNORECASE,
)
#: One before the verb: "where does she currently live", "who now rules Harl".
_NOW_BEFORE = re.compile(r"(?<=\w)\s+(?:now|nowadays|currently|presently)(?=\s+[a-z])")
#: A question of the date or the calendar keeps its "today" ("what is the date today").
_ASKS_DATE = re.compile(
    r"(?i)\b(?:date|day|days|year|years|month|season|week|time|era|calendar)\b|^\W*(?:what|which)(?:\s+is|'s)\s+today"
)


def as_of_today(question: str) -> str:
    """Return a question with its time words dropped ("now", "these days", "currently", "at the moment", "today"),
    at its end or before the verb: canon's answer is the one of today. A question of the date keeps them."""
    if _ASKS_DATE.search(re.sub(r"(?i)\bthese\s+days\b", "", question)):
        return question
    return _NOW_BEFORE.sub("", _NOW_AT_END.sub(r"\1", question))
