"""Lines of a book that are fields, each kept a line of its own (a PDF page's lines, an HTML paragraph's lines
set with line breaks): a price list's dotted leader ("Desalter kit
..... 25 sh"), a bold label ("**Armour:** 0"), a label and a dash ("Wounds — 14"), a definition's value under its
label ("Armour" then ": 0"). Read as prose they would run together into one paragraph, and a line's field would no
longer be told from the next one's (`memory.knowledge.fields` reads fields line by line). Pure.
"""

from __future__ import annotations

import re

__all__ = ["LEADER", "definition_of", "ends_sentence", "starts_field"]

#: A dotted leader between an entry and its value: "Rope ..... 2 sh", "Rope . . . . 2 sh", "Rope … 2 sh".
LEADER = re.compile(r"^(?P<name>\S.{0,80}?)\s*(?:\.{3,}|(?:\.\s){3,}\.?|…+)\s*(?P<value>[^.\s].{0,40})$")
#: A bold label closed by a colon ("**Armour:** 0", "**Armour**: 0", "**Armour** : 0").
_BOLD_COLON = re.compile(r"^\*\*[^*]{1,60}?(?::\*\*|\*\*\s?:)\s*\S")
#: A bold label closed by a full stop ("**Determine surprise.** The GM ...").
_BOLD_STOP = re.compile(r"^\*\*[^*]{1,60}?(?:\.\*\*|\*\*\s?\.)\s*\S")
#: A label of one to four words and a dash: "Wounds — 14", "Attack – Bite, 2 damage".
_DASHED = re.compile(r"^[A-Z][\w'’()-]*(?: [\w'’()-]+){0,3} [—–] \S")
#: The end of a sentence (or of a clause a line may end on).
_SENTENCE_END = re.compile(r"[.!?:;\"”’)\]]\**$")
#: The longest label a definition's value line (": 0") is joined to.
LABEL_CHARS = 40


def starts_field(text: str, before: str, sentence_ended: bool) -> bool:
    """Return whether a line starts a field of its own, after the line `before` (the paragraph's last)."""
    if LEADER.match(text) or LEADER.match(before):
        return True  # a price list's every line is its own, and so is the line after its last
    if _BOLD_COLON.match(text) or _DASHED.match(text):
        return True
    return sentence_ended and bool(_BOLD_STOP.match(text))


def definition_of(text: str, before: str) -> str | None:
    """Return a definition's label and value as one line ("Armour: 0"), when `text` is a value line (": 0")
    under a short label (`before`), else None."""
    if not text.startswith(":") or not before or len(before) > LABEL_CHARS or before[-1:] in ".!?:;":
        return None
    return f"{before}: {text[1:].strip()}"


def ends_sentence(text: str) -> bool:
    """Return whether a line ends a sentence (or a clause: a colon, a semicolon, a closing bracket)."""
    return bool(_SENTENCE_END.search(text))
