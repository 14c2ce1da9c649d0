"""Continuity warnings as one plain sentence: dates in the calendar's words, relations as words, no jargon.

`canon.continuity` writes each finding's message with its dates as keys (they are stored, and compared by
tests); this says it for the table. Messages stored before the rules spoke plainly ("a change the ontology
does not allow; it would need via resurrection") read plainly too.
"""

from __future__ import annotations

import re

from canon.wording.context import PLAIN, Wording
from canon.wording.relations import constants_in_words

_OLD_PHRASES = (
    (re.compile(r", a change the ontology does not allow"), ", which this world's rules do not allow"),
    (re.compile(r" \(not even via (?P<via>[\w -]+)\)"), r" (not even through a \g<via>)"),
    (re.compile(r"; it would need via (?P<via>[\w -]+)"), r"; it would need a \g<via>"),
    (re.compile(r"\bthe ontology\b"), "this world's rules"),
    (re.compile(r"\bontology\b"), "world's rules"),
)


def warning_sentence(message: str, words: Wording = PLAIN) -> str:
    """Return a continuity finding's message for the table (the text is escaped for where it is shown)."""
    text = words.calendar.in_words(message)
    for pattern, plain in _OLD_PHRASES:
        text = pattern.sub(plain, text)
    return words.escape(constants_in_words(text))
