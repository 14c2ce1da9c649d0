"""What-if branches on a real database: fork, isolation both ways, fork points, rebase, promotion, retire, export.

The services are the application's own (`build_services`), with embedding switched off except where recall by
meaning is the point (NPC memories, `/lore`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.app import Services, build_services
from bot.archive.campaign_archive import CampaignArchive
from bot.archive.file import read_archive
from bot.schema.database import metadata
from bot.services.branches.lineage_rows import lineage_row_sets
from canon.campaigns import Campaign, CampaignStatus
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.gate import authority_policy
from canon.models import AsOf, EvidenceKind, Viewer
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    ProposalContent,
    ProposalStatus,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from cogs.campaign_embeds import plan_embed
from config.settings import Settings
from memory.knowledge.models import ImportReport
from memory.scenes import Actor, SceneStatus, SpeakerKind
from memory.turn_log import IncomingMessage
from tests.conftest import DatabaseTarget

GM = Actor(id=1, name="Gina", is_gm=True)
PAT = Actor(id=2, name="Pat", is_gm=False)
GUILD = 10


def settings_for(tmp_path: Path, *, semantic: bool = False) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", embedding={"enabled": semantic}
    )


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[Services]:
    built = await build_services(settings_for(tmp_path), db=db_target.open())
    try:
        yield built
    finally:
        await built.close()


async def add(services: Services, campaign: Campaign, content: ProposalContent) -> Any:
    return await services.canon.add_direct(campaign, content, GM, command="/canon add")


async def fact_value(services: Services, campaign: Campaign, name: str, attribute: str, **as_of: Any) -> Any:
    """Return the value of an entity's attribute in a campaign (None when absent or the entity is unknown)."""
    try:
        card = await services.queries.card(campaign, name, viewer=Viewer.GM, as_of=AsOf(**as_of))
    except NotFound:
        return None
    values = [v.statement.value for v in card.facts if v.statement.predicate == attribute]
    return values[-1] if values else None


async def play(services: Services, campaign: Campaign, channel: int, lines: list[str]) -> int:
    """Play a scene in a channel: start it, log the lines, and return its id."""
    scene = await services.scenes.start_scene(
        campaign_id=campaign.id, guild_id=GUILD, channel_id=channel, title="Scene", location=None, actor=GM
    )
    for number, line in enumerate(lines, 1):
        await services.turns.append(
            IncomingMessage(
                message_id=channel * 1000 + scene.story_order * 100 + number,
                channel_id=channel,
                author_id=PAT.id,
                author_name=PAT.name,
                speaker=SpeakerKind.PLAYER,
                text=line,
                created_at=scene.started_at,
            )
        )
    return scene.id


async def commit(services: Services, campaign: Campaign, channel: int, *proposals: ProposalContent) -> int:
    """Propose (as the GM), end and commit the channel's scene; return its story order."""
    for content in proposals:
        await services.proposals.propose(campaign, channel, content, GM)
    report, _ = await services.canon.end_scene(channel)
    if report.scene.status != SceneStatus.COMPLETED:
        await services.reviews.accept_all(report.scene.id, GM)
        await services.canon.commit_scene(report.scene.id, GM)
    await services.voice.drain()
    return report.scene.story_order


async def counts(services: Services, campaign_id: int) -> dict[str, int]:
    """Return how many rows of every campaign table belong to a campaign."""
    found: dict[str, int] = {}
    async with services.db.session() as session:
        for table in metadata().sorted_tables:
            if "campaign_id" in table.c:
                found[table.name] = int(
                    await session.scalar(select(func.count()).where(table.c.campaign_id == campaign_id)) or 0
                )
    return found


async def total_rows(services: Services) -> dict[str, int]:
    found: dict[str, int] = {}
    async with services.db.session() as session:
        for table in metadata().sorted_tables:
            found[table.name] = int(await session.scalar(select(func.count()).select_from(table)) or 0)
    return found


async def root(services: Services) -> Campaign:
    campaign = await services.campaigns.for_guild(GUILD, "Shattered Isles")
    await add(services, campaign, EntityContent(name="Aldric", entity_type="NPC", description="a knight"))
    await add(services, campaign, FactContent(subject=Ref(name="Aldric"), attribute="title", value="Knight"))
    return campaign


# --- fork and isolation ------------------------------------------------------------------------------------


