"""A YAML syntax error reaches the GM at the line their editor shows, in plain words, and nothing is written."""

from __future__ import annotations

import pytest
import yaml

from canon.structured import load_lore_file
from canon.yaml_errors import syntax_problem

WOLF = "creatures:\n  - id: grey_wolf\n    name: Grey Wolf\n    size: medium\n"


def _broken(line_three: str) -> str:
    lines = WOLF.splitlines()
    lines[2] = line_three
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("line_three", "line", "says"),
    [
        # The reader notices a missing colon on the next line (4): the mistake is on line 3.
        (
            "    name Grey Wolf",
            3,
            "this line has a name but no colon after it: a field is written `name: value` "
            "(like `name: Grey Wolf`)",
        ),
        # An unclosed quote runs to the end of the file: the quote is on line 3.
        ('    name: "Grey Wolf', 3, "a quotation mark opened on this line is never closed"),
        ("    name: Grey: Wolf", 3, 'put the whole value in quotes (like `name: "Grey: Wolf"`)'),
        ("     name: Grey Wolf", 3, "this line is indented differently from the lines around it"),
        ("  name: Grey Wolf", 3, "this line is indented differently from the lines around it"),
        ("    tags: [forest, pack", 3, "a list opened with [ on this line is not closed with ]"),
        (
            "    name: @wolf",
            3,
            "a value here starts with @, which YAML reads as a sign: put the value in quotes",
        ),
    ],
)
def test_a_syntax_error_is_reported_at_the_gms_line_in_plain_words(
    line_three: str, line: int, says: str
) -> None:
    loaded = load_lore_file(_broken(line_three), "wolves.yaml")
    assert not loaded.ok and loaded.entries == ()
    (problem,) = loaded.problems
    assert problem.line == line, str(problem)
    assert says in problem.message
    for jargon in ("simple key", "could not find expected", "scanning", "<block end>", "YAML syntax error"):
        assert jargon not in problem.message


def test_pyyaml_and_ruamel_errors_read_the_same() -> None:
    text = _broken("    name Grey Wolf")
    with pytest.raises(yaml.YAMLError) as caught:
        yaml.safe_load(text)
    found = syntax_problem(caught.value, text)
    assert found.sentence().startswith("Line 3: this line has a name but no colon after it")


def test_an_unknown_reader_problem_keeps_its_detail_at_the_end() -> None:
    class Odd(Exception):
        problem = "found something odd"
        problem_mark = type("Mark", (), {"line": 0, "column": 4})()
        context = None
        context_mark = None

    found = syntax_problem(Odd(), "x: 1\n")
    assert (found.line, found.column) == (1, 5)
    assert found.message.startswith("the file cannot be read from here on")
    assert found.message.endswith("(the YAML reader says: found something odd)")
