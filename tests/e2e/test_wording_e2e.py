"""What the table reads: an evening's cards (entity, review, commit) in words, never rows."""

from __future__ import annotations

import os
import re
from typing import Any

from tests.e2e.canon_flow import (
    commit_card,
    embed_text,
    gm_adds,
    latest_scene,
    pick,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_pictures_e2e import import_lore

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")


def dump(label: str, embed: dict[str, Any]) -> None:
    out = os.environ.get("LOREKEEPER_CARDS_OUT")
    if out:
        with open(out, "a") as f:
            f.write(f"=== {label}\n{embed_text(embed)}\n")


async def test_an_evening_reads_in_words(world: World) -> None:
    await import_lore(world)
    # Canon says Maric Vyr is a man: his children's cards call him their father.
    await gm_adds(world, "fact", subject="Maric Vyr", attribute="sex", value="male")
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="The harbour")
    await emu.send_message(chan, gm, "Maric Vyr greets you at the quay.")
    await emu.send_message(chan, pat, "Cael bows to his father.")
    await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Cael Vyr",
        attribute="titles",
        value="Harbourmaster of Greyhaven",
        turns="1-2",
    )
    await emu.invoke(
        chan,
        pat,
        "propose relationship",
        subject="Cael Vyr",
        relation="ALLY_OF",
        object="Maric Vyr",
        since="3rd_age.year_300",
        turns="2",
    )
    await emu.invoke(chan, pat, "propose state", subject="Theron Ashveil", state="alive", turns="2")
    await emu.invoke(chan, gm, "endscene")
    scene = await latest_scene(world)
    card = review_cards(world)[-1]
    dump("review card (public)", card["embeds"][0])
    review = embed_text(card["embeds"][0])
    assert "Cael Vyr is Harbourmaster of Greyhaven" in review
    assert "Cael Vyr is an ally of Maric Vyr, since year 300 of the Third Age" in review
    assert "from [the scene “The harbour”](" in review and "said by Gina and Pat" in review
    assert "turns" not in review  # players read the scene by its name, never turn numbers
    assert (
        "Theron Ashveil died in year 252 of the Third Age; bringing them back in scene 1 needs a resurrection."
        in review
    )
    title, ally, _ = await proposals_of_scene(world, scene.id)
    for row in (title, ally):
        await pick(world, card, row.id)
        await emu.click(card, f"lk:proposal:{row.id}:accept", gm)
    committed = await commit_card(world, card, scene.id)
    dump("commit card", committed.embeds[0])
    assert "Cael Vyr is an ally of Maric Vyr, since year 300 of the Third Age" in embed_text(
        committed.embeds[0]
    )
    entity = await emu.invoke(chan, pat, "canon entity", name="Cael Vyr")
    dump("entity card (player)", entity.embeds[0])
    text = embed_text(entity.embeds[0])
    # A father is a father after his death (281): no end is said; the card is of one dead, said in the past.
    assert "Maric Vyr was Cael Vyr's father (from year 238 of the Third Age)" in text and "to 281" not in text
    assert "Sela Vyr was Cael Vyr's parent" in text  # canon does not say her sex
    # An alliance said to begin after one of the two died is not ended by that death ("from 300 to 281").
    assert "Cael Vyr was an ally of Maric Vyr (from year 300 of the Third Age, from scene 1)" in text
    assert "Cael Vyr is dead (since year 345 of the Third Age)" in text
    assert "Cael Vyr is Harbourmaster of Greyhaven (from scene 1) — from [the scene “The harbour”](" in text
    assert "said by Gina and Pat; proposed by Pat, accepted by Gina" in text
    assert not re.search(r"[A-Z]+_[A-Z_]+|\w+\.year_\d+|#\d+", text), text
    entity_gm = await emu.invoke(chan, gm, "canon entity", name="Cael Vyr")
    dump("entity card (GM)", entity_gm.embeds[0])
    # Yssa died in month 11 of 320: the marriage ended then.
    assert "Cael Vyr was married to Yssa Raventhorne (until month 11 of year 320" in embed_text(
        entity_gm.embeds[0]
    )
    assert not re.search(r"\(fact \d+\)|#\d", embed_text(entity_gm.embeds[0]))
    event = await emu.invoke(chan, pat, "canon entity", name="Battle of Black Spire")
    dump("event card (player)", event.embeds[0])
    assert "When: 17 Hearthmoon, 340 TA" in embed_text(event.embeds[0])  # the world-builder's own words
