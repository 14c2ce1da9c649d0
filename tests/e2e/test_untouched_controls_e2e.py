"""Controls that never decide for the GM: an optional select has nothing preselected, and a form submitted
as it was shown changes nothing. The real discord.py client against the emulator, checked in the database."""

from __future__ import annotations

from canon.models import Viewer
from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import embed_text, gm_adds, latest_scene, proposals_of_scene, review_cards
from tests.e2e.conftest import World, sql_run_below


def fields_of(modal: dict) -> dict[str, dict]:
    return {c["component"]["custom_id"]: c["component"] for c in modal["components"] if "component" in c}


async def a_secret_proposed(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Corin Vale", type="Person", description="A quiet smith.")
    await emu.invoke(chan, world.gm, "scene start", title="The forge")
    await emu.send_message(chan, world.pat, "Corin hides something under the anvil.")
    await emu.invoke(
        chan,
        world.pat,
        "propose fact",
        subject="Corin Vale",
        attribute="secret",
        value="forges keys for thieves",
    )
    await emu.invoke(chan, world.gm, "endscene")


@sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/wiki/test_page_cache.py")
async def test_an_edit_form_submitted_untouched_changes_nothing(world: World) -> None:
    emu, gm = world.emu, world.gm
    await a_secret_proposed(world)
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    (before,) = await proposals_of_scene(world, scene.id)

    refused = await emu.click(card, f"lk:proposal:{before.id}:edit", world.pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "") and refused.modal is None
    opened = await emu.click(card, f"lk:proposal:{before.id}:edit", gm)
    assert opened.modal is not None
    pick = fields_of(opened.modal)["lk:edit:attribute_pick"]
    assert pick["options"] and not any(o.get("default") for o in pick["options"]), pick  # nothing chosen
    assert "description" in [o["value"] for o in pick["options"]]  # the option that was once preselected

    stolen = await emu.submit_modal(opened, world.pat, {})
    assert stolen.ephemeral and "Only the GM" in (stolen.content or "")
    assert (await proposals_of_scene(world, scene.id))[0].status == ProposalStatus.PENDING

    submitted = await emu.submit_modal(opened, gm, {})  # every field as the form showed it
    (said,) = submitted.followups
    assert (
        "Nothing was changed; accepted as it was: Corin Vale's secret: forges keys for thieves"
        in said["content"]
    )
    (after,) = await proposals_of_scene(world, scene.id)
    assert after.content == before.content and after.status == ProposalStatus.ACCEPTED

    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "Corin Vale's secret: forges keys for thieves" in embed_text(committed.embeds[0])
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    corin = await world.bot.services.queries.card(campaign, "Corin Vale", viewer=Viewer.GM)
    assert corin.entity.description == "A quiet smith."
    assert [(v.statement.predicate, v.statement.value) for v in corin.facts] == [
        ("secret", "forges keys for thieves")
    ]


@sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/wiki/test_page_cache.py")
async def test_an_edit_changes_only_the_field_the_gm_changed(world: World) -> None:
    emu, gm = world.emu, world.gm
    await a_secret_proposed(world)
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    (before,) = await proposals_of_scene(world, scene.id)
    opened = await emu.click(card, f"lk:proposal:{before.id}:edit", gm)
    edited = await emu.submit_modal(opened, gm, {"lk:edit:value": "forges keys for the duke"})
    (said,) = edited.followups
    assert "Corrected and accepted: Corin Vale's secret: forges keys for the duke" in said["content"]
    (after,) = await proposals_of_scene(world, scene.id)
    assert after.content["attribute"] == "secret" and after.content["value"] == "forges keys for the duke"
    assert {k: v for k, v in after.content.items() if k != "value"} == {
        k: v for k, v in before.content.items() if k != "value"
    }
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "forges keys for the duke" in embed_text(committed.embeds[0])  # the accepted value, as accepted


@sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py")
async def test_a_reject_reason_is_private_unless_the_gm_picks_everyone(world: World) -> None:
    emu, gm = world.emu, world.gm
    await a_secret_proposed(world)
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    (row,) = await proposals_of_scene(world, scene.id)
    asked = await emu.click(card, f"lk:proposal:{row.id}:reject", gm)
    assert asked.modal is not None
    shown = fields_of(asked.modal)["lk:reject:shown"]
    assert not any(o.get("default") for o in shown["options"]), shown  # no choice made for the GM
    refused = await emu.submit_modal(asked, world.pat, {"lk:rationale:text": "no"})
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    await emu.submit_modal(asked, gm, {"lk:rationale:text": "Too early for that reveal"})
    (after,) = await proposals_of_scene(world, scene.id)
    assert after.status == ProposalStatus.REJECTED and after.rationale_public is False
