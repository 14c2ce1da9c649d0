"""`/propose … relies_on` and `/canon add … relies_on` name the facts built on by their words, as Discord shows:
the suggestions are sentences (the choice sends back what picks the fact), typed words are understood, words
that fit none or several are answered in words and store nothing, and a player naming a GM-only fact gets the
answer that words naming nothing get. The GM's card then names the facts in words, never by number."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from canon.tables import ProposalRow
from tests.e2e.canon_flow import embed_text, gm_adds, latest_scene, plain, proposals_of_scene
from tests.e2e.conftest import World, embed_fields, sql_run_below
from tests.e2e.jargon import jargon_in

pytestmark = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/archive/test_export_import.py")

HANDLE = re.compile(r"\(?fact #?\d+\)?|#\d", re.I)


async def proposal_count(world: World) -> int:
    async with world.bot.services.db.session() as session:
        return await session.scalar(select(func.count()).select_from(ProposalRow)) or 0


async def test_relies_on_takes_the_words_shown_and_answers_bad_words_in_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Hilda", type="NPC")
    await gm_adds(world, "fact", subject="Hilda", attribute="occupation", value="harbour pilot")
    await gm_adds(world, "fact", subject="Hilda", attribute="oath", value="sworn to the harbour")
    await gm_adds(world, "fact", subject="Hilda", attribute="debt", value="owes the Guild", gm_only=True)
    await emu.invoke(chan, gm, "scene start", title="The quay")
    await emu.send_message(chan, pat, "Hilda steers us past the reef.")

    # The suggestions are the facts' sentences; a player is never offered the GM-only one.
    choices = await emu.autocomplete(chan, pat, "propose fact", "relies_on", "hilda")
    names = [c["name"] for c in choices]
    assert set(names) == {"Hilda's occupation: harbour pilot", "Hilda's oath: sworn to the harbour"}, names
    assert not any(HANDLE.search(n) or jargon_in(n) for n in names)
    gm_choices = await emu.autocomplete(chan, gm, "propose fact", "relies_on", "guild")
    assert [c["name"] for c in gm_choices] == ["Hilda's debt: owes the Guild"]
    # A second fact after “;”: the first stays as picked.
    pilot = next(c for c in choices if "pilot" in c["name"])
    (second,) = await emu.autocomplete(chan, pat, "propose fact", "relies_on", f"{pilot['value']}; oath")
    assert second["name"] == "…; Hilda's oath: sworn to the harbour" and second["value"].startswith(
        pilot["value"]
    )

    # Typed words resolve as the suggestion does.
    by_words = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Hilda",
        attribute="rank",
        value="master pilot",
        relies_on="Hilda pilot; oath sworn",
    )
    assert by_words.embeds, by_words.content
    scene = await latest_scene(world)
    found = [p.content for p in await proposals_of_scene(world, scene.id)]
    ranks = [c for c in found if c.get("value") == "master pilot"]
    assert len(ranks) == 1, found
    (rank,) = ranks
    assert len(rank["relies_on"]) == 2, rank
    picked = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Hilda",
        attribute="boat",
        value="the Gull",
        relies_on=second["value"],
    )
    assert picked.embeds, picked.content

    before = await proposal_count(world)
    unknown = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Hilda",
        attribute="ship",
        value="the Wren",
        relies_on="the Brass Lantern",
    )
    assert unknown.ephemeral and plain(unknown.content).startswith(
        "No fact of canon says “the Brass Lantern”. Type some of its words"
    ), unknown.content
    several = await emu.invoke(
        chan, pat, "propose fact", subject="Hilda", attribute="ship", value="the Wren", relies_on="harbour"
    )
    text = plain(several.content)
    assert several.ephemeral and text.startswith(
        "“harbour” fits 2 facts; say which one by more of its words"
    ), text
    assert "Hilda's occupation: harbour pilot" in text and "Hilda's oath: sworn to the harbour" in text
    # The GM-only fact named by the player: the answer words naming nothing get, the secret unsaid.
    secret = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Hilda",
        attribute="ship",
        value="the Wren",
        relies_on="the Guild debt",
    )
    nothing = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Hilda",
        attribute="ship",
        value="the Wren",
        relies_on="the Brass debt",
    )
    assert plain(secret.content).replace("the Guild debt", "X") == plain(nothing.content).replace(
        "the Brass debt", "X"
    ), (secret.content, nothing.content)
    assert "owes" not in plain(secret.content)
    for answer in (unknown, several, secret):
        assert not HANDLE.search(plain(answer.content)) and not jargon_in(plain(answer.content))
    assert await proposal_count(world) == before  # nothing stored

    # The GM cites the GM-only fact by its words; the card names facts in words only.
    cited = await emu.invoke(
        chan,
        gm,
        "canon add fact",
        subject="Hilda",
        attribute="creditor",
        value="the Guild",
        relies_on="Guild debt",
    )
    assert cited.embeds and embed_text(cited.embeds[0]).startswith("Written to canon"), cited.content
    card = await emu.invoke(chan, gm, "canon entity", name="Hilda")
    facts = plain(embed_fields(card.embeds[0])["Facts"])
    assert "Hilda's occupation: harbour pilot" in facts and not HANDLE.search(facts) and not jargon_in(facts)
    timeline = plain((await emu.invoke(chan, gm, "canon timeline", name="Hilda")).embeds[0]["description"])
    assert "Hilda's oath: sworn to the harbour" in timeline and not HANDLE.search(timeline), timeline
