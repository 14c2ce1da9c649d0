"""Read a calendar a GM writes in sentences, as `CampaignCalendar.describe` writes it, into a calendar block.

What the calendar screen says can be typed back (and edited) as it is, on one line or several:

    This campaign's eras are the Third Age (TA, years 1–600) and the Fourth Age (FA, years 601 onwards).
    A year has 3 months: Frostmoot (30 days), Hearthmoon (30 days) and Thawmoon (31 days).
    Seasons: winter (Frostmoot and Hearthmoon), spring (Thawmoon).

and what a GM says more briefly: "Eras: Third Age (TA) from year 1 to 600", "Months: Frostmoot, Hearthmoon",
"Months have no names: a year has 12 months of 30 days", "Each month has 30 days", "Today is 3 Thawmoon, 610 FA"
(the campaign's present). A sentence that is none of
these is not guessed at: `read_prose` returns None (and the caller says what a calendar looks like).
Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

_YEAR = r"(-?\d{1,7})"
_SPAN = re.compile(
    rf"^(?:from\s+)?(?:years?\s+)?{_YEAR}\s*(?:–|-|to|until)\s*(?:year\s+)?{_YEAR}$"
    rf"|^(?:from\s+)?(?:years?\s+)?{_YEAR}\s+(?:onwards?|on)$"
    rf"|^(?:from\s+)?(?:years?\s+)?{_YEAR}$"
    rf"|^(?:years?\s+)?up\s+to\s+(?:year\s+)?{_YEAR}$"
    r"|^years\s+not\s+set$",
    re.I,
)
_VERB = r"(?:(?:runs?|ran|began|begins|starts?|started|lasts?|lasted|is|was)\s+)?"
_RANGE = rf"{_VERB}(?:from\b|years?\b|up\s+to\b|in\s+year\b|-?\d)[^()]*"
#: An entry as the calendar screen writes it: words, then one bracket ("the Tallow Years (TY, years 1–50)").
_BRACKETED = re.compile(r"^(?P<head>[^()]*)\((?P<inner>[^()]*)\)(?P<tail>[^()]*)$")
#: Where a list the calendar screen writes goes on: after a closing bracket, at a comma or an "and".
_AFTER_BRACKET = re.compile(r"(?<=\))\s*(?:,\s*(?:and\s+)?|\band\s+)", re.I)
_DAYS = re.compile(r"^(\d{1,3})\s+days?$", re.I)
_LABELS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("today", re.compile(r"^(?:today(?:'s date)?|the (?:story's )?present)(?:\s+is)?\s*:?\s+(.+)$", re.I)),
    ("no_eras", re.compile(r"^this campaign's calendar has no eras\b.*?(?:from year\s+(-?\d+))?\)?$", re.I)),
    (
        "eras",
        re.compile(r"^(?:(?:this|the) campaign'?s\s+)?(?:the\s+)?eras?(?:\s+(?:is|are))?\s*:?\s+(.+)$", re.I),
    ),
    ("unnamed", re.compile(r"^months have no names\s*:?\s*a year has (\d+) months of (\d+) days$", re.I)),
    (
        "months",
        re.compile(r"^(?:a year has \d+ months?|(?:the\s+)?months?(?:\s+(?:is|are))?)\s*:?\s+(.+)$", re.I),
    ),
    ("days", re.compile(r"^(?:each|every|a) month has (\d+) days$|^days per month\s*:?\s*(\d+)$", re.I)),
    ("seasons", re.compile(r"^(?:the\s+)?seasons?(?:\s+(?:is|are))?\s*:?\s+(.+)$", re.I)),
)


def read_prose(text: str) -> dict[str, Any] | None:
    """Return the calendar block the sentences say (eras, months, seasons ...), or None where one is not read."""
    block: dict[str, Any] = {}
    pieces = _sentences(text)
    if not pieces:
        return None
    index = 0
    while index < len(pieces):
        index = _read_from(pieces, index, block)
        if index < 0:
            return None
    return block


#: A name's short word before a full stop ("St. Aldric's Reign", "Mt. Oro", "J. Harrow", "Capt. Horne", typed small
#: as "st. aldric"): it may go on. An era's abbreviation ("610 FA.") ends its sentence.
_SHORT_WORD = re.compile(r"(?:^|\s)(?:[A-Z][a-z]{0,3}|[a-z]{1,4})$")


def _goes_on(pieces: list[tuple[str, bool]], end: int) -> bool:
    """Return whether the piece at `end` may go on past its full stop: it ends in a name's short word, and the
    piece after it is no sentence of the calendar's own ("Each month has 30 days", "Today is …")."""
    if end + 1 >= len(pieces) or not pieces[end][1] or not _SHORT_WORD.search(pieces[end][0]):
        return False
    return not any(pattern.match(pieces[end + 1][0]) for _, pattern in _LABELS)


