"""The continuity rules: one hand-built snapshot per rule, its legal variants, focus, fingerprints, the generator."""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections import Counter
from typing import Any

import pytest

from bench.continuity_data import make_snapshot
from canon.calendar import parse_date
from canon.continuity import (
    ConflictKind,
    Finding,
    Side,
    Snapshot,
    check,
    fingerprint,
    key_span,
    world_key,
)
from canon.continuity.intervals import cliques, overlapping_pairs, pair_overlaps
from canon.models import (
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    Validity,
)
from canon.ontology import base_ontology

T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def provenance(
    authority: Authority = Authority.GM, confidence: float = 1.0, *, retconned: bool = False
) -> Provenance:
    return Provenance(
        campaign_id=1,
        changeset_id=1,
        recorded_at=T0,
        authority=authority,
        confidence=confidence,
        level=CanonLevel.RETCONNED if retconned else CanonLevel.CANON,
    )


def validity(
    wf: str | None = None, wu: str | None = None, sf: int | None = None, su: int | None = None
) -> Validity:
    """Build a validity from date texts, keyed with `world_key` as the writers will."""
    return Validity(
        world_from=wf,
        world_from_key=world_key(parse_date(wf)) if wf else None,
        world_until=wu,
        world_until_key=world_key(parse_date(wu)) if wu else None,
        story_from=sf,
        story_until=su,
    )


class World:
    """A hand-built snapshot: entities and statements with evidence that says where each came from."""

    def __init__(self) -> None:
        self.entities: dict[int, Entity] = {}
        self.statements: list[Statement] = []
        self.dependencies: dict[int, list[tuple[str, int]]] = {}
        self._ids = itertools.count(1)

    def entity(
        self,
        name: str,
        type_: str = "NPC",
        *,
        key: str | None = None,
        retconned: bool = False,
        authority: Authority = Authority.GM,
        **dates: Any,
    ) -> int:
        entity_id = next(self._ids)
        self.entities[entity_id] = Entity(
            id=entity_id,
            type=type_,
            name=name,
            key=key,
            kind=base_ontology().entity_types[type_].kind.value,
            validity=validity(**dates),
            provenance=provenance(retconned=retconned, authority=authority),
        )
        return entity_id

    def _add(
        self,
        kind: StatementKind,
        subject: int,
        predicate: str,
        *,
        obj: int | None = None,
        value: str | None = None,
        via: str | None = None,
        authority: Authority = Authority.GM,
        confidence: float = 1.0,
        retconned: bool = False,
        replaces: int | None = None,
        depends_on: list[tuple[str, int]] | None = None,
        statement_id: int | None = None,
        **dates: Any,
    ) -> Statement:
        sid = statement_id if statement_id is not None else 100 + len(self.statements)
        v = validity(**dates)
        if v.story_from is not None:
            evidence = (
                Evidence(kind=EvidenceKind.TURNS, scene_id=v.story_from, turn_from=sid, turn_to=sid + 1),
            )
        else:
            evidence = (Evidence(kind=EvidenceKind.YAML, file="lore.yaml", line=sid),)
        statement = Statement(
            id=sid,
            kind=kind,
            subject_id=subject,
            predicate=predicate,
            object_id=obj,
            value=value,
            via=via,
            validity=v,
            replaces_id=replaces,
            provenance=provenance(authority, confidence, retconned=retconned),
            evidence=evidence,
        )
        self.statements.append(statement)
        if depends_on:
            self.dependencies[sid] = depends_on
        return statement

    def state(self, subject: int, value: str, **kw: Any) -> Statement:
        return self._add(StatementKind.STATE, subject, "state", value=value, **kw)

    def rel(self, subject: int, predicate: str, obj: int, **kw: Any) -> Statement:
        return self._add(StatementKind.RELATION, subject, predicate, obj=obj, **kw)

    def attr(self, subject: int, predicate: str, value: str, **kw: Any) -> Statement:
        return self._add(StatementKind.ATTRIBUTE, subject, predicate, value=value, **kw)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.entities, list(self.statements), self.dependencies, base_ontology())

    def check(self, focus: list[int] | None = None) -> list[Finding]:
        return check(self.snapshot(), focus=focus)


def only(findings: list[Finding], kind: ConflictKind) -> Finding:
    """Return the one finding, asserting it is of `kind` and alone."""
    assert [f.kind for f in findings] == [kind], [f.message for f in findings]
    return findings[0]


def side_of(finding: Finding, statement: Statement) -> Side:
    found = [s for s in finding.sides if s.statement_id == statement.id]
    assert len(found) == 1, finding.sides
    return found[0]


# -- world keys ------------------------------------------------------------------------------------------


