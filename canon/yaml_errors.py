"""A YAML syntax error in the GM's words: the line they see in their editor and what to change there.

The YAML readers (PyYAML, libyaml, ruamel.yaml) mark an error where they gave up, 0-based, in their own terms
("could not find expected ':'", "while scanning a simple key"). Where they gave up is often the line after the
mistake (a missing colon is noticed on the next line; an unclosed quote at the end of the file): the line
reported here is the one that holds the mistake, counted from 1, and the sentence says what to change there.
The reader's own words stay out; a problem this module does not know keeps them at the end, in brackets.
Pure: works on any of the readers' errors by their common attributes (`problem`, `problem_mark`, `context`,
`context_mark`), imports neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY_THEN_TEXT = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s+(\S.*?)\s*$")
_KEY_COLON = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w -]*?):\s+(\S.*?)\s*$")
_CHARACTER = re.compile(r"found character '(.+?)' that cannot start any token")


@dataclass(frozen=True)
class SyntaxProblem:
    """Where a YAML syntax error is, as the GM's editor counts (from 1), and what to do about it."""

    line: int
    column: int
    message: str

    def sentence(self) -> str:
        """Return the problem as one sentence that starts with its line: "Line 3: this line has ..."."""
        return f"Line {self.line}: {self.message}"


def syntax_problem(error: object, text: str | None = None) -> SyntaxProblem:
    """Return where a YAML reader's syntax `error` is and what to change, in plain words.

    `text`, the YAML read, lets the sentence quote the GM's own line back as it should be written.
    """
    problem = str(getattr(error, "problem", None) or "")
    context = str(getattr(error, "context", None) or "")
    at, start = (
        _position(getattr(error, "problem_mark", None)),
        _position(getattr(error, "context_mark", None)),
    )
    lines = text.splitlines() if text is not None else []
    if "could not find expected ':'" in problem and start is not None:
        return _at(start, _no_colon(_line(lines, start[0])), lines)
    if "unexpected end of stream" in problem and "quoted scalar" in context and start is not None:
        return _at(
            start,
            "a quotation mark opened on this line is never closed: close it at the end of the value",
            lines,
        )
    if "flow sequence" in context and start is not None:
        return _at(
            start,
            "a list opened with [ on this line is not closed with ]: close it, or write the list "
            "one item a line, each starting with `- `",
            lines,
        )
    if "flow mapping" in context and start is not None:
        return _at(
            start,
            "a { on this line is not closed with }: close it, or put the value in quotes if the { "
            "is part of the text",
            lines,
        )
    where = at or start or (1, 1)
    ends = "<stream end>" in problem or "end of stream" in problem
    if ends or ("node content" in problem and lines and where[0] >= len(lines)):
        return _at(
            where,
            "the file ends in the middle of a value: close every [ and { opened above, and every "
            "quotation mark",
            lines,
        )
    if "mapping values are not allowed" in problem:
        return _at(where, _stray_colon(_line(lines, where[0])), lines)
    if "found '<scalar>'" in problem:
        return _at(
            where,
            "this line has more text after a quoted value: put the whole value in quotes, or none of it",
            lines,
        )
    if (
        "expected <block end>" in problem
        or "did not find expected key" in problem
        or "expected '-'" in problem
    ):
        return _at(where, _INDENTED, lines)
    if (found := _CHARACTER.search(problem)) is not None:
        character = found.group(1)
        return _at(
            where,
            f"a value here starts with {character}, which YAML reads as a sign: put the value in quotes",
            lines,
        )
    if "alias" in context or "anchor" in context:
        return _at(
            where,
            "a value here starts with & or *, which YAML reads as a sign: put the value in quotes",
            lines,
        )
    detail = "; ".join(part for part in (problem, context) if part)
    return _at(
        where,
        "the file cannot be read from here on: check this line's colons, quotes and indentation"
        + (f" (the YAML reader says: {detail})" if detail else ""),
        lines,
    )


def _position(mark: object) -> tuple[int, int] | None:
    if mark is None:
        return None
    return int(getattr(mark, "line", 0)) + 1, int(getattr(mark, "column", 0)) + 1


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def _at(where: tuple[int, int], message: str, lines: list[str]) -> SyntaxProblem:
    line, column = where
    if lines and line > len(lines):  # the end of the file: the last line the GM sees
        line, column = len(lines), 1
    return SyntaxProblem(line, column, message)


def _no_colon(line: str) -> str:
    found = _KEY_THEN_TEXT.match(line)
    example = f" (like `{found.group(1)}: {found.group(2)}`)" if found else ""
    return f"this line has a name but no colon after it: a field is written `name: value`{example}"


def _stray_colon(line: str) -> str:
    found = _KEY_COLON.match(line)
    if found is not None and ":" in found.group(2):
        return (
            "this line's value holds a colon, which YAML reads as a second field: put the whole value in quotes "
            f'(like `{found.group(1)}: "{found.group(2)}"`)'
        )
    return _INDENTED


_INDENTED = (
    "this line is indented differently from the lines around it: line it up with the other fields of its entry "
    "(the same number of spaces before each)"
)
