"""`/canon list` and entity cards that link on: a directory players browse without a trace of hidden canon."""

from __future__ import annotations

from typing import Any

from tests.e2e.canon_flow import buttons, embed_text, gm_adds
from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/wiki/test_page_cache.py")


def select_options(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        o for row in message["components"] for c in row["components"] if c["type"] == 3 for o in c["options"]
    ]


async def test_the_directory_pages_and_searches_and_hides_gm_only_entities_from_players(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for i in range(14):
        await gm_adds(world, "entity", name=f"Villager {i:02}", type="NPC")
    await gm_adds(world, "entity", name="Greyhaven", type="Location")
    for name in ("The Hidden King", "Secret Spy", "Night Court"):
        await gm_adds(world, "entity", name=name, type="Person", gm_only=True)

    # Pat sees 15 entries: one page, no count or page of the three hidden ones.
    seen = await emu.invoke(chan, pat, "canon list")
    assert seen.ephemeral
    text = embed_text(seen.embeds[0])
    assert "Page 1 of 1" in text and "Hidden King" not in text and "Spy" not in text and "🔒" not in text
    assert len(text.splitlines()) == 1 + 15 + 1  # title, 15 entries, footer
    assert not any(i.startswith("lk:dir:") for i in buttons(seen.message))
    assert len(select_options(seen.message)) == 15
    # The GM sees 18: two pages, the hidden ones marked.
    gm_seen = await emu.invoke(chan, gm, "canon list")
    assert "Page 1 of 2" in embed_text(gm_seen.embeds[0]) and "🔒 Night Court · Person" in embed_text(
        gm_seen.embeds[0]
    )
    (following,) = [i for i in buttons(gm_seen.message) if i.startswith("lk:dir:1:next")]
    await world.restart()  # the listing's controls survive a restart
    page_two = await emu.click(gm_seen.message, following, gm)
    assert page_two.response_type == 7 and "Page 2 of 2" in embed_text(page_two.embeds[0])

    # A type (its kinds included) and a part of a name narrow it; a wrong type is refused with the choices.
    places = embed_text((await emu.invoke(chan, pat, "canon list", type="Location")).embeds[0])
    assert "Greyhaven · Location" in places and "Villager" not in places
    people = embed_text(
        (await emu.invoke(chan, pat, "canon list", type="Person", filter="lager 1")).embeds[0]
    )
    assert "Villager 10 · NPC" in people and "Villager 09" not in people and "Hidden" not in people
    hidden = embed_text((await emu.invoke(chan, pat, "canon list", filter="hidden")).embeds[0])
    assert "Nothing canon knows matches “hidden”: try a word of a name" in hidden and "Page 1 of 1" in hidden
    nobody = embed_text((await emu.invoke(chan, pat, "canon list", filter="zzzzzz")).embeds[0])
    assert hidden.replace("hidden", "zzzzzz") == nobody  # a GM-only name reads as no name at all
    wrong = await emu.invoke(chan, pat, "canon list", type="Dragonkin")
    assert (
        wrong.ephemeral
        and "not an entity type" in (wrong.content or "")
        and "Location" in (wrong.content or "")
    )

    # Opening a card from the listing.
    villager = next(o for o in select_options(seen.message) if o["label"] == "Villager 03")
    opened = await emu.click(seen.message, "lk:open", pat, values=[villager["value"]])
    assert opened.ephemeral and embed_text(opened.embeds[0]).startswith("Villager 03 (NPC)")


async def test_an_entity_card_opens_the_cards_of_related_entities(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for name, hidden in (("Corvan", False), ("Ysolde", False), ("Vell", True)):
        await gm_adds(world, "entity", name=name, type="Person", gm_only=hidden)
    await gm_adds(world, "relationship", subject="Corvan", relation="PARENT_OF", object="Ysolde")
    await gm_adds(world, "relationship", subject="Corvan", relation="PARENT_OF", object="Vell")
    card = await emu.invoke(chan, pat, "canon entity", name="Corvan")
    options = select_options(card.message)
    assert [o["label"] for o in options] == ["Ysolde · Person"]  # not the hidden child
    opened = await emu.click(card.message, "lk:open", pat, values=[options[0]["value"]])
    assert opened.ephemeral and embed_text(opened.embeds[0]).startswith("Ysolde (Person)")
    assert [o["label"] for o in select_options(opened.message)] == ["Corvan · Person"]  # and back
    gm_card = await emu.invoke(chan, gm, "canon entity", name="Corvan")
    assert sorted(o["label"] for o in select_options(gm_card.message)) == ["Vell · Person", "Ysolde · Person"]
