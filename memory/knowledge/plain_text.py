"""A plain-text book's layout read as the Markdown a GM would have written: what a .txt manual shows by spacing.

A text file has no markup, but a manual typed as plain text (or as reStructuredText) still shows its structure:
- a title underlined, and perhaps overlined, by a row of one punctuation mark ("Traits" over "------"): a heading,
  its level the order in which each style of underline first appears (as reStructuredText reads them);
- a term on a line of its own with its meaning indented under it ("Wade" then "    Strength, wind, ..."): a
  definition, written `**Wade**: Strength, wind, ...`;
- a field list (":Breath: Wade + Heart + 4", its value going on on indented lines): `**Breath:** Wade + Heart + 4`;
- a table aligned by spaces, its columns marked by a rule of dashes or equals signs broken by spaces
  ("-----  ------"), under its header or between rules: a pipe table, a row whose first cell is blank going on
  with the row above.
Everything else is left as it is, so Markdown saved as .txt reads as before. Pure.
"""

from __future__ import annotations

import re

__all__ = ["plain_markdown"]

#: A row of one punctuation mark, three long at least: a title's underline or overline.
_ADORNMENT = re.compile(r"^([=\-~^*#+`'\":._])\1{2,}\s*$")
#: A table's rule: groups of dashes or equals signs broken by spaces.
_RULE = re.compile(r"^\s*[-=]{2,}(?:\s+[-=]{2,})+\s*$")
_FIELD = re.compile(r"^:(?P<label>[^:]{1,60}):\s+(?P<value>\S.*)$")
#: A line that is no definition's term: a list item, a heading, a table, a quote, a field.
_NO_TERM = re.compile(r"^(?:[-*+•>|#:]|\d+[.)]\s)")
_INDENTED = re.compile(r"^(\s{2,})\S")
TERM_CHARS = 60


def plain_markdown(text: str) -> str:
    """Return a plain-text file's text with its titles, definitions, field lists and aligned tables in Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    styles: list[tuple[str, bool]] = []
    index = 0
    while index < len(lines):
        taken = _title(lines, index, styles) or _table(lines, index) or _entry(lines, index)
        if taken is None:
            out.append(lines[index])
            index += 1
            continue
        written, index = taken
        out += written
    return "\n".join(out)


def _blank_before(lines: list[str], index: int) -> bool:
    return index == 0 or not lines[index - 1].strip()


def _title(lines: list[str], index: int, styles: list[tuple[str, bool]]) -> tuple[list[str], int] | None:
    """Return a title (overlined or not) as an ATX heading and the index after it, or None."""
    over = _ADORNMENT.match(lines[index])
    start = index + 1 if over else index
    if start + 1 >= len(lines) or not _blank_before(lines, index):
        return None
    title, under = lines[start], _ADORNMENT.match(lines[start + 1])
    if under is None or not title.strip() or _ADORNMENT.match(title) or _RULE.match(title):
        return None
    if over and over.group(1) != under.group(1):
        return None
    if not over and (title != title.lstrip() or len(lines[start + 1].strip()) < len(title.strip()) * 0.6):
        return None
    style = (under.group(1), bool(over))
    if style not in styles:
        styles.append(style)
    level = min(styles.index(style) + 1, 6)
    return ["#" * level + " " + " ".join(title.split()), ""], start + 2


def _cells(line: str, starts: list[int]) -> list[str]:
    bounds = [*starts[1:], max(len(line), starts[-1]) + 1]
    return [line[a:b].strip() for a, b in zip([0, *starts[1:]], bounds, strict=False)]


def _table(lines: list[str], index: int) -> tuple[list[str], int] | None:
    """Return a table aligned by spaces as a pipe table and the index after it, or None."""
    line = lines[index]
    if _RULE.match(line):  # the rule above the header ("=====  =====", header, rule, rows, rule)
        header_at, rule_at = index + 1, index + 2
        if rule_at >= len(lines) or not _RULE.match(lines[rule_at]):
            return None
    elif index + 1 < len(lines) and _RULE.match(lines[index + 1]) and line.strip():
        header_at, rule_at = index, index + 1
    else:
        return None
    rule = lines[rule_at]
    starts = [m.start() for m in re.finditer(r"[-=]+", rule)]
    starts[0] = 0
    header = _cells(lines[header_at], starts)
    rows: list[list[str]] = []
    end = rule_at + 1
    while end < len(lines) and lines[end].strip():
        if _RULE.match(lines[end]):
            end += 1
            if end < len(lines) and lines[end].strip() and not _RULE.match(lines[end]):
                continue  # a rule between rows
            break
        cells = _cells(lines[end], starts)
        if rows and not cells[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=False)]  # a cell wraps
        else:
            rows.append(cells)
        end += 1
    if not rows or len(header) < 2:
        return None
    pipe = ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in [header, *rows]]
    return ["", pipe[0], "|" + "---|" * len(header), *pipe[1:], ""], end


def _entry(lines: list[str], index: int) -> tuple[list[str], int] | None:
    """Return a definition (a term over its indented meaning) or a field list's entry as a bold-led line and
    the index after it, or None."""
    line = lines[index]
    field = _FIELD.match(line)
    if field is not None:
        value, end = _going_on(lines, index + 1, field.group("value"))
        return [f"**{field.group('label').strip()}:** {value}"], end
    term = line.strip()
    if (
        not term
        or line != line.lstrip()
        or len(term) > TERM_CHARS
        or term.endswith((".", ",", ";"))
        or _NO_TERM.match(term)
        or index + 1 >= len(lines)
        or not _blank_before(lines, index)
        or _INDENTED.match(lines[index + 1]) is None
    ):
        return None
    value, end = _going_on(lines, index + 2, lines[index + 1].strip())
    return [f"**{term.rstrip(':')}**: {value}"], end


def _going_on(lines: list[str], index: int, value: str) -> tuple[str, int]:
    """Return a value with the indented lines under it that go on with it, and the index after them."""
    while index < len(lines) and _INDENTED.match(lines[index]) is not None:
        value = f"{value} {lines[index].strip()}"
        index += 1
    return value, index
