"""How many a value says, as a range: "2400", "about 12,000 dwarves", "forty thousand", "a few hundred souls".

Values are kept as the table wrote them (a place's `population`, an `age`, an `area`), so two of them are compared
by the amounts they say: a range, from its least to its most, for words that give no one number ("a few hundred"
is 200 to 999). Two ranges that overlap say nothing of which is more; the unit a value gives after its number
("square miles") must be the same on both sides (`unit`).
"""

from __future__ import annotations

import re

from canon.number_words import CARDINALS, TENS

__all__ = ["amount", "unit"]

_UNITS = {**CARDINALS, "a": 1, "an": 1, **TENS}
#: Words saying some, not how many: "a few", "several", "hundreds of".
_SOME = {"few": (2, 9), "several": (3, 9), "many": (5, 9)}
_TIMES = {
    "hundred": 100,
    "hundreds": 100,
    "thousand": 1000,
    "thousands": 1000,
    "million": 1_000_000,
    "dozen": 12,
}
_TIMES |= {"millions": 1_000_000, "dozens": 12, "score": 20}
#: Words before an amount that leave it as it is ("about 300", "some forty", "nearly a thousand").
_WORD = re.compile(r"\d[\d,]*(?:\.\d+)?|[a-z]+")


def amount(text: str) -> tuple[float, float] | None:
    """Return the least and the most the first amount of a text says, or None when it says none."""
    low = high = 0.0  # thousands and millions said so far
    group: tuple[float, float] | None = None  # the amount below a thousand being read
    article = False  # "a" or "an": one, when a multiplier or "few" follows
    for word in _WORD.findall(text.casefold()):
        started = group is not None or low > 0
        if word[0].isdigit() and not started:
            value = float(word.replace(",", ""))
            group = (value, value)
        elif (
            word in _UNITS and word not in ("a", "an") and not (group and group[0] % 10 == 0 < group[0] < 20)
        ):
            value = float(_UNITS[word])
            group = (group[0] + value, group[1] + value) if group and group[0] >= 20 else (value, value)
        elif word in _SOME:
            group = (float(_SOME[word][0]), float(_SOME[word][1]))
        elif word in _TIMES and (started or article or word.endswith("s")):
            times = _TIMES[word]
            base = group or ((2.0, 9.0) if word.endswith("s") else (1.0, 1.0))  # "hundreds of": 200 to 999
            spread = times - 1 if base[0] != base[1] else 0  # "a few hundred" reaches 999
            if times >= 1000:
                low, high, group = low + base[0] * times, high + base[1] * times + spread, None
            else:
                group = (base[0] * times, base[1] * times + spread)
        elif word in ("a", "an") and not started:
            article = True
            continue
        elif started and word != "and":
            break
        article = False
    if group is None and low == 0:
        return None
    if group is not None:
        low, high = low + group[0], high + group[1]
    return low, high


def unit(text: str) -> str:
    """Return the words a value gives after its amount ("square miles" of "40 square miles"), without people's
    words, or nothing."""
    after = re.split(r"\d[\d,]*(?:\.\d+)?", text.casefold(), maxsplit=1)
    words = [w for w in re.findall(r"[a-z]+", after[1]) if w not in _TIMES] if len(after) > 1 else []
    return " ".join(words[:2])
