"""Life events typed as plain facts: "born 1211" is the birth, checked against canon's; the dead acting is
flagged whoever records the act. The real discord.py client against the emulator."""

from __future__ import annotations

from tests.e2e.canon_flow import embed_text, latest_scene, proposals_of_scene
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_continuity_e2e import import_yaml, open_conflicts

pytestmark = sql_run_below(
    "tests/bot/services/test_structured_import.py", "tests/bot/archive/test_export_import.py"
)

TREE = """\
lineage: house_corvane
name: House Corvane
members:
  - id: rowan_corvane
    name: Rowan Corvane
    born: 1210
  - id: corvan_marrow
    name: Corvan Marrow
    born: 1180
    died: 1252
"""


async def test_a_birth_typed_as_a_fact_is_the_life_event_checked_against_canon(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "tree.yaml", TREE)

    again = await emu.invoke(
        chan, gm, "canon add fact", subject="Rowan Corvane", attribute="born", value="year 1210"
    )
    assert again.ephemeral and again.content == (
        "Canon already says Rowan Corvane was born in year 1210; nothing new to add."
    ), again.content
    assert await open_conflicts(world) == []

    added = await emu.invoke(
        chan, gm, "canon add fact", subject="Rowan Corvane", attribute="date of birth", value="1211"
    )
    assert added.embeds, added.content
    (conflict,) = await open_conflicts(world)
    assert conflict.kind == "life_dated_twice", conflict.kind
    card = embed_text((await emu.invoke(chan, gm, "canon entity", name="Rowan Corvane")).embeds[0])
    assert "born: " not in card, card  # a life event, never a "born" attribute beside it

    await emu.invoke(chan, gm, "scene start", title="The wake", date="year 1260")
    await emu.send_message(chan, pat, "Corvan was born in 1190, surely.")
    proposed = await emu.invoke(
        chan, pat, "propose fact", subject="Corvan Marrow", attribute="birth", value="1190"
    )
    warned = embed_text(proposed.embeds[0])
    assert "Corvan Marrow becomes alive (from 1190)" in warned or "dated by the scene" not in warned, warned
    assert "Corvan Marrow is born twice: in 1180 and in 1190; a life has one birth." in warned, warned
    (proposal,) = [
        p for p in await proposals_of_scene(world, (await latest_scene(world)).id) if p.content.get("state")
    ]
    assert proposal.content["state"] == "alive" and proposal.content["when"] == "1190"


async def test_an_alliance_a_gm_dates_after_a_death_is_flagged(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await import_yaml(world, "tree.yaml", TREE)
    await emu.invoke(chan, gm, "canon add entity", name="The Tide Guild", type="Faction")
    added = await emu.invoke(
        chan,
        gm,
        "canon add relationship",
        subject="Corvan Marrow",
        relation="ally_of",
        object="The Tide Guild",
        since="year 1260",
    )
    assert added.embeds, added.content
    kinds = [c.kind for c in await open_conflicts(world)]
    assert kinds == ["dead_acting"], kinds


async def test_a_dated_alive_is_the_same_birth_in_the_players_reply_and_on_the_card(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "tree.yaml", TREE)
    await emu.invoke(chan, gm, "scene start", title="The waystone", date="year 1260")
    await emu.send_message(chan, pat, "Corvan's name is carved fresh, as if he still lived.")
    proposed = await emu.invoke(chan, pat, "propose state", subject="Corvan Marrow", state="alive")
    reply = embed_text(proposed.embeds[0])
    # The scene dates it, and continuity reads a dated "alive" as a birth: the proposer reads what the GM will.
    assert "Corvan Marrow is born in year 1260 (dated by the scene)" in reply, reply
    await emu.invoke(chan, gm, "endscene")
    (card,) = [m for m in emu.channel_messages(chan) if "Canon review" in str(m.get("embeds"))]
    assert "Corvan Marrow is born in year 1260" in embed_text(card["embeds"][0])