def _read_from(pieces: list[tuple[str, bool]], index: int, block: dict[str, Any]) -> int:
    """Read the sentence starting at `index` into `block`; return where the next one starts, or -1.

    A full stop after a name's short word ("St.") may be inside the name (`_goes_on`): the pieces joined across it
    are read first, the piece alone only when they do not read."""
    joined, end = pieces[index][0], index
    tries: list[tuple[str, int]] = [(joined, end)]
    while _goes_on(pieces, end):
        end += 1
        joined = f"{joined}. {pieces[end][0]}"
        tries.append((joined, end))
    for sentence, last in reversed(tries):
        trial = {key: list(value) if isinstance(value, list) else value for key, value in block.items()}
        if _read_sentence(sentence, trial):
            block.clear()
            block.update(trial)
            return last + 1
    return -1


def _read_sentence(sentence: str, block: dict[str, Any]) -> bool:
    for label, pattern in _LABELS:
        found = pattern.match(sentence)
        if found is None:
            continue
        if label == "today":
            block["today"] = found.group(1).strip()
            return True
        if label == "no_eras":
            if found.group(1) is not None:
                block["first_year"] = int(found.group(1))
            return True
        if label == "unnamed":
            block["months_per_year"], block["days_per_month"] = int(found.group(1)), int(found.group(2))
            return True
        if label == "days":
            block["days_per_month"] = int(found.group(1) or found.group(2))
            return True
        listed = found.group(1)
        items = (
            re.split(r"\s*;\s*|,\s*(?=[^,:;()]+:)", listed)
            if label == "seasons" and ":" in listed
            else _entries(listed)
        )
        known = [str(m["name"]) for m in block.get("months", [])]
        entries = [_season(item, known) if label == "seasons" else _READERS[label](item) for item in items]
        if not entries or any(entry is None for entry in entries):
            return False
        block.setdefault(label, []).extend(entries)
        return True
    eras = [_era(item) for item in _items(sentence)]
    if eras and all(era is not None and ("start" in era or "end" in era) for era in eras):
        block.setdefault("eras", []).extend(eras)
        return True
    return False


def _era(item: str) -> dict[str, Any] | None:
    """Read one era. Words beside its bracket are its years only when they read as years: an era's name may hold
    the reader's own words ("the Tallow Years", "Kings from the North", "Run 7"), and is never cut to make them."""
    found = _BRACKETED.match(item)
    head, inner, tail = (found["head"], found["inner"], found["tail"]) if found else (item, "", "")
    inside = [p.strip() for p in inner.split(",") if p.strip()]
    if tail.strip() and _span_words(tail) is None:
        return None
    for cut in [*[m.start() for m in re.finditer(r"(?<!\S)\S", head)][1:], len(head)]:
        pre = head[cut:].strip()
        if pre and (not re.fullmatch(_RANGE, pre, re.I) or _span_words(pre) is None):
            continue
        era = _era_parts(head[:cut], [*inside, *(w for w in (pre, tail.strip()) if w)])
        if era is not None:
            return era
    return None


def _era_parts(name: str, parts: list[str]) -> dict[str, Any] | None:
    """Return the era a name and its parts say (its abbreviations, one span of years), or None."""
    era: dict[str, Any] = {"name": _name(name, era=True)}
    spans = [span for part in parts if (span := _span_words(part)) is not None]
    others = [part for part in parts if _span_words(part) is None]
    if not era["name"] or len(spans) > 1 or len(others) > 8:
        return None
    if any(not re.fullmatch(r"[A-Za-z][A-Za-z.’']{0,11}", other) for other in others):
        return None
    if others:
        era["abbreviation"] = others[0]
    if others[1:]:
        era["abbreviations"] = others[1:]
    for span in spans:
        era.update(span)
    return era


