"""`/lore ask` answers first, end to end: the real discord.py client against the emulator, a real database, real
Chroma and the real embedding model.

A short answer cites its sources inline and names them under it, the passages wait behind **Sources**; a question
whose answer is GM-only gets "nothing known" (and the possessive name in it is linked to its entity); a Canon
passage the story has changed is marked out of date; "Why these?" is the GM's alone.
"""

from __future__ import annotations

from typing import Any

from bot.emulator.models import custom_ids
from tests.e2e.conftest import World
from tests.e2e.test_lore_e2e import everything, import_file, why_id

GREYHAVEN = """# Greyhaven

## North Gate

The north gate is open to travellers day and night. Its iron doors were forged by the first dwarves of the
hills, and the watch counts every cart that passes under the arch at dawn and at dusk.

## Harbour

Fishing boats crowd the quays at dawn. The harbourmaster keeps a ledger of every hull, flag and cargo that
comes in from the cold grey sea, and no ship leaves before the toll is paid.
"""


def description(reply: Any) -> str:
    (embed,) = reply.embeds
    return str(embed.get("description") or "")


async def sources(world: World, reply: Any, user: Any) -> str:
    opened = await world.emu.click(reply.message, why_id(reply.message, "src"), user)
    assert opened.ephemeral
    return everything(opened.message)


async def test_an_answer_cites_its_sources_and_a_gm_only_answer_is_nothing_known(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_file(world, "greyhaven.md", GREYHAVEN, **{"class": "canon"})
    await emu.invoke(
        chan, gm, "canon add entity", name="Ysolde Marrow", type="NPC", description="harbourmaster"
    )
    await emu.invoke(chan, gm, "canon add entity", name="Tomas Marrow", type="NPC", gm_only=True)
    added = await emu.invoke(
        chan,
        gm,
        "canon add relationship",
        subject="Ysolde Marrow",
        relation="SIBLING_OF",
        object="Tomas Marrow",
        gm_only=True,
    )
    assert "Tomas Marrow" in everything(added.message)

    # An answer with its citation, the cited source named under it; the passages behind Sources.
    asked = await emu.invoke(chan, pat, "lore ask", question="What does the harbourmaster keep a ledger of?")
    shown = description(asked)
    assert shown.startswith("The harbourmaster keeps a ledger of every hull, flag and cargo")
    assert shown.endswith("the toll is paid. [1]\n\n[1] Greyhaven")  # small sections share one passage
    assert custom_ids(asked.message["components"]) == [why_id(asked.message, "src")]  # no "Why these?"
    assert "[1] Greyhaven" in await sources(world, asked, pat)

    # The brother is GM-only: a player hears that nothing is known, with Ysolde linked through the possessive.
    brother = await emu.invoke(chan, pat, "lore ask", question="Who is Ysolde's brother?")
    assert description(brother).startswith("Nothing the table knows says who Ysolde's brother is.")
    behind = await sources(world, brother, pat)
    assert "Canon: Ysolde Marrow (NPC)" in behind
    assert "Tomas" not in everything(brother.message) + behind
    # The GM's answer comes from the graph, and the GM may open "Why these?".
    gm_brother = await emu.invoke(chan, gm, "lore ask", question="Who is Ysolde's brother?")
    assert description(gm_brother).startswith("Ysolde Marrow is a sibling of Tomas Marrow. [1]")
    why = await emu.click(gm_brother.message, why_id(gm_brother.message), gm)
    assert "score" in everything(why.message)
    refused = await emu.click(gm_brother.message, why_id(gm_brother.message), pat)
    assert refused.ephemeral and "for the GM" in (refused.content or "")


async def test_a_canon_passage_the_story_changed_is_marked_out_of_date(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_file(world, "greyhaven.md", GREYHAVEN, **{"class": "canon"})
    await emu.invoke(chan, gm, "canon add entity", name="North Gate", type="Location")
    await emu.invoke(chan, gm, "canon add fact", subject="North Gate", attribute="status", value="open")
    before = await emu.invoke(chan, pat, "lore ask", question="Is the north gate open?")
    assert "out of date" not in everything(before.message).casefold()

    changed = await emu.invoke(
        chan, gm, "canon add fact", subject="North Gate", attribute="status", value="collapsed"
    )
    assert "collapsed" in everything(changed.message)
    after = await emu.invoke(chan, pat, "lore ask", question="Is the north gate open?")
    shown = description(after)
    assert "is out of date: North Gate's status is collapsed now." in shown
    assert "\n\n[2] Greyhaven · ⚠️ Out of date" in shown
    assert "⚠️ Out of date: now North Gate's status is collapsed." in await sources(world, after, pat)
    # The GM is told to update the source.
    gm_after = await emu.invoke(chan, gm, "lore ask", question="Is the north gate open?")
    assert "Update the source." in description(gm_after)
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    (source,) = await services.knowledge.list_sources(campaign.id)
    inspected = everything((await emu.invoke(chan, gm, "lore source", source=source.id)).message)
    assert "⚠️ Out of date: the story has changed these sections" in inspected
    assert "• Greyhaven: now North Gate's status is collapsed" in inspected
