"""The continuity rules: one hand-built snapshot per rule, its legal variants, focus, fingerprints, the generator."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from bench.continuity_data import make_snapshot
from canon.calendar import parse_date
from canon.continuity import (
    ConflictKind,
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
    Statement,
    StatementKind,
    Validity,
)
from tests.helpers.continuity_world import World, only, provenance, side_of

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
