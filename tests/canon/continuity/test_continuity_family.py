"""The continuity rules for families, held items and eras: too many parents, children born out of order, items in two hands, events outside their era."""

from __future__ import annotations

from canon.continuity import (
    ConflictKind,
)
from tests.helpers.continuity_world import World, only, side_of

# -- 4. cardinality --------------------------------------------------------------------------------------


def test_three_parents_for_one_child() -> None:
    w = World()
    bran = w.entity("Bran")
    parents = [w.entity(name) for name in ("Aldric", "Mira", "Osric")]
    relations = [w.rel(p, "PARENT_OF", bran) for p in parents]

    finding = only(w.check(), ConflictKind.CARDINALITY)

    assert finding.message == (
        "3 “parent of” relations point at Bran at overlapping times (from Aldric, Mira and Osric), "
        "but PARENT_OF allows at most 2."
    )
    assert finding.statement_ids == tuple(r.id for r in relations)
    assert finding.entity_ids == tuple(sorted([bran, *parents]))
    assert [s.evidence for s in finding.sides] == [r.evidence for r in relations]


def test_item_held_by_two_at_once_and_event_in_two_eras() -> None:
    w = World()
    sword = w.entity("Dawnblade", "Item")
    first = w.rel(w.entity("Aldric"), "POSSESSES", sword, wf="3rd_age.300", wu="3rd_age.320")
    second = w.rel(w.entity("Bran"), "POSSESSES", sword, wf="3rd_age.310")
    event = w.entity("The Sundering", "Event")
    eras = [w.entity("The Third Age", "Era", key="3rd_age"), w.entity("The Fourth Age", "Era", key="4th_age")]
    during = [w.rel(event, "OCCURRED_DURING", era) for era in eras]

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.CARDINALITY] * 2
    by_ids = {f.statement_ids: f for f in findings}
    assert "point at Dawnblade" in by_ids[(first.id, second.id)].message
    era_finding = by_ids[tuple(d.id for d in during)]
    assert era_finding.message == (
        "The Sundering has 2 “occurred during” relations at overlapping times (The Third Age and The Fourth Age), "
        "but OCCURRED_DURING allows at most 1."
    )


def test_two_parents_a_restated_parent_and_handed_on_items_are_within_limits() -> None:
    w = World()
    bran = w.entity("Bran")
    aldric, mira = w.entity("Aldric"), w.entity("Mira")
    w.rel(aldric, "PARENT_OF", bran)
    w.rel(mira, "PARENT_OF", bran)
    w.rel(aldric, "PARENT_OF", bran, sf=3)  # the same parent said again in play
    sword = w.entity("Dawnblade", "Item")
    for year, holder in ((300, aldric), (340, mira), (360, bran)):
        w.rel(holder, "POSSESSES", sword, wf=f"3rd_age.{year}")

    assert w.check() == []


# -- 5. births -------------------------------------------------------------------------------------------


def test_child_born_before_a_parent() -> None:
    w = World()
    aldric, bran = w.entity("Aldric"), w.entity("Bran")
    parent_born = w.state(aldric, "alive", wf="3rd_age.year_300")
    child_born = w.state(bran, "alive", wf="3rd_age.year_290")
    parenthood = w.rel(aldric, "PARENT_OF", bran)

    finding = only(w.check(), ConflictKind.BORN_BEFORE_PARENT)

    assert finding.message == "Bran is born (3rd_age.year_290) before their parent Aldric (3rd_age.year_300)."
    assert finding.statement_ids == (parent_born.id, child_born.id, parenthood.id)
    assert finding.entity_ids == (aldric, bran)
    assert side_of(finding, child_born).evidence == child_born.evidence
    assert side_of(finding, parent_born).evidence == parent_born.evidence


def test_child_born_after_both_parents_died() -> None:
    w = World()
    aldric, mira, bran = w.entity("Aldric"), w.entity("Mira"), w.entity("Bran")
    w.state(aldric, "alive", wf="3rd_age.250")
    aldric_died = w.state(aldric, "dead", wf="3rd_age.300")
    w.state(mira, "alive", wf="3rd_age.255")
    mira_died = w.state(mira, "dead", wf="3rd_age.305")
    born = w.state(bran, "alive", wf="3rd_age.310")
    by_aldric = w.rel(aldric, "PARENT_OF", bran)
    by_mira = w.rel(mira, "PARENT_OF", bran)

    finding = only(w.check(), ConflictKind.BORN_AFTER_PARENTS_DEATH)

    assert finding.message == (
        "Bran is born (3rd_age.310) after the deaths of all their parents: Aldric (3rd_age.300) and Mira (3rd_age.305)."
    )
    assert finding.statement_ids == tuple(
        sorted(s.id for s in (aldric_died, mira_died, born, by_aldric, by_mira))
    )
    assert side_of(finding, aldric_died).evidence == aldric_died.evidence
    assert finding.entity_ids == (aldric, mira, bran)