async def test_a_fork_is_one_row_and_nothing_crosses_between_parent_and_siblings(services: Services) -> None:
    main = await root(services)
    await play(services, main, 500, ["Aldric rides out."])
    await commit(
        services, main, 500, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey")
    )
    before = await total_rows(services)
    left = await services.branches.fork(main, "Left", actor=GM)
    right = await services.branches.fork(main, "Right", actor=GM)
    after = await total_rows(services)
    assert {t: after[t] - before[t] for t in after if after[t] != before[t]} == {"campaigns": 2}
    assert left.parent_id == main.id and left.fork_scene_order == 1 and left.guild_id == GUILD

    parent_rows = await counts(services, main.id)
    # A busy branch: direct canon, a retcon of an inherited fact, a scene with a committed proposal.
    await add(services, left, EntityContent(name="Brann", entity_type="NPC"))
    card = await services.queries.card(left, "Aldric", viewer=Viewer.GM)
    title = next(v.statement for v in card.facts if v.statement.predicate == "title")
    await services.admin.retcon(
        left, title.id, GM, rationale="In this branch he was never knighted", new_value="Squire"
    )
    scene_id = await play(services, left, 501, ["Aldric loses his horse."])
    order = await commit(
        services, left, 501, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="none")
    )
    assert order == 2  # the branch's story goes on after the scene it forked at
    await add(services, right, FactContent(subject=Ref(name="Aldric"), attribute="weapon", value="axe"))

    assert await counts(services, main.id) == parent_rows  # the parent is untouched
    assert await fact_value(services, main, "Aldric", "title") == "Knight"
    assert await fact_value(services, main, "Aldric", "horse") == "Grey"
    assert await fact_value(services, main, "Aldric", "weapon") is None
    with pytest.raises(NotFound):  # the branch's own entity never reaches the parent
        await services.queries.card(main, "Brann", viewer=Viewer.GM)
    assert await fact_value(services, left, "Aldric", "title") == "Squire"
    assert await fact_value(services, left, "Aldric", "horse") == "none"
    assert await fact_value(services, left, "Aldric", "weapon") is None  # the sibling's
    assert await fact_value(services, right, "Aldric", "title") == "Knight"
    with pytest.raises(NotFound):
        await services.queries.card(right, "Brann", viewer=Viewer.GM)
    # As of the fork's scene, the branch reads the parent's story exactly as the parent does.
    assert await fact_value(services, left, "Aldric", "horse", scene=1) == "Grey"
    assert await fact_value(services, main, "Aldric", "horse", scene=1) == "Grey"

    # What the parent commits after the fork stays out of its branches.
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="weapon", value="lance"))
    assert await fact_value(services, main, "Aldric", "weapon") == "lance"
    assert await fact_value(services, left, "Aldric", "weapon") is None
    assert await fact_value(services, right, "Aldric", "weapon") == "axe"
    scene, _turns = await services.scenes.transcript(scene_id)
    assert scene.campaign_id == left.id  # the branch's scene is its own, not the parent's


async def test_forks_at_a_scene_and_at_a_date_cut_what_they_inherit(services: Services) -> None:
    main = await root(services)
    await add(services, main, EntityContent(name="Siege of Thornwall", entity_type="Event"))
    await add(
        services,
        main,
        FactContent(subject=Ref(name="Aldric"), attribute="oath", value="Vale", when="3rd_age.year_300"),
    )
    await add(
        services,
        main,
        FactContent(subject=Ref(name="Aldric"), attribute="exile", value="North", when="3rd_age.year_320"),
    )
    await play(services, main, 510, ["Aldric buys a horse."])
    await commit(
        services, main, 510, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey")
    )
    await play(services, main, 511, ["Aldric buys a sword."])
    await commit(
        services, main, 511, FactContent(subject=Ref(name="Aldric"), attribute="sword", value="Dawn")
    )
    with pytest.raises(InvalidInput, match="not both"):
        await services.branches.fork(main, "Both", at_scene=1, at_date="3rd_age.year_310")
    with pytest.raises(NotFound, match="no committed scene 7"):
        await services.branches.fork(main, "Later", at_scene=7)

    early = await services.branches.fork(main, "After the horse", at_scene=1)
    assert early.fork_scene_order == 1
    assert await fact_value(services, early, "Aldric", "horse") == "Grey"
    assert await fact_value(services, early, "Aldric", "sword") is None
    assert await fact_value(services, early, "Aldric", "exile") == "North"  # decided before scene 1's commit

    dated = await services.branches.fork(main, "Year 310", at_date="3rd_age.year_310")
    assert dated.fork_world_date is not None
    assert await fact_value(services, dated, "Aldric", "oath") == "Vale"
    assert await fact_value(services, dated, "Aldric", "exile") is None  # dated after the fork
    assert await fact_value(services, dated, "Aldric", "sword") == "Dawn"
    # The branch's own rows are not cut by the date: it plays on from it.
    await add(
        services,
        dated,
        FactContent(subject=Ref(name="Aldric"), attribute="exile", value="South", when="3rd_age.year_330"),
    )
    assert await fact_value(services, dated, "Aldric", "exile") == "South"
    # A branch of a branch keeps the tightest cut of both.
    deeper = await services.branches.fork(early, "Deeper")
    assert await fact_value(services, deeper, "Aldric", "sword") is None
    assert await fact_value(services, deeper, "Aldric", "horse") == "Grey"


# --- rebase ------------------------------------------------------------------------------------------------


async def test_rebase_shows_a_planted_conflict_and_changes_nothing_until_confirmed(
    services: Services,
) -> None:
    main = await root(services)
    await add(
        services, main, StateChangeContent(subject=Ref(name="Aldric"), state="alive", when="3rd_age.year_280")
    )
    branch = await services.branches.fork(main, "Siege")
    # The branch plays Aldric at a siege in 310; the parent, meanwhile, kills him in 300.
    await add(
        services,
        branch,
        EventContent(name="Siege of Thornwall", when="3rd_age.year_310", participants=(Ref(name="Aldric"),)),
    )
    await add(
        services, main, StateChangeContent(subject=Ref(name="Aldric"), state="dead", when="3rd_age.year_300")
    )
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="grave", value="Vale"))

    plan = await services.branches.plan_rebase(branch)
    assert plan.changesets == 2 and not plan.applied and not plan.up_to_date
    assert [f.kind.value for f in plan.conflicts] == ["dead_acting"]
    assert "Siege of Thornwall" in plan.conflicts[0].message
    # Nothing changed: same fork point, the parent's later canon still out, no conflict recorded.
    same = await services.campaigns.by_name("Siege")
    assert same.fork_changeset_id == branch.fork_changeset_id
    assert await fact_value(services, same, "Aldric", "grave") is None
    assert await services.queries.conflicts(same) == []

    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey"))
    with pytest.raises(Conflict, match="changed since"):
        await services.branches.rebase(same, GM, expect=plan.token)
    plan = await services.branches.plan_rebase(same)
    done = await services.branches.rebase(same, GM, expect=plan.token)
    assert done.applied
    rebased = await services.campaigns.by_name("Siege")
    assert rebased.fork_changeset_id == plan.target.changeset_id
    assert await fact_value(services, rebased, "Aldric", "grave") == "Vale"
    assert [c.kind for c in await services.queries.conflicts(rebased)] == ["dead_acting"]
    assert (await services.branches.plan_rebase(rebased)).up_to_date
    # A branch with branches of its own is never rebased (their inheritance runs through its fork point).
    await services.branches.fork(rebased, "Siege later")
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="shield", value="Oak"))
    with pytest.raises(Conflict, match="branches of its own"):
        await services.branches.plan_rebase(rebased)


