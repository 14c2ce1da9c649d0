"""Branches and the ontology: a branch plays with its parent's ontology and policy as at the fork, and a rebase merges the parent's later additions."""

from __future__ import annotations

import pytest

from bot.app import Services
from canon.errors import Conflict, InvalidInput
from canon.gate import authority_policy
from canon.models import Viewer
from canon.proposals import (
    EntityContent,
    Ref,
    RelationshipContent,
)
from cogs.campaign_embeds import plan_embed
from tests.helpers.branch_play import GM, add, root

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
