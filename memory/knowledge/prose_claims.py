"""Claims a Canon passage's prose makes about its own subject, read as fields: "Greyhaven's ruler is Queen Maren."

A book does not always set a fact as a field (`- **Ruler** Queen Maren`); it may say it in a sentence. Two
sentence shapes say one attribute's value plainly, the shapes the table's own words use (`canon.wording`: "the
North Gate's status is collapsed"): "<Subject>'s <attribute> is <value>." and "The <attribute> of <Subject> is
<value>.". Read as fields, a Canon source's sentence and another's field (or sentence) about the same subject can
be found to disagree (`memory.knowledge.disagreements`).

Nothing is guessed, so a sentence counts only when all of this holds: it starts with the claim; its subject is
one of the passage's headings (a passage speaks of what its headings name, as the out-of-date check reads it);
the attribute is one to three plain words; the value is a name or a number ("Queen Maren Vell", "9,000", "the
Iron Crown" is not: a lowercase word that is not a name's "of"/"the" ends the reading) and the sentence ends with
it. "Greyhaven's ruler is old and tired." says nothing this reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.fields import Field

__all__ = ["prose_fields"]

#: Present tense only: "Greyhaven's ruler was Lord Crane" tells of the past, which disagrees with nothing.
_VERB = r"(?:is|are|remains)"
_NAME_WORD = r"(?:[A-Z0-9][\w’'.,-]*)"
#: A name or a number: capitalised words (with "of", "the", "de", "von", "van" inside), or digits.
_VALUE = rf"(?P<value>{_NAME_WORD}(?:\s+(?:of|the|de|du|von|van|{_NAME_WORD}))*)"
_ATTRIBUTE = r"(?P<label>[a-z][a-z-]{1,20}(?: [a-z][a-z-]{1,20}){0,2})"
_SUBJECT = r"(?P<subject>[A-Z][\w’' -]{0,60}?)"
_POSSESSIVE = re.compile(rf"^{_SUBJECT}[’']s {_ATTRIBUTE} {_VERB} {_VALUE}[.!]$")
_OF = re.compile(rf"^The {_ATTRIBUTE} of {_SUBJECT} {_VERB} {_VALUE}[.!]$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: Words an attribute of a claim never is: a sentence with them speaks of something else.
_NOT_ATTRIBUTES = {"one", "first", "last", "best", "only", "own", "name", "story", "history", "fate"}


def prose_fields(heading_path: Sequence[str], text: str) -> list[Field]:
    """Return the claims of a passage's sentences about a subject its headings name, as fields."""
    subjects = {_fold(heading): heading for heading in heading_path if heading.strip()}
    if not subjects:
        return []
    found: list[Field] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "|", "-", "*", ">", ":")):
            continue  # headings, tables, list items and fields are read as fields already
        for sentence in _SENTENCE_END.split(stripped):
            match = _POSSESSIVE.match(sentence) or _OF.match(sentence)
            if match is None:
                continue
            subject = subjects.get(_fold(match.group("subject")))
            label = match.group("label")
            value = match.group("value").rstrip(".,")
            if subject is None or label in _NOT_ATTRIBUTES or value.split()[-1] in ("of", "the"):
                continue
            found.append(Field(subject, label, value))
    return found


def _fold(text: str) -> str:
    return " ".join(text.replace("*", "").split()).strip(" .").casefold()