def test_one_dead_parent_unknown_dates_and_close_dates_raise_nothing() -> None:
    w = World()
    # One parent died before the birth (a posthumous child); the other lived on.
    aldric, mira, bran = w.entity("Aldric"), w.entity("Mira"), w.entity("Bran")
    w.state(aldric, "alive", wf="3rd_age.250")
    w.state(aldric, "dead", wf="3rd_age.300")
    w.state(mira, "alive", wf="3rd_age.255")
    w.state(mira, "dead", wf="3rd_age.340")
    w.state(bran, "alive", wf="3rd_age.301")
    w.rel(aldric, "PARENT_OF", bran)
    w.rel(mira, "PARENT_OF", bran)
    # Only one parent known, and dead before the birth: the other parent is unknown.
    cora, dag = w.entity("Cora"), w.entity("Dag")
    w.state(cora, "alive", wf="3rd_age.200")
    w.state(cora, "dead", wf="3rd_age.220")
    w.state(dag, "alive", wf="3rd_age.230")
    w.rel(cora, "PARENT_OF", dag)
    # Dates unknown: a parent with no birth date, a child introduced in play (a scene is not a birth date).
    eli, fen, kara = w.entity("Eli"), w.entity("Fen"), w.entity("Kara", "PC")
    w.state(eli, "alive")
    w.state(fen, "alive", wf="3rd_age.260")
    w.rel(eli, "PARENT_OF", fen)
    w.state(kara, "alive", sf=1)
    w.rel(fen, "PARENT_OF", kara)
    # Mother dying the year of the birth: the order within the year is unknown.
    gil, hana, ivo = w.entity("Gil"), w.entity("Hana"), w.entity("Ivo")
    w.state(gil, "dead", wf="3rd_age.300")
    w.state(hana, "dead", wf="3rd_age.300.4.2")
    w.state(ivo, "alive", wf="3rd_age.300.4.2")
    w.rel(gil, "PARENT_OF", ivo)
    w.rel(hana, "PARENT_OF", ivo)
    # Born the same year as the parent, at different precisions: unknown.
    jon, kai = w.entity("Jon"), w.entity("Kai")
    w.state(jon, "alive", wf="3rd_age.320")
    w.state(kai, "alive", wf="3rd_age.320.1.1")
    w.rel(jon, "PARENT_OF", kai)

    assert w.check() == []


# -- 6. events outside their era -------------------------------------------------------------------------


def test_event_dated_outside_its_era() -> None:
    w = World()
    third = w.entity("The Third Age", "Era", key="3rd_age", wf="3rd_age.250", wu="3rd_age.400")
    sack = w.entity("The Sack of Varn", "Event", wf="2nd_age.120")
    during = w.rel(sack, "OCCURRED_DURING", third)

    finding = only(w.check(), ConflictKind.EVENT_OUTSIDE_ERA)

    assert finding.message == (
        "“The Sack of Varn” (2nd_age.120) is said to occur during The Third Age (3rd_age.250 – 3rd_age.400), "
        "but that date falls before it begins."
    )
    assert finding.statement_ids == (during.id,)
    assert finding.entity_ids == (third, sack)
    assert side_of(finding, during).evidence == during.evidence
    assert {s.entity_id for s in finding.sides if s.entity_id} == {third, sack}


def test_sub_era_inherits_the_missing_bound_of_its_parent() -> None:
    w = World()
    third = w.entity("The Third Age", "Era", key="3rd_age", wf="3rd_age.250", wu="3rd_age.400")
    kings = w.entity("The Age of Kings", "Era", key="age_of_kings", wf="3rd_age.300")
    w.rel(kings, "SUB_ERA_OF", third)
    coronation = w.entity("The last coronation", "Event", wf="3rd_age.450")
    w.rel(coronation, "OCCURRED_DURING", kings)

    finding = only(w.check(), ConflictKind.EVENT_OUTSIDE_ERA)
    assert "after it ends" in finding.message and "3rd_age.300 – 3rd_age.400" in finding.message


def test_events_inside_open_or_unknown_eras_raise_nothing() -> None:
    w = World()
    third = w.entity("The Third Age", "Era", key="3rd_age", wf="3rd_age.250", wu="3rd_age.400")
    fourth = w.entity("The Fourth Age", "Era", key="4th_age", wf="4th_age.401")
    legends = w.entity("The Age of Legends", "Era", key="legends")
    w.rel(w.entity("Inside", "Event", wf="3rd_age.300.5.1"), "OCCURRED_DURING", third)
    w.rel(w.entity("Last day", "Event", wf="3rd_age.400.12.31"), "OCCURRED_DURING", third)
    w.rel(w.entity("Far future", "Event", wf="4th_age.9000"), "OCCURRED_DURING", fourth)
    w.rel(w.entity("Anytime", "Event", wf="3rd_age.1"), "OCCURRED_DURING", legends)
    w.rel(w.entity("Undated", "Event"), "OCCURRED_DURING", third)
    w.rel(w.entity("Era-only date", "Event", wf="3rd_age"), "OCCURRED_DURING", third)

    assert w.check() == []