def test_world_key_encodes_year_month_day_with_precision() -> None:
    assert world_key(parse_date("3rd_age.year_300.month_3.day_17")) == 3_000_317
    assert world_key(parse_date("3rd_age.300.3")) == 3_000_300
    assert world_key(parse_date("3rd_age.300")) == 3_000_000
    assert world_key(parse_date("3rd_age.-50.2.1")) == -500_000 + 201
    assert world_key(parse_date("3rd_age")) is None
    assert world_key(parse_date("unknown")) is None
    assert key_span(3_000_000) == (3_000_000, 3_009_999)
    assert key_span(3_000_300) == (3_000_300, 3_000_399)
    assert key_span(3_000_317) == (3_000_317, 3_000_317)
    assert key_span(-500_000) == (-500_000, -490_001)


# -- 1. the dead acting ----------------------------------------------------------------------------------


def test_dead_character_taking_part_in_a_later_event() -> None:
    w = World()
    aldric = w.entity("Aldric")
    march = w.entity("The order to march", "Event", sf=2)
    death = w.state(aldric, "dead", sf=1)
    act = w.rel(aldric, "PARTICIPATED_IN", march, sf=2, authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.DEAD_ACTING)

    assert finding.message == "Aldric takes part in “The order to march” (scene 2) after dying (scene 1)."
    assert finding.statement_ids == (death.id, act.id)
    assert finding.entity_ids == (aldric, march)
    assert side_of(finding, death).sentence == "Aldric is dead (scene 1)"
    assert side_of(finding, death).evidence == death.evidence
    assert side_of(finding, act).evidence == act.evidence
    assert (
        side_of(finding, death).evidence[0].scene_id == 1 and side_of(finding, act).evidence[0].scene_id == 2
    )
    event_side = [s for s in finding.sides if s.entity_id == march]
    assert event_side and "scene 2" in event_side[0].sentence


def test_dead_character_acting_in_play_and_in_the_dated_timeline() -> None:
    w = World()
    mira = w.entity("Mira")
    tavern = w.entity("The Gilded Goose", "Location")
    battle = w.entity("Battle of Varn", "Event", wf="3rd_age.year_312.month_4.day_2")
    died_in_play = w.state(mira, "dead", sf=3)
    walks_in = w.rel(mira, "LOCATED_IN", tavern, sf=5, authority=Authority.PLAYER)
    bran = w.entity("Bran")
    died = w.state(bran, "dead", wf="3rd_age.year_310")
    fought = w.rel(bran, "PARTICIPATED_IN", battle)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.DEAD_ACTING] * 2
    by_ids = {f.statement_ids: f for f in findings}
    play = by_ids[(died_in_play.id, walks_in.id)]
    assert play.message == "Mira acts after dying (scene 3): “Mira is in the Gilded Goose” (scene 5)."
    timeline = by_ids[(died.id, fought.id)]
    assert timeline.message == (
        "Bran takes part in “Battle of Varn” (3rd_age.year_312.month_4.day_2) after dying (3rd_age.year_310)."
    )
    assert side_of(timeline, died).evidence[0].file == "lore.yaml"


def test_legal_variants_of_the_dead_raise_nothing() -> None:
    w = World()
    # Brought back by a resurrection, then acting.
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.year_280")
    w.state(aldric, "dead", sf=1)
    w.state(aldric, "alive", via="resurrection", sf=2)
    w.rel(aldric, "PARTICIPATED_IN", w.entity("The return", "Event", sf=3), sf=3)
    # Raised as undead, then acting.
    lich = w.entity("Varek")
    w.state(lich, "dead", sf=1)
    w.state(lich, "undead", via="raising", sf=2)
    w.rel(lich, "LOCATED_IN", w.entity("Crypt", "Location"), sf=4)
    # Passive after death: being a parent (timeless), being killed or worshipped (the object side).
    mira = w.entity("Mira")
    w.state(mira, "dead", sf=1)
    w.rel(mira, "PARENT_OF", w.entity("Bran"), sf=3)
    w.rel(w.entity("Osric"), "KILLED", mira, sf=4)
    # Unknown order: a death in the timeline against a scene without a world date; an undated event.
    kel = w.entity("Kel")
    w.state(kel, "dead", wf="3rd_age.year_310")
    w.rel(kel, "LOCATED_IN", w.entity("Docks", "Location"), sf=9)
    w.rel(kel, "PARTICIPATED_IN", w.entity("A skirmish", "Event"))
    # Same year at different precisions: not certainly after.
    w.rel(kel, "PARTICIPATED_IN", w.entity("The flood", "Event", wf="3rd_age.year_310.month_6"))
    # Acting in the very scene of the death is not after it.
    ana = w.entity("Ana")
    w.state(ana, "dead", sf=6)
    w.rel(ana, "PARTICIPATED_IN", w.entity("Last stand", "Event", sf=6), sf=6)

    assert w.check() == []


# -- 2. two places ---------------------------------------------------------------------------------------


