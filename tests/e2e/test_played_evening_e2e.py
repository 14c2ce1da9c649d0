"""A played evening, as a GM and three players would play it: the GM never types a key, a number or an id,
and no one reads one.

Everything the GM types goes through `typed`, which fails on anything that is not words: a bare number, a
`#12`, a `snake_case` key or a RELATION_CONSTANT. What the GM picks (a suggestion of the bot's autocomplete, a
proposal in the card's list, a button) is picked, not typed. What everyone reads is scanned by the `world`
fixture's jargon scan, the GM's private answers, forms and suggestions included (`tests.e2e.jargon`).
"""

from __future__ import annotations

import re
from typing import Any

from canon.models import Viewer
from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    embed_text,
    latest_scene,
    live,
    pick,
    plain,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_recap_e2e import recaps_posted

pytestmark = sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/archive/test_export_import.py")

NOT_WORDS = re.compile(r"^\s*#?\d+\s*$|#\d|\b[a-z0-9]+_[a-z0-9_]+\b|\b[A-Z]+_[A-Z_]+\b")


def typed(**options: str) -> dict[str, str]:
    """Return what the GM types, after checking it is words: no number, id, key or constant."""
    for name, value in options.items():
        assert not NOT_WORDS.search(value), f"the GM had to type {value!r} for {name}"
    return options


async def suggested(world: World, command: str, option: str, text: str, **others: str) -> dict[str, Any]:
    """Type `text` into an option as the GM and return the bot's one suggestion (it must be the only one)."""
    typed(**{option: text}, **others)
    choices = await world.emu.autocomplete(world.channel, world.gm, command, option, text, **others)
    assert len(choices) == 1, choices
    return choices[0]