async def test_rebase_puts_the_branchs_own_scenes_after_the_parents_new_ones(services: Services) -> None:
    main = await root(services)
    for place in ("Thornwall", "Vale"):
        await add(services, main, EntityContent(name=place, entity_type="Location"))
    await play(services, main, 640, ["Aldric rides."])
    await commit(
        services, main, 640, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey")
    )
    branch = await services.branches.fork(main, "Elsewhere")
    # Both play on from scene 1: the branch its scenes 2 and 3, the parent its own scenes 2 and 3.
    own: list[int] = []
    for channel, content in (
        (
            641,
            RelationshipContent(subject=Ref(name="Aldric"), relation="LOCATED_IN", object=Ref(name="Vale")),
        ),
        (641, FactContent(subject=Ref(name="Aldric"), attribute="shield", value="Oak")),
    ):
        own.append(await play(services, branch, channel, ["The branch plays on."]))
        await commit(services, branch, channel, content)
    for channel, content in (
        (
            642,
            RelationshipContent(
                subject=Ref(name="Aldric"), relation="LOCATED_IN", object=Ref(name="Thornwall")
            ),
        ),
        (642, FactContent(subject=Ref(name="Aldric"), attribute="helm", value="Iron")),
    ):
        await play(services, main, channel, ["The parent plays on."])
        await commit(services, main, channel, content)

    plan = await services.branches.plan_rebase(branch)
    assert plan.scenes == 2 and plan.own_scenes == (2, 3) and plan.renumbered == (2, 3, 4, 5)
    # The check runs over the rebased story: Aldric is in Thornwall in scene 3, then in the Vale in scene 4.
    assert plan.conflicts == []
    assert await fact_value(services, branch, "Aldric", "shield", scene=3) == "Oak"  # nothing moved yet
    # A scene open in the branch would be renumbered under the players' feet: refused until it is committed.
    own.append(await play(services, branch, 643, ["Still playing."]))
    with pytest.raises(Conflict, match="still open"):
        await services.branches.rebase(branch, GM, expect=plan.token)
    await commit(services, branch, 643)
    plan = await services.branches.plan_rebase(branch)
    assert plan.own_scenes == (2, 3, 4)
    done = await services.branches.rebase(branch, GM, expect=plan.token)
    assert done.applied and done.own_scenes == (4, 5, 6) and done.scene_move == ("scenes 2–4", "scenes 4–6")

    # One story: the parent's scenes 1-3, then the branch's own, with their canon.
    orders = [(await services.scenes.report(scene_id)).scene.story_order for scene_id in own]
    assert orders == [4, 5, 6]
    assert await fact_value(services, branch, "Aldric", "helm", scene=3) == "Iron"
    assert await fact_value(services, branch, "Aldric", "shield", scene=3) is None
    assert await fact_value(services, branch, "Aldric", "shield", scene=4) is None
    assert await fact_value(services, branch, "Aldric", "shield", scene=5) == "Oak"
    for scene, places in ((3, [2]), (4, [2, 4])):  # Thornwall from the parent's scene 2, the Vale from 4
        card = await services.queries.card(branch, "Aldric", viewer=Viewer.GM, as_of=AsOf(scene=scene))
        assert sorted(r.statement.validity.story_from for r in card.relations) == places
    _, findings = await services.queries.check(branch)
    assert [f for f in findings if f.kind.value == "two_places"] == []
    # The parent is untouched, and the branch's next scene follows its own.
    assert await fact_value(services, main, "Aldric", "shield") is None
    assert (await services.scenes.report(own[0])).scene.campaign_id == branch.id
    next_scene = await play(services, branch, 644, ["Onwards."])
    assert (await services.scenes.report(next_scene)).scene.story_order == 7


async def test_a_rebase_confirmed_after_the_parent_imported_a_source_changes_nothing(
    services: Services,
) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Quiet")
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey"))
    plan = await services.branches.plan_rebase(branch)
    assert plan.sources == 0 and plan.changesets == 1
    # Between the preview and the click, the parent imports a source the preview did not show.
    await services.knowledge.import_bytes(main.id, "late.md", b"# Late\n\nA source nobody was shown.")
    with pytest.raises(Conflict, match="changed since"):
        await services.branches.rebase(branch, GM, expect=plan.token)
    unchanged = await services.campaigns.by_name("Quiet")
    assert unchanged.fork_changeset_id == branch.fork_changeset_id
    assert [s.filename for s in await services.knowledge.list_sources(branch.id)] == []
    shown = await services.branches.plan_rebase(unchanged)
    assert shown.sources == 1 and shown.token != plan.token
    await services.branches.rebase(unchanged, GM, expect=shown.token)
    assert [s.filename for s in await services.knowledge.list_sources(branch.id)] == ["late.md"]


