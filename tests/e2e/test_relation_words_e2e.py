"""Canon proposed in words: the relation box offers phrases ("is an ally of") fitting the chosen subject,
matched on their words and synonyms, a relation typed in words is understood or answered with the nearest;
details are offered and echoed in words, and a detail new to the campaign is a note, not a warning."""

from __future__ import annotations

from canon.models import Viewer
from tests.e2e.canon_flow import campaign_of, gm_adds, plain
from tests.e2e.conftest import World, sql_run_below

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)


@SQL_RUN_BELOW
async def test_the_relation_box_offers_phrases_that_fit_the_subject(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Mara", type="NPC")
    await gm_adds(world, "entity", name="Greyhaven", type="Location")
    await gm_adds(world, "entity", name="The Veiled Queen", type="NPC", gm_only=True)

    anything = await emu.autocomplete(chan, world.pat, "propose relationship", "relation", "")
    assert anything[0] == {"name": "is the parent of", "value": "PARENT_OF"}
    assert all("_" not in c["name"] and "→" not in c["name"] for c in anything)
    spouse = await emu.autocomplete(chan, world.pat, "propose relationship", "relation", "marr")
    assert [(c["name"], c["value"]) for c in spouse] == [("is married to", "SPOUSE_OF")]
    hates = await emu.autocomplete(chan, world.pat, "propose relationship", "relation", "hates")
    assert [c["value"] for c in hates] == ["ENEMY_OF"] and hates[0]["name"] == "is an enemy of"

    # A person's relations: no "is part of" (places only); a city's: no "is married to".
    person = await emu.autocomplete(chan, world.pat, "propose relationship", "relation", "", subject="Mara")
    person_keys = {c["value"] for c in person}
    assert {"SPOUSE_OF", "SIBLING_OF", "RULES", "LIVES_IN"} <= person_keys and "PART_OF" not in person_keys
    city = await emu.autocomplete(
        chan, world.pat, "propose relationship", "relation", "", subject="Greyhaven"
    )
    city_keys = {c["value"] for c in city}
    assert "PART_OF" in city_keys and "SPOUSE_OF" not in city_keys and "RULES" not in city_keys
    # A GM-only subject is no one to a player: the box does not narrow to its type (it would tell its type).
    hidden = await emu.autocomplete(
        chan, world.pat, "propose relationship", "relation", "", subject="The Veiled Queen"
    )
    assert hidden == anything
    for_gm = await emu.autocomplete(
        chan, world.gm, "canon add relationship", "relation", "", subject="The Veiled Queen"
    )
    assert for_gm == person


@SQL_RUN_BELOW
async def test_a_relation_typed_in_words_is_understood(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Kara", type="NPC")
    await gm_adds(world, "entity", name="Lenn", type="NPC")
    await gm_adds(world, "relationship", subject="Kara", relation="hates", object="Lenn")
    await gm_adds(world, "relationship", subject="Lenn", relation="is the father of", object="Kara")
    card = await world.bot.services.queries.card(await campaign_of(world), "Kara", viewer=Viewer.PLAYER)
    assert sorted(v.statement.predicate for v in card.relations) == ["ENEMY_OF", "PARENT_OF"]

    unknown = await emu.invoke(
        chan, world.gm, "canon add relationship", subject="Kara", relation="loves", object="Lenn"
    )
    assert unknown.ephemeral and plain(unknown.content).startswith(
        "“loves” is not a relation this campaign knows. Did you mean “"
    )
    assert "_" not in (unknown.content or "")
    kara = await world.bot.services.queries.card(await campaign_of(world), "Kara", viewer=Viewer.GM)
    assert len(kara.relations) == 2  # nothing written by the refused one


@sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/wiki/test_page_cache.py")
async def test_details_are_offered_and_echoed_in_words_and_a_new_one_is_only_a_note(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Maren Marrow", type="Person")
    await emu.invoke(chan, gm, "scene start", title="The market")
    await emu.send_message(chan, pat, "Maren hides a sack under the stall.")
    eyes = await emu.autocomplete(chan, pat, "propose fact", "attribute", "eye", subject="Maren Marrow")
    assert eyes and all("_" not in c["name"] + c["value"] for c in eyes)
    assert {"name": "eye colour", "value": "eye colour"} in eyes

    reply = await emu.invoke(
        chan, pat, "propose fact", subject="Maren Marrow", attribute="stolen goods", value="a silver ewer"
    )
    (embed,) = reply.embeds
    assert "Maren Marrow's stolen goods: a silver ewer" in plain(embed["description"])
    assert "stolen_goods" not in str(embed)
    assert [f["name"] for f in embed["fields"]] == ["ℹ️ Good to know"]


@SQL_RUN_BELOW
async def test_a_date_the_player_never_gave_is_said_as_the_scenes(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Maren Marrow", type="Person")
    await emu.invoke(chan, gm, "scene start", title="The market", date="3rd_age.300")
    await emu.send_message(chan, pat, "Maren hides a sack under the stall.")
    undated = await emu.invoke(
        chan, pat, "propose fact", subject="Maren Marrow", attribute="mood", value="wary"
    )
    text = plain(undated.embeds[0]["description"])
    assert text.startswith("Maren Marrow's mood: wary (dated by the scene: year 300 of the 3rd age)"), text
    assert "3rd_age" not in text
    dated = await emu.invoke(
        chan, pat, "propose fact", subject="Maren Marrow", attribute="mood", value="calm", when="3rd_age.299"
    )
    text = plain(dated.embeds[0]["description"])
    assert "dated by the scene" not in text and "year 299 of the 3rd age" in text, text
