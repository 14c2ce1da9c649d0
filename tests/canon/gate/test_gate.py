"""The canonization gate on a real database: warnings, decisions, the authority policy, commits and their records."""

from __future__ import annotations

import asyncio

import pytest

from canon.errors import Conflict, InvalidInput
from canon.gate import Draft
from canon.models import Authority
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from canon.storage import Database
from tests.helpers.canon_desk import Desk


@pytest.fixture
async def desk(db: Database) -> Desk:
    return await Desk.create(db)


async def test_a_dead_character_acting_is_warned_and_needs_a_rationale(desk: Desk) -> None:
    await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    await desk.propose(StateChangeContent(subject=Ref(name="Aldric"), state="dead"), scene=1, gm=True)
    await desk.commit(scene=1)

    proposals = await desk.propose(
        EventContent(name="The order to march", participants=(Ref(name="Aldric"),)), scene=2
    )
    event = proposals[-1]
    assert event.warnings and event.warnings[0].kind == "dead_acting"
    with pytest.raises(InvalidInput, match="rationale"):
        await desk.decide(event.id, accept=True)
    accepted = await desk.decide(event.id, accept=True, rationale="A ghost, as planned")
    assert accepted.override_rationale == "A ghost, as planned"
    await desk.commit(scene=2)
    conflicts = await desk.conflicts()
    assert conflicts and conflicts[0].status == "accepted" and conflicts[0].rationale == "A ghost, as planned"


async def test_two_gms_deciding_at_once_make_one_decision(desk: Desk) -> None:
    (proposal,) = await desk.propose(EntityContent(name="Mara", entity_type="NPC"), scene=1)
    results = await asyncio.gather(
        desk.decide(proposal.id, accept=True),
        desk.decide(proposal.id, accept=False, name="Gus"),
        return_exceptions=True,
    )
    assert sum(1 for r in results if isinstance(r, Conflict)) == 1
    assert sum(1 for r in results if not isinstance(r, Exception)) == 1


async def test_states_and_participations_depend_on_the_state_they_follow(desk: Desk) -> None:
    await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    (alive,) = (
        await desk.add(StateChangeContent(subject=Ref(name="Aldric"), state="alive", when="3rd_age.year_280"))
    ).statement_ids
    (wounded,) = await desk.propose(StateChangeContent(subject=Ref(name="Aldric"), state="wounded"), scene=1)
    *_, rally = await desk.propose(
        EventContent(name="The rally", participants=(Ref(name="Aldric"),)), scene=1, turn=2
    )
    await desk.rewarn(1)
    await desk.accept_all(1)
    result = await desk.commit(scene=1)
    (wounded_id,) = result.written_by[wounded.id]
    (took_part,) = result.written_by[rally.id]

    assert [d.statement.id for d in await desk.dependents(alive)] == [wounded_id]
    following = await desk.dependents(wounded_id)
    assert [d.sentence() for d in following] == ["Aldric participated in The rally"]
    assert [d.statement.id for d in following] == [took_part]


async def test_prose_extractions_wait_for_the_gm_even_under_an_auto_policy(desk: Desk) -> None:
    certain = Draft(
        content=EntityContent(name="Westhaven", entity_type="Location"), authority=Authority.SOURCE
    )
    prose = Draft(
        content=EntityContent(name="Old Abbey", entity_type="Location"),
        authority=Authority.SOURCE,
        confidence=0.6,
    )
    await desk.submit([certain, prose], batch="import:1")
    result = await desk.commit(batch="import:1")
    assert [p.content.name for p in result.accepted] == ["Westhaven"]
    assert [p.content.name for p in result.rejected] == ["Old Abbey"]


async def test_commit_accepts_only_the_conflicts_of_proposals_accepted_anyway(desk: Desk) -> None:
    await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(StateChangeContent(subject=Ref(name="Aldric"), state="dead", when="3rd_age.year_300"))
    *_, ghost = await desk.propose(
        EventContent(name="The order to march", when="3rd_age.year_301", participants=(Ref(name="Aldric"),)),
        scene=1,
    )
    (crown,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Queen", when="3rd_age.year_301"),
        scene=1,
        turn=2,
    )
    assert ghost.warnings and not crown.warnings
    await desk.rewarn(1)
    # Canon written after the review opened: the crown proposal now contradicts the GM, unwarned.
    await desk.add(
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Beggar", when="3rd_age.year_301")
    )
    await desk.decide(ghost.id, accept=True, rationale="A ghost, as planned")
    await desk.decide(crown.id, accept=True)
    result = await desk.commit(scene=1)
    assert {f.kind.value for f in result.findings} == {"dead_acting", "contradicts_higher_authority"}

    recorded = {c.kind: c for c in await desk.conflicts()}
    assert recorded["dead_acting"].status == "accepted"
    assert recorded["dead_acting"].rationale == "A ghost, as planned"
    assert recorded["contradicts_higher_authority"].status == "open"
    assert recorded["contradicts_higher_authority"].rationale is None


async def test_the_scenes_proposals_warned_together_contradict_each_other(desk: Desk) -> None:
    for name in ("Aldric", "Mara"):
        await desk.add(EntityContent(name=name, entity_type="NPC"))
    (ally,) = await desk.propose(
        RelationshipContent(subject=Ref(name="Aldric"), relation="ALLY_OF", object=Ref(name="Mara")), scene=1
    )
    (enemy,) = await desk.propose(
        RelationshipContent(subject=Ref(name="Aldric"), relation="ENEMY_OF", object=Ref(name="Mara")),
        scene=1,
        turn=2,
    )
    (title,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Captain"), scene=1
    )
    assert ally.warnings == () and enemy.warnings == ()  # each alone is fine

    proposals = await desk.rewarn(1)
    warned = {p.id: [w.kind for w in p.warnings] for p in proposals}
    assert warned == {ally.id: ["exclusive_relations"], enemy.id: ["exclusive_relations"], title.id: []}
    assert proposals[0].warnings[0].fingerprint == proposals[1].warnings[0].fingerprint

    accepted = await desk.accept_all(1)
    assert [p.id for p in accepted] == [title.id]  # the contradicting pair waits for a decision
    with pytest.raises(InvalidInput, match="rationale"):
        await desk.decide(enemy.id, accept=True)


async def test_a_commit_warns_when_a_cited_fact_about_another_entity_was_retconned_meanwhile(
    desk: Desk,
) -> None:
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(EntityContent(name="Old Keep", entity_type="Location"))
    (walls,) = (
        await desk.add(FactContent(subject=Ref(name="Old Keep"), attribute="walls", value="unbreached"))
    ).statement_ids
    (hold,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="home", value="the Old Keep", relies_on=(walls,)),
        scene=1,
    )
    assert hold.warnings == ()
    await desk.rewarn(1)
    await desk.retcon(walls, rationale="The walls fell long ago")
    await desk.decide(hold.id, accept=True)
    result = await desk.commit(scene=1)
    (written,) = result.written_by[hold.id]
    relying = [f for f in result.findings if f.kind.value == "relies_on_retconned"]
    assert [set(f.statement_ids) for f in relying] == [{walls, written}]