async def test_a_played_evening_in_words(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    robin = emu.add_member(world.guild, "Robin")
    await world.restart()  # new members are announced at connect

    # Before the players arrive, the GM writes the world in words.
    people = (
        ("Corvan Marrow", "Person"),
        ("Ysolde Marrow", "Person"),
        ("Greyhaven", "Location"),
        ("Brann", "PC"),
    )
    for name, kind in people:
        await emu.invoke(chan, gm, "canon add entity", **typed(name=name, type=kind))
    given = await emu.invoke(chan, gm, "character set", **typed(name="Brann"), player=pat)  # Pat plays Brann
    assert "Pat plays Brann now." in (given.content or ""), given.content
    await emu.invoke(
        chan,
        gm,
        "canon add fact",
        **typed(subject="Corvan Marrow", attribute="title", value="Harbourmaster of Greyhaven"),
    )
    secret = typed(subject="Corvan Marrow", attribute="secret", value="smuggles relics for the Deep Court")
    await emu.invoke(chan, gm, "canon add fact", **secret, gm_only=True)

    # The evening: a scene at Greyhaven; three players play, and propose in their own words.
    await emu.invoke(chan, gm, "scene start", **typed(title="Fog on the quay", location="Greyhaven"))
    await emu.send_message(chan, pat, "Ysolde's grey eyes follow the harbourmaster's lantern.")
    await emu.send_message(chan, quinn, "Ysolde spits at her father's boots. No love left there.")
    await emu.send_message(
        chan, robin, "We find a lamp-lit tavern behind the customs house: the Grey Lantern."
    )
    subject = (await emu.autocomplete(chan, pat, "propose fact", "subject", "Ysol"))[0]["value"]
    await emu.invoke(chan, pat, "propose fact", subject=subject, attribute="eye colour", value="grey")
    await emu.invoke(
        chan,
        quinn,
        "propose relationship",
        subject="Ysolde Marrow",
        relation="enemy of",
        object="Corvan Marrow",
    )
    await emu.invoke(chan, robin, "propose entity", name="The Grey Lantern", type="Location")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    eyes, enmity, lantern = await proposals_of_scene(world, scene.id)

    # The GM reviews: opens Pat's in the Edit form and submits it untouched (accepted as it was), picks
    # Quinn's in the list and accepts it, rejects Robin's with a reason, and commits.
    opened = await emu.click(card, f"lk:proposal:{eyes.id}:edit", gm)
    as_it_was = await emu.submit_modal(opened, gm, {})
    assert "accepted as it was: Ysolde Marrow's eye colour: grey" in as_it_was.followups[0]["content"]
    await pick(world, card, enmity.id)
    await emu.click(card, f"lk:proposal:{enmity.id}:accept", gm)
    await pick(world, card, lantern.id)
    asked = await emu.click(card, f"lk:proposal:{lantern.id}:reject", gm)
    await emu.submit_modal(asked, gm, typed(**{"lk:rationale:text": "The Lantern opens next session"}))
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    said = embed_text(committed.embeds[0])
    assert "Ysolde Marrow's eye colour: grey" in said and "Ysolde Marrow is an enemy of Corvan Marrow" in said
    decided = {p.id: p for p in await proposals_of_scene(world, scene.id)}
    assert decided[eyes.id].content == eyes.content and decided[eyes.id].status == ProposalStatus.COMMITTED
    assert decided[lantern.id].status == ProposalStatus.REJECTED and not decided[lantern.id].rationale_public
    recap = plain(embed_text(recaps_posted(world)[-1]["embeds"][0])).replace("**", "")
    assert "Fog on the quay" in recap and "Ysolde Marrow is an enemy of Corvan Marrow" in recap
    assert "Who was there: Brann (Pat), Quinn, Robin" in recap, recap  # a character, with its player

    # After the session the GM retcons the title by its words, picked from the suggestions.
    choice = await suggested(world, "retcon", "fact", "corvan harbourmaster")
    assert (
        choice["name"].startswith("Corvan Marrow is Harbourmaster of Greyhaven")
        and "(fact" not in choice["name"]
    )
    retcon = await emu.invoke(
        chan,
        gm,
        "retcon",
        fact=choice["value"],
        **typed(rationale="He lost the post last winter", new_value="Harbourmaster of the Old Quay"),
    )
    assert "Replaced by: Corvan Marrow is Harbourmaster of the Old Quay" in embed_text(retcon.embeds[0])
    # Words that fit two facts are answered with both: the GM says which, nothing is guessed.
    several = await emu.invoke(chan, gm, "retcon", **typed(fact="Corvan Marrow", rationale="tidy up"))
    assert (
        several.ephemeral and "fits" in plain(several.content) and "say which one" in plain(several.content)
    )

    # A player's suggestions of facts hold only what players may read (and /retcon itself is the GM's).
    told = await emu.autocomplete(chan, pat, "retcon", "fact", "corvan")
    assert told and not any("Deep Court" in c["name"] for c in told), told
    refused = await emu.invoke(chan, pat, "retcon", fact=told[0]["value"], rationale="mine now")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")

    # The GM's card shows the hidden secret, marked; Pat's shows neither it nor a trace of it.
    gm_card = embed_text((await emu.invoke(chan, gm, "canon entity", name="Corvan Marrow")).embeds[0])
    assert "🔒 Corvan Marrow's secret: smuggles relics for the Deep Court" in gm_card, gm_card
    pat_card = embed_text((await emu.invoke(chan, pat, "canon entity", name="Corvan Marrow")).embeds[0])
    assert "Deep Court" not in pat_card and "Harbourmaster of the Old Quay" in pat_card
    assert "Harbourmaster of Greyhaven" not in pat_card  # retconned: no longer canon
    check = await emu.invoke(chan, gm, "canon check")
    assert check.ephemeral and check.embeds
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    ysolde = await world.bot.services.queries.card(campaign, "Ysolde Marrow", viewer=Viewer.PLAYER)
    assert [(v.statement.predicate, v.statement.value) for v in ysolde.facts] == [("eye_colour", "grey")]
    assert live(world, card)["embeds"]  # the card stays, closed; the fixture scans every version of it