def test_one_person_in_two_places_at_overlapping_times() -> None:
    w = World()
    aldric = w.entity("Aldric")
    keep = w.entity("Keep", "Location")
    town = w.entity("Town", "Location")
    in_keep = w.rel(aldric, "LOCATED_IN", keep, wf="3rd_age.300", wu="3rd_age.305")
    in_town = w.rel(aldric, "LOCATED_IN", town, wf="3rd_age.303", authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.TWO_PLACES)

    assert finding.message == (
        "Aldric is in two places at once: Keep (3rd_age.300 – 3rd_age.305) and Town (from 3rd_age.303), "
        "and neither lies within the other."
    )
    assert finding.statement_ids == (in_keep.id, in_town.id)
    assert finding.entity_ids == (aldric, keep, town)
    assert side_of(finding, in_keep).evidence == in_keep.evidence
    assert side_of(finding, in_town).evidence == in_town.evidence


def test_two_places_on_the_story_clock_and_at_the_same_start() -> None:
    w = World()
    kara = w.entity("Kara", "PC")
    tavern = w.entity("Tavern", "Location")
    road = w.entity("North road", "Location")
    gate = w.entity("Gate", "Location")
    a = w.rel(kara, "LOCATED_IN", tavern, sf=1, su=4)
    b = w.rel(kara, "LOCATED_IN", road, sf=3)
    c = w.rel(kara, "LOCATED_IN", gate, sf=3)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.TWO_PLACES] * 3
    assert {f.statement_ids for f in findings} == {(a.id, b.id), (a.id, c.id), (b.id, c.id)}


def test_placements_starting_together_or_both_undated_conflict_among_moves() -> None:
    w = World()
    kara = w.entity("Kara", "PC")
    w.rel(kara, "LOCATED_IN", w.entity("Tavern", "Location"), sf=1)
    road = w.rel(kara, "LOCATED_IN", w.entity("North road", "Location"), sf=3)
    gate = w.rel(kara, "LOCATED_IN", w.entity("Gate", "Location"), sf=3)
    w.rel(kara, "LOCATED_IN", w.entity("Keep", "Location"), sf=6)
    osric = w.entity("Osric")
    home = w.rel(osric, "LOCATED_IN", w.entity("Mill", "Location"))
    other_home = w.rel(osric, "LOCATED_IN", w.entity("Forge", "Location"))
    w.rel(osric, "LOCATED_IN", w.entity("Port", "Location"), sf=2)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.TWO_PLACES] * 2
    assert {f.statement_ids for f in findings} == {(road.id, gate.id), (home.id, other_home.id)}


def test_places_within_places_moves_and_unknown_times_are_not_two_places() -> None:
    w = World()
    city = w.entity("Varn", "Location")
    market = w.entity("Market ward", "Location")
    tavern = w.entity("Gilded Goose", "Location")
    w.rel(market, "PART_OF", city)
    w.rel(tavern, "PART_OF", market)
    aldric = w.entity("Aldric")
    # In the city, and in a tavern two levels down within it, at once.
    w.rel(aldric, "LOCATED_IN", city, wf="3rd_age.300", wu="3rd_age.310")
    w.rel(aldric, "LOCATED_IN", tavern, wf="3rd_age.303", wu="3rd_age.304")
    # Moves: each placement lasts until the next one begins.
    bran = w.entity("Bran")
    for year, place in (
        (300, city),
        (302, w.entity("Keep", "Location")),
        (305, w.entity("Port", "Location")),
    ):
        w.rel(bran, "LOCATED_IN", place, wf=f"3rd_age.{year}")
    # Stays that touch: the one ends the year the next begins.
    cora = w.entity("Cora")
    w.rel(cora, "LOCATED_IN", city, wf="3rd_age.300", wu="3rd_age.305")
    w.rel(cora, "LOCATED_IN", w.entity("Hamlet", "Location"), wf="3rd_age.305")
    # Different clocks: order unknown.
    dag = w.entity("Dag")
    w.rel(dag, "LOCATED_IN", city, wf="3rd_age.300")
    w.rel(dag, "LOCATED_IN", w.entity("Mill", "Location"), sf=2)
    # The same year at a finer precision: which came first is unknown.
    eli = w.entity("Eli")
    w.rel(eli, "LOCATED_IN", city, wf="3rd_age.300")
    w.rel(eli, "LOCATED_IN", w.entity("Ford", "Location"), wf="3rd_age.300.6.1")

    assert w.check() == []


def test_sibling_places_are_two_places() -> None:
    w = World()
    city = w.entity("Varn", "Location")
    docks = w.entity("Docks", "Location")
    market = w.entity("Market", "Location")
    w.rel(docks, "PART_OF", city)
    w.rel(market, "PART_OF", city)
    aldric = w.entity("Aldric")
    w.rel(aldric, "LOCATED_IN", docks, wf="3rd_age.300", wu="3rd_age.310")
    w.rel(aldric, "LOCATED_IN", market, wf="3rd_age.305", wu="3rd_age.306")

    finding = only(w.check(), ConflictKind.TWO_PLACES)
    assert "Docks" in finding.message and "Market" in finding.message