# --- settings: ontology extension and authority policy ------------------------------------------------------

SPACE = {
    "entity_types": {"Starship": {"kind": "concrete", "description": "a ship between the stars"}},
    "relation_types": {"CREWS": {"from": ["Person"], "to": ["Starship"], "temporal": True}},
}


async def test_a_branch_plays_with_its_parents_ontology_and_policy_as_they_were_at_the_fork(
    services: Services,
) -> None:
    main = await root(services)
    await services.admin.set_ontology(main, SPACE)
    await services.admin.set_policy(main, "player", "auto")
    main = await services.campaigns.by_name(main.name)
    await add(services, main, EntityContent(name="Nostromo", entity_type="Starship"))
    branch = await services.branches.fork(main, "Deep Space")

    # The branch writes with the parent's extension: its relation and its entity type.
    await add(
        services,
        branch,
        RelationshipContent(subject=Ref(name="Aldric"), relation="CREWS", object=Ref(name="Nostromo")),
    )
    await add(services, branch, EntityContent(name="Sulaco", entity_type="Starship"))
    card = await services.queries.card(branch, "Aldric", viewer=Viewer.GM)
    assert [v.statement.predicate for v in card.relations] == ["CREWS"]
    assert authority_policy(branch.settings)["player"] == "auto"
    assert "fork" in branch.settings and "fork" not in main.settings

    # Later changes of the parent's settings stay out of the branch.
    await services.admin.set_ontology(
        main, {**SPACE, "entity_types": {**SPACE["entity_types"], "Shuttle": {"kind": "concrete"}}}
    )
    await services.admin.set_policy(main, "player", "review")
    branch = await services.campaigns.by_name("Deep Space")
    with pytest.raises(InvalidInput, match="not an entity type"):
        await add(services, branch, EntityContent(name="Narcissus", entity_type="Shuttle"))
    assert authority_policy(branch.settings)["player"] == "auto"
    # ... and the branch's own changes never reach the parent.
    await services.admin.set_policy(branch, "gm", "review")
    assert authority_policy((await services.campaigns.by_name(main.name)).settings)["gm"] == "auto"
    with pytest.raises(InvalidInput, match="not a relation"):
        await add(
            services,
            main,
            RelationshipContent(subject=Ref(name="Aldric"), relation="ESCORTS", object=Ref(name="Nostromo")),
        )


async def test_rebase_adds_the_parents_later_ontology_additions_and_keeps_the_branchs_own(
    services: Services,
) -> None:
    main = await root(services)
    await services.admin.set_ontology(main, SPACE)
    main = await services.campaigns.by_name(main.name)
    branch = await services.branches.fork(main, "Outer Rim")
    # The branch extends its own copy; the parent adds other names, and one the branch defined too.
    beacon = {"kind": "concrete", "description": "a buoy that calls ships"}
    await services.admin.set_ontology(
        branch,
        {
            **SPACE,
            "entity_types": {**SPACE["entity_types"], "Outpost": {"kind": "concrete"}, "Beacon": beacon},
        },
    )
    await services.admin.set_ontology(
        main,
        {
            "entity_types": {
                **SPACE["entity_types"],
                "Shuttle": {"kind": "concrete"},
                "Beacon": {"kind": "axiomatic", "description": "a sign"},
            },
            "relation_types": {
                **SPACE["relation_types"],
                "DOCKS_AT": {
                    "from": ["Starship", "Shuttle"],
                    "to": ["Location", "Starship"],
                    "temporal": True,
                },
            },
        },
    )
    branch = await services.campaigns.by_name("Outer Rim")
    await add(services, branch, EntityContent(name="Ord Beacon", entity_type="Beacon"))
    await services.admin.set_policy(branch, "player", "auto")

    plan = await services.branches.plan_rebase(branch)
    assert plan.changesets == 0 and not plan.up_to_date  # only the ontology moved
    assert set(plan.ontology_added) == {"entity type Shuttle", "relation DOCKS_AT"}
    assert plan.ontology_kept == ("entity type Beacon",)
    # The GM's preview says so.
    (shown,) = [f.value or "" for f in plan_embed(plan).fields if f.name == "Ontology"]
    assert "Adds the parent's" in shown and "entity type Shuttle" in shown and "relation DOCKS\\_AT" in shown
    assert "Keeps the branch's own definition of entity type Beacon" in shown
    # The parent extends its ontology again between the preview and the click (and drops its Beacon):
    # nothing changes.
    await services.admin.set_ontology(
        main,
        {
            "entity_types": {
                **SPACE["entity_types"],
                "Shuttle": {"kind": "concrete"},
                "Moon": {"kind": "concrete"},
            },
            "relation_types": {
                **SPACE["relation_types"],
                "DOCKS_AT": {
                    "from": ["Starship", "Shuttle"],
                    "to": ["Location", "Starship"],
                    "temporal": True,
                },
            },
        },
    )
    with pytest.raises(Conflict, match="changed since"):
        await services.branches.rebase(branch, GM, expect=plan.token)
    with pytest.raises(InvalidInput, match="not an entity type"):
        await add(services, branch, EntityContent(name="Narcissus", entity_type="Shuttle"))

    plan = await services.branches.plan_rebase(branch)
    assert set(plan.ontology_added) == {"entity type Shuttle", "entity type Moon", "relation DOCKS_AT"}
    assert plan.ontology_kept == ()
    await services.branches.rebase(branch, GM, expect=plan.token)
    rebased = await services.campaigns.by_name("Outer Rim")
    await add(services, rebased, EntityContent(name="Narcissus", entity_type="Shuttle"))
    await add(services, rebased, EntityContent(name="Sulaco", entity_type="Starship"))
    await add(
        services,
        rebased,
        RelationshipContent(subject=Ref(name="Narcissus"), relation="DOCKS_AT", object=Ref(name="Sulaco")),
    )
    await add(services, rebased, EntityContent(name="Tatoo", entity_type="Outpost"))
    ontology = services.access.ontology_for(rebased)
    assert ontology.entity_types["Beacon"].kind == "concrete"  # the branch's own definition
    assert authority_policy(rebased.settings)["player"] == "auto"  # the policy stays the branch's
    assert (await services.branches.plan_rebase(rebased)).up_to_date
    # What the branch took is its own: the parent clearing its extension takes nothing from the branch.
    await services.admin.set_ontology(main, None)
    await add(services, rebased, EntityContent(name="Io", entity_type="Moon"))
    assert (await services.branches.plan_rebase(rebased)).up_to_date
    # The parent's own ontology never received the branch's additions.
    with pytest.raises(InvalidInput, match="not an entity type"):
        await add(services, main, EntityContent(name="Hoth Base", entity_type="Outpost"))


