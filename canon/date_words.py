"""The words of typed dates: tokens, number words, ordinals and the names a calendar gives (for `date_reading`).

Pure helpers: a typed date is cut into tokens (`17th`, `frostmoon`, `363`, `+`), and the calendar's names (eras
with their abbreviations, months, seasons) are found in them as phrases, longest first.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from canon.campaign_calendar import CampaignCalendar, fold
from canon.number_words import CARDINALS, ORDINALS, TENS

_TOKEN = re.compile(r"(?<![\w])[+-]\s*\d+|\d+(?:st|nd|rd|th)(?![^\W\d_])|\d+|[^\W\d_]+|[+-]")
ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")

_UNITS = {**CARDINALS, "a": 1, "an": 1}
_TENS = TENS
_ORDINAL_WORDS = {w: n for w, n in ORDINALS.items() if n <= 12}


def tokens(text: str) -> list[str]:
    """Return a typed date's tokens, lowercase, apostrophes and dots inside abbreviations dropped."""
    clean = re.sub(r"(?<=\b[^\W\d_])\.(?=[^\W\d_]\b)|(?<=\b[^\W\d_])\.(?=\s|$|,)", "", text.casefold())
    clean = clean.replace("’", "").replace("'", "")
    return [t.replace(" ", "") for t in _TOKEN.findall(clean)]


def number_word(words: list[str], at: int) -> tuple[int, int] | None:
    """Return (value, tokens used) for a number written in words at `at` ("three", "twenty-one"), or None."""
    word = words[at]
    if word in _TENS:
        value = _TENS[word]
        if at + 1 < len(words) and words[at + 1] in _UNITS and 0 < _UNITS[words[at + 1]] < 10:
            return value + _UNITS[words[at + 1]], 2
        return value, 1
    if word in _UNITS:
        return _UNITS[word], 1
    return None


def ordinal_word(word: str) -> int | None:
    """Return the value of an ordinal written in words ("third"), or None."""
    return _ORDINAL_WORDS.get(word)


def foreign_digits(text: str) -> bool:
    """Tell whether a text writes digits other than 0-9 (full-width, Arabic-Indic, ...)."""
    return any(ch.isdigit() and not ("0" <= ch <= "9") for ch in text)


def ascii_digits(text: str) -> str:
    """Return the text with every digit written 0-9 (NFKC, then each decimal digit's value)."""
    normal = unicodedata.normalize("NFKC", text)
    return "".join(
        str(unicodedata.decimal(ch)) if ch.isdigit() and not "0" <= ch <= "9" else ch for ch in normal
    )


_ALLOWED_PUNCTUATION = set(" .,;:-+/'’_()")


def junk(text: str) -> str | None:
    """Return the first character a date never holds (a symbol, an emoji, a control character), or None."""
    for ch in text:
        if ch.isalnum() or ch in _ALLOWED_PUNCTUATION:
            continue
        return ch
    return None


@dataclass(frozen=True)
class Name:
    """One name the calendar gives: its tokens, what it names (era, month, season) and which one."""

    words: tuple[str, ...]
    kind: str
    value: str | int
    shown: str


def calendar_names(calendar: CampaignCalendar) -> list[Name]:
    """Return every name of the calendar's eras, months and seasons, longest first."""
    names: list[Name] = []
    for era in calendar.eras:
        for alias in dict.fromkeys([era.name, era.key, *era.abbreviations, *era.glossary]):
            if fold(alias):
                names.append(Name(tuple(fold(alias).split()), "era", era.key, era.name))
    for number, month in enumerate(calendar.months, start=1):
        names.append(Name(tuple(fold(month.name).split()), "month", number, month.name))
    for index, season in enumerate(calendar.seasons):
        names.append(Name(tuple(fold(season.name).split()), "season", index, season.name))
    names.sort(key=lambda n: -len(n.words))
    return names


def calendar_words(calendar: CampaignCalendar) -> frozenset[str]:
    """Return every name the calendar gives (its eras' names, keys, abbreviations and glossary terms, its months and
    seasons), each folded as the reader compares it ("lr", "lantern reckoning", "frostfall")."""
    return frozenset(" ".join(n.words) for n in calendar_names(calendar))


def find_names(words: list[str], names: list[Name]) -> tuple[list[tuple[int, Name]], list[str | None]]:
    """Return the names found in `words` (position, name), longest first, and the words with them blanked."""
    rest: list[str | None] = list(words)
    found: list[tuple[int, Name]] = []
    for name in names:
        size = len(name.words)
        at = 0
        while at + size <= len(rest):
            if tuple(rest[at : at + size]) == name.words:
                found.append((at, name))
                rest[at : at + size] = [None] * size
                at += size
            else:
                at += 1
    found.sort(key=lambda item: item[0])
    return found, rest


def nearest(
    phrase: str, names: list[Name], kinds: tuple[str, ...] = ("era", "month", "season")
) -> Name | None:
    """Return the calendar's name nearest a mistyped phrase (a typo, a letter missing), or None."""
    choices = [n for n in names if n.kind in kinds and len(" ".join(n.words)) > 2]
    if not choices or not phrase:
        return None
    best = process.extractOne(phrase, [" ".join(n.words) for n in choices], scorer=fuzz.ratio)
    if best is None or best[1] < 72:
        return None
    return choices[best[2]]