# -- 3. exclusive relations ------------------------------------------------------------------------------


def test_allies_and_enemies_at_once_in_either_direction() -> None:
    w = World()
    aldric = w.entity("Aldric")
    house = w.entity("House Vell", "Faction")
    ally = w.rel(aldric, "ALLY_OF", house, wf="3rd_age.300", wu="3rd_age.310")
    enemy = w.rel(house, "ENEMY_OF", aldric, wf="3rd_age.305", authority=Authority.SOURCE)

    finding = only(w.check(), ConflictKind.EXCLUSIVE_RELATIONS)

    assert finding.message == (
        "“Aldric is an ally of House Vell” (3rd_age.300 – 3rd_age.310) and “House Vell is an enemy of Aldric” "
        "(from 3rd_age.305) hold at overlapping times, but ALLY_OF and ENEMY_OF exclude each other."
    )
    assert finding.statement_ids == (ally.id, enemy.id)
    assert finding.entity_ids == (aldric, house)
    assert side_of(finding, ally).evidence == ally.evidence
    assert side_of(finding, enemy).evidence == enemy.evidence


def test_timeless_alliance_and_enmity_conflict() -> None:
    w = World()
    a, b = w.entity("Aldric"), w.entity("Bran")
    w.rel(a, "ALLY_OF", b)
    w.rel(a, "ENEMY_OF", b)
    only(w.check(), ConflictKind.EXCLUSIVE_RELATIONS)


def test_alliances_that_end_or_turn_are_not_exclusive_conflicts() -> None:
    w = World()
    a, b, c = w.entity("Aldric"), w.entity("Bran"), w.entity("Cora")
    # Closed alliance, then enmity from the year it ended.
    w.rel(a, "ALLY_OF", b, wf="3rd_age.300", wu="3rd_age.305")
    w.rel(b, "ENEMY_OF", a, wf="3rd_age.305")
    # Allies until they became enemies, then allies again (no end recorded: each lasts until the next).
    w.rel(a, "ALLY_OF", c, sf=1)
    w.rel(c, "ENEMY_OF", a, sf=4)
    w.rel(a, "ALLY_OF", c, sf=7)
    # Different pairs.
    w.rel(b, "ALLY_OF", c, wf="3rd_age.300")
    w.rel(b, "ENEMY_OF", w.entity("Dag"), wf="3rd_age.300")
    # Unknown order between a dated and an undated statement.
    eli = w.entity("Eli")
    w.rel(c, "ENEMY_OF", eli, wf="3rd_age.300")
    w.rel(c, "ALLY_OF", eli, sf=3)

    assert w.check() == []


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


# -- 7. contradicting a higher authority -----------------------------------------------------------------


def test_player_contradicts_the_gm() -> None:
    w = World()
    aldric = w.entity("Aldric")
    gm = w.attr(aldric, "eye_colour", "blue", authority=Authority.GM)
    player = w.attr(aldric, "eye_colour", "green", authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.CONTRADICTS_HIGHER_AUTHORITY)

    assert finding.message == (
        "Aldric's eye colour is “green” according to play (undated), contradicting “blue” from the GM (undated); "
        "“blue” prevails."
    )
    assert finding.prevailing_id == gm.id
    assert [s.statement_id for s in finding.sides] == [gm.id, player.id]
    assert finding.statement_ids == (gm.id, player.id)
    assert finding.sides[0].evidence == gm.evidence and finding.sides[1].evidence == player.evidence


def test_equal_authority_is_decided_by_confidence_or_not_at_all() -> None:
    w = World()
    keep = w.entity("Keep", "Location")
    sure = w.attr(keep, "population", "500", authority=Authority.SYSTEM, confidence=0.9, wf="3rd_age.300")
    unsure = w.attr(keep, "population", "5000", authority=Authority.SYSTEM, confidence=0.4, wf="3rd_age.300")
    town = w.entity("Town", "Location")
    w.attr(town, "patron_saint", "Aldric", authority=Authority.SOURCE)  # not declared by the ontology
    w.attr(town, "patron_saint", "Bran", authority=Authority.SOURCE)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.CONTRADICTS_HIGHER_AUTHORITY] * 2
    by_entity = {f.entity_ids: f for f in findings}
    assert by_entity[(keep,)].prevailing_id == sure.id
    assert "confidence 0.4" in by_entity[(keep,)].message
    assert [s.statement_id for s in by_entity[(keep,)].sides] == [sure.id, unsure.id]
    assert by_entity[(town,)].prevailing_id is None
    assert "neither outranks the other" in by_entity[(town,)].message


