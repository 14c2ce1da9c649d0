"""The continuity rules for being somewhere and siding with someone: one person in two places, allies and enemies at once."""

from __future__ import annotations

from canon.continuity import (
    ConflictKind,
)
from canon.models import (
    Authority,
)
from tests.helpers.continuity_world import World, only, side_of

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
