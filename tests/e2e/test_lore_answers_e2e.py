"""`/lore ask` answers first, end to end: the real discord.py client against the emulator, a real database, real
Chroma and the real embedding model.

A short answer cites its sources inline and names them under it, the passages wait behind **Sources**; a question
whose answer is GM-only gets "nothing known" (and the possessive name in it is linked to its entity); a Canon
passage the story has changed is marked out of date; "Why these?" is the GM's alone.
"""

from __future__ import annotations

from typing import Any

from bot.offline.emulator.messages import custom_ids
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything, import_file, why_id

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

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
    # Small sections share one passage: the citation names the section quoted.
    assert shown.endswith("the toll is paid. [1]\n\n[1] Greyhaven › Harbour")
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
    assert description(gm_brother).startswith(
        "Ysolde Marrow's sibling is Tomas Marrow; canon does not say whether Tomas Marrow is a brother. [1]"
    )
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
    assert "\n\n[2] Greyhaven › North Gate · ⚠️ Out of date" in shown
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


async def family(world: World) -> None:
    """Aldren Vale, his parent, and three children: one of them the GM's secret."""
    emu, chan, gm = world.emu, world.channel, world.gm
    for name in ("Edric Vale", "Aldren Vale", "Corin Vale", "Tamsin Vale"):
        await emu.invoke(chan, gm, "canon add entity", name=name, type="NPC")
    await emu.invoke(chan, gm, "canon add entity", name="Ilsa Marrow", type="NPC", gm_only=True)
    await emu.invoke(
        chan, gm, "canon add relationship", subject="Edric Vale", relation="PARENT_OF", object="Aldren Vale"
    )
    for child in ("Corin Vale", "Tamsin Vale"):
        await emu.invoke(
            chan, gm, "canon add relationship", subject="Aldren Vale", relation="PARENT_OF", object=child
        )
    await emu.invoke(
        chan,
        gm,
        "canon add relationship",
        subject="Aldren Vale",
        relation="PARENT_OF",
        object="Ilsa Marrow",
        gm_only=True,
    )


async def test_a_relation_question_reads_its_direction_and_counts_only_what_the_asker_may_see(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await family(world)
    children = await emu.invoke(chan, pat, "lore ask", question="Who are the children of Aldren Vale?")
    assert description(children).startswith("Aldren Vale's children are Corin Vale and Tamsin Vale. [1]")
    many = await emu.invoke(chan, pat, "lore ask", question="How many children does Aldren Vale have?")
    assert description(many).startswith("Aldren Vale has two children: Corin Vale and Tamsin Vale. [1]")
    assert "Ilsa" not in everything(many.message) + await sources(world, many, pat)
    parents = await emu.invoke(chan, pat, "lore ask", question="Who are the parents of Aldren Vale?")
    assert description(parents).startswith("Aldren Vale's parent is Edric Vale. [1]")
    # The GM counts the secret child too.
    gm_many = await emu.invoke(chan, gm, "lore ask", question="How many children does Aldren Vale have?")
    assert description(gm_many).startswith(
        "Aldren Vale has three children: Corin Vale, Ilsa Marrow and Tamsin Vale. [1]"
    )


async def test_a_fact_from_play_answers_a_question_in_other_forms_of_its_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "canon add entity", name="Maren Marrow", type="NPC")
    await emu.invoke(
        chan,
        gm,
        "canon add fact",
        subject="Maren Marrow",
        attribute="stolen_goods",
        value="the lantern gears",
    )
    asked = await emu.invoke(chan, pat, "lore ask", question="What did Maren Marrow steal?")
    assert description(asked).startswith("Maren Marrow's stolen goods: the lantern gears. [1]")