def test_agreeing_changing_or_unordered_attributes_and_states_are_no_contradiction() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.attr(aldric, "eye_colour", "blue", authority=Authority.GM)
    w.attr(aldric, "eye_colour", " Blue ", authority=Authority.PLAYER)  # the same value
    w.attr(aldric, "hair", "black", wf="3rd_age.300")
    w.attr(aldric, "hair", "grey", wf="3rd_age.340", authority=Authority.PLAYER)  # a change over time
    w.attr(aldric, "favourite_song", "captain", authority=Authority.SOURCE)  # not declared by the ontology:
    w.attr(aldric, "favourite_song", "general", sf=4, authority=Authority.PLAYER)  # timeless against play
    old = w.attr(aldric, "title", "Lord of Varn", authority=Authority.SOURCE)
    w.attr(
        aldric, "title", "Duke of Varn", authority=Authority.GM, replaces=old.id
    )  # an explicit replacement
    w.state(aldric, "alive", sf=2)
    w.state(aldric, "wounded", sf=2)  # states change over time: not this rule

    assert w.check() == []


def test_a_second_title_at_the_same_time_under_another_spelling() -> None:
    w = World()
    mara = w.entity("Mara")
    bible = w.attr(mara, "titles", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    play = w.attr(mara, "title", "Pirate Queen", sf=3, authority=Authority.SOURCE)

    finding = only(w.check(), ConflictKind.SINGLE_VALUED)

    assert finding.message == (
        "Mara has two values of title: “Harbourmaster of Greyhaven” (an imported source, undated) and "
        "“Pirate Queen” (an imported source, scene 3), but Mara has one title at a time."
    )
    assert finding.statement_ids == (bible.id, play.id) and finding.prevailing_id is None
    assert {side.evidence for side in finding.sides} == {bible.evidence, play.evidence}


def test_a_title_from_play_against_the_world_bible_is_a_contradiction_the_bible_wins() -> None:
    w = World()
    mara = w.entity("Mara")
    bible = w.attr(mara, "titles", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    w.attr(mara, "Titles", "Pirate Queen", sf=3, authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.CONTRADICTS_HIGHER_AUTHORITY)

    assert finding.prevailing_id == bible.id
    assert finding.message.startswith("Mara's title is “Pirate Queen” according to play (scene 3)")


def test_a_dated_change_of_title_and_multi_valued_attributes_are_no_conflict() -> None:
    w = World()
    mara = w.entity("Mara")
    w.attr(mara, "title", "Harbourmaster of Greyhaven", authority=Authority.SOURCE)
    w.attr(mara, "title", "Pirate Queen", wf="3rd_age.340", sf=3, authority=Authority.PLAYER)  # a change
    w.attr(mara, "nickname", "the Gull")
    w.attr(mara, "epithets", "Storm-born", sf=2)  # nicknames are many
    god = w.entity("Thal", "Deity")
    w.attr(god, "domain", "the sea")
    w.attr(god, "domains", "storms", sf=1)

    assert w.check() == []


def test_an_attribute_that_never_changes_conflicts_whenever_it_is_dated() -> None:
    w = World()
    mara = w.entity("Mara")
    first = w.attr(mara, "eye_colour", "grey", wf="3rd_age.300")
    second = w.attr(mara, "eye colour", "green", wf="3rd_age.340")
    w.attr(mara, "hair_colour", "black", wf="3rd_age.300")
    w.attr(mara, "hair", "white", wf="3rd_age.340")  # hair may change

    finding = only(w.check(), ConflictKind.SINGLE_VALUED)

    assert finding.statement_ids == (first.id, second.id)
    assert finding.message.endswith(", but Mara's eye colour never changes.")


# -- 10-12. cause before effect, participants born by the event, axioms not from play ---------------------


def test_a_cause_after_its_effect() -> None:
    w = World()
    spark = w.entity("The spark", "Event", wf="3rd_age.340")
    fire = w.entity("The fire", "Event", wf="3rd_age.300.6")
    caused = w.rel(spark, "CAUSED", fire)
    age = w.entity("The Age of Ash", "Era", wf="3rd_age.400")
    preceded = w.rel(age, "PRECEDED", fire)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.CAUSE_AFTER_EFFECT] * 2
    by_relation = {f.statement_ids: f for f in findings}
    assert by_relation[(caused.id,)].message == (
        "“The spark” (3rd_age.340) is said to cause “The fire” (3rd_age.300.6), which happened before it."
    )
    assert by_relation[(caused.id,)].entity_ids == (spark, fire)
    assert "is said to precede “The fire”" in by_relation[(preceded.id,)].message


def test_causes_in_order_undated_or_on_one_day_and_deeds_of_people_raise_nothing() -> None:
    w = World()
    spark = w.entity("The spark", "Event", wf="3rd_age.300")
    fire = w.entity("The fire", "Event", wf="3rd_age.300.6")  # within the spark's year: order unknown
    w.rel(spark, "CAUSED", fire)
    later = w.entity("The ashes", "Event", wf="3rd_age.301")
    w.rel(fire, "PRECEDED", later)
    w.rel(w.entity("Rumour", "Event"), "CAUSED", fire)  # undated
    w.rel(w.entity("Aldric"), "CAUSED", fire)  # a person's deed: not an order of events
    w.rel(w.entity("Scene cause", "Event", sf=2), "CAUSED", w.entity("Scene effect", "Event", sf=3))

    assert w.check() == []


def test_a_participant_not_yet_born() -> None:
    w = World()
    mara = w.entity("Mara")
    born = w.state(mara, "alive", wf="3rd_age.320")
    battle = w.entity("The battle of the Ford", "Event", wf="3rd_age.300")
    took_part = w.rel(mara, "PARTICIPATED_IN", battle)
    vow = w.entity("The vow", "Event", wf="3rd_age.320.5")  # in her birth year: order unknown
    w.rel(mara, "WITNESSED", vow)
    w.rel(mara, "WITNESSED", w.entity("A later feast", "Event", wf="3rd_age.340"))

    finding = only(w.check(), ConflictKind.PARTICIPANT_NOT_BORN)

    assert finding.message == (
        "Mara takes part in “The battle of the Ford” (3rd_age.300) before being born (3rd_age.320)."
    )
    assert finding.statement_ids == (born.id, took_part.id) and finding.entity_ids == (mara, battle)


def test_axioms_from_play_but_not_from_the_gm_or_a_source() -> None:
    w = World()
    wild = w.entity("Wild magic", "MagicSystem", authority=Authority.PLAYER)
    tides = w.entity("The law of tides", "Concept")
    rule = w.attr(tides, "rule", "the sea never freezes", authority=Authority.PLAYER)
    w.attr(tides, "scope", "every sea", authority=Authority.SOURCE)
    w.attr(w.entity("Mara", authority=Authority.PLAYER), "title", "Queen", authority=Authority.PLAYER)
    w.entity("Old magic", "MagicSystem", authority=Authority.PLAYER, retconned=True)

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.AXIOM_FROM_PLAYER] * 2
    entity_finding, fact_finding = sorted(findings, key=lambda f: f.statement_ids)
    assert entity_finding.entity_ids == (wild,) and entity_finding.message.startswith(
        "“Wild magic” is a law of the world (a MagicSystem), but it comes from play"
    )
    assert fact_finding.statement_ids == (rule.id,)


