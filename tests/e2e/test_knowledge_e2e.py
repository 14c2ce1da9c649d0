"""Who knows what through the real client and the emulator: three players whose characters know different
things open the same card and each sees only their own; a reveal during a scene to those present; the GM's
"as Sable sees it" view; a player's use of the GM's knowledge commands refused."""

from __future__ import annotations

import re

from bot.offline.emulator.messages import custom_ids
from tests.e2e.canon_flow import embed_text, gm_adds
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import why_id

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/wiki/test_wiki_pages.py")


async def fact_number(world: World, name: str, value: str) -> str:
    """Return what the GM's pick of a fact sends: the suggestion that shows its words (`name` and `value`)."""
    choices = await world.emu.autocomplete(world.channel, world.gm, "canon reveal", "fact", f"{name} {value}")
    (choice,) = [c for c in choices if value in c["name"]]
    return choice["value"]


async def card_of(world: World, who, name: str, **options) -> str:  # type: ignore[no-untyped-def]
    reply = await world.emu.invoke(world.channel, who, "canon entity", name=name, **options)
    assert reply.ephemeral, reply.content
    return embed_text(reply.embeds[0]) if reply.embeds else (reply.content or "")


@SQL_RUN_BELOW
async def test_three_players_see_only_what_their_characters_know(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    rio = emu.add_member(world.guild, "Rio")
    for name in ("Sable", "Brann", "Ash"):
        await gm_adds(world, "entity", name=name, type="PC")
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await gm_adds(world, "fact", subject="The Duke", attribute="secret", value="a spy", gm_only=True)
    await gm_adds(
        world, "fact", subject="The Duke", attribute="debt", value="ten thousand crowns", gm_only=True
    )
    for name, player in (("Sable", world.pat), ("Brann", world.quinn), ("Ash", rio)):
        await emu.invoke(chan, gm, "character set", name=name, player=player)
    spy = await fact_number(world, "The Duke", "a spy")
    debt = await fact_number(world, "The Duke", "ten thousand crowns")

    # A player may not reveal, undo or look as another character.
    refused = await emu.invoke(chan, world.pat, "canon reveal", to="Sable", reason="I peeked", fact=spy)
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    peek = await emu.invoke(chan, world.pat, "canon entity", name="The Duke", as_character="Brann")
    assert peek.ephemeral and "Only the GM" in (peek.content or ""), peek.content

    revealed = await emu.invoke(  # picked by its words, as the autocomplete offers them
        chan, gm, "canon reveal", to="Sable", reason="she read his letter", fact="Duke spy"
    )
    assert "Sable knows The Duke" in embed_text(revealed.embeds[0]), embed_text(revealed.embeds[0])
    await emu.invoke(chan, gm, "canon reveal", to="Brann", reason="a creditor talked", fact=debt)

    sable, brann, ash = [await card_of(world, p, "The Duke") for p in (world.pat, world.quinn, rio)]
    assert "a spy" in sable and "crowns" not in sable, sable
    assert "crowns" in brann and "a spy" not in brann, brann
    assert "a spy" not in ash and "crowns" not in ash, ash
    # The same /lore question: each answer holds only what the asker's character knows.
    answers = []
    for player in (world.pat, world.quinn, rio, gm):
        said = []
        for question in ("What is the Duke's secret?", "What is the Duke's debt?"):
            reply = await emu.invoke(chan, player, "lore ask", question=question)
            assert reply.ephemeral
            said.append(embed_text(reply.embeds[0]))
        answers.append("\n".join(said))
    # Who does not know the secret reads what anyone reads of a thing canon does not hold, word for word.
    assert answers[1].split("\n")[:2] == answers[2].split("\n")[:2], answers[1:3]
    assert "a spy" in answers[3] and "crowns" in answers[3]
    assert "a spy" in answers[0] and "crowns" not in answers[0], answers[0]
    assert "crowns" in answers[1] and "a spy" not in answers[1], answers[1]
    assert "a spy" not in answers[2] and "crowns" not in answers[2], answers[2]
    timelines = []
    for player in (world.pat, world.quinn):
        reply = await emu.invoke(chan, player, "canon timeline", name="The Duke")
        timelines.append(embed_text(reply.embeds[0]))
    assert "a spy" in timelines[0] and "a spy" not in timelines[1], timelines
    # The GM's "as Sable sees it" is Sable's player's card.
    as_sable = await card_of(world, gm, "The Duke", as_character="Sable")
    assert "a spy" in as_sable and "crowns" not in as_sable and "#" not in as_sable, as_sable
    # A player's /canon known lists what their character knows beyond public canon.
    known = await emu.invoke(chan, world.quinn, "canon known")
    text = embed_text(known.embeds[0])
    assert "What Brann knows" in text and "crowns" in text and "spy" not in text, text
    assert "ten thousand crowns (from the start of the story)" in text, text  # no date, no scene: in words


@SQL_RUN_BELOW
async def test_a_reveal_during_a_scene_reaches_those_present_and_is_undone(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    await gm_adds(world, "entity", name="Vell", type="Person", gm_only=True)
    await gm_adds(world, "fact", subject="Vell", attribute="title", value="the last heir", gm_only=True)
    await gm_adds(world, "fact", subject="Vell", attribute="hideout", value="under the mill", gm_only=True)
    await emu.invoke(chan, gm, "character set", name="Sable", player=world.pat)
    await emu.invoke(chan, gm, "character set", name="Brann", player=world.quinn)
    heir = await fact_number(world, "Vell", "the last heir")
    unknown = await card_of(world, world.pat, "Zzyx")
    assert (await card_of(world, world.pat, "Vell")).replace("Vell", "Zzyx") == unknown

    await emu.invoke(chan, gm, "scene start", title="The dying man")
    await emu.send_message(chan, world.pat, "I kneel by the dying man.")
    revealed = await emu.invoke(
        chan, gm, "canon reveal", to="those present", reason="his last words", fact=heir
    )
    shown = embed_text(revealed.embeds[0])
    assert "Sable knows" in shown and "from scene 1" in shown and "Brann" not in shown, shown
    sable = await card_of(world, world.pat, "Vell")
    assert "the last heir" in sable and "under the mill" not in sable, sable  # the name and the fact only
    assert (await card_of(world, world.quinn, "Vell")).replace("Vell", "Zzyx") == unknown

    assert not re.search(r"reveal \d|#\d", shown), shown  # named by its words, never a number
    # The GM picks the reveal by its words; a player is offered none and is refused.
    assert await emu.autocomplete(chan, world.pat, "canon unreveal", "reveal", "sable") == []
    (pick,) = await emu.autocomplete(chan, gm, "canon unreveal", "reveal", "sable heir")
    assert pick["name"].startswith("Sable knows") and "heir" in pick["name"], pick
    refused = await emu.invoke(chan, world.pat, "canon unreveal", reveal=pick["value"], reason="no")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    no_such = await emu.invoke(chan, gm, "canon unreveal", reveal="Brann dragon", reason="no")
    assert "No standing reveal says “Brann dragon”" in (no_such.content or ""), no_such.content
    typed = pick["name"]  # what the GM read, typed back, is understood
    undone = await emu.invoke(chan, gm, "canon unreveal", reveal=typed, reason="too soon")
    assert "Sable no longer knows" in (undone.content or ""), undone.content
    assert (await card_of(world, world.pat, "Vell")).replace("Vell", "Zzyx") == unknown
    history = embed_text((await emu.invoke(chan, gm, "canon known", character="Sable")).embeds[0])
    assert "undone by Gina" in history, history


@SQL_RUN_BELOW
async def test_a_belief_is_shown_as_a_belief_then_exposed(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await gm_adds(world, "entity", name="Sable", type="PC")
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await emu.invoke(chan, gm, "character set", name="Sable", player=world.pat)
    options = {"character": "Sable", "about": "The Duke", "attribute": "treasure", "value": "in the well"}
    refused = await emu.invoke(chan, world.pat, "belief add", source="me", **options)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    kept = await emu.invoke(chan, gm, "belief add", source="a drunk at the inn", **options)
    number = re.search(r"\(belief (\d+)\)", embed_text(kept.embeds[0]))
    assert number, embed_text(kept.embeds[0])
    mine = embed_text((await emu.invoke(chan, world.pat, "belief list")).embeds[0])
    assert "Sable believes The Duke's treasure: in the well (heard from a drunk at the inn). A belief" in mine
    assert "in the well" not in await card_of(world, world.pat, "The Duke")  # never shown as canon
    assert "in the well" not in await card_of(world, gm, "The Duke")
    for command in ("belief expose", "belief confirm"):
        refused = await emu.invoke(chan, world.pat, command, belief=int(number.group(1)))
        assert refused.ephemeral and "Only the GM" in (refused.content or ""), command
    await emu.invoke(chan, gm, "belief expose", belief=int(number.group(1)))
    mine = embed_text((await emu.invoke(chan, world.pat, "belief list")).embeds[0])
    assert (
        "Sable believed The Duke's treasure: in the well (heard from a drunk at the inn), and it is false."
        in mine
    )
    assert "(belief" not in mine  # the GM's handles are the GM's


@SQL_RUN_BELOW
async def test_a_hidden_source_revealed_to_one_character_answers_only_their_player(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    for name, player in (("Sable", world.pat), ("Brann", world.quinn)):
        await gm_adds(world, "entity", name=name, type="PC")
        await emu.invoke(chan, gm, "character set", name=name, player=player)
    attachment = emu.make_attachment("ledger.md", "# The ledger\n\nThe smugglers meet under the old mill.\n")
    await emu.invoke(chan, gm, "lore import", file=attachment, hidden=True)
    bad = await emu.invoke(chan, gm, "canon reveal", to="Sable", reason="x", source="No such book")
    assert bad.ephemeral and "No source is called" in (bad.content or ""), bad.content
    revealed = await emu.invoke(
        chan, gm, "canon reveal", to="Sable", reason="she stole it", source="The ledger"
    )
    assert "what “The ledger” says" in embed_text(revealed.embeds[0]), embed_text(revealed.embeds[0])
    said, sources = [], []
    for player in (world.pat, world.quinn, gm):
        reply = await emu.invoke(chan, player, "lore ask", question="Where do the smugglers meet?")
        said.append(embed_text(reply.embeds[0]))
        if player is world.quinn:  # nothing Quinn may read: no Sources to open, as of a thing canon lacks
            assert not [c for c in custom_ids(reply.message["components"]) if c.startswith("lk:lore:src:")]
            sources.append("")
            continue
        opened = await emu.click(reply.message, why_id(reply.message, "src"), player)  # the Sources view
        sources.append("\n".join(embed_text(e) for e in opened.embeds))
    assert "mill" in said[0], said
    assert "mill" not in said[1], said[1]
    # The Sources behind each answer are read through the clicker's character too: Sable's hold the ledger.
    assert "mill" in sources[0] and "mill" not in sources[1] and "mill" in sources[2], sources


async def test_three_players_open_the_same_family_tree_and_each_sees_their_characters_own(
    world: World,
) -> None:
    from tests.e2e.test_pictures_e2e import png_of
    from tests.helpers.picture_checks import person_boxes

    emu, chan, gm = world.emu, world.channel, world.gm
    rio = emu.add_member(world.guild, "Rio")
    for name in ("Sable", "Brann", "Ash"):
        await gm_adds(world, "entity", name=name, type="PC")
    for name in ("The Duke", "Anna", "Vell", "Corin"):
        await gm_adds(world, "entity", name=name, type="NPC")
    await emu.invoke(
        chan, gm, "canon add relationship", subject="The Duke", relation="PARENT_OF", object="Anna"
    )
    secret = {}
    for child in ("Vell", "Corin"):  # two children of the Duke's that canon keeps from players
        added = await emu.invoke(
            chan,
            gm,
            "canon add relationship",
            subject="The Duke",
            relation="PARENT_OF",
            object=child,
            gm_only=True,
        )
        assert embed_text(added.embeds[0]).startswith("Written to canon"), embed_text(added.embeds[0])
        secret[child] = await fact_number(world, "The Duke", child)
    for name, player in (("Sable", world.pat), ("Brann", world.quinn), ("Ash", rio)):
        await emu.invoke(chan, gm, "character set", name=name, player=player)
    await emu.invoke(chan, gm, "canon reveal", to="Sable", reason="a midwife", fact=secret["Vell"])
    await emu.invoke(
        chan, gm, "canon reveal", to="Sable, Brann", reason="the parish book", fact=secret["Corin"]
    )
    boxes = {}
    for who, player in (("Sable", world.pat), ("Brann", world.quinn), ("Ash", rio), ("GM", gm)):
        tree = await emu.invoke(chan, player, "canon tree", name="The Duke")
        assert tree.ephemeral, tree.content
        boxes[who] = len(person_boxes(png_of(tree)))
    assert boxes == {"Sable": 4, "Brann": 3, "Ash": 2, "GM": 4}, boxes
