"""A title held for a span, read by the loader: `titles: [{title: .., from: .., to: ..}]` beside plain titles, on a
roster and on a family tree's members; every bad span an error at its line. Names of a small world of our own (the
Reeves of Dunwade), in absolute years."""

from __future__ import annotations

from typing import Any

import pytest

from canon.structured import load_lore_file
from canon.structured.result import LoadResult


def _load(text: str) -> LoadResult:
    return load_lore_file(text, "reeves.yaml")


def _spans(result: LoadResult, name: str) -> list[dict[str, Any]]:
    entry = next(e for e in result.entries if e.name == name)
    return list(entry.attributes.get("held_titles", []))  # type: ignore[arg-type]


def test_a_span_beside_plain_titles_is_read_with_its_dates_and_line() -> None:
    result = _load(
        "characters:\n"
        "  - name: Ysbel Vallow\n"
        "    born: 610\n"
        "    titles:\n"
        "      - Warden of the Salt Stair\n"
        "      - {title: Reeve of Dunwade, from: 640, to: 655}\n"
        "      - title: Keeper of Weirs\n"
        "        from: 656\n"
    )
    assert result.ok, result.problems
    hesper = next(e for e in result.entries if e.name == "Ysbel Vallow")
    assert hesper.attributes["titles"] == ["Warden of the Salt Stair"]
    assert _spans(result, "Ysbel Vallow") == [
        {
            "title": "Reeve of Dunwade",
            "from": "640",
            "to": "655",
            "gm_only": False,
            "shared": False,
            "line": 6,
        },
        {
            "title": "Keeper of Weirs",
            "from": "656",
            "to": None,
            "gm_only": False,
            "shared": False,
            "line": 7,
        },
    ]


def test_a_span_without_an_end_lasts_until_a_told_death_but_not_a_secret_one() -> None:
    result = _load(
        "characters:\n"
        "  - name: Ambrose Lockridge\n"
        "    died: 662\n"
        "    titles: [{title: Reeve of Dunwade, from: 655}]\n"
        "  - name: Mirren Lockridge\n"
        "    died: 690\n"
        "    gm_only: [died]\n"
        "    titles: [{title: Reeve of Dunwade, from: 662}]\n"
    )
    assert result.ok, result.problems
    assert _spans(result, "Ambrose Lockridge")[0]["to"] == "662"
    assert _spans(result, "Mirren Lockridge")[0]["to"] is None  # its end would tell the GM's death


def test_a_family_trees_member_and_a_secret_or_shared_span() -> None:
    result = _load(
        "kind: family_tree\nlineage: house_lockridge\nmembers:\n"
        "  - id: odo\n    name: Ambrose Lockridge\n"
        "    titles:\n"
        "      - {title: Reeve of Dunwade, from: 640, to: 655, gm_only: true}\n"
        "      - {title: Sworn Ferryman, from: 630, shared: true}\n"
    )
    assert result.ok, result.problems
    reeve, ferryman = _spans(result, "Ambrose Lockridge")
    assert (reeve["gm_only"], reeve["shared"], reeve["from"]) == (True, False, "640")
    assert (ferryman["gm_only"], ferryman["shared"]) == (False, True)
    # `gm_only: [titles]` keeps every span of the entry for the GM as well.
    hidden = _load(
        "characters:\n  - name: Ambrose Lockridge\n    gm_only: [titles]\n"
        "    titles: [{title: Reeve of Dunwade, from: 640}]\n"
    )
    assert _spans(hidden, "Ambrose Lockridge")[0]["gm_only"] is True


@pytest.mark.parametrize(
    ("item", "line", "said"),
    [
        ("{title: Reeve, from: 650, to: 640}", 3, '"to" (640) is before "from" (650)'),
        ("{title: Reeve, from: Lammas}", 3, '"from" must be a date'),
        ("{title: Reeve, since: 640}", 3, 'it holds "since"'),
        ("{from: 640}", 3, "it needs the title itself"),
        ("{title: Reeve, gm_only: yes please}", 3, '"gm_only" must be true or false'),
        ("{title: Reeve, to: [640]}", 3, '"to" must be a date'),
    ],
)
def test_a_bad_span_is_an_error_at_its_line(item: str, line: int, said: str) -> None:
    result = _load(f"characters:\n  - name: Ambrose Lockridge\n    titles: [Sworn Ferryman, {item}]\n")
    assert not result.ok
    (problem,) = result.problems
    assert problem.line == line and said in problem.message, problem