# -- 8. relying on retconned canon -----------------------------------------------------------------------


def test_statements_relying_on_retconned_statements_and_entities() -> None:
    w = World()
    aldric = w.entity("Aldric")
    ghost_town = w.entity("Ghostvale", "Location", retconned=True)
    old = w.attr(aldric, "home_town", "Ghostvale", retconned=True)
    relying = w.attr(aldric, "accent", "of Ghostvale", depends_on=[("statement", old.id)])
    living_there = w.rel(aldric, "LOCATED_IN", ghost_town, wf="3rd_age.300")

    findings = w.check()

    assert [f.kind for f in findings] == [ConflictKind.RELIES_ON_RETCONNED] * 2
    by_ids = {f.statement_ids: f for f in findings}
    on_statement = by_ids[(old.id, relying.id)]
    assert on_statement.message == (
        "“Aldric's accent: of Ghostvale” relies on “Aldric's home town: Ghostvale”, which was retconned."
    )
    assert side_of(on_statement, old).evidence == old.evidence
    assert side_of(on_statement, relying).evidence == relying.evidence
    on_entity = by_ids[(living_there.id,)]
    assert on_entity.message == "“Aldric is in Ghostvale” still stands, but “Ghostvale” was retconned."
    assert on_entity.entity_ids == (aldric, ghost_town)
    assert any(s.entity_id == ghost_town for s in on_entity.sides)


def test_a_dependency_the_gate_made_is_said_as_what_it_is_never_as_a_citation() -> None:
    # The gate makes a state depend on the one before it and a participation on the participant's state then,
    # and a participation on its event: the GM cited none of them, so none "relies on" anything.
    w = World()
    aldric = w.entity("Aldric")
    march = w.entity("The march", "Event", retconned=True)
    dead = w.state(aldric, "dead", retconned=True, sf=1)
    alive = w.state(aldric, "alive", via="resurrection", sf=2, depends_on=[("statement", dead.id)])
    marches = w.rel(
        aldric, "PARTICIPATED_IN", march, sf=2, depends_on=[("entity", march), ("statement", alive.id)]
    )
    hailed = w.rel(
        aldric, "PARTICIPATED_IN", w.entity("The feast", "Event"), sf=2, depends_on=[("statement", dead.id)]
    )

    messages = sorted(f.message for f in w.check() if f.kind == ConflictKind.RELIES_ON_RETCONNED)

    assert messages == sorted(
        [
            "“Aldric is alive, through a resurrection” follows “Aldric is dead” in Aldric's story, and "
            "“Aldric is dead” was retconned.",
            "“Aldric took part in the march” is part of the event “The march”, which was retconned.",
            "“Aldric took part in the feast” happens while “Aldric is dead” held, and “Aldric is dead” was "
            "retconned.",
        ]
    ), messages
    assert not any("relies on" in m for m in messages)
    assert marches.id and hailed.id