async def test_a_rebase_refuses_an_ontology_that_cannot_be_merged(services: Services) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Undead")
    # The branch makes "petrified" a terminal state; the parent later lets it turn into "alive" by a transition.
    await services.admin.set_ontology(
        branch, {"states": {"tags": {"petrified": {"applies_to": ["Person"], "terminal": True}}}}
    )
    await services.admin.set_ontology(
        main,
        {
            "states": {
                "tags": {"petrified": {"applies_to": ["Person"]}},
                "transitions": {"petrified": ["alive"]},
            }
        },
    )
    with pytest.raises(Conflict, match="cannot be added"):
        await services.branches.plan_rebase(await services.campaigns.by_name("Undead"))


# --- sources as they were at the fork -----------------------------------------------------------------------


async def chunk_text(services: Services, campaign: Campaign, filename: str) -> str | None:
    """Return the text of a source the campaign sees, by file name (None when it sees none)."""
    knowledge = services.knowledge
    for source in await knowledge.list_sources(campaign.id):
        if source.filename == filename:
            return " ".join(c.text for c in await knowledge.chunks(campaign.id, source.id))
    return None


async def test_a_branch_keeps_its_parents_sources_as_they_were_at_the_fork(services: Services) -> None:
    main = await root(services)
    knowledge = services.knowledge
    world = await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is silver.")
    await knowledge.import_bytes(main.id, "harbour.md", b"# Harbour\n\nThe harbour chain is black iron.")
    branch = await services.branches.fork(main, "Silver moon")
    deeper = await services.branches.fork(branch, "Deeper moon")
    sibling_source = await knowledge.import_bytes(branch.id, "own.md", b"# Own\n\nThe branch's own notes.")
    before = await knowledge.get_source(branch.id, world.source.id)

    updated = await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is red.")
    assert updated.source.id == world.source.id and updated.source.version == 2  # the parent's row moves on
    assert "red" in (await chunk_text(services, main, "world.md") or "")
    for campaign in (branch, deeper):  # the branch, and through it its own branch, keep version 1
        assert "silver" in (await chunk_text(services, campaign, "world.md") or "")
        [seen] = [s for s in await knowledge.list_sources(campaign.id) if s.filename == "world.md"]
        assert seen.version == 1 and seen.content_hash == world.source.content_hash
    copy = next(s for s in await knowledge.list_sources(branch.id) if s.filename == "world.md")
    detail = await knowledge.get_source(branch.id, copy.id)
    assert [v.version for v in detail.versions] == [v.version for v in before.versions] == [1]
    # The parent re-imports again: the branch has its copy already, nothing more is copied.
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is gone.")
    assert "silver" in (await chunk_text(services, branch, "world.md") or "")
    assert sum(s.filename == "world.md" for s in await knowledge.list_sources(branch.id)) == 1

    # The branch cannot delete its copy (the parent's newer version would show); it can disable it.
    with pytest.raises(Conflict, match="as it was at the fork"):
        await knowledge.delete_source(branch.id, copy.id)
    await knowledge.disable_source(branch.id, copy.id)
    assert [s.enabled for s in await knowledge.list_sources(deeper.id) if s.filename == "world.md"] == [False]
    await knowledge.enable_source(branch.id, copy.id)

    # A delete in the parent leaves the branches' copies (and the stored file they need).
    harbour = next(s for s in await knowledge.list_sources(main.id) if s.filename == "harbour.md")
    report = await knowledge.delete_source(main.id, harbour.id)
    assert report.chunks_removed >= 1 and not report.file_removed
    assert await chunk_text(services, main, "harbour.md") is None
    assert "black iron" in (await chunk_text(services, branch, "harbour.md") or "")
    kept = next(s for s in await knowledge.list_sources(branch.id) if s.filename == "harbour.md")
    assert knowledge.read_original(kept).startswith(b"# Harbour")
    assert sibling_source.source.id in {s.id for s in await knowledge.list_sources(branch.id)}

    # A rebase brings the parent's sources as they are now (after the branch of the branch is gone).
    await services.branches.delete(deeper)
    plan = await services.branches.plan_rebase(branch)
    assert plan.changesets == 0 and plan.sources == 2 and not plan.up_to_date
    await services.branches.rebase(branch, GM, expect=plan.token)
    assert "gone" in (await chunk_text(services, branch, "world.md") or "")
    assert await chunk_text(services, branch, "harbour.md") is None
    assert sorted(s.filename for s in await knowledge.list_sources(branch.id)) == ["own.md", "world.md"]
    assert (await services.branches.plan_rebase(await services.campaigns.by_name("Silver moon"))).up_to_date
    with pytest.raises(FileNotFoundError):  # nobody needs the deleted harbour's bytes any more
        knowledge.read_original(kept)


