"""An evening at the table, end to end: three players and a GM play a scene, the GM reviews and commits it.

Asserted: no proposal is decided without the GM seeing it (Commit waits for the GM-only one and says so,
privately), every card of the scene is closed after the commit, the recap is posted, a dead NPC is refused,
and `/canon list` pages without a trace of hidden entities for players.
"""

from __future__ import annotations

from typing import Any

from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    buttons,
    embed_text,
    gm_adds,
    latest_scene,
    live,
    pick,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World
from tests.e2e.test_directory_e2e import select_options
from tests.e2e.test_recap_e2e import recaps_posted


def closed(message: dict[str, Any]) -> bool:
    """Return whether a review card is in its final state: committed, nothing pending, no live control."""
    text = embed_text(message["embeds"][0])
    controls = buttons(message).values()
    return "Canon committed" in text and "pending" not in text and all(c.get("disabled") for c in controls)


async def directory_pages(world: World, user: Any) -> list[str]:
    """Return every page of `/canon list` as the user reads them, following Next."""
    listed = await world.emu.invoke(world.channel, user, "canon list")
    pages = [embed_text(listed.embeds[0])]
    message = listed.message
    while following := [
        i for i in buttons(message) if ":next:" in i and not buttons(message)[i].get("disabled")
    ]:
        message = (await world.emu.click(message, following[0], user)).message
        pages.append(embed_text(message["embeds"][0]))
    return pages


async def test_an_evening_at_the_table(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    robin = emu.add_member(world.guild, "Robin")
    await world.restart()  # new members are announced at connect
    for name, kind in (("Aldric", "NPC"), ("Mara", "NPC"), ("Brann", "PC"), ("Greyhaven", "Location")):
        await gm_adds(world, "entity", name=name, type=kind)
    for i in range(12):
        await gm_adds(world, "entity", name=f"Villager {i:02}", type="NPC")
    await gm_adds(world, "entity", name="The Hidden King", type="Person", gm_only=True)
    await gm_adds(world, "fact", subject="Brann", attribute="title", value="Smith of Greyhaven")

    # Scene 1: Aldric falls. Nothing to review by hand: the GM's own proposal is accepted at the commit.
    await emu.invoke(chan, gm, "scene start", title="The ambush")
    await emu.send_message(chan, gm, "An arrow finds Aldric. He falls.")
    await emu.invoke(chan, gm, "propose state", subject="Aldric", state="dead")
    await emu.invoke(chan, gm, "endscene")
    (first_card,) = review_cards(world)
    first = await latest_scene(world)
    await emu.click(first_card, f"lk:review:{first.id}:commit", gm)
    assert len(recaps_posted(world)) == 1

    # Scene 2: three players play and propose; the GM proposes a GM-only fact.
    await emu.invoke(chan, gm, "scene start", title="The march")
    await emu.send_message(chan, pat, "Brann sharpens his blade.")
    await emu.send_message(chan, quinn, "Mara arrives: she now captains the guard.")
    await emu.send_message(chan, robin, "Aldric shouts: march at dawn!")
    # Robin tries to talk to the dead Aldric: refused, privately, with the reason; nothing said in the channel.
    refused = await emu.invoke(chan, robin, "npc talk", npc="Aldric", message="Aldric? Lead us!")
    assert refused.ephemeral and "Aldric is dead" in (refused.content or "")
    assert not [m for m in emu.channel_messages(chan) if m["author"]["username"] == "Aldric"]
    await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="captaincy", value="Captain", turns="2"
    )
    order = await emu.invoke(
        chan, quinn, "propose event", name="The order to march", participants="Aldric", turns="3"
    )
    assert "Continuity warnings" in embed_text(order.embeds[0])
    await emu.invoke(chan, robin, "propose relationship", subject="Brann", relation="ALLY_OF", object="Mara")
    await emu.invoke(
        chan, gm, "propose fact", subject="The Hidden King", attribute="occupation", value="Greyhaven"
    )
    ended = await emu.invoke(chan, gm, "endscene")
    _, card = review_cards(world)
    scene = await latest_scene(world)
    title, march, ally, king = await proposals_of_scene(world, scene.id)
    public = embed_text(card["embeds"][0])
    assert (
        "Hidden King" not in public and "4 proposals" not in public and "\n3 proposals: 3 pending" in public
    )
    (told,) = [m for m in ended.followup_messages if m.ephemeral]  # the GM's private card, at once
    assert "🔒 The Hidden King's occupation: Greyhaven" in embed_text(told.data["embeds"][0])

    # The GM corrects Pat's attribute with Edit (canon says `title`), which accepts it, accepts the march
    # despite its warning with a rationale, and accepts the alliance.
    opened = await emu.click(card, f"lk:proposal:{title.id}:edit", gm)
    edited = await emu.submit_modal(
        opened, gm, {"lk:edit:attribute_pick": ["title"], "lk:edit:value": "Captain of the Guard"}
    )
    assert "Mara is Captain of the Guard" in embed_text(live(world, card)["embeds"][0])
    assert "Corrected and accepted: Mara is Captain of the Guard" in edited.followups[0]["content"]
    await pick(world, card, march.id)
    asked = await emu.click(card, f"lk:proposal:{march.id}:accept", gm)
    await emu.submit_modal(asked, gm, {"lk:rationale:text": "Aldric's ghost gives the order"})
    await emu.click(card, f"lk:proposal:{ally.id}:accept", gm)

    # No silent decision: Commit waits for the GM-only proposal and says which, privately.
    waits = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert waits.ephemeral and "The Hidden King's occupation: Greyhaven" in (waits.content or "")
    assert (await latest_scene(world)).status == "review"
    assert (await proposals_of_scene(world, scene.id))[3].status == ProposalStatus.PENDING
    await emu.click(waits.message, f"lk:proposal:{king.id}:accept", gm)
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "3 written to canon, 0 rejected" in embed_text(committed.embeds[0])
    decided = await proposals_of_scene(world, scene.id)
    assert all(p.status == ProposalStatus.COMMITTED and p.decided_by_name == "Gina" for p in decided)

    # Every card of the scene is closed: the public one and both of the GM's private ones.
    assert closed(live(world, card))
    assert closed(emu.stored(told).view()) and closed(emu.stored(waits.message).view())

    # The recap is posted, with what players may read only.
    recap = embed_text(recaps_posted(world)[-1]["embeds"][0]).replace("**", "")
    assert "Recap of scene 2: The march" in recap and "Mara is Captain of the Guard" in recap
    assert "Who was there: Pat, Quinn, Robin" in recap and "Hidden King" not in recap

    # /canon list: players page through what they may see; the hidden king is on no page, in no count.
    players = await directory_pages(world, pat)
    assert len(players) == 2 and all("Hidden King" not in page for page in players)
    # 17 entries: four named, twelve villagers, and the march's event; 18 for the GM.
    assert sum(len(page.splitlines()) - 2 for page in players) == 17
    gms = await directory_pages(world, gm)
    assert any("🔒 The Hidden King · Person" in page for page in gms)
    assert sum(len(page.splitlines()) - 2 for page in gms) == 18
    assert not any(
        "Hidden King" in o["label"]
        for o in select_options((await emu.invoke(chan, pat, "canon list")).message)
    )
