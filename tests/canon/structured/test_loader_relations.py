"""Tests for the relations the loader writes: family-tree directions, unresolved references, the document model and the fit with the base ontology."""

from __future__ import annotations

import pytest

from canon.calendar import WorldDate
from canon.ontology import base_ontology
from canon.structured import RELATION_FIELDS, FamilyTreeFile, load_lore_file
from tests.helpers.lore_loader import EXTERNAL_FACTIONS, VALID, load, problems, relations


def test_family_tree_relations_point_the_documented_way() -> None:
    result = load("family_tree.yaml")
    parent_of = {(r.source_id, r.target_id): r for r in result.relations if r.type == "PARENT_OF"}
    # parents: [cael_vyr, yssa_raventhorne] on aldric => cael_vyr PARENT_OF aldric_raventhorne
    edge = parent_of[("cael_vyr", "aldric_raventhorne")]
    assert edge.valid_from == WorldDate(era="3rd_age", year=300)  # the child's birth
    assert edge.valid_until == WorldDate(era="3rd_age", year=345)  # the parent's death
    assert (edge.field, edge.line, edge.column) == ("parents", 73, 15)
    assert ("yssa_raventhorne", "aldric_raventhorne") in parent_of
    assert ("aldric_raventhorne", "cael_vyr") not in parent_of
    # Spouses listed on both sides give one edge.
    spouses = relations(result, "SPOUSE_OF")
    assert ("theron_ashveil", "mara_ashveil") in spouses
    assert ("mara_ashveil", "theron_ashveil") not in spouses
    assert not any(r.type == "FOUNDED" for r in result.relations)  # founding_ancestor is an attribute
    assert next(e for e in result.entries if e.id == "house_vyr_bloodline").attributes[
        "founding_ancestor"
    ] == ("Theron Ashveil")
    members = {
        r.source_id: r
        for r in result.relations
        if r.type == "MEMBER_OF" and r.target_id == "house_vyr_bloodline"
    }
    assert len(members) == 17
    assert members["maelis_vyr"].valid_until == WorldDate(era="3rd_age", year=340, month=3, day=17)
    assert ("theron_ashveil", "valdorni") in relations(result, "MEMBER_OF")
    births = {(e.entity_id, e.event): e.date for e in result.life_events}
    assert births[("mara_ashveil", "born")] == WorldDate(era="3rd_age", year=184, month=2, day=11)
    assert births[("yssa_raventhorne", "born")].precision == "era"
    assert births[("orrin_vyr", "died")].is_unknown


def test_unresolved_references_are_returned_not_rejected() -> None:
    result = load("broken_unresolved_reference.yaml")
    assert result.ok
    assert [
        (u.line, u.column, u.source_id, u.field, u.target_id, u.expected_types) for u in result.unresolved
    ] == [
        (6, 14, "pale_worm", "habitat", "frostmere", ("Location", "Region")),
        (7, 21, "pale_worm", "first_appeared", "3rd_age", ("Era",)),
        (
            8,
            19,
            "pale_worm",
            "defeated_by",
            "aldric_raventhorne",
            ("Person", "Creature", "Deity", "Faction"),
        ),
    ]
    # spire_wraith is defined in the file, so its DEFEATED edge resolves.
    assert ("spire_wraith", "pale_worm") in relations(result, "DEFEATED")
    assert str(result.unresolved[0]) == (
        'broken_unresolved_reference.yaml: line 6, column 14: "habitat" of "pale_worm" refers to "frostmere", '
        "which this file does not define (expected a Location or Region)"
    )


def test_unresolved_references_are_reported_even_when_the_file_has_problems() -> None:
    result = load("broken_died_before_born.yaml")
    assert not result.ok
    assert {u.target_id for u in result.unresolved} == {"3rd_age"}


def test_the_family_tree_document_model() -> None:
    result = load("family_tree.yaml")
    document = result.document
    assert isinstance(document, FamilyTreeFile)
    assert document.lineage == "house_vyr_bloodline"
    assert document.founding_ancestor == "theron_ashveil"
    assert len(document.members) == 17
    lineage = next(e for e in result.entries if e.entity_type == "Lineage")
    assert lineage.name == "The Bloodline of House Vyr"
    assert (lineage.line, lineage.column) == (3, 10)


# --- agreement with the ontology ---------------------------------------------------------------------------------


def test_every_relation_the_loader_writes_fits_the_base_ontology() -> None:
    ontology = base_ontology()
    for spec in RELATION_FIELDS.values():
        rule = ontology.relation_types[spec.relation]
        owners: tuple[str, ...] = (spec.entity_type,)
        sources, targets = (owners, spec.target_types) if spec.outgoing else (spec.target_types, owners)
        for source in sources:
            assert ontology.is_a(source, rule.from_types), (spec, source)
        for target in targets:
            assert ontology.is_a(target, rule.to_types), (spec, target)
    assert ontology.is_a("Era", ontology.relation_types["SUB_ERA_OF"].from_types)


@pytest.mark.parametrize("kind", VALID)
def test_the_valid_fixtures_relations_fit_the_ontology_once_resolved(kind: str) -> None:
    ontology = base_ontology()
    types = {e.id: e.entity_type for name in VALID for e in load(f"{name}.yaml").entries}
    types.update(dict.fromkeys(EXTERNAL_FACTIONS, "Faction"))
    for relation in load(f"{kind}.yaml").relations:
        ontology.check_endpoints(relation.type, types[relation.source_id], types[relation.target_id])


def test_a_plain_null_is_not_an_id() -> None:
    result = load_lore_file("lineage: l\nmembers:\n  - id: null\n    name: A\n    parents: [~, 'null']\n")
    assert problems(result) == [
        (
            3,
            9,
            '"id" must be an id like a (made of a name such as “A”); got "null" (write it in quotes if it really is one)',
        ),
        (
            5,
            15,
            'item 1 of "parents" must be a name like “A” (or its id, a); got "~" (write it in quotes if it really is one)',
        ),
    ]


def test_a_family_told_downwards_gives_the_edges_a_family_told_by_parents_gives() -> None:
    downwards = load_lore_file(
        "lineage: l\nmembers:\n"
        "  - {id: ma, name: Ma, born: 3rd_age.year_300, died: 3rd_age.year_350, children: [kit, wen]}\n"
        "  - {id: kit, name: Kit, born: 3rd_age.year_320}\n"
        "  - {id: wen, name: Wen, born: 3rd_age.year_322, parents: [ma]}\n"
    )
    assert problems(downwards) == []
    edges = {(r.source_id, r.target_id): r for r in downwards.relations if r.type == "PARENT_OF"}
    assert set(edges) == {("ma", "kit"), ("ma", "wen")}  # both sides saying it: one edge
    assert edges[("ma", "kit")].valid_from == WorldDate(era="3rd_age", year=320)  # the child's birth
    assert edges[("ma", "kit")].valid_until == WorldDate(era="3rd_age", year=350)  # the parent's death
    cycle = load_lore_file(
        "lineage: l\nmembers:\n  - {id: a, name: A, children: [b]}\n  - {id: b, name: B, children: [a]}\n"
    )
    assert any("would be their own ancestor" in message for _, _, message in problems(cycle))
