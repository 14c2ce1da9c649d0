"""A book's secrets and its disagreements, end to end (the real client, the emulator, a real database and Chroma):

- a source imported with `/lore import` whose section is marked GM-only: a player's `/lore ask` about that section
  gets "nothing known" word for word, its Sources hold nothing of it, the GM reads it marked hidden; `/lore source`
  lists the hidden section; the GM shows it with `/lore section` (a player's use refused, autocomplete empty);
- two Canon sources that disagree: flagged at import with both places, listed by `/canon conflicts` with a button
  per source; a player's click and commands refused; the GM's pick followed by the next answer; `/lore order`.
"""

from __future__ import annotations

from typing import Any

from bot.offline.emulator.messages import custom_ids
from memory.knowledge.retrieval.answer import nothing_known
from tests.e2e.canon_flow import embed_text
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_hidden_canon_e2e import written_here
from tests.e2e.test_lore_e2e import everything, import_file, with_sources

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/memory/knowledge/test_gm_only_sections.py", "tests/bot/cli/test_lore.py")

BOOK = """# Greyhaven

## The Harbour

Greyhaven's harbour shelters fishing boats and salt barges. Gulls circle the lighthouse all day.

## The Markets

Fish, salt and amber are sold on the quay every morning by the guild of chandlers.

## The Duke's Plot (GM only)

Duke Varrow Quillane plans to poison the queen with nightbloom at the midwinter feast.

### His Allies

The Obsidian Lantern cult smuggles the nightbloom through the lighthouse cellars.
"""
QUESTION = "What is Duke Varrow Quillane plotting with nightbloom?"
SECRETS = ("nightbloom", "Obsidian", "poison", "Duke's Plot")

GAZETTEER = """# Gazetteer

## Greyhaven

- **Ruler** Queen Maren Vell

A walled port of grey stone on the Saltmere.
"""
CHRONICLE = """# Chronicle of the Coast

## Greyhaven

- **Ruler** Lord Aldous Crane

The harbour city where the salt road ends.
"""


def unasked(text: str, question: str) -> str:
    """Return what an answer shows but the question it repeats (its title, its "nothing known")."""
    return text.replace(nothing_known(question), "").replace(question, "")


def first_line(message: dict[str, Any] | None) -> str:
    assert message is not None
    return embed_text(message["embeds"][0]).split("\n")[1]


