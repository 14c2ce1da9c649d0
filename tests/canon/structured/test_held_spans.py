"""Who held something one after another, read by the loader: a faction's `leaders` and an item's `holders`, each a
name or `{name: .., from: .., to: .., gm_only: ..}`, are LEADS and POSSESSES edges valid over their spans; every bad
span an error at its line. Names of a small world of our own (the Lamplighters of Osk), in absolute years."""

from __future__ import annotations

import pytest

from canon.structured import load_lore_file
from canon.structured.result import LoadResult

PEOPLE = "characters:\n  - name: Idra Venn\n  - name: Colm Tarrow\n  - name: Sabe Orrin\n---\n"


def _load(text: str) -> LoadResult:
    return load_lore_file(PEOPLE + text, "osk.yaml")


def _edges(result: LoadResult, relation: str) -> list[tuple[str, str | None, str | None, str, int]]:
    return [
        (
            r.source_id,
            None if r.valid_from is None else str(r.valid_from.year),
            None if r.valid_until is None else str(r.valid_until.year),
            r.visibility,
            r.line,
        )
        for r in result.relations
        if r.type == relation
    ]


def test_a_factions_leaders_over_time_beside_its_leader() -> None:
    result = _load(
        "factions:\n"
        "  - name: The Lamplighters\n"
        "    leader: Sabe Orrin\n"
        "    leaders:\n"
        "      - {name: Idra Venn, from: 600, to: 640}\n"
        "      - name: Colm Tarrow\n"
        "        from: 640\n"
        "        to: 655\n"
        "        gm_only: true\n"
        "      - {name: Sabe Orrin, from: 660}\n"
    )
    assert result.ok, result.problems
    assert _edges(result, "LEADS") == [
        ("idra_venn", "600", "640", "public", 10),
        ("colm_tarrow", "640", "655", "gm_only", 11),
        ("sabe_orrin", "660", None, "public", 15),  # `leader:` names her too: one edge, dated by `leaders`
    ]


def test_an_items_holders_one_after_another_and_past_holders_read_alike() -> None:
    result = _load(
        "kind: items\nitems:\n"
        "  - name: The Osk Lamp\n"
        "    held_by: Sabe Orrin\n"
        "    held_since: 660\n"
        "    past_holders: [Idra Venn, {name: Colm Tarrow, to: 650}]\n"
    )
    assert result.ok, result.problems
    assert sorted(_edges(result, "POSSESSES")) == [
        ("colm_tarrow", None, "650", "public", 11),
        ("idra_venn", None, None, "public", 11),
        ("sabe_orrin", "660", None, "public", 9),
    ]


def test_gm_only_holders_hides_every_one() -> None:
    result = _load(
        "kind: items\nitems:\n  - name: The Osk Lamp\n    gm_only: [holders]\n"
        "    holders: [{name: Idra Venn, from: 600}]\n"
    )
    assert result.ok, result.problems
    assert [e[3] for e in _edges(result, "POSSESSES")] == ["gm_only"]


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("{name: Idra Venn, from: 650, to: 640}", '"to" (640) is before "from" (650)'),
        ("{name: Idra Venn, from: Lammas}", '"from" must be a date'),
        ("{name: Idra Venn, since: 640}", 'it holds "since"'),
        ("{from: 640}", "it needs both a name and gm_only (or from and to)"),
        ("{name: Idra Venn, gm_only: yes please}", '"gm_only" must be true or false'),
        ("{name: Idra Venn, to: [640]}", '"from" and "to" must be dates'),
    ],
)
def test_a_bad_span_is_an_error_at_its_line(item: str, said: str) -> None:
    result = _load(f"factions:\n  - name: The Lamplighters\n    leaders: [Colm Tarrow, {item}]\n")
    assert not result.ok
    (problem,) = result.problems
    assert problem.line == 8 and said in problem.message, problem


def test_one_who_led_twice_is_an_edge_for_each_span() -> None:
    result = _load(
        "factions:\n  - name: The Lamplighters\n    leader: Idra Venn\n    leaders:\n"
        "      - {name: Idra Venn, from: 600, to: 620}\n      - {name: Colm Tarrow, from: 620, to: 640}\n"
        "      - {name: Idra Venn, from: 640}\n"
    )
    assert result.ok, result.problems
    assert _edges(result, "LEADS") == [
        ("idra_venn", "600", "620", "public", 10),
        ("colm_tarrow", "620", "640", "public", 11),
        ("idra_venn", "640", None, "public", 12),  # `leader:` names her too: the last span
    ]
