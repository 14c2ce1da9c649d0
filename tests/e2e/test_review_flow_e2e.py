"""The review flow end to end: pick a proposal, edit it in a modal, Accept all on a public card, who may click.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

import pytest

from canon.errors import Conflict
from canon.models import Viewer
from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    buttons,
    embed_text,
    gm_adds,
    latest_scene,
    live,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below


@sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/services/test_recaps.py")
async def test_the_gm_corrects_a_proposal_with_edit_before_accepting_it(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Ysolde", type="Person")
    await emu.invoke(chan, gm, "scene start", title="The docks")
    await emu.send_message(chan, pat, "Ysolde now keeps the docks as well.")
    # The attribute box suggests the names canon uses, so `title` is found while typing.
    suggested = await emu.autocomplete(chan, pat, "propose fact", "attribute", "tit", subject="Ysolde")
    assert [c["value"] for c in suggested] == ["title"]
    await emu.invoke(
        chan, pat, "propose fact", subject="Ysolde", attribute="captaincy", value="Warden of the Docks"
    )
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    (row,) = await proposals_of_scene(world, scene.id)
    assert "Ysolde's captaincy: Warden of the Docks" in embed_text(card["embeds"][0])
    # An attribute close to no declared one is a new kind of detail, said so; the GM may still pick another.
    assert "new kind of detail for Ysolde" in embed_text(card["embeds"][0])

    refused = await emu.click(card, f"lk:proposal:{row.id}:edit", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "") and refused.modal is None
    opened = await emu.click(card, f"lk:proposal:{row.id}:edit", gm)
    assert opened.modal is not None and opened.modal["custom_id"] == f"lk:edit:{row.id}"
    fields = {c["component"]["custom_id"]: c["component"] for c in opened.modal["components"]}
    assert fields["lk:edit:attribute"]["value"] == "captaincy"
    assert fields["lk:edit:value"]["value"] == "Warden of the Docks"
    offered = [o["value"] for o in fields["lk:edit:attribute_pick"]["options"]]
    assert {"title", "occupation"} <= set(offered) and "captaincy" not in offered  # a Person's attributes

    # A player who got hold of the modal cannot submit it; a date that is no date changes nothing.
    stolen = await emu.submit_modal(opened, pat, {"lk:edit:value": "Queen"})
    assert stolen.ephemeral and "Only the GM" in (stolen.content or "")
    bad = await emu.submit_modal(opened, gm, {"lk:edit:when": "next tuesday"})
    assert bad.ephemeral and "next tuesday" in (bad.content or "")
    empty = await emu.submit_modal(opened, gm, {"lk:edit:attribute": " "})
    assert empty.ephemeral and "cannot be empty" in (empty.content or "")
    assert (await proposals_of_scene(world, scene.id))[0].content == row.content

    await world.restart()  # the modal opened before, the select and the buttons still work
    edited = await emu.submit_modal(opened, gm, {"lk:edit:attribute_pick": ["title"]})
    assert edited.response_type == 7  # the card, edited in place: the GM's correction is the decision
    shown = embed_text(edited.embeds[0])
    assert "Ysolde is Warden of the Docks" in shown and "#1 · ✅ accepted" in shown
    assert "new kind of detail" not in shown and "· ⚠️" not in shown  # its warnings are computed again
    (said,) = edited.followups
    assert said["flags"] & 64 and "Corrected and accepted: Ysolde is Warden of the Docks" in said["content"]
    (after,) = await proposals_of_scene(world, scene.id)
    assert after.content["attribute"] == "title" and after.status == ProposalStatus.ACCEPTED
    assert f"lk:proposal:{row.id}:accept" not in buttons(live(world, card))
    with pytest.raises(Conflict, match="already accepted"):
        await world.bot.services.reviews.revise(row.id, {"value": "Queen"})
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "1 written to canon" in embed_text(committed.embeds[0])
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    card_now = await world.bot.services.queries.card(campaign, "Ysolde", viewer=Viewer.PLAYER)
    assert {v.statement.predicate for v in card_now.facts} == {"title"}  # never `title` and `captaincy`


async def test_accept_all_on_the_public_card_leaves_gm_only_proposals_for_the_gm(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await gm_adds(world, "entity", name="The Hidden King", type="Person", gm_only=True)
    await emu.invoke(chan, gm, "scene start", title="Court")
    await emu.send_message(chan, world.pat, "We bow.")
    await emu.invoke(
        chan, gm, "propose fact", subject="The Hidden King", attribute="occupation", value="Mill"
    )
    await emu.invoke(chan, world.pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    king, jester = await proposals_of_scene(world, scene.id)
    refused = await emu.click(card, f"lk:review:{scene.id}:accept_all", world.pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    king, jester = await proposals_of_scene(world, scene.id)
    assert jester.status == ProposalStatus.ACCEPTED and king.status == ProposalStatus.PENDING
    refused = await emu.click(card, f"lk:review:{scene.id}:commit", world.pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    waits = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert waits.ephemeral and "The Hidden King's occupation: Mill" in (waits.content or "")
    picked_for_gm = waits.components[1]["components"][0]["custom_id"]
    assert picked_for_gm == f"lk:proposal:{king.id}:accept"
    await emu.click(waits.message, picked_for_gm, gm)
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "2 written to canon" not in embed_text(committed.embeds[0])  # players' count: one
    assert "1 written to canon" in embed_text(committed.embeds[0])
    assert "occupation = " not in str(live(world, card))
    assert "lk:pick" not in buttons(live(world, card))  # a committed card has nothing left to pick


@sql_run_below("tests/bot/services/test_recaps.py", "tests/bot/wiki/test_page_cache.py")
async def test_a_rejection_reason_reaches_players_only_when_the_gm_shows_it(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await emu.invoke(chan, gm, "scene start", title="Gossip")
    await emu.send_message(chan, world.pat, "They say the mill burned.")
    for name in ("Burned Mill", "Second Mill"):
        await emu.invoke(chan, world.pat, "propose entity", name=name, type="Location")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    burned, second = await proposals_of_scene(world, scene.id)
    asked = await emu.click(card, f"lk:proposal:{burned.id}:reject", gm)
    fields = {c["component"]["custom_id"]: c["component"] for c in asked.modal["components"]}
    assert not [
        o for o in fields["lk:reject:shown"]["options"] if o.get("default")
    ]  # nothing chosen for the GM
    await emu.submit_modal(asked, gm, {"lk:rationale:text": "The mill is a secret lair"})
    assert "secret lair" not in str(live(world, card)["embeds"])  # private by default
    asked = await emu.click(card, f"lk:proposal:{second.id}:reject", gm)
    await emu.submit_modal(
        asked, gm, {"lk:rationale:text": "Only one mill in town", "lk:reject:shown": ["public"]}
    )
    shown = embed_text(live(world, card)["embeds"][0])
    assert "Why: Only one mill in town" in shown and "secret lair" not in shown
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    final = embed_text(committed.embeds[0])
    assert "Only one mill in town" in final and "secret lair" not in final


async def test_a_refused_edit_gives_back_what_the_gm_typed(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Ysolde", type="Person")
    await emu.invoke(chan, gm, "scene start", title="The docks")
    await emu.send_message(chan, pat, "Ysolde coughs all night.")
    await emu.invoke(chan, pat, "propose fact", subject="Ysolde", attribute="health", value="ill")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    (row,) = await proposals_of_scene(world, (await latest_scene(world)).id)
    opened = await emu.click(card, f"lk:proposal:{row.id}:edit", gm)

    # The form closes on a date the calendar cannot read: the long correction is not lost with it.
    typed = {"lk:edit:value": "bedridden with a fever since the storm", "lk:edit:when": "next tuesday"}
    bad = await emu.submit_modal(opened, gm, typed)
    said = bad.content or ""
    assert bad.ephemeral and "next tuesday" in said, said
    assert "Nothing was changed" in said and "Its value: “bedridden with a fever since the storm”" in said, (
        said
    )
    assert (await proposals_of_scene(world, row.scene_id))[0].content == row.content