@SQL_RUN_BELOW
async def test_a_gm_only_section_never_reaches_a_player_and_the_gm_shows_it(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    imported = await import_file(world, "greyhaven.md", BOOK, **{"class": "canon"})
    assert "greyhaven.md" in everything(imported.message), everything(imported.message)

    # A player's answer about the secret is "nothing known" word for word; nothing of it anywhere they can open.
    asked = await emu.invoke(chan, pat, "lore ask", question=QUESTION)
    assert first_line(asked.message) == nothing_known(QUESTION), everything(asked.message)
    seen = await with_sources(world, asked, pat)
    assert not any(word in unasked(seen, QUESTION) for word in SECRETS), seen
    for question in ("Obsidian Lantern cult", "The Duke's Plot", "lighthouse cellars smugglers"):
        other = await emu.invoke(chan, pat, "lore ask", question=question)
        text = unasked(await with_sources(world, other, pat), question)
        assert not any(word in text for word in SECRETS), text
    public = await emu.invoke(chan, pat, "lore ask", question="What is sold on Greyhaven's quay?")
    assert "amber" in everything(public.message)

    # The GM reads it, marked hidden; `/lore source` lists the hidden section.
    gm_asked = await emu.invoke(chan, gm, "lore ask", question=QUESTION)
    assert "nightbloom" in await with_sources(world, gm_asked, gm)
    offered = await emu.autocomplete(chan, gm, "lore source", "source", "")
    source = int(offered[0]["value"])
    inspected = everything((await emu.invoke(chan, gm, "lore source", source=source)).message)
    assert "GM-only sections" in inspected and "Greyhaven › The Duke's Plot" in inspected, inspected
    assert "His Allies" not in inspected.split("GM-only sections")[1].split("\n")[1], inspected

    # Hiding and showing a section is the GM's; its picker offers the sections by heading.
    refused = await emu.invoke(
        chan, pat, "lore section", source=source, section="The Duke's Plot", hidden=False
    )
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    assert await emu.autocomplete(chan, pat, "lore section", "section", "duke", source=source) == []
    picks = await emu.autocomplete(chan, gm, "lore section", "section", "duke", source=source)
    assert "🔒 Greyhaven › The Duke's Plot" in [c["name"] for c in picks], picks
    shown = await emu.invoke(chan, gm, "lore section", source=source, section=picks[0]["value"], hidden=False)
    assert "shown to players" in everything(shown.message), everything(shown.message)
    now = await emu.invoke(chan, pat, "lore ask", question=QUESTION)
    assert "nightbloom" in await with_sources(world, now, pat)


async def test_a_file_of_gm_only_sections_alone_moves_no_players_count(world: World) -> None:
    emu, chan = world.emu, world.channel
    before = written_here(await emu.invoke(chan, world.pat, "campaign info"))
    await import_file(world, "plots.md", "# The Duke's Plots (GM only)\n\nNightbloom at midwinter.\n")
    assert written_here(await emu.invoke(chan, world.pat, "campaign info")) == before
    assert "1 sources" in written_here(await emu.invoke(chan, world.gm, "campaign info"))
    await import_file(world, "greyhaven.md", BOOK)  # partly public: players count it
    assert "1 sources" in written_here(await emu.invoke(chan, world.pat, "campaign info"))


@SQL_RUN_BELOW
async def test_two_canon_sources_that_disagree_are_flagged_and_the_gm_settles_it(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    first = await import_file(world, "gazetteer.md", GAZETTEER, **{"class": "canon"})
    assert "disagrees" not in everything(first.message)
    second = await import_file(world, "chronicle.md", CHRONICLE, **{"class": "canon"})
    said = everything(second.message)
    assert "Another Canon source disagrees" in said, said
    assert "“Queen Maren Vell” in gazetteer.md, Gazetteer › Greyhaven" in said, said
    assert "“Lord Aldous Crane” in chronicle.md, Chronicle of the Coast › Greyhaven" in said, said

    # Nothing is guessed: a player's answer says the GM has not chosen.
    unsettled = await emu.invoke(chan, pat, "lore ask", question="Who is the ruler of Greyhaven?")
    assert "has not chosen" in await with_sources(world, unsettled, pat)

    listed = await emu.invoke(chan, gm, "canon conflicts")
    (disagreements,) = listed.followups
    text = everything(disagreements)
    assert "1 open" in text and "gazetteer.md, Gazetteer › Greyhaven" in text, text
    assert "chronicle.md, Chronicle of the Coast › Greyhaven" in text, text
    buttons = [c for c in custom_ids(disagreements["components"]) if c.startswith("lk:srcdis:")]
    assert len(buttons) == 2, buttons

    # Players may not list, pick or order.
    assert "Only the GM" in ((await emu.invoke(chan, pat, "canon conflicts")).content or "")
    refused = await emu.click(disagreements, buttons[1], pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    ordered = await emu.invoke(chan, pat, "lore order", sources="chronicle.md")
    assert "Only the GM" in (ordered.content or "")
    assert "1 open" in everything(emu.stored(disagreements).view())

    picked = await emu.click(disagreements, buttons[1], gm)
    settled = everything(picked.message)
    assert "0 open, 1 settled" in settled and "✅ prevails" in settled, settled
    answer = await emu.invoke(chan, pat, "lore ask", question="Who is the ruler of Greyhaven?")
    shown = await with_sources(world, answer, pat)
    assert "Lord Aldous Crane" in first_line(answer.message), shown
    assert "disagrees" in shown and "Chronicle of the Coast prevails" in shown, shown

    order = await emu.invoke(chan, gm, "lore order", sources="Gazetteer, chronicle.md")
    assert "Source order set: `gazetteer.md`, then `chronicle.md`" in (order.content or ""), order.content
