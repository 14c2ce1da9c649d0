"""Fields of a passage: the stat-block lines, bold-led entries, definitions and table cells it holds.

A book states many facts as fields of its section's subject rather than as sentences: `- **Armor Class** 17`
under `## Aboleth`, `Range: 150 feet` under a spell, a definition list (`Hit Dice` / `: 2d8`), a table row
(`| Longsword | 15 gp | 3 lb. |`; a two-column table headed `| Stat | Value |` holds its section's own fields).
A table of one row under a header of labels (`| Wade | Hark |` then `| 3 | 4 |`) is its section's stat line; a
bold label run on after a sentence ("They hunt in packs. **Bounty:** 6 gl a head.") is a field; a price list set
as a table without a header (`|  |  |`, then `| Cutting torch | 15 gl |`) gives each entry its cost.
`fields_of` reads them all as `Field(subject, label, value)`, whatever the book's layout, so an answer can pick
the field asked instead of a nearby line. The italic line just under a heading ("*3rd-level evocation*", "*Large
aberration, lawful evil*") is the entry's kind line (`memory.knowledge.question.KIND_LINE`).

They are read once, at import, from the chunk's heading path and text (`read_fields`; any reader that makes
chunks of headed text gets them) and kept with the chunk (`knowledge_chunks.fields`); `fields_of` uses the kept
ones and reads a chunk imported before they were kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.knowledge.field_lines import line_fields, price_field
from memory.knowledge.models import LoreResult

__all__ = ["Field", "fields_from_rows", "fields_of", "fields_to_rows", "read_fields"]

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
#: `- **Label** value`, `**Label:** value`, `- **Label**: value`, `***Label.*** value`, `**Label** : value`.
_BOLD = re.compile(r"^\s*(?:[-*+•]\s+)?\*{2,3}([^*]{1,60}?)[.:]?\*{2,3}(?:\s?[.:])?\s+(.+)$")
#: A bold label after a sentence of a paragraph, its value up to the next such label or the paragraph's end:
#: "They hunt in packs. **Bounty:** 6 gl a head."
_RUN_IN = re.compile(
    r"(?<=[.!?])\s+\*\*([A-Z][^*.!?]{0,40}?):\*\*\s+(\S.*?)(?=\s+\*\*[A-Z][^*.!?]{0,40}?:\*\*|$)"
)
#: `Label: value` on its own line (a label of one to four words, starting with a capital).
_COLON = re.compile(r"^\s*(?:[-*+•]\s+)?([A-Z][\w'’()/-]*(?: [\w'’()/-]+){0,3}):\s+(.+)$")
#: A definition list's value line (`: value`, under its label).
_DEFINITION = re.compile(r"^\s*:\s+(.+)$")
#: An indented line that is no item, row or heading of its own: the line before it, wrapped.
_WRAPPED = re.compile(r"^\s{2,}(?![-*+•|#:]\s)\S")
_ITALIC = re.compile(r"^\s*[*_]([^*_].*?)[*_]\s*$")
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
#: A cell that is a value, not a row's name: a number, a signed number, dice.
_VALUE_FIRST = re.compile(r"^[+−-]?\d[\d.,/]*(?:d\d+)?\b")
_RULE = re.compile(r"^[\s|:-]*-[\s|:-]*$")
#: A two-column table headed like these lists its section's own fields, a label and a value a row
#: (`| Stat | Value |` then `| Hull | 40 |`): the section's subject has them.
_KEY_HEADS = frozenset(
    {"", "stat", "stats", "statistic", "attribute", "property", "trait", "field", "key", "name"}
)
_VALUE_HEADS = frozenset({"", "value", "values", "score", "amount", "rating", "number"})
KIND = "kind"


@dataclass(frozen=True, slots=True)
class Field:
    """One field: what it is about (the section's subject), its label and its value as written."""

    subject: str
    label: str
    value: str


def _filled_row(line: str) -> bool:
    """Return whether a line is a table's row with a cell that says something (not a rule, not left blank)."""
    row = _ROW.match(line)
    return row is not None and not _RULE.match(line) and any(_clean(c) for c in row.group(1).split("|"))


def _clean(text: str) -> str:
    return " ".join(text.replace("**", "").replace("*", "").replace("`", "").split()).strip()


#: A bold label's words going on before an equals sign: "**Strain** limit = Nerve + 3" labels "Strain limit".
_FORMULA = re.compile(r"^(?P<more>[a-z][a-z'’-]*(?: [a-z][a-z'’-]*){0,2})?\s*=\s*(?P<value>\S.*)$")


def _formula(found: Field) -> Field:
    """Return a bold-led field stated as a formula with its label whole and its value after the equals sign
    ("**Wounds** = Grit × 2 + 4": Wounds, "Grit × 2 + 4"), else the field as it is."""
    formula = _FORMULA.match(found.value)
    if formula is None:
        return found
    label = f"{found.label} {formula.group('more')}" if formula.group("more") else found.label
    return Field(found.subject, label, formula.group("value"))


def fields_to_rows(fields: Sequence[Field]) -> list[list[str]]:
    """Return fields as stored with a chunk: [subject, label, value] each."""
    return [[f.subject, f.label, f.value] for f in fields]


def fields_from_rows(rows: Sequence[Sequence[str]], title: str) -> list[Field]:
    """Return stored fields; a field of no heading is about the source (`title`)."""
    return [Field(subject or title, label, value) for subject, label, value in rows]


def fields_of(result: LoreResult) -> list[Field]:
    """Return the fields a passage holds: those kept at import, else read from its text now."""
    if result.stored_fields is not None:
        return fields_from_rows(result.stored_fields, result.source_title)
    return read_fields(result.heading_path, result.text, result.source_title)


def read_fields(heading_path: Sequence[str], text: str, title: str = "") -> list[Field]:
    """Return the fields a chunk's text holds, each with the heading it is under as its subject.

    Fields before any heading are about `title` (empty at import: the source's title is filled in when read).
    """
    subject = next((h for h in reversed(heading_path) if h), title)
    found: list[Field] = []
    header: list[str] | None = None
    previous = ""
    just_headed = True
    wrapped = False  # the line before was a bullet's field, which an indented line goes on with
    lines = text.splitlines()
    body_rows = 0  # the rows read so far under the table's header
    for number, raw in enumerate(lines):
        line = raw.rstrip()
        if not line.strip():
            header = None if not line.strip() and header is not None and previous.startswith("|") else header
            previous, wrapped = "", False
            continue
        heading = _HEADING.match(line)
        if heading:
            subject, header, previous, just_headed = _clean(heading.group(1)), None, "", True
            wrapped = False
            continue
        row = _ROW.match(line)
        if row:
            wrapped = False
            cells = [_clean(c) for c in row.group(1).split("|")]
            if _RULE.match(line):
                pass
            elif header is None:
                header, body_rows = cells, 0
            elif not any(header) and len(cells) == 2 and (priced := price_field(cells[0], cells[1], subject)):
                found.append(Field(*priced))  # a price list set as a table without a header: item, price
            elif (
                body_rows == 0
                and not (number + 1 < len(lines) and _filled_row(lines[number + 1]))
                and _VALUE_FIRST.match(cells[0])
            ):
                # A table of one row under a header of labels, its first cell a value ("| Wade | Hark |" then
                # "| 3 | 4 |"): the section's subject's stat line.
                found += [Field(subject, k, v) for k, v in zip(header, cells, strict=False) if k and v]
            else:
                body_rows += 1
                for label, value in zip(header[1:], cells[1:], strict=False):
                    if label and value:
                        found.append(Field(f"{subject} › {cells[0]}" if cells[0] else subject, label, value))
                keyed = header[0].casefold() in _KEY_HEADS or (
                    len(header) > 1 and header[1].casefold() in _VALUE_HEADS
                )
                if len(header) == 2 and len(cells) == 2 and keyed and cells[0] and cells[1]:
                    found.append(Field(subject, cells[0], cells[1]))
            previous = line.strip()
            continue
        if wrapped and _WRAPPED.match(line) and found:
            # A long bullet's value wrapped onto an indented line goes on with it.
            last = found[-1]
            found[-1] = Field(last.subject, last.label, f"{last.value} {_clean(line)}")
            previous = line.strip()
            continue
        wrapped = False
        italic = _ITALIC.match(line)
        if italic and just_headed:
            found.append(Field(subject, KIND, _clean(italic.group(1))))
        elif (bold := _BOLD.match(line)) is not None:
            found.append(_formula(Field(subject, _clean(bold.group(1)), _clean(bold.group(2)))))
            wrapped = True
        elif (colon := _COLON.match(line)) is not None and len(colon.group(2)) < 300:
            found.append(Field(subject, _clean(colon.group(1)), _clean(colon.group(2))))
            wrapped = True
        elif (definition := _DEFINITION.match(line)) is not None and previous and len(previous) <= 60:
            found.append(Field(subject, _clean(previous), _clean(definition.group(1))))
        else:
            found += [
                Field(on, _clean(label), _clean(value)) for on, label, value in line_fields(line, subject)
            ] or [Field(subject, _clean(m.group(1)), _clean(m.group(2))) for m in _RUN_IN.finditer(line)]
        just_headed = False
        previous = line.strip()
    return found
