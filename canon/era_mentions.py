"""Where free text names an era: its dates ("in the 52nd year of the Sunken Reign", "52 SR") and its name alone.

Pure matching for the rule `canon.visibility.era_text_seen` applies: a text a GM or a model wrote (a fact typed as
text, an event's description, a scene's summary) may name an era hidden from its reader. `EraMentions` is built
once from the hidden eras' names (their names, keys, abbreviations and glossary terms) and the calendar's months:

- a date in one of them, in any of the forms the table writes ("year 52 of the Sunken Reign", "the 52nd year of
  the Sunken Reign", "52 SR", "SR 52", "3 Rainmoot, year 52 of …"), with the preposition before it, is a date;
- "in" (or "during", "under", "throughout") an era named in full is a date too ("during the Sunken Reign");
- any other mention of a name of more than one word (or of a key) is the era named: the sentence holding it is
  about the era. A one-word name or an abbreviation is a common word ("the Dawn", "SR"): it names the era only
  with its year next to it.

Names match as whole words and phrases, whatever their case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

_NUMBER = r"\d+(?:st|nd|rd|th)?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_THE = r"(?:the\s+)?"
#: A preposition whose date reads "at an unknown time"; other prepositions keep their word before "an unknown date".
AT_WORDS = frozenset({"in", "during", "on", "at", "throughout", "under"})
_PREPOSITIONS = (*sorted(AT_WORDS), "since", "until", "till", "before", "after", "from", "by")


def _phrase(name: str) -> str:
    """Return a name as a pattern: its words with any spacing between them ("the" before it is matched apart)."""
    words = name.split()
    if words and words[0].casefold() == "the" and len(words) > 1:
        words = words[1:]
    return r"\s+".join(re.escape(w) for w in words)


def strong(name: str) -> bool:
    """Tell whether a name names its era wherever it stands: more than one word, or a key (`sunken_reign`)."""
    words = name.split()
    if words and words[0].casefold() == "the":
        words = words[1:]
    return len(words) > 1 or "_" in name


@dataclass(frozen=True)
class EraMentions:
    """The patterns of some eras' mentions in free text (see the module docstring)."""

    dates: re.Pattern[str]
    named: re.Pattern[str] | None

    def date_words(self, match: re.Match[str]) -> str:
        """Return the words a matched date is said in: a date nobody knows, after its preposition."""
        prep = (match["prep"] or match["at"] or "").casefold()
        said = "at an unknown time" if prep in AT_WORDS else f"{prep} an unknown date".strip()
        return said[0].upper() + said[1:] if match[0][:1].isupper() else said


def era_mentions(names: Iterable[str], months: Iterable[str] = ()) -> EraMentions | None:
    """Return the patterns of these eras' names (None without a name), their dates read with these months."""
    return _built(tuple(sorted({n.strip() for n in names if n.strip()})), tuple(m for m in months if m))


@lru_cache(maxsize=64)
def _built(names: tuple[str, ...], months: tuple[str, ...]) -> EraMentions | None:
    phrases = sorted({_phrase(n) for n in names if _phrase(n)}, key=len, reverse=True)
    if not phrases:
        return None
    era = _THE + "(?:" + "|".join(phrases) + ")"
    month = (
        "(?:" + "|".join(_phrase(m) for m in sorted(months, key=len, reverse=True)) + ")" if months else None
    )
    day_month = (
        rf"(?:(?:(?:the\s+)?{_DAY}(?:\s+of)?\s+{month}|{month}\s+{_DAY}|{month})(?:\s*,\s*|\s+of\s+|\s+))?"
        if month
        else ""
    )
    core = (
        rf"(?:{_THE}{_NUMBER}\s+year\s+of\s+{era}"  # the 52nd year of the Sunken Reign
        rf"|(?:year\s+)?{_NUMBER}\s+(?:of\s+)?{era}"  # year 52 of the Sunken Reign, 52 SR
        rf"|{era}\s*,?\s+(?:year\s+)?\d+)"  # SR 52, the Sunken Reign, year 52
    )
    prep = r"(?:(?P<prep>" + "|".join(_PREPOSITIONS) + r")\s+)?"
    full = sorted({_phrase(n) for n in names if strong(n)}, key=len, reverse=True)
    whole = "(?:" + "|".join(full) + ")" if full else None
    during = rf"|(?P<at>{'|'.join(sorted(AT_WORDS))})\s+{_THE}{whole}" if whole else ""
    dates = re.compile(rf"(?<![\w.])(?:{prep}{day_month}{core}{during})(?!\w)", re.IGNORECASE)
    named = re.compile(rf"(?<!\w){_THE}{whole}(?!\w)", re.IGNORECASE) if whole else None
    return EraMentions(dates, named)
