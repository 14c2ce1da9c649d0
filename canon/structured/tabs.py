"""Stage 2 of loading a lore file: tabs used for indentation, reported per line, and the file read anyway.

YAML forbids tabs in indentation (a tab inside a block scalar's text is content and allowed). The rest of the
file is still checked, read with those tabs expanded to the first tab width (4, 2 or 8) under which it parses,
and what that reading finds is reported at its place in the file as written (`Expanded.column`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canon.structured.problems import Problems
from canon.structured.records import LoreProblem
from canon.structured.tree import Node, build_documents, build_tree

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BLOCK_SCALAR_HEADER = re.compile(r"(?:^|[\s:?-])[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$")


def indentation_tabs(text: str) -> list[tuple[int, int]]:
    """Find tabs in the leading whitespace of lines, except inside a block scalar's text."""
    found: list[tuple[int, int]] = []
    if "\t" not in text:
        return found
    block_parent: int | None = None
    block_indent: int | None = None
    for number, line in enumerate(_LINE_BREAK.split(text), 1):
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        lead = line[: len(line) - len(stripped)]
        spaces = len(line) - len(line.lstrip(" "))
        if block_parent is not None:
            if spaces > block_parent:
                if block_indent is None:
                    block_indent = spaces
                tab = lead.find("\t")
                if tab != -1 and tab < block_indent:
                    found.append((number, tab + 1))
                continue
            block_parent = block_indent = None
        if "\t" in lead and not stripped.startswith("#"):
            found.append((number, lead.index("\t") + 1))
        if _BLOCK_SCALAR_HEADER.search(line):
            block_parent = spaces
            block_indent = None
    return found


TAB_INDENTATION = "a tab character is used for indentation; YAML needs spaces"
# Tab widths tried, in turn, to read a file indented with tabs as its author meant it.
_TAB_WIDTHS = (4, 2, 8)
_LINES_AND_BREAKS = re.compile(r"(\r\n|\r|\n)")


@dataclass(frozen=True, slots=True)
class Expanded:
    """A text with the tabs of some lines' indentation expanded, and how to find a column of it as written.

    `roots` are the trees built from `text` (one per YAML document), `problems` what building them reported
    (duplicate keys, anchors, aliases, tags ...), at their place in `text`.
    """

    text: str
    leads: dict[int, tuple[str, int]]  # line -> (its leading whitespace as written, the tab width)
    roots: list[Node]
    problems: Problems

    def column(self, line: int, column: int) -> int:
        """Return the column, in the text as written, of a column of the expanded text."""
        found = self.leads.get(line)
        if found is None:
            return column
        lead, width = found
        wide = len(lead.expandtabs(width))
        if column > wide:
            return column - wide + len(lead)
        position = 0
        for index, char in enumerate(lead):
            position = (position // width + 1) * width if char == "\t" else position + 1
            if column <= position:
                return index + 1
        return len(lead)  # pragma: no cover - column <= wide is inside the lead


def expand_tabs(
    text: str, tabs: list[tuple[int, int]], filename: str, *, fast: bool, several: bool = False
) -> Expanded | None:
    """Return the text with indentation tabs expanded at the first width under which it parses, or None
    (`several`: the text may hold several YAML documents, as a lore file may).

    A width is taken once the tree builds, whatever problems it holds: they are the file's own (a duplicate
    key, an alias ...), to be reported with the tabs, not a sign that the width is wrong.
    """
    pieces = _LINES_AND_BREAKS.split(text)  # lines at even indexes, their breaks between
    lines = {line for line, _ in tabs}
    for width in _TAB_WIDTHS:
        leads: dict[int, tuple[str, int]] = {}
        expanded = list(pieces)
        for line in lines:
            row = pieces[2 * (line - 1)]
            lead = row[: len(row) - len(row.lstrip(" \t"))]
            leads[line] = (lead, width)
            expanded[2 * (line - 1)] = lead.expandtabs(width) + row[len(lead) :]
        candidate = "".join(expanded)
        probe = Problems(filename)
        if several:
            roots = build_documents(candidate, probe, fast=fast)
        else:
            root = build_tree(candidate, probe, fast=fast)
            roots = None if root is None else [root]
        if roots is not None:
            return Expanded(candidate, leads, roots, probe)
    return None


# A message naming another place ends with it: `... (already given at line 3, column 5)`, `... at line 4,
# column 9` (duplicate keys and ids).
_PLACE_AT_END = re.compile(r"line (\d+), column (\d+)(\)?)$")


def report_as_written(problems: Problems, found: Sequence[LoreProblem], expanded: Expanded) -> None:
    """Add problems found in the expanded text at their columns in the text as written (messages' too)."""
    for problem in found:
        message = problem.message
        place = _PLACE_AT_END.search(message)
        if place is not None:
            line = int(place[1])
            column = expanded.column(line, int(place[2]))
            message = f"{message[: place.start()]}line {line}, column {column}{place[3]}"
        problems.add(problem.line, expanded.column(problem.line, problem.column), message)
