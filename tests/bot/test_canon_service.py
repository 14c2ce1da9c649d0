"""The canon use cases on a real database: propose, review, commit, add directly, retcon, as-of, conflicts."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.canon_service import CanonService, parse_as_of
from canon import campaigns
from canon.campaigns import Campaign, ChangesetKind, ChangesetRow
from canon.domain import (
    AsOf,
    Authority,
    CanonLevel,
    EvidenceKind,
    StatementKind,
    Validity,
    Viewer,
    Visibility,
)
from canon.errors import Conflict, InvalidInput, NotFound
from canon.graph import CanonWriter
from canon.models import EntityRow, StatementRow
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    ProposalStatus,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from canon.storage import Database, utc_now
from memory.scenes import Actor, SceneService, SceneStatus, SpeakerKind
from memory.turn_log import IncomingMessage, TurnLog

GM = Actor(id=1, name="Gina", is_gm=True)
PAT = Actor(id=2, name="Pat", is_gm=False)
CHANNEL = 500


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Shattered Isles", guild_id=10))


@pytest.fixture
async def service(db: Database) -> CanonService:
    return CanonService(db, SceneService(db))


async def play_scene(db: Database, service: CanonService, campaign: Campaign, lines: list[str]) -> int:
    scene = await service.scenes.start_scene(
        campaign_id=campaign.id, guild_id=10, channel_id=CHANNEL, title="Scene", location=None, actor=GM
    )
    log = TurnLog(db)
    log.start()
    for i, line in enumerate(lines):
        await log.append(
            IncomingMessage(
                message_id=scene.id * 1000 + i,
                channel_id=CHANNEL,
                author_id=PAT.id,
                author_name="Pat",
                speaker=SpeakerKind.PLAYER,
                text=line,
                created_at=utc_now(),
            )
        )
    await log.close()
    return scene.id


async def test_player_proposals_wait_for_the_gm_and_commit_writes_only_accepted(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    scene_id = await play_scene(db, service, campaign, ["Aldric draws his sword.", "Aldric meets Mara."])
    (entity,) = await service.propose(
        campaign, CHANNEL, EntityContent(name="Aldric", entity_type="npc", description="a knight"), PAT
    )
    assert entity.content.entity_type == "NPC" and entity.status == ProposalStatus.PENDING
    proposals = await service.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="aldric"), relation="ally of", object=Ref(name="Mara")),
        PAT,
        turns=(2, 2),
    )
    # "aldric" resolves to the pending Aldric proposal; Mara is unknown, so she becomes an entity proposal.
    mara, relation = proposals
    assert mara.content.name == "Mara" and mara.content.entity_type == "Person"
    assert (
        relation.content.subject.proposal_id == entity.id and relation.content.object.proposal_id == mara.id
    )
    assert relation.evidence[0].turn_from == 2
    (fact,) = await service.propose(
        campaign,
        CHANNEL,
        FactContent(subject=Ref(name="Aldric"), attribute="Title", value="Knight of the Vale"),
        PAT,
    )

    report, review = await service.end_scene(CHANNEL)
    assert report.scene.status == SceneStatus.REVIEW
    assert [p.id for p in review.proposals] == [entity.id, mara.id, relation.id, fact.id]
    assert review.turn_messages[2] == scene_id * 1000 + 1

    await service.decide(entity.id, accept=True, actor=GM)
    await service.decide(mara.id, accept=True, actor=GM)
    await service.decide(relation.id, accept=True, actor=GM)
    await service.decide(fact.id, accept=False, actor=GM, rationale="Not yet knighted")
    with pytest.raises(Conflict, match="already rejected by Gina"):
        await service.decide(fact.id, accept=True, actor=GM)

    result = await service.commit_scene(scene_id, GM)
    assert {p.id for p in result.accepted} == {entity.id, mara.id, relation.id}
    card = await service.card(campaign, "Aldric", viewer=Viewer.PLAYER)
    assert [v.sentence() for v in card.relations] == ["Aldric ally of Mara"]
    assert card.facts == ()
    evidence = card.relations[0].statement.evidence
    assert any(e.kind == EvidenceKind.TURNS and e.scene_id == scene_id and e.turn_from == 2 for e in evidence)
    assert any(e.kind == EvidenceKind.COMMAND and "accepted by Gina" in (e.note or "") for e in evidence)
    with pytest.raises(Conflict, match="already committed"):
        await service.commit_scene(scene_id, GM)
    async with db.session() as session:
        rejected = await service.gate_for(campaign).get(session, fact.id)
    assert rejected.status == ProposalStatus.REJECTED and rejected.rationale == "Not yet knighted"


async def test_asof_before_and_after_a_scene(db: Database, service: CanonService, campaign: Campaign) -> None:
    await service.add_direct(
        campaign, EntityContent(name="Aldric", entity_type="NPC"), GM, command="/canon add"
    )
    await service.add_direct(
        campaign, StateChangeContent(subject=Ref(name="Aldric"), state="alive"), GM, command="/canon add"
    )
    scene_id = await play_scene(db, service, campaign, ["The arrow finds Aldric."])
    await service.propose(campaign, CHANNEL, StateChangeContent(subject=Ref(name="Aldric"), state="dead"), GM)
    await service.end_scene(CHANNEL)
    result = await service.commit_scene(scene_id, GM)  # GM proposals are accepted by the default policy
    assert len(result.accepted) == 1
    before = await service.card(campaign, "Aldric", viewer=Viewer.PLAYER, as_of=AsOf(scene=0))
    after = await service.card(campaign, "Aldric", viewer=Viewer.PLAYER, as_of=AsOf(scene=1))
    assert before.state is not None and before.state.statement.value == "alive"
    assert after.state is not None and after.state.statement.value == "dead"


async def test_a_dead_character_acting_is_warned_and_needs_a_rationale(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(
        campaign, EntityContent(name="Aldric", entity_type="NPC"), GM, command="/canon add"
    )
    first = await play_scene(db, service, campaign, ["Aldric falls."])
    await service.propose(campaign, CHANNEL, StateChangeContent(subject=Ref(name="Aldric"), state="dead"), GM)
    await service.end_scene(CHANNEL)
    await service.commit_scene(first, GM)

    second = await play_scene(db, service, campaign, ["Aldric orders the march."])
    proposals = await service.propose(
        campaign,
        CHANNEL,
        EventContent(name="The order to march", participants=(Ref(name="Aldric"),)),
        PAT,
    )
    event = proposals[-1]
    assert event.warnings and event.warnings[0]["kind"] == "dead_acting"
    with pytest.raises(InvalidInput, match="rationale"):
        await service.decide(event.id, accept=True, actor=GM)
    accepted = await service.decide(event.id, accept=True, actor=GM, rationale="A ghost, as planned")
    assert accepted.override_rationale == "A ghost, as planned"
    await service.end_scene(CHANNEL)
    await service.commit_scene(second, GM)
    conflicts = await service.conflicts(campaign)
    assert conflicts and conflicts[0].status == "accepted" and conflicts[0].rationale == "A ghost, as planned"


async def test_bad_proposals_get_clear_errors(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await play_scene(db, service, campaign, ["..."])
    with pytest.raises(InvalidInput, match=r"Allowed relations: .*ALLY_OF"):
        await service.propose(
            campaign,
            CHANNEL,
            RelationshipContent(subject=Ref(name="A"), relation="LOVES", object=Ref(name="B")),
            PAT,
        )
    with pytest.raises(InvalidInput, match=r"Allowed types: .*NPC"):
        await service.propose(campaign, CHANNEL, EntityContent(name="X", entity_type="Spaceship"), PAT)
    with pytest.raises(InvalidInput, match=r"3rd_age\.year_300"):
        await service.propose(
            campaign,
            CHANNEL,
            FactContent(subject=Ref(name="A"), attribute="title", value="x", when="3rd_age.year_abc"),
            PAT,
        )
    with pytest.raises(InvalidInput, match="not a range"):
        await service.propose(
            campaign, CHANNEL, EntityContent(name="X", entity_type="NPC"), PAT, turns=(5, 9)
        )
    review = await service.review(None, campaign_id=campaign.id, batch=None)
    assert review.proposals == []  # nothing half-written


async def test_two_gms_deciding_at_once_make_one_decision(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await play_scene(db, service, campaign, ["..."])
    (proposal,) = await service.propose(campaign, CHANNEL, EntityContent(name="Mara", entity_type="NPC"), PAT)
    other = Actor(id=3, name="Gus", is_gm=True)
    results = await asyncio.gather(
        service.decide(proposal.id, accept=True, actor=GM),
        service.decide(proposal.id, accept=False, actor=other),
        return_exceptions=True,
    )
    assert sum(1 for r in results if isinstance(r, Conflict)) == 1
    assert sum(1 for r in results if not isinstance(r, Exception)) == 1


async def test_retcon_keeps_history_and_lists_dependents(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(
        campaign, EntityContent(name="Bridge of Sighs", entity_type="Location"), GM, command="c"
    )
    result = await service.add_direct(
        campaign,
        FactContent(subject=Ref(name="Bridge of Sighs"), attribute="material", value="stone"),
        GM,
        command="c",
    )
    (fact_id,) = result.statement_ids
    before_retcon = utc_now()
    retcon = await service.retcon(campaign, fact_id, GM, rationale="It was always wood", new_value="wood")
    assert retcon.replacement_id is not None and retcon.dependents == []
    card = await service.card(campaign, "Bridge of Sighs", viewer=Viewer.GM)
    assert [v.statement.value for v in card.facts] == ["wood"]
    assert card.facts[0].statement.replaces_id == fact_id
    believed = await service.card(
        campaign, "Bridge of Sighs", viewer=Viewer.GM, as_of=AsOf(believed_at=before_retcon)
    )
    assert [v.statement.value for v in believed.facts] == ["stone"]
    _, timeline = await service.timeline(campaign, "Bridge of Sighs", viewer=Viewer.GM)
    levels = {v.statement.value: v.statement.provenance.level for v in timeline}
    assert levels == {"stone": CanonLevel.RETCONNED, "wood": CanonLevel.CANON}
    with pytest.raises(Conflict, match=f"current fact is #{retcon.replacement_id}"):
        await service.retcon(campaign, fact_id, GM, rationale="again")


async def test_retcon_lists_the_facts_that_cite_it_and_a_retconned_fact_cannot_be_cited(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(
        campaign, EntityContent(name="Bridge of Sighs", entity_type="Location"), GM, command="c"
    )
    (stone,) = (
        await service.add_direct(
            campaign,
            FactContent(subject=Ref(name="Bridge of Sighs"), attribute="material", value="stone"),
            GM,
            command="c",
        )
    ).statement_ids
    (load,) = (
        await service.add_direct(
            campaign,
            FactContent(
                subject=Ref(name="Bridge of Sighs"),
                attribute="bears",
                value="a siege tower",
                relies_on=(stone,),
            ),
            GM,
            command="c",
        )
    ).statement_ids
    (unrelated,) = (
        await service.add_direct(
            campaign,
            FactContent(subject=Ref(name="Bridge of Sighs"), attribute="span", value="forty yards"),
            GM,
            command="c",
        )
    ).statement_ids

    retcon = await service.retcon(campaign, stone, GM, rationale="It was always wood", new_value="wood")
    assert [d.statement.id for d in retcon.dependents] == [load]
    assert unrelated not in {d.statement.id for d in retcon.dependents}
    findings, _ = await service.check(campaign)
    relying = [f for f in findings if f.kind.value == "relies_on_retconned"]
    assert [set(f.statement_ids) for f in relying] == [{stone, load}]

    await play_scene(db, service, campaign, ["The tower rolls onto the bridge."])
    with pytest.raises(Conflict, match=f"current fact is #{retcon.replacement_id}"):
        await service.propose(
            campaign,
            CHANNEL,
            FactContent(
                subject=Ref(name="Bridge of Sighs"), attribute="cracked", value="yes", relies_on=(stone,)
            ),
            PAT,
        )
    with pytest.raises(NotFound, match="no fact #999999"):
        await service.propose(
            campaign,
            CHANNEL,
            FactContent(
                subject=Ref(name="Bridge of Sighs"), attribute="cracked", value="yes", relies_on=(999999,)
            ),
            PAT,
        )


async def test_states_and_participations_depend_on_the_state_they_follow(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(campaign, EntityContent(name="Aldric", entity_type="NPC"), GM, command="c")
    (alive,) = (
        await service.add_direct(
            campaign,
            StateChangeContent(subject=Ref(name="Aldric"), state="alive", when="3rd_age.year_280"),
            GM,
            command="c",
        )
    ).statement_ids
    scene_id = await play_scene(db, service, campaign, ["An arrow.", "Aldric rallies the guard."])
    (wounded,) = await service.propose(
        campaign, CHANNEL, StateChangeContent(subject=Ref(name="Aldric"), state="wounded"), PAT, turns=(1, 1)
    )
    *_, rally = await service.propose(
        campaign,
        CHANNEL,
        EventContent(name="The rally", participants=(Ref(name="Aldric"),)),
        PAT,
        turns=(2, 2),
    )
    await service.end_scene(CHANNEL)
    await service.accept_all(scene_id, GM)
    result = await service.commit_scene(scene_id, GM)
    (wounded_id,) = result.written_by[wounded.id]
    (took_part,) = result.written_by[rally.id]

    first = await service.retcon(campaign, alive, GM, rationale="He was born in the north")
    assert [d.statement.id for d in first.dependents] == [wounded_id]
    second = await service.retcon(campaign, wounded_id, GM, rationale="The arrow missed")
    assert [d.sentence() for d in second.dependents] == ["Aldric participated in The rally"]
    assert [d.statement.id for d in second.dependents] == [took_part]


async def test_players_never_see_gm_only_canon(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(
        campaign,
        EntityContent(name="The Hidden King", entity_type="NPC", visibility=Visibility.GM_ONLY),
        GM,
        command="c",
    )
    await service.add_direct(campaign, EntityContent(name="Mara", entity_type="NPC"), GM, command="c")
    await service.add_direct(
        campaign,
        FactContent(subject=Ref(name="Mara"), attribute="secret", value="spy", visibility=Visibility.GM_ONLY),
        GM,
        command="c",
    )
    with pytest.raises(NotFound):
        await service.card(campaign, "The Hidden King", viewer=Viewer.PLAYER)
    assert (
        await service.card(campaign, "The Hidden King", viewer=Viewer.GM)
    ).entity.visibility == Visibility.GM_ONLY
    assert (await service.card(campaign, "Mara", viewer=Viewer.PLAYER)).facts == ()
    assert [v.statement.value for v in (await service.card(campaign, "Mara", viewer=Viewer.GM)).facts] == [
        "spy"
    ]
    assert not await service.autocomplete(campaign, "Hidden", viewer=Viewer.PLAYER)


def test_parse_as_of_errors_show_the_form() -> None:
    with pytest.raises(InvalidInput, match="3rd_age"):
        parse_as_of(at_date="the 3rd age, year 300")
    with pytest.raises(InvalidInput, match="ISO"):
        parse_as_of(believed_at="last week")
    assert parse_as_of(at_date="3rd_age.year_340").world == "3rd_age.year_340"


def test_parse_as_of_refuses_what_cannot_be_stored_naming_the_range() -> None:
    with pytest.raises(InvalidInput, match="years -999,999,999,999 to 999,999,999,999"):
        parse_as_of(at_date="3rd_age.year_99999999999999999999")
    with pytest.raises(InvalidInput, match=r"real times run from 0001-01-02 to 9999-12-30 \(UTC\)"):
        parse_as_of(believed_at="0001-01-01T00:00+14:00")
    believed = parse_as_of(believed_at="2026-11-30T18:00+14:00").believed_at
    assert believed == dt.datetime(2026, 11, 30, 4, tzinfo=dt.UTC) and believed.tzinfo == dt.UTC


async def test_prose_extractions_wait_for_the_gm_even_under_an_auto_policy(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    from canon.gate import Draft

    certain = Draft(
        content=EntityContent(name="Westhaven", entity_type="Location"), authority=Authority.SOURCE
    )
    prose = Draft(
        content=EntityContent(name="Old Abbey", entity_type="Location"),
        authority=Authority.SOURCE,
        confidence=0.6,
    )
    await service.submit(campaign, [certain, prose], scene_id=None, batch="import:1")
    result = await service.commit_batch(campaign, "import:1", GM)
    assert [p.content.name for p in result.accepted] == ["Westhaven"]
    assert [p.content.name for p in result.rejected] == ["Old Abbey"]


async def test_commit_accepts_only_the_conflicts_of_proposals_accepted_anyway(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(
        campaign, EntityContent(name="Aldric", entity_type="NPC"), GM, command="/canon add"
    )
    await service.add_direct(
        campaign, EntityContent(name="Mara", entity_type="NPC"), GM, command="/canon add"
    )
    await service.add_direct(
        campaign,
        StateChangeContent(subject=Ref(name="Aldric"), state="dead", when="3rd_age.year_300"),
        GM,
        command="/canon add",
    )
    scene_id = await play_scene(db, service, campaign, ["Aldric orders the march.", "Mara is crowned."])
    *_, ghost = await service.propose(
        campaign,
        CHANNEL,
        EventContent(name="The order to march", when="3rd_age.year_301", participants=(Ref(name="Aldric"),)),
        PAT,
        turns=(1, 1),
    )
    (crown,) = await service.propose(
        campaign,
        CHANNEL,
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Queen", when="3rd_age.year_301"),
        PAT,
    )
    assert ghost.warnings and not crown.warnings
    await service.end_scene(CHANNEL)
    # Canon written after the review opened: the crown proposal now contradicts the GM, unwarned.
    await service.add_direct(
        campaign,
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Beggar", when="3rd_age.year_301"),
        GM,
        command="/canon add",
    )
    await service.decide(ghost.id, accept=True, actor=GM, rationale="A ghost, as planned")
    await service.decide(crown.id, accept=True, actor=GM)
    result = await service.commit_scene(scene_id, GM)
    assert {f.kind.value for f in result.findings} == {"dead_acting", "contradicts_higher_authority"}

    recorded = {c.kind: c for c in await service.conflicts(campaign)}
    assert recorded["dead_acting"].status == "accepted"
    assert recorded["dead_acting"].rationale == "A ghost, as planned"
    assert recorded["contradicts_higher_authority"].status == "open"
    assert recorded["contradicts_higher_authority"].rationale is None


async def test_two_concurrent_commits_write_the_scene_once(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    scene_id = await play_scene(db, service, campaign, ["Aldric meets Mara at the gate."])
    await service.propose(campaign, CHANNEL, EntityContent(name="Aldric", entity_type="NPC"), GM)
    await service.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="Aldric"), relation="ALLY_OF", object=Ref(name="Mara")),
        GM,
    )
    await service.end_scene(CHANNEL)
    other = Actor(id=3, name="Gus", is_gm=True)
    results = await asyncio.gather(
        service.commit_scene(scene_id, GM), service.commit_scene(scene_id, other), return_exceptions=True
    )
    won = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(refused) == 1
    assert isinstance(refused[0], Conflict) and "already committed" in refused[0].message
    (result,) = won
    assert len(result.accepted) == 3 and len(result.statement_ids) == 1

    async with db.session() as session:
        statements = (
            await session.execute(select(func.count()).where(StatementRow.campaign_id == campaign.id))
        ).scalar()
        entities = (
            await session.execute(select(func.count()).where(EntityRow.campaign_id == campaign.id))
        ).scalar()
        commits = (
            await session.execute(
                select(func.count()).where(
                    ChangesetRow.campaign_id == campaign.id, ChangesetRow.kind == "scene_commit"
                )
            )
        ).scalar()
    assert (statements, entities, commits) == (1, 2, 1)
    review = await service.review(scene_id)
    assert {p.status for p in review.proposals} == {ProposalStatus.COMMITTED}
    assert {p.committed_changeset_id for p in review.proposals} == {result.changeset_id}
    assert review.scene is not None and review.scene.status == SceneStatus.COMPLETED


async def test_asof_leaves_out_what_has_ended(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    for name in ("Aldric", "Mara"):
        await service.add_direct(campaign, EntityContent(name=name, entity_type="NPC"), GM, command="c")
    await service.add_direct(
        campaign,
        RelationshipContent(
            subject=Ref(name="Aldric"),
            relation="ALLY_OF",
            object=Ref(name="Mara"),
            since="3rd_age.year_300",
            until="3rd_age.year_305",
        ),
        GM,
        command="c",
    )

    async def allies(date: str | None = None) -> list[str]:
        card = await service.card(campaign, "Aldric", viewer=Viewer.GM, as_of=parse_as_of(at_date=date))
        return [v.sentence() for v in card.relations]

    assert await allies("3rd_age.year_299") == []
    assert await allies("3rd_age.year_302") == ["Aldric ally of Mara"]
    assert await allies("3rd_age.year_304.12.30") == ["Aldric ally of Mara"]
    assert await allies("3rd_age.year_305") == []
    assert await allies("3rd_age.year_340") == []
    assert await allies() == ["Aldric ally of Mara"]  # the present keeps the whole history

    # The story clock ends too: a fact that holds from scene 1 until scene 3 (a branch's shifted fact).
    async def write(session: AsyncSession) -> int:
        reader = await service.reader(session, campaign, Viewer.GM)
        changeset = await campaigns.open_changeset(session, campaign.id, ChangesetKind.GM_DIRECT)
        (aldric,) = await reader.find_exact("Aldric")
        return await CanonWriter(session, changeset, reader.ontology).add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=aldric.id,
            predicate="disguise",
            value="a friar",
            validity=Validity(story_from=1, story_until=3),
            authority=Authority.GM,
        )

    await db.run(write)

    async def disguises(scene: int) -> list[str | None]:
        card = await service.card(campaign, "Aldric", viewer=Viewer.GM, as_of=AsOf(scene=scene))
        return [v.statement.value for v in card.facts]

    assert [await disguises(n) for n in (0, 1, 2, 3, 4)] == [[], ["a friar"], ["a friar"], [], []]


async def test_endscene_warns_of_proposals_that_contradict_each_other(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    for name in ("Aldric", "Mara"):
        await service.add_direct(campaign, EntityContent(name=name, entity_type="NPC"), GM, command="c")
    scene_id = await play_scene(db, service, campaign, ["Aldric swears to Mara.", "Aldric betrays Mara."])
    (ally,) = await service.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="Aldric"), relation="ALLY_OF", object=Ref(name="Mara")),
        PAT,
        turns=(1, 1),
    )
    (enemy,) = await service.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="Aldric"), relation="ENEMY_OF", object=Ref(name="Mara")),
        PAT,
        turns=(2, 2),
    )
    (title,) = await service.propose(
        campaign, CHANNEL, FactContent(subject=Ref(name="Mara"), attribute="title", value="Captain"), PAT
    )
    assert ally.warnings == () and enemy.warnings == ()  # each alone is fine

    _, review = await service.end_scene(CHANNEL)
    warned = {p.id: [w["kind"] for w in p.warnings] for p in review.proposals}
    assert warned == {ally.id: ["exclusive_relations"], enemy.id: ["exclusive_relations"], title.id: []}
    assert review.proposals[0].warnings[0]["fingerprint"] == review.proposals[1].warnings[0]["fingerprint"]

    accepted = await service.accept_all(scene_id, GM)
    assert [p.id for p in accepted] == [title.id]  # the contradicting pair waits for a decision
    with pytest.raises(InvalidInput, match="rationale"):
        await service.decide(enemy.id, accept=True, actor=GM)


async def test_a_commit_warns_when_a_cited_fact_about_another_entity_was_retconned_meanwhile(
    db: Database, service: CanonService, campaign: Campaign
) -> None:
    await service.add_direct(campaign, EntityContent(name="Mara", entity_type="NPC"), GM, command="c")
    await service.add_direct(
        campaign, EntityContent(name="Old Keep", entity_type="Location"), GM, command="c"
    )
    (walls,) = (
        await service.add_direct(
            campaign,
            FactContent(subject=Ref(name="Old Keep"), attribute="walls", value="unbreached"),
            GM,
            command="c",
        )
    ).statement_ids
    scene_id = await play_scene(db, service, campaign, ["Mara holds the keep."])
    (hold,) = await service.propose(
        campaign,
        CHANNEL,
        FactContent(
            subject=Ref(name="Mara"), attribute="stronghold", value="the Old Keep", relies_on=(walls,)
        ),
        PAT,
    )
    assert hold.warnings == ()
    await service.end_scene(CHANNEL)
    await service.retcon(campaign, walls, GM, rationale="The walls fell long ago")
    await service.decide(hold.id, accept=True, actor=GM)
    result = await service.commit_scene(scene_id, GM)
    (written,) = result.written_by[hold.id]
    relying = [f for f in result.findings if f.kind.value == "relies_on_retconned"]
    assert [set(f.statement_ids) for f in relying] == [{walls, written}]
