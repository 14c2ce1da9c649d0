"""Names as a table types them, end to end (the real discord.py client against the emulator): a word of a name
finds it in the name boxes, a claim is of a character, relations are offered by the words typed and the subject's
type, a lower-case first name in a lore question means its entity, and an unknown name's answer says each name once.

Only what the asker may see is ever offered or matched: a GM-only entity's name reads as an unknown one.
"""

from __future__ import annotations

from tests.e2e.canon_flow import embed_text, gm_adds, plain
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything

pytestmark = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)


async def the_harrows(world: World) -> None:
    await gm_adds(world, "entity", name="Mirela Harrow", type="NPC", description="a healer of the hills")
    await gm_adds(world, "entity", name="Oswin Harrow", type="Person")
    await gm_adds(
        world, "entity", name="Grey Abbess", type="NPC", gm_only=True, description="a spy of the crown"
    )
    await gm_adds(world, "entity", name="The Tidewater Age", type="Era")
    await gm_adds(world, "entity", name="The Rusty Tankard", type="Location")
    await gm_adds(world, "entity", name="Harrowgate", type="Location")


def names(choices: list[dict[str, str]]) -> list[str]:
    return [c["value"] for c in choices]


async def test_a_word_of_a_name_finds_it_as_it_is_typed(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await the_harrows(world)
    for typed in ("harrow", "HARROW", "Harr", "mirela", "mirela h"):
        offered = names(await emu.autocomplete(chan, pat, "propose state", "subject", typed))
        assert "Mirela Harrow" in offered, (typed, offered)
    assert names(await emu.autocomplete(chan, pat, "propose state", "subject", "harrow")) == [
        "Harrowgate",
        "Mirela Harrow",
        "Oswin Harrow",
    ]
    # One letter offers the names with a word starting with it, first names starting with it first.
    assert names(await emu.autocomplete(chan, pat, "propose state", "subject", "o")) == ["Oswin Harrow"]
    # Nothing unrelated pads the list, and a GM-only name is offered to the GM alone.
    assert names(await emu.autocomplete(chan, pat, "propose state", "subject", "grey")) == []
    assert names(await emu.autocomplete(chan, pat, "propose state", "subject", "abbess")) == []
    assert names(await emu.autocomplete(chan, gm, "propose state", "subject", "abbess")) == ["Grey Abbess"]


async def test_an_unknown_name_is_answered_with_each_name_once(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await the_harrows(world)
    await gm_adds(
        world, "entity", name="Harrowgate", type="Faction"
    )  # a second Harrowgate: a guild of the town

    unknown = await emu.invoke(chan, pat, "canon entity", name="Harrowby")
    assert plain(unknown.content) == (
        "Nothing in this campaign's canon is called “Harrowby”. Did you mean Harrowgate or Oswin Harrow?"
    )
    unknown = await emu.invoke(chan, pat, "canon entity", name="Mirella")
    assert (
        plain(unknown.content)
        == "Nothing in this campaign's canon is called “Mirella”. Did you mean Mirela Harrow?"
    )
    nothing_like = await emu.invoke(chan, pat, "canon entity", name="Zed")
    assert plain(nothing_like.content) == "Nothing in this campaign's canon is called “Zed”."
    # A typo of a name two entities share is asked about, not taken for one of them.
    typo = await emu.invoke(chan, pat, "canon entity", name="Harowgate")
    assert plain(typo.content) == (
        "“Harowgate” could mean Harrowgate (Location) or Harrowgate (Faction). "
        "Which one? Type the full name with the word in brackets, like “Harrowgate (Location)”."
    )

    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, pat, "Mirela steadies herself.")
    reply = await emu.invoke(
        chan, pat, "propose relationship", subject="Mirela", relation="is an ally of", object="mirela"
    )
    text = embed_text(reply.embeds[0])
    assert text.count("→ Mirela Harrow") == 1, text


async def test_a_claim_is_of_a_character_a_player_may_see(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await the_harrows(world)
    await gm_adds(world, "entity", name="Tide Crab", type="Creature")

    offered = names(await emu.autocomplete(chan, pat, "character claim", "name", ""))
    assert sorted(offered) == ["Mirela Harrow", "Oswin Harrow", "Tide Crab"]  # no era, no tavern, no secret
    assert names(await emu.autocomplete(chan, pat, "character claim", "name", "the")) == []
    assert names(await emu.autocomplete(chan, pat, "character claim", "name", "harrow")) == [
        "Mirela Harrow",
        "Oswin Harrow",
    ]

    era = await emu.invoke(chan, pat, "character claim", name="The Tidewater Age")
    assert era.ephemeral and plain(era.content) == (
        "The Tidewater Age is an era, not a character: only a person or a creature can be played."
    )
    tavern = await emu.invoke(chan, pat, "character claim", name="The Rusty Tankard")
    assert plain(tavern.content) == (
        "The Rusty Tankard is a location, not a character: only a person or a creature can be played."
    )
    unknown = await emu.invoke(chan, pat, "character claim", name="Mirelle")
    assert plain(unknown.content) == (
        "No character called “Mirelle” in this campaign's canon. Did you mean Mirela Harrow?"
    )
    hidden = await emu.invoke(chan, pat, "character claim", name="Grey Abbess")
    nobody = await emu.invoke(chan, pat, "character claim", name="Grey Abbot")
    assert plain(hidden.content) == "No character called “Grey Abbess” in this campaign's canon."
    assert plain(nobody.content) == "No character called “Grey Abbot” in this campaign's canon."
    for reply in (era, tavern, unknown, hidden):
        assert "entit" not in plain(reply.content)
    assert (
        await world.bot.services.characters.roster(
            await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
        )
        == []
    )  # nothing written by a refused claim

    claimed = await emu.invoke(chan, pat, "character claim", name="mirela")
    assert "Mirela Harrow" in everything(claimed.message)


async def test_relations_are_offered_by_the_words_typed_and_the_types_involved(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await the_harrows(world)

    async def offered(typed: str, **named: str) -> list[str]:
        choices = await emu.autocomplete(chan, pat, "propose relationship", "relation", typed, **named)
        return [c["name"] for c in choices]

    # A word typed is the start of a word of the relation, never letters inside one ("li" of "sibling").
    assert await offered("li", subject="Mirela Harrow") == ["lives in"]
    assert (await offered("in", subject="mirela"))[:2] == ["is in", "lives in"]
    # A person and a place: the relations a person may have to a place come first.
    assert (await offered("", subject="Mirela Harrow", object="Harrowgate"))[:3] == [
        "rules",
        "is in",
        "lives in",
    ]
    assert (await offered("in", subject="mirela", object="harrowgate"))[:2] == ["is in", "lives in"]
    # A GM-only object is no one to a player: the list is as if none were chosen.
    assert await offered("", subject="Mirela Harrow", object="Grey Abbess") == await offered(
        "", subject="Mirela Harrow"
    )


async def test_a_lower_case_first_name_in_a_lore_question_means_its_entity(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await the_harrows(world)

    async def asked(question: str) -> tuple[str, list]:  # type: ignore[type-arg]
        reply = await emu.invoke(chan, pat, "lore ask", question=question)
        rows = (reply.message or {}).get("components", [])
        return everything(reply.message), [[c.get("label") for c in row["components"]] for row in rows]

    for question in ("who is mirela?", "Who is Mirela?", "who is MIRELA HARROW?"):
        text, _ = await asked(question)
        assert "Mirela Harrow is a healer of the hills. [1]" in text, (question, text)
        assert "[1] Mirela Harrow (canon)" in text
    # A GM-only name, whole or in part, reads exactly as a name nobody knows.
    unknown_text, unknown_controls = await asked("who is zorblat?")
    for word in ("abbess", "grey", "grey abbess"):
        text, controls = await asked(f"who is {word}?")
        assert text.replace(word, "zorblat") == unknown_text and controls == unknown_controls, word
        assert "spy" not in text