def _span_words(words: str) -> dict[str, int] | None:
    """Return the years words say ("from year 1 to 600", "years 601 onwards", "years not set"), or None."""
    span = _SPAN.match(re.sub(rf"^{_VERB}(?:in\s+)?", "", words.strip(), flags=re.I))
    if span is None:
        return None
    numbers = list(span.groups())
    if numbers[0] is not None:
        return {"start": int(numbers[0]), "end": int(numbers[1])}
    if numbers[2] is not None or numbers[3] is not None:
        return {"start": int(numbers[2] if numbers[2] is not None else numbers[3])}
    if numbers[4] is not None:
        return {"end": int(numbers[4])}
    return {}


def _month(item: str) -> dict[str, Any] | None:
    found = _BRACKETED.match(item)
    if found is not None and found["tail"].strip():
        return None
    month: dict[str, Any] = {"name": _name(found["head"] if found else item)}
    if found is not None:
        days = _DAYS.match(found["inner"].strip())
        if days is None:
            return None
        month["days"] = int(days.group(1))
    return month if month["name"] else None


def _season(item: str, known: list[str]) -> dict[str, Any] | None:
    name, _, months = item.partition("(")
    if not months:
        name, _, months = item.partition(":")
    months = months.strip().removesuffix(")")
    listed = _known_names(months, known) or [_name(m) for m in _items(months)]
    if not name.strip() or not listed or not all(listed):
        return None
    return {"name": _name(name), "months": listed}


def _known_names(text: str, known: list[str]) -> list[str] | None:
    """Read a list of the calendar's own month names ("Salt and Iron Moon and Frost"), longest name first, so
    that a name holding "and" stays whole; None when the list is not made of them alone."""
    found: list[str] = []
    rest = text.strip()
    while rest:
        name = next(
            (
                n
                for n in sorted(known, key=len, reverse=True)
                if rest.lower().startswith(n.lower())
                and re.match(r"^(?:$|\s*,\s*(?:and\s+)?|\s+and\s+)", rest[len(n) :], re.I)
            ),
            None,
        )
        if name is None:
            return None
        found.append(name)
        rest = re.sub(r"^\s*,?\s*(?:and\s+)?", "", rest[len(name) :], flags=re.I)
    return found or None


#: A name in words: letters first, then letters, digits, spaces, apostrophes, dots and hyphens (no YAML signs).
_NAME = re.compile(r"[^\W\d_][^\W_]*(?:[ .’'-]+[^\W_]+)*\.?")


def _name(text: str, *, era: bool = False) -> str:
    """Return a name as typed, or "" when it is not a name in words (brackets, colons, underscores are YAML's,
    not a calendar's). A sentence's "the Tidewater Age" is the era "The Tidewater Age" (which a sentence writes
    with a small "the"); a month or a season has no "the"."""
    text = " ".join(text.split()).strip(" ;:")
    if text.startswith("the "):
        text = f"The {text[4:]}" if era else text[4:]
    return text if _NAME.fullmatch(text) else ""


def _sentences(text: str) -> list[tuple[str, bool]]:
    """Split text into pieces at line ends and at a full stop outside brackets ("T.A." stays whole); each piece
    says whether a full stop on its line ended it (a name's "St." may go on: `_read_from`)."""
    pieces: list[tuple[str, bool]] = []
    current: list[str] = []
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        after = text[index + 1 : index + 2]
        if char == "\n" or (char == "." and depth <= 0 and (not after or after.isspace())):
            pieces.append(("".join(current).strip(), char == "." and after == " "))
            current = []
            continue
        current.append(char)
    pieces.append(("".join(current).strip(), False))
    return [(piece, stop) for piece, stop in pieces if piece]


def _entries(text: str) -> list[str]:
    """Split a list the calendar screen writes at its closing brackets, so that a name may hold "and" ("the Salt
    and Iron Years (SI, years 1–50)"); a list in other words splits as `_items` does."""
    pieces = [p.strip() for p in _AFTER_BRACKET.split(text.strip())]
    if all((found := _BRACKETED.match(p)) is not None and not found["tail"].strip() for p in pieces):
        return pieces
    return _items(text)


def _items(text: str) -> list[str]:
    """Split a list in words ("a, b and c"; "a; b") at its commas and its last "and", outside brackets."""
    parts, current, depth = [], "", 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char in ",;" and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    items: list[str] = []
    for part in parts:
        items += [p for p in re.split(r"\s+and\s+(?![^()]*\))", part) if p.strip()]
    return [i.strip() for i in items if i.strip()]


_READERS = {"eras": _era, "months": _month}
