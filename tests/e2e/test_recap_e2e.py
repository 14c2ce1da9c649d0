"""Recaps end to end: a completed scene posts its recap in its channel, /recap posts "Previously on…".

Without a language model the recap is extractive: the facts committed (never a GM-only one), who was there and
the turns those facts cite.
"""

from __future__ import annotations

from typing import Any

import pytest

from canon.errors import InvalidInput
from tests.e2e.canon_flow import campaign_of, embed_text, latest_scene, proposals_of_scene, review_cards
from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below("tests/bot/services/test_recaps.py", "tests/bot/archive/test_export_import.py")


def recaps_posted(world: World) -> list[dict[str, Any]]:
    """Return the recaps posted in the scene channel, oldest first."""
    return [
        m
        for m in world.emu.channel_messages(world.channel)
        if m.get("embeds") and str(m["embeds"][0].get("title", "")).startswith("Recap of scene")
    ]


async def test_a_completed_scene_posts_its_recap_and_recap_says_previously_on(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="Rain at the Eel")
    await emu.send_message(chan, pat, "I shake the rain off my cloak.")
    await emu.invoke(chan, gm, "endscene")  # nothing proposed: complete at once, its recap now
    (first,) = recaps_posted(world)
    text = embed_text(first["embeds"][0]).replace("**", "")
    assert "Recap of scene 1: Rain at the Eel" in text and "Who was there: Pat" in text
    assert "Nothing new became part of the story" in text

    await gm_adds_hidden_king(world)
    await emu.invoke(chan, gm, "scene start", title="The docks")
    await emu.send_message(chan, world.quinn, "Mara walks in.")
    await emu.send_message(chan, pat, "Mara now captains the harbour guard, she says.")
    await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Captain of the Guard", turns="2"
    )
    await emu.invoke(
        chan, gm, "propose fact", subject="The Hidden King", attribute="occupation", value="Mill"
    )
    await emu.invoke(chan, gm, "endscene")
    assert len(recaps_posted(world)) == 1  # under review: no recap yet
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    mara, hidden = await proposals_of_scene(world, scene.id)
    await emu.click(card, f"lk:proposal:{mara.id}:accept", gm)  # the first pending one, picked
    waits = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    await emu.click(waits.message, f"lk:proposal:{hidden.id}:accept", gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    _, second = recaps_posted(world)
    text = embed_text(second["embeds"][0]).replace("**", "")
    assert "Recap of scene 2: The docks" in text
    assert "Now part of the story: Mara is Captain of the Guard" in text
    assert "Who was there: Quinn, Pat" in text
    assert "Turn 2, Pat: “Mara now captains the harbour guard, she says.”" in text
    assert "Hidden King" not in text and "occupation = " not in text  # GM-only canon never reaches the recap

    previously = await emu.invoke(chan, world.quinn, "recap", scenes=2)
    assert not previously.ephemeral  # for the whole table
    told = embed_text(previously.embeds[0])
    assert told.startswith("Previously on…")
    assert told.index("Scene 1: Rain at the Eel") < told.index("Scene 2: The docks")
    assert "Captain of the Guard" in told and "Hidden King" not in told
    one = embed_text((await emu.invoke(chan, pat, "recap", scenes=1)).embeds[0])
    assert "Scene 2: The docks" in one and "Rain at the Eel" not in one
    # Kept in the journal: asked again, the same recap (written once).
    recap = await world.bot.services.recaps.recap_scene(scene.id)
    assert recap.facts == ("Mara is Captain of the Guard",)
    with pytest.raises(InvalidInput, match="1 to 10 scenes"):
        await world.bot.services.recaps.latest(await campaign_of(world), 11)


async def test_recap_before_any_scene_says_the_journal_is_empty(world: World) -> None:
    told = await world.emu.invoke(world.channel, world.pat, "recap")
    assert "the journal is empty" in embed_text(told.embeds[0])


async def gm_adds_hidden_king(world: World) -> None:
    for name, hidden in (("The Hidden King", True), ("Mara", False)):
        options: dict[str, Any] = {"name": name, "type": "Person"}
        if hidden:
            options["gm_only"] = True
        await world.emu.invoke(world.channel, world.gm, "canon add entity", **options)