async def test_a_branch_that_re_imports_its_copy_keeps_its_own_version_through_a_rebase(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe sea of Vale is green.")
    early = await services.branches.fork(main, "Early sea")
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe sea of Vale is grey.")
    late = await services.branches.fork(main, "Late sea")  # forked after the change: no copy, the new text
    assert "grey" in (await chunk_text(services, late, "world.md") or "")
    assert "green" in (await chunk_text(services, early, "world.md") or "")
    # The early branch writes its own version over its copy: that one is the branch's, a rebase keeps it.
    await knowledge.import_bytes(early.id, "world.md", b"# World\n\nThe sea of Vale is purple.")
    plan = await services.branches.plan_rebase(early)
    assert plan.sources == 0
    await knowledge.import_bytes(main.id, "extra.md", b"# Extra\n\nA later source.")
    await services.branches.rebase(early, GM)
    assert "purple" in (await chunk_text(services, early, "world.md") or "")


async def hidden_and_disabled(
    services: Services, campaign: Campaign, *, draft: str
) -> tuple[ImportReport, ImportReport]:
    """Import a hidden source (secret.md, about the mayor and the cult) and a disabled one (`draft`)."""
    knowledge = services.knowledge
    secret = await knowledge.import_bytes(
        campaign.id, "secret.md", b"# Pact\n\nThe mayor serves the cult.", hidden=True
    )
    old = await knowledge.import_bytes(campaign.id, draft, b"# Draft\n\nAn old draft.")
    await knowledge.disable_source(campaign.id, old.source.id)
    return secret, old


async def test_only_a_more_restrictive_change_of_an_inherited_source_reaches_a_branch(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    secret, off = await hidden_and_disabled(services, main, draft="off.md")
    open_ = await knowledge.import_bytes(main.id, "open.md", b"# Open\n\nThe market opens at dawn.")
    branch = await services.branches.fork(main, "Kept secrets")
    deeper = await services.branches.fork(branch, "Kept deeper")

    async def flags(campaign: Campaign) -> dict[str, tuple[bool, bool]]:
        return {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(campaign.id)}

    # The parent reveals its secret and enables its draft: the branches keep them as they were.
    await knowledge.set_source(main.id, secret.source.id, hidden=False)
    await knowledge.enable_source(main.id, off.source.id)
    # It hides and disables the open one: more restrictive, so that reaches them.
    await knowledge.set_source(main.id, open_.source.id, hidden=True)
    await knowledge.disable_source(main.id, open_.source.id)
    assert await flags(main) == {
        "secret.md": (False, True),
        "off.md": (False, True),
        "open.md": (True, False),
    }
    for campaign in (branch, deeper):
        assert await flags(campaign) == {
            "secret.md": (True, True),
            "off.md": (False, False),
            "open.md": (True, False),
        }
        player = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
        assert secret.source.id not in {r.source_id for r in player.results}
    # A re-import of the revealed secret: the branch's copy is as the branch saw it, hidden (and so for its
    # own branch, which reads that copy).
    await knowledge.import_bytes(main.id, "secret.md", b"# Pact\n\nThe mayor serves the cult of the deep.")
    for campaign in (branch, deeper):
        assert (await flags(campaign))["secret.md"] == (True, True)
        player = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
        assert all("mayor" not in r.text for r in player.results)
        gm = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.GM, limit=5)
        assert any("mayor serves the cult." in r.text for r in gm.results)  # the version of the fork
    # A rebase takes the parent's sources as they are now.
    await services.branches.delete(deeper)
    await services.branches.rebase(branch, GM)
    assert await flags(branch) == await flags(main)


async def test_a_branch_of_a_branch_keeps_a_source_hidden_at_its_own_fork_through_its_parents_copy(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    notes = await knowledge.import_bytes(main.id, "notes.md", b"# Notes\n\nThe bridge is rigged to fall.")
    middle = await services.branches.fork(main, "Middle")  # the notes are visible here
    await knowledge.set_source(main.id, notes.source.id, hidden=True)
    inner = await services.branches.fork(middle, "Inner")  # hidden when this one forked

    async def hidden(campaign: Campaign) -> bool:
        return next(s.hidden for s in await knowledge.list_sources(campaign.id) if s.filename == "notes.md")

    await knowledge.set_source(main.id, notes.source.id, hidden=False)
    assert not await hidden(middle) and await hidden(inner)
    # The re-import gives the middle branch a visible copy; the inner one reads it, and keeps it hidden.
    await knowledge.import_bytes(main.id, "notes.md", b"# Notes\n\nThe bridge is safe.")
    assert not await hidden(middle) and await hidden(inner)
    player = await knowledge.ask(inner.id, "bridge rigged to fall", viewer=Viewer.PLAYER, limit=5)
    assert all("rigged" not in r.text for r in player.results)
    player = await knowledge.ask(middle.id, "bridge rigged to fall", viewer=Viewer.PLAYER, limit=5)
    assert any("rigged" in r.text for r in player.results)


# --- promotion ---------------------------------------------------------------------------------------------


async def test_promotion_goes_through_the_parents_review(services: Services) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Smithy")
    own = await add(
        services, branch, FactContent(subject=Ref(name="Aldric"), attribute="trade", value="smith")
    )
    (trade_id,) = own.statement_ids
    await add(services, branch, EntityContent(name="Brann", entity_type="NPC", description="an apprentice"))
    brann = await add(
        services, branch, FactContent(subject=Ref(name="Brann"), attribute="title", value="Smith")
    )
    parent_rows = await counts(services, main.id)

    promotion = await services.branches.promote(branch, trade_id, GM)
    (proposal,) = promotion.proposals
    assert promotion.parent.id == main.id and proposal.campaign_id == main.id
    assert proposal.status == ProposalStatus.PENDING and proposal.origin == "promotion"
    assert proposal.evidence[0].kind == EvidenceKind.BRANCH and f"fact #{trade_id}" in (
        proposal.evidence[0].note or ""
    )
    assert await fact_value(services, main, "Aldric", "occupation") is None
    with pytest.raises(Conflict, match="already waiting"):
        await services.branches.promote(branch, trade_id, GM)
    # Committing without an accept writes nothing: a promotion never passes on the authority policy.
    result = (await services.canon.commit_batch(main, promotion.batch, GM)).result
    assert result.accepted == [] and [p.id for p in result.rejected] == [proposal.id]
    assert await fact_value(services, main, "Aldric", "occupation") is None

    again = await services.branches.promote(branch, trade_id, GM)
    (second,) = again.proposals
    await services.reviews.decide(second.id, accept=True, actor=GM)
    committed = await services.branches.commit_promotion(second.id, GM)
    assert [p.id for p in committed.accepted] == [second.id]
    assert await fact_value(services, main, "Aldric", "occupation") == "smith"
    card = await services.queries.card(main, "Aldric", viewer=Viewer.GM)
    trade = next(v.statement for v in card.facts if v.statement.predicate == "occupation")
    assert any(e.kind == EvidenceKind.BRANCH for e in trade.evidence)
    assert trade.provenance.campaign_id == main.id

    # A fact about an entity the branch created brings the entity along, as its own proposal.
    (brann_fact,) = brann.statement_ids
    new = await services.branches.promote(branch, brann_fact, GM)
    assert [p.content.type for p in new.proposals] == ["entity", "fact"]
    assert new.proposals[0].content.name == "Brann"  # type: ignore[union-attr]
    # An inherited fact is the parent's already.
    inherited = await services.queries.card(branch, "Aldric", viewer=Viewer.GM)
    title = next(v.statement for v in inherited.facts if v.statement.predicate == "title")
    with pytest.raises(Conflict, match="inherited"):
        await services.branches.promote(branch, title.id, GM)
    # Nothing moved into the branch from its parent's review either.
    assert (await counts(services, main.id))["statements"] == parent_rows["statements"] + 1


# --- bindings, abandon, delete -----------------------------------------------------------------------------


async def test_channels_play_in_their_bound_branch_and_an_abandoned_one_stops_answering(
    services: Services,
) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Dark Road")
    campaigns = services.campaigns
    assert (await campaigns.for_channel(GUILD, "Shattered Isles", 601, 700)).id == main.id
    await services.branches.bind(GUILD, 700, "category", branch, GM, channels=[601, 602])
    assert (await campaigns.for_channel(GUILD, "x", 601, 700)).id == branch.id  # inherits its category's
    await services.branches.bind(GUILD, 602, "channel", main, GM)
    assert (await campaigns.for_channel(GUILD, "x", 602, 700)).id == main.id  # its own binding wins
    await services.branches.bind(GUILD, 605, "channel", branch, GM)
    thread = await campaigns.for_channel(GUILD, "x", 9001, None, parent_channel_id=605)
    assert thread.id == branch.id  # a thread plays where its channel does
    with pytest.raises(NotAllowed, match="not a campaign of this server"):
        await services.branches.bind(GUILD + 1, 603, "channel", branch, GM)
    # A channel cannot change campaign in the middle of a scene.
    await play(services, main, 603, ["Hello."])
    with pytest.raises(Conflict, match="still open"):
        await services.branches.bind(GUILD, 603, "channel", branch, GM)
    nodes = await services.branches.tree(guild_id=GUILD)
    assert [(n.campaign.name, n.depth) for n in nodes] == [("Shattered Isles", 0), ("Dark Road", 1)]
    assert [b.channel_id for b in nodes[1].bindings] == [700, 605]

    # Abandon: refused with a scene open in the branch, then the branch stops answering everywhere.
    await play(services, branch, 601, ["We walk the dark road."])
    with pytest.raises(Conflict, match="still open"):
        await services.branches.abandon(branch, GM)
    await commit(services, branch, 601)
    fact = await add(
        services, branch, FactContent(subject=Ref(name="Aldric"), attribute="fate", value="lost")
    )
    promotion = await services.branches.promote(branch, fact.statement_ids[0], GM)
    abandoned = await services.branches.abandon(branch, GM)
    assert abandoned.status == CampaignStatus.ABANDONED
    with pytest.raises(NotAllowed, match="abandoned"):
        await campaigns.for_channel(GUILD, "x", 601, 700)
    assert (await campaigns.for_channel(GUILD, "x", 601, 700, allow_abandoned=True)).id == branch.id
    # Its material never reaches another campaign: the pending promotion is rejected, no fork, no promote.
    review = await services.reviews.review(None, campaign_id=main.id, batch=promotion.batch)
    assert [p.status for p in review.proposals] == [ProposalStatus.REJECTED]
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.fork(abandoned, "From the ashes")
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.promote(abandoned, fact.statement_ids[0], GM)
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.bind(GUILD, 604, "channel", abandoned, GM)


async def test_delete_removes_only_what_the_branch_wrote(services: Services) -> None:
    main = await root(services)
    await play(services, main, 620, ["Aldric waits."])
    await commit(services, main, 620, FactContent(subject=Ref(name="Aldric"), attribute="mood", value="calm"))
    branch = await services.branches.fork(main, "Doomed")
    child = await services.branches.fork(branch, "Doomed again")
    await services.branches.bind(GUILD, 621, "channel", branch, GM)
    await add(services, branch, EntityContent(name="Brann", entity_type="NPC"))
    await play(services, branch, 621, ["Brann shouts."])
    await commit(
        services, branch, 621, FactContent(subject=Ref(name="Aldric"), attribute="mood", value="angry")
    )
    with pytest.raises(InvalidInput, match="not a branch"):
        await services.branches.delete(main)
    with pytest.raises(Conflict, match="branches of its own"):
        await services.branches.delete(branch)
    await services.branches.delete(child)
    parent_rows = await counts(services, main.id)
    report = await services.branches.delete(branch)
    assert (
        report.rows["statements"] >= 1 and report.rows["scenes"] == 1 and report.rows["channel_bindings"] == 1
    )
    assert await counts(services, main.id) == parent_rows
    assert sum((await counts(services, branch.id)).values()) == 0
    with pytest.raises(NotFound):
        await services.campaigns.by_name("Doomed")
    assert await fact_value(services, main, "Aldric", "mood") == "calm"
    assert (await services.campaigns.for_channel(GUILD, "x", 621, None)).id == main.id


# --- export ------------------------------------------------------------------------------------------------


async def test_export_of_a_branch_includes_what_it_inherits(services: Services, tmp_path: Path) -> None:
    main = await root(services)
    await services.knowledge.import_bytes(
        main.id, "world.md", b"# Thornwall\n\nA harbour town of grey stone."
    )
    await play(services, main, 630, ["Aldric rides."])
    await commit(
        services, main, 630, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey")
    )
    branch = await services.branches.fork(main, "Export me")
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="later", value="parent only"))
    await services.knowledge.import_bytes(
        main.id, "later.md", b"# Later\n\nAdded to the parent after the fork."
    )
    await add(services, branch, FactContent(subject=Ref(name="Aldric"), attribute="trade", value="smith"))

    async with services.db.session() as session:
        rows = await lineage_row_sets(session, branch.id)
    assert {r["value"] for r in rows["statements"]} >= {"Knight", "Grey", "smith"}
    assert "parent only" not in {r["value"] for r in rows["statements"]}
    assert [r["filename"] for r in rows["knowledge_sources"]] == ["world.md"]
    assert len(rows["scenes"]) == 1 and rows["turns"]

    archive = CampaignArchive(services.db, services.knowledge, voice=services.voice)
    path = tmp_path / "branch.zip"
    await archive.export_campaign(branch.id, path)
    contents = read_archive(path)
    values = {r["value"] for r in contents.tables["statements"]}
    assert {"Knight", "Grey", "smith"} <= values and "parent only" not in values
    assert [r["filename"] for r in contents.tables["knowledge_sources"]] == ["world.md"]
    restored = await archive.import_campaign(path, name="Restored branch")
    copy = restored.campaign
    assert copy.parent_id is None
    assert await fact_value(services, copy, "Aldric", "horse") == "Grey"
    assert await fact_value(services, copy, "Aldric", "occupation") == "smith"
    assert await fact_value(services, copy, "Aldric", "later") is None


