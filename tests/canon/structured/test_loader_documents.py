"""A lore file of several YAML documents (`---` between them), each of its own kind: one file's entries, one
namespace of ids, every problem at its line in the file as written (a document after the first too), and a
file mixing kinds in one document told where to put the `---`."""

from __future__ import annotations

from canon.structured import load_lore_file
from canon.structured.result import LoadResult

WORLD = """\
source: world/fenreach.yaml
characters:
  - name: Ann Reed
    faction: Fen Wardens
    home: Mill Town
---
kind: factions
factions:
  - name: Fen Wardens
    seat: Mill Town
---
locations:
  - name: Mill Town
    type: village
---
"""


def _load(text: str) -> LoadResult:
    return load_lore_file(text, "world.yaml")


def _problems(result: LoadResult) -> list[tuple[int, int, str]]:
    return [(p.line, p.column, p.message) for p in result.problems]


def test_a_file_of_several_documents_is_one_file_of_several_kinds_each_entry_at_its_line() -> None:
    result = _load(WORLD)
    assert result.ok, result.problems
    assert result.kinds == ("characters", "factions", "gazetteer") and result.kind == "characters"
    assert len(result.documents) == 3
    assert {(e.id, e.entity_type, e.line) for e in result.entries} == {
        ("ann_reed", "NPC", 3),
        ("fen_wardens", "Faction", 9),
        ("mill_town", "Location", 13),
    }
    # References across documents are found in the file itself: nothing is left to canon.
    assert result.unresolved == ()
    assert {(r.type, r.source_id, r.target_id, r.line) for r in result.relations} == {
        ("MEMBER_OF", "ann_reed", "fen_wardens", 4),
        ("LIVES_IN", "ann_reed", "mill_town", 5),
        ("SEAT_OF", "mill_town", "fen_wardens", 10),
    }


def test_problems_of_later_documents_are_at_their_lines_and_ids_are_one_namespace() -> None:
    text = WORLD.replace(
        "    type: village\n", "    type: village\n    part_of: Ann Reed\n  - name: Fen Wardens\n"
    )
    assert _problems(_load(text)) == [
        (15, 14, '"part_of" must name a Location or Region; “Ann Reed” is the NPC at line 3'),
        (16, 11, 'duplicate id "fen_wardens": already used for the Faction at line 9, column 11'),
    ]


def test_a_tab_in_a_later_document_is_reported_at_its_line_and_the_rest_still_read() -> None:
    text = WORLD.replace(
        "    type: village\n", "\ttype: village\n    part_of: Nowhere Hill\n    events_held: x\n"
    )
    found = _problems(_load(text))
    assert found[0] == (14, 1, "a tab character is used for indentation; YAML needs spaces")
    assert found[1][:2] == (16, 18) and '"events_held" must be a list' in found[1][2]


def test_eras_of_a_later_document_check_the_dates_of_an_earlier_one() -> None:
    text = (
        "lineage: reed\nmembers:\n  - name: Ann Reed\n    born: iron_age.year_900\n---\n"
        "kind: timeline\neras:\n  - era: iron_age\n    start: 100\n    end: 400\n"
    )
    ((line, column, message),) = _problems(_load(text))
    assert (line, column) == (4, 11) and "900" in message and "iron_age" in message


def test_empty_documents_are_nothing_and_the_file_s_name_is_given_once() -> None:
    assert _load("---\ncreatures:\n  - name: Pale Worm\n---\n---\n").ok
    assert _problems(_load("---\n---\n")) == [
        (2, 1, "the file is empty; a lore file is a mapping such as `creatures: [...]`")
    ]
    twice = WORLD.replace("kind: factions\n", "kind: factions\nsource: world/other.yaml\n")
    assert _problems(_load(twice)) == [
        (8, 1, '"source" is given again: a file has one name, given once (at line 1); remove this one')
    ]


def test_one_document_of_several_kinds_is_told_where_each_part_begins() -> None:
    text = (
        "characters:\n  - name: Ann Reed\nfactions:\n  - name: Fen Wardens\nlocations:\n  - name: Mill Town\n"
    )
    assert _problems(_load(text)) == [
        (
            1,
            1,
            "this file holds the top-level keys of several kinds: characters (characters), factions (factions), "
            "locations (gazetteer); each kind needs a part of its own: put a line `---` (three dashes alone on "
            "the line, at its left edge) before `factions:` (line 3) and before `locations:` (line 5), or put each "
            "kind in its own file",
        )
    ]
    # Done as told, the same text loads.
    split = text.replace("factions:", "---\nfactions:").replace("locations:", "---\nlocations:")
    assert _load(split).ok
