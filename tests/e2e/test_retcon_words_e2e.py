"""A retcon in the GM's own words, and a recap read after it: the real discord.py client against the emulator.

The GM picks a fact by any form of its words ("Oswin's death" for "Oswin Harrow is dead"); words that fit only
part of a fact offer the nearest facts, never act on one. A recap read after a retcon shows the retconned fact
struck through, with what canon says now, never as canon still ("Previously on…" and a player's own alike).
"""

from __future__ import annotations

import re

from tests.e2e.canon_flow import (
    embed_text,
    gm_adds,
    latest_scene,
    plain,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below


async def play_the_lantern_scene(world: World) -> None:
    """Scene 1 at the Lantern: Oswin Harrow dies and Tobin owes Mirela 40 silver, both committed."""
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for name in ("Oswin Harrow", "Tobin", "Mirela"):
        await gm_adds(world, "entity", name=name, type="NPC")
    await emu.invoke(chan, gm, "scene start", title="Fire at the Lantern")
    await emu.send_message(chan, pat, "Oswin falls in the fire. Tobin swears he will pay Mirela back.")
    await emu.invoke(chan, pat, "propose state", subject="Oswin Harrow", state="dead", turns="1")
    await emu.invoke(
        chan, pat, "propose fact", subject="Tobin", attribute="debt", value="owes Mirela 40 silver", turns="1"
    )
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert "2 written to canon" in embed_text(committed.embeds[0]), embed_text(committed.embeds[0])


async def retcon(world: World, fact: str, **options: str) -> tuple[bool, str]:
    reply = await world.emu.invoke(
        world.channel, world.gm, "retcon", fact=fact, rationale="GM's call", **options
    )
    text = plain(reply.content) + (embed_text(reply.embeds[0]) if reply.embeds else "")
    return reply.ephemeral, text


@sql_run_below("tests/bot/services/test_recaps.py", "tests/bot/archive/test_export_import.py")
async def test_the_gm_retcons_in_their_own_words_and_the_recap_shows_it(world: World) -> None:
    await play_the_lantern_scene(world)
    # Part of the words: the nearest facts are offered, nothing is retconned.
    _, near = await retcon(world, "that Oswin died at the Lantern")
    assert "No fact of canon says all of “that Oswin died at the Lantern”. The nearest" in near, near
    assert "• Oswin Harrow is dead" in near
    # Nothing fits: the example names someone of this campaign, never a stranger.
    _, none = await retcon(world, "the moon is cheese")
    assert "No fact of canon says “the moon is cheese”" in none and "like “" in none, none
    example = re.search(r"like “([^”]+)”", none)
    assert example is not None and example[1] in {"Oswin Harrow", "Tobin", "Mirela"}, none
    assert "Corvan" not in none
    before = embed_text((await world.emu.invoke(world.channel, world.quinn, "recap")).embeds[0])
    assert "Oswin Harrow dies" in before and "retconned" not in before

    # Another form of the word: "death" is the fact that he is dead; the reply names the fact retconned.
    private, died = await retcon(world, "Oswin's death")
    assert private and "~~Oswin Harrow is dead" in died and "is retconned" in died, died
    private, debt = await retcon(world, "Tobin's debt to Mirela", new_value="owes Mirela 10 silver")
    assert (
        "~~Tobin's debt: owes Mirela 40 silver" in debt
        and "Replaced by: Tobin's debt: owes Mirela 10" in debt
    )

    told = plain(embed_text((await world.emu.invoke(world.channel, world.quinn, "recap")).embeds[0]))
    told = told.replace("**", "")
    assert told.startswith("Previously on…")
    assert "Now part of the story" not in told  # both facts of the scene are retconned
    assert "Since retconned, no longer canon: ~~Oswin Harrow dies~~" in told, told
    assert "~~Tobin's debt: owes Mirela 40 silver~~ → now Tobin's debt: owes Mirela 10 silver" in told, told
    await world.emu.invoke(world.channel, world.gm, "character set", name="Tobin", player=world.pat)
    mine = await world.emu.invoke(world.channel, world.pat, "recap", mine=True)
    assert "~~Oswin Harrow dies~~" in plain(embed_text(mine.embeds[0])), embed_text(mine.embeds[0])


async def test_a_retconned_gm_only_fact_stays_unsaid_in_the_recap(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await gm_adds(world, "entity", name="The Hidden King", type="Person", gm_only=True)
    await gm_adds(world, "entity", name="Mara", type="Person")
    await emu.invoke(chan, gm, "scene start", title="The mill")
    await emu.send_message(chan, world.pat, "Mara grinds the grain.")
    await emu.invoke(
        chan, gm, "propose fact", subject="The Hidden King", attribute="occupation", value="Miller"
    )
    await emu.invoke(chan, gm, "propose fact", subject="Mara", attribute="occupation", value="Baker")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    waits = await emu.click(
        card, f"lk:review:{scene.id}:commit", gm
    )  # the GM-only one waits for its own accept
    king, _ = await proposals_of_scene(world, scene.id)
    await emu.click(waits.message, f"lk:proposal:{king.id}:accept", gm)
    committed = await emu.click(
        card, f"lk:review:{scene.id}:commit", gm
    )  # the public card counts public ones
    assert "written to canon" in embed_text(committed.embeds[0]), embed_text(committed.embeds[0])
    _, hidden = await retcon(world, "Hidden King's job")  # "job" is a form of "occupation"
    assert "The Hidden King's occupation: Miller" in hidden and "is retconned" in hidden, hidden
    told = plain(embed_text((await emu.invoke(chan, world.pat, "recap")).embeds[0]))
    assert "Hidden King" not in told and "Miller" not in told and "retconned" not in told, told
    assert "Mara's occupation: Baker" in told