async def test_export_of_a_branch_keeps_its_inherited_sources_as_they_were_at_the_fork(
    services: Services, tmp_path: Path
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    secret, draft = await hidden_and_disabled(services, main, draft="draft.md")
    branch = await services.branches.fork(main, "Kept at the fork")
    # After the fork the parent reveals its secret and enables its draft: not so in the branch.
    await knowledge.set_source(main.id, secret.source.id, hidden=False)
    await knowledge.enable_source(main.id, draft.source.id)
    seen = {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(branch.id)}
    assert seen == {"secret.md": (True, True), "draft.md": (False, False)}

    archive = CampaignArchive(services.db, services.knowledge, voice=services.voice)
    path = tmp_path / "branch.zip"
    await archive.export_campaign(branch.id, path)
    written = {
        r["filename"]: (r["visibility"], r["enabled"]) for r in read_archive(path).tables["knowledge_sources"]
    }
    assert written == {"secret.md": ("hidden", True), "draft.md": ("normal", False)}
    copy = (await archive.import_campaign(path, name="Restored branch")).campaign
    assert {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(copy.id)} == seen
    player = await knowledge.ask(copy.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
    assert all("mayor" not in r.text for r in player.results)
    # The parent's own export has its sources as they are now.
    await archive.export_campaign(main.id, tmp_path / "main.zip")
    own = {
        r["filename"]: (r["visibility"], r["enabled"])
        for r in read_archive(tmp_path / "main.zip").tables["knowledge_sources"]
    }
    assert own == {"secret.md": ("normal", True), "draft.md": ("normal", True)}
