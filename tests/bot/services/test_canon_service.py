"""The canon use cases on a real database: propose, review, commit, add directly, retcon, as-of, conflicts."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

import pytest
from sqlalchemy import func, select

from bot.app import CanonServices, build_canon
from bot.services.canon_queries import parse_as_of
from canon import campaigns
from canon.campaigns import Campaign, ChangesetRow
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.gate import Draft
from canon.models import AsOf, Authority, CanonLevel, EvidenceKind, Viewer, Visibility
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
from canon.tables import EntityRow, StatementRow
from memory.scene_service import SceneService
from memory.scenes import Actor, Scene, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog

GM = Actor(id=1, name="Gina", is_gm=True)
PAT = Actor(id=2, name="Pat", is_gm=False)
CHANNEL = 500


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Shattered Isles", guild_id=10))


@pytest.fixture
async def service(db: Database) -> CanonServices:
    return build_canon(db, SceneService(db))


async def play_scene(db: Database, service: CanonServices, campaign: Campaign, lines: list[str]) -> int:
    scene = await service.canon.scenes.start_scene(
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
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    scene_id = await play_scene(db, service, campaign, ["Aldric draws his sword.", "Aldric meets Mara."])
    (entity,) = await service.proposals.propose(
        campaign, CHANNEL, EntityContent(name="Aldric", entity_type="npc", description="a knight"), PAT
    )
    assert entity.content.entity_type == "NPC" and entity.status == ProposalStatus.PENDING
    proposals = await service.proposals.propose(
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
    (fact,) = await service.proposals.propose(
        campaign,
        CHANNEL,
        FactContent(subject=Ref(name="Aldric"), attribute="Title", value="Knight of the Vale"),
        PAT,
    )

    report, review = await service.canon.end_scene(CHANNEL)
    assert report.scene.status == SceneStatus.REVIEW
    assert [p.id for p in review.proposals] == [entity.id, mara.id, relation.id, fact.id]
    assert review.turn_messages[2] == scene_id * 1000 + 1

    await service.reviews.decide(entity.id, accept=True, actor=GM)
    await service.reviews.decide(mara.id, accept=True, actor=GM)
    await service.reviews.decide(relation.id, accept=True, actor=GM)
    await service.reviews.decide(fact.id, accept=False, actor=GM, rationale="Not yet knighted")
    with pytest.raises(Conflict, match="already rejected by Gina"):
        await service.reviews.decide(fact.id, accept=True, actor=GM)

    result = (await service.canon.commit_scene(scene_id, GM)).result
    assert {p.id for p in result.accepted} == {entity.id, mara.id, relation.id}
    card = await service.queries.card(campaign, "Aldric", viewer=Viewer.PLAYER)
    assert [v.sentence() for v in card.relations] == ["Aldric ally of Mara"]
    assert card.facts == ()
    evidence = card.relations[0].statement.evidence
    assert any(e.kind == EvidenceKind.TURNS and e.scene_id == scene_id and e.turn_from == 2 for e in evidence)
    assert any(e.kind == EvidenceKind.COMMAND and "accepted by Gina" in (e.note or "") for e in evidence)
    with pytest.raises(Conflict, match="already committed"):
        await service.canon.commit_scene(scene_id, GM)
    async with db.session() as session:
        rejected = await service.access.gate_for(campaign).get(session, fact.id)
    assert rejected.status == ProposalStatus.REJECTED and rejected.rationale == "Not yet knighted"


async def test_bad_proposals_get_clear_errors(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    await play_scene(db, service, campaign, ["..."])
    with pytest.raises(InvalidInput, match=r"is not a relation this campaign knows\. Did you mean “"):
        await service.proposals.propose(
            campaign,
            CHANNEL,
            RelationshipContent(subject=Ref(name="A"), relation="LOVES", object=Ref(name="B")),
            PAT,
        )
    with pytest.raises(InvalidInput, match=r"Allowed types: .*NPC"):
        await service.proposals.propose(
            campaign, CHANNEL, EntityContent(name="X", entity_type="Spaceship"), PAT
        )
    with pytest.raises(
        InvalidInput, match=r"That is not a date this campaign's calendar knows; write one like “year 412”"
    ):
        await service.proposals.propose(
            campaign,
            CHANNEL,
            FactContent(subject=Ref(name="A"), attribute="title", value="x", when="3rd_age.year_abc"),
            PAT,
        )
    with pytest.raises(InvalidInput, match="not a range"):
        await service.proposals.propose(
            campaign, CHANNEL, EntityContent(name="X", entity_type="NPC"), PAT, turns=(5, 9)
        )
    review = await service.reviews.review(None, campaign_id=campaign.id, batch=None)
    assert review.proposals == []  # nothing half-written


async def test_retcon_keeps_history_and_lists_dependents(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    await service.canon.add_direct(
        campaign, EntityContent(name="Bridge of Sighs", entity_type="Location"), GM, command="c"
    )
    result = await service.canon.add_direct(
        campaign,
        FactContent(subject=Ref(name="Bridge of Sighs"), attribute="material", value="stone"),
        GM,
        command="c",
    )
    (fact_id,) = result.statement_ids
    before_retcon = utc_now()
    retcon = await service.admin.retcon(
        campaign, fact_id, GM, rationale="It was always wood", new_value="wood"
    )
    assert retcon.replacement_id is not None and retcon.dependents == []
    card = await service.queries.card(campaign, "Bridge of Sighs", viewer=Viewer.GM)
    assert [v.statement.value for v in card.facts] == ["wood"]
    assert card.facts[0].statement.replaces_id == fact_id
    believed = await service.queries.card(
        campaign, "Bridge of Sighs", viewer=Viewer.GM, as_of=AsOf(believed_at=before_retcon)
    )
    assert [v.statement.value for v in believed.facts] == ["stone"]
    _, timeline = await service.queries.timeline(campaign, "Bridge of Sighs", viewer=Viewer.GM)
    levels = {v.statement.value: v.statement.provenance.level for v in timeline}
    assert levels == {"stone": CanonLevel.RETCONNED, "wood": CanonLevel.CANON}
    with pytest.raises(Conflict, match=r"already retconned\. A newer one replaced it"):
        await service.admin.retcon(campaign, fact_id, GM, rationale="again")


async def test_retcon_lists_the_facts_that_cite_it_and_a_retconned_fact_cannot_be_cited(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    await service.canon.add_direct(
        campaign, EntityContent(name="Bridge of Sighs", entity_type="Location"), GM, command="c"
    )
    (stone,) = (
        await service.canon.add_direct(
            campaign,
            FactContent(subject=Ref(name="Bridge of Sighs"), attribute="material", value="stone"),
            GM,
            command="c",
        )
    ).statement_ids
    (load,) = (
        await service.canon.add_direct(
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
        await service.canon.add_direct(
            campaign,
            FactContent(subject=Ref(name="Bridge of Sighs"), attribute="span", value="forty yards"),
            GM,
            command="c",
        )
    ).statement_ids

    retcon = await service.admin.retcon(campaign, stone, GM, rationale="It was always wood", new_value="wood")
    assert [d.statement.id for d in retcon.dependents] == [load]
    assert unrelated not in {d.statement.id for d in retcon.dependents}
    findings, _ = await service.queries.check(campaign)
    relying = [f for f in findings if f.kind.value == "relies_on_retconned"]
    assert [set(f.statement_ids) for f in relying] == [{stone, load}]

    await play_scene(db, service, campaign, ["The tower rolls onto the bridge."])
    with pytest.raises(
        Conflict,
        match=re.escape(
            "was retconned, so nothing can rely on it. What replaced it: “Bridge of Sighs' material: wood”"
        ),
    ):
        await service.proposals.propose(
            campaign,
            CHANNEL,
            FactContent(
                subject=Ref(name="Bridge of Sighs"), attribute="cracked", value="yes", relies_on=(stone,)
            ),
            PAT,
        )
    with pytest.raises(NotFound, match="One of the facts it relies on is not in this campaign's canon"):
        await service.proposals.propose(
            campaign,
            CHANNEL,
            FactContent(
                subject=Ref(name="Bridge of Sighs"), attribute="cracked", value="yes", relies_on=(999999,)
            ),
            PAT,
        )


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


async def test_two_concurrent_commits_write_the_scene_once(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    scene_id = await play_scene(db, service, campaign, ["Aldric meets Mara at the gate."])
    await service.proposals.propose(campaign, CHANNEL, EntityContent(name="Aldric", entity_type="NPC"), GM)
    await service.proposals.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="Aldric"), relation="ALLY_OF", object=Ref(name="Mara")),
        GM,
    )
    await service.canon.end_scene(CHANNEL)
    other = Actor(id=3, name="Gus", is_gm=True)
    results = await asyncio.gather(
        service.canon.commit_scene(scene_id, GM),
        service.canon.commit_scene(scene_id, other),
        return_exceptions=True,
    )
    won = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(refused) == 1
    assert isinstance(refused[0], Conflict) and "already committed" in refused[0].message
    (outcome,) = won
    result = outcome.result
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
    review = await service.reviews.review(scene_id)
    assert {p.status for p in review.proposals} == {ProposalStatus.COMMITTED}
    assert {p.committed_changeset_id for p in review.proposals} == {result.changeset_id}
    assert review.scene is not None and review.scene.status == SceneStatus.COMPLETED


async def written_counts(db: Database, campaign: Campaign) -> tuple[int, int]:
    async with db.session() as session:
        statements = (
            await session.execute(select(func.count()).where(StatementRow.campaign_id == campaign.id))
        ).scalar()
        commits = (
            await session.execute(
                select(func.count()).where(
                    ChangesetRow.campaign_id == campaign.id, ChangesetRow.kind != "gm_direct"
                )
            )
        ).scalar()
    return int(statements or 0), int(commits or 0)


async def test_a_commit_outcome_is_what_the_card_shows_and_players_hear_no_gm_only_conflict(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    for content in (
        EntityContent(name="Aldric", entity_type="NPC"),
        EntityContent(name="The Hidden King", entity_type="NPC", visibility=Visibility.GM_ONLY),
        StateChangeContent(subject=Ref(name="Aldric"), state="dead", when="3rd_age.year_300"),
        StateChangeContent(subject=Ref(name="The Hidden King"), state="dead", when="3rd_age.year_300"),
    ):
        await service.canon.add_direct(campaign, content, GM, command="/canon add")
    scene_id = await play_scene(db, service, campaign, ["Aldric marches.", "The king's council meets."])
    *_, march = await service.proposals.propose(
        campaign,
        CHANNEL,
        EventContent(name="The march", when="3rd_age.year_301", participants=(Ref(name="Aldric"),)),
        PAT,
        turns=(1, 1),
    )
    *_, council = await service.proposals.propose(
        campaign,
        CHANNEL,
        EventContent(
            name="The council",
            when="3rd_age.year_301",
            participants=(Ref(name="The Hidden King"),),
            visibility=Visibility.GM_ONLY,
        ),
        GM,
        turns=(2, 2),
    )
    _, review = await service.canon.end_scene(CHANNEL)
    await service.reviews.record_card(review, channel_id=CHANNEL, message_id=777)
    for proposal in (march, council):
        await service.reviews.decide(proposal.id, accept=True, actor=GM, rationale="As planned")

    with pytest.raises(NotAllowed, match="another server"):
        await service.canon.commit_scene(scene_id, GM, guild_id=99)
    assert await written_counts(db, campaign) == (
        2,
        0,
    )  # nothing written: the scene still waits for its commit

    outcome = await service.canon.commit_scene(scene_id, GM, guild_id=10)
    assert {f.kind.value for f in outcome.result.findings} == {"dead_acting"}
    assert len(outcome.result.findings) == 2
    (heard,) = outcome.heard
    assert "Aldric" in heard.message and "King" not in heard.message
    assert outcome.review.scene is not None and outcome.review.scene.status == SceneStatus.COMPLETED
    assert {p.status for p in outcome.review.proposals} == {ProposalStatus.COMMITTED}
    assert [(c.channel_id, c.message_id) for c in outcome.cards] == [(CHANNEL, 777)]


async def test_the_voice_hooks_are_given_at_construction(db: Database, campaign: Campaign) -> None:
    ended: list[tuple[int, SceneStatus]] = []
    completed: list[int] = []

    async def before_review(scene: Scene, *, progress: object = None) -> None:
        ended.append((scene.id, scene.status))

    async def after_complete(scene_id: int) -> None:
        completed.append(scene_id)

    service = build_canon(db, SceneService(db), before_review=before_review, after_complete=after_complete)
    quiet = await play_scene(db, service, campaign, ["Nothing happens."])
    await service.canon.end_scene(CHANNEL)  # nothing proposed: complete at once
    assert ended == [(quiet, SceneStatus.ACTIVE)] and completed == [quiet]

    busy = await play_scene(db, service, campaign, ["Aldric arrives."])
    await service.proposals.propose(campaign, CHANNEL, EntityContent(name="Aldric", entity_type="NPC"), PAT)
    report, _ = await service.canon.end_scene(CHANNEL)
    assert report.scene.status == SceneStatus.REVIEW
    assert ended[-1] == (busy, SceneStatus.ACTIVE) and completed == [quiet]  # the review waits
    await service.canon.commit_scene(busy, GM)
    assert completed == [quiet, busy]


async def test_a_batch_with_nothing_left_to_commit_is_refused(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    draft = Draft(content=EntityContent(name="Westhaven", entity_type="Location"), authority=Authority.SOURCE)
    await service.proposals.submit(campaign, [draft], scene_id=None, batch="import:1")
    outcome = await service.canon.commit_batch(campaign, "import:1", GM)
    assert [p.content.name for p in outcome.result.accepted] == ["Westhaven"]
    assert outcome.review.batch == "import:1" and outcome.cards == [] and outcome.heard == []
    before = await written_counts(db, campaign)
    with pytest.raises(InvalidInput, match="nothing left to commit"):
        await service.canon.commit_batch(campaign, "import:1", GM)
    assert await written_counts(db, campaign) == before  # no second, empty changeset