def test_dependencies_on_standing_canon_and_retconned_dependents_raise_nothing() -> None:
    w = World()
    aldric = w.entity("Aldric")
    old = w.attr(aldric, "home_town", "Oldvale", retconned=True)
    new = w.attr(aldric, "home_town", "Newvale", replaces=old.id)
    w.attr(aldric, "accent", "of Newvale", depends_on=[("statement", new.id), ("entity", aldric)])
    w.attr(aldric, "dialect", "of Oldvale", retconned=True, depends_on=[("statement", old.id)])
    ghost = w.entity("Cut character", retconned=True)
    w.state(ghost, "alive", retconned=True)
    w.attr(aldric, "note", "see the archive", depends_on=[("statement", 999_999)])  # not in the snapshot

    assert w.check() == []


# -- 9. forbidden transitions ----------------------------------------------------------------------------


def test_back_from_the_dead_without_a_resurrection() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.280")
    died = w.state(aldric, "dead", sf=1)
    back = w.state(aldric, "alive", sf=3, authority=Authority.PLAYER)

    finding = only(w.check(), ConflictKind.FORBIDDEN_TRANSITION)

    assert finding.message == "Aldric died in scene 1; bringing them back in scene 3 needs a resurrection."
    assert finding.statement_ids == (died.id, back.id)
    assert [s.statement_id for s in finding.sides] == [died.id, back.id]
    assert finding.sides[1].evidence == back.evidence


def test_a_via_that_does_not_fit_is_still_forbidden() -> None:
    w = World()
    sword = w.entity("Dawnblade", "Item")
    w.state(sword, "destroyed", wf="3rd_age.300")
    w.state(sword, "intact", wf="3rd_age.310", via="resurrection")
    finding = only(w.check(), ConflictKind.FORBIDDEN_TRANSITION)
    assert finding.message == (
        "Dawnblade became destroyed in 3rd_age.300; becoming intact in 3rd_age.310 needs a restoration "
        "(a resurrection is not enough)."
    )


def test_legal_transitions_and_unordered_static_states_raise_nothing() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.state(aldric, "alive", wf="3rd_age.280")
    w.state(aldric, "wounded", sf=1)
    w.state(aldric, "dead", sf=2)
    w.state(aldric, "alive", via="resurrection", sf=3)
    w.state(aldric, "dead", sf=5)
    w.state(aldric, "undead", via="raising", sf=6)
    sword = w.entity("Dawnblade", "Item")
    w.state(sword, "destroyed", wf="3rd_age.300")
    w.state(sword, "intact", via="restoration", wf="3rd_age.310")
    # An undated static "dead" and a dated static birth: their order is unknown.
    mira = w.entity("Mira")
    w.state(mira, "dead")
    w.state(mira, "alive", wf="3rd_age.250")

    assert w.check() == []


# -- focus, fingerprints, determinism --------------------------------------------------------------------


def two_problems() -> tuple[World, Statement, Statement]:
    w = World()
    aldric = w.entity("Aldric")
    w.attr(aldric, "eye_colour", "blue")
    wrong_eyes = w.attr(aldric, "eye_colour", "green", authority=Authority.PLAYER)
    bran = w.entity("Bran")
    w.state(bran, "dead", sf=1)
    back = w.state(bran, "alive", sf=2)
    return w, wrong_eyes, back


def test_focus_keeps_only_the_findings_of_the_focused_statements() -> None:
    w, wrong_eyes, back = two_problems()
    assert len(w.check()) == 2
    assert [f.kind for f in w.check(focus=[wrong_eyes.id])] == [ConflictKind.CONTRADICTS_HIGHER_AUTHORITY]
    assert [f.kind for f in w.check(focus=[back.id, 424242])] == [ConflictKind.FORBIDDEN_TRANSITION]
    assert w.check(focus=[]) == []


def test_focus_on_a_hypothetical_statement_with_a_negative_id() -> None:
    w = World()
    aldric = w.entity("Aldric")
    w.state(aldric, "dead", sf=1)
    w.rel(aldric, "LOCATED_IN", w.entity("Keep", "Location"), sf=1)  # the same scene: fine
    proposed = w.rel(aldric, "LOCATED_IN", w.entity("Gate", "Location"), sf=4, statement_id=-1)

    findings = w.check(focus=[-1])

    finding = only(findings, ConflictKind.DEAD_ACTING)
    assert proposed.id in finding.statement_ids


