"""What-if branches on a real database: fork, isolation both ways, fork points, rebase, promotion, retire, export.

The services are the application's own (`build_services`), with embedding switched off except where recall by
meaning is the point (NPC memories, `/lore`).
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from bot.app import Services
from bot.schema.database import metadata
from canon.errors import Conflict, InvalidInput, NotFound
from canon.models import AsOf, Viewer
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from tests.helpers.branch_play import GM, GUILD, add, commit, counts, fact_value, play, root


async def total_rows(services: Services) -> dict[str, int]:
    found: dict[str, int] = {}
    async with services.db.session() as session:
        for table in metadata().sorted_tables:
            found[table.name] = int(await session.scalar(select(func.count()).select_from(table)) or 0)
    return found


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
