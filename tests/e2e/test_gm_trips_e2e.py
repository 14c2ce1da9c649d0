"""What a GM new to the bot tripped on in an evening of play, each now said as a GM and players expect: the
GM's private answer to /endscene, undecided proposals on the closed card, Accept all's skipped proposals, the
forms' hints, evidence in words, and facts and conflicts by their sentences.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.test_canon_e2e import (
    commit_card,
    embed_text,
    latest_scene,
    live,
    pick,
    proposals_of_scene,
    review_cards,
)


async def test_endscene_tells_the_gm_what_to_review_in_a_sentence_with_a_labelled_link(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles by the old mill.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, pat, "propose entity", name="Old Mill", type="Location")
    ended = await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    link = f"https://discord.com/channels/{world.guild.id}/{chan.id}/{card['id']}"
    assert (
        ended.ephemeral
        and ended.content == f"Review the 2 proposals of “Market day”: [open the review]({link})."
    ), ended.content
    assert not ended.content.startswith("http") and "@" not in ended.content

    # Nothing proposed: the answer says so, and links the scene's report by its words.
    await commit_card(world, card, (await latest_scene(world)).id)
    await emu.invoke(chan, gm, "scene start", title="Quiet night")
    quiet = await emu.invoke(chan, gm, "endscene")
    assert quiet.content is not None and quiet.content.startswith(
        "“Quiet night” has ended with nothing proposed: [see its report](https://discord.com/channels/"
    ), quiet.content


async def test_the_closed_card_never_calls_what_nobody_decided_rejected(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles by the old mill.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, quinn, "propose entity", name="Bard", type="Person")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    _, bard = await proposals_of_scene(world, scene.id)
    await pick(world, card, bard.id)
    asked = await emu.click(card, f"lk:proposal:{bard.id}:reject", gm)
    await emu.submit_modal(asked, gm, {})
    await commit_card(world, card, scene.id)  # the jester is left undecided: the players' are dropped
    public = live(world, card)["embeds"][0]
    text = embed_text(public)
    assert "Committed by Gina: 0 written to canon, 1 rejected, 1 left undecided (not written)." in text, text
    fields = {f["name"]: f["value"] for f in public["fields"]}
    assert fields["Rejected"] == "#2 New Person: Bard", fields
    assert fields["Left undecided, so not written"] == "#1 New Person: Court Jester", fields