def test_fingerprints_are_stable_across_runs_and_input_order() -> None:
    w, _, _ = two_problems()
    first = {f.fingerprint: f.kind for f in w.check()}
    shuffled = w.snapshot()
    statements = list(shuffled.statements)
    random.Random(4).shuffle(statements)
    again = check(Snapshot(shuffled.entities, statements, shuffled.dependencies, shuffled.ontology))
    assert {f.fingerprint: f.kind for f in again} == first
    assert len(set(first)) == 2
    assert fingerprint(ConflictKind.TWO_PLACES, [3, 1, 2], [9, 8]) == fingerprint(
        ConflictKind.TWO_PLACES, [1, 2, 3], [8, 9]
    )
    assert fingerprint(ConflictKind.TWO_PLACES, [1, 2], [8]) != fingerprint(
        ConflictKind.EXCLUSIVE_RELATIONS, [1, 2], [8]
    )
    assert fingerprint(ConflictKind.TWO_PLACES, [1, 2], [8]) != fingerprint(
        ConflictKind.TWO_PLACES, [1, 3], [8]
    )


def test_a_side_names_exactly_one_statement_or_entity() -> None:
    with pytest.raises(ValueError):
        Side(sentence="nothing")
    with pytest.raises(ValueError):
        Side(statement_id=1, entity_id=2, sentence="both")


def test_pair_fast_path_agrees_with_the_general_sweep() -> None:
    """The two-statement shortcut must decide exactly as the group sweep does, on random intervals."""
    rng = random.Random(11)
    keys = [None, 3_000_000, 3_010_000, 3_000_600, 3_000_601, 3_050_000]
    scenes = [None, 1, 2, 3, 5]

    def random_statement(sid: int) -> Statement:
        v = Validity(
            world_from_key=rng.choice(keys),
            world_until_key=rng.choice(keys),
            story_from=rng.choice(scenes),
            story_until=rng.choice(scenes),
        )
        return Statement(
            id=sid,
            kind=StatementKind.RELATION,
            subject_id=1,
            predicate=rng.choice(["LOCATED_IN", "LOCATED_IN", "PARENT_OF"]),
            object_id=sid,
            validity=v,
            provenance=provenance(),
        )

    timeless = frozenset({"PARENT_OF"})
    for index in range(3000):
        a, b = random_statement(2 * index + 1), random_statement(2 * index + 2)
        for supersede in (True, False):
            general = any(
                not (
                    clock == "story"
                    and (a.validity.world_from_key, a.validity.world_until_key) != (None, None)
                    and (b.validity.world_from_key, b.validity.world_until_key) != (None, None)
                )
                for clock, _ in cliques([a, b], timeless, supersede=supersede)
            )
            assert pair_overlaps(a, b, timeless, supersede) == general, (a.validity, b.validity, supersede)


def test_group_pairs_agree_with_the_general_sweep() -> None:
    """Shortcuts for groups (two members, successive moves) must decide as the clique sweep does."""
    rng = random.Random(5)
    keys = [None, None, 3_000_000, 3_010_000, 3_000_600, 3_050_000]
    scenes = [None, None, 1, 2, 3, 5]
    for index in range(2000):
        members = []
        for n in range(rng.randint(2, 5)):
            sid = 10 * index + n
            members.append(
                Statement(
                    id=sid,
                    kind=StatementKind.RELATION,
                    subject_id=1,
                    predicate="LOCATED_IN",
                    object_id=sid,
                    validity=Validity(
                        world_from_key=rng.choice(keys),
                        world_until_key=rng.choice(keys) if rng.random() < 0.3 else None,
                        story_from=rng.choice(scenes),
                        story_until=rng.choice(scenes) if rng.random() < 0.3 else None,
                    ),
                    provenance=provenance(),
                )
            )
        expected = set()
        for clock, clique in cliques(members, frozenset(), supersede=True):
            for a, b in itertools.combinations(clique, 2):
                both_dated = all(
                    (m.validity.world_from_key, m.validity.world_until_key) != (None, None) for m in (a, b)
                )
                if not (clock == "story" and both_dated):
                    expected.add(tuple(sorted((a.id, b.id))))
        found = {(a.id, b.id) for a, b in overlapping_pairs(members, frozenset(), lambda a, b: True)}
        assert found == expected, [m.validity for m in members]


# -- the benchmark generator -----------------------------------------------------------------------------


@pytest.mark.parametrize(("entities", "statements", "seed"), [(1500, 15000, 1), (3000, 40000, 7)])
def test_generator_plants_exactly_the_conflicts_found(entities: int, statements: int, seed: int) -> None:
    snapshot, planted = make_snapshot(entities, statements, seed)

    assert len(snapshot.entities) == entities
    assert len(snapshot.statements) == statements
    found = Counter(f.kind for f in check(snapshot))
    assert dict(found) == planted
    assert set(planted) == set(ConflictKind) and all(n > 0 for n in planted.values())


def test_generator_is_deterministic() -> None:
    first, _ = make_snapshot(800, 6000, 3)
    second, _ = make_snapshot(800, 6000, 3)
    other, _ = make_snapshot(800, 6000, 4)
    assert first.statements == second.statements
    assert first.entities == second.entities
    assert first.statements != other.statements
