"""`/lore glossary` end to end: the GM teaches /lore the table's words; a player reads them but cannot change them."""

from __future__ import annotations

from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything, import_file

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branch_recall.py", "tests/memory/test_chroma_server.py"
)

WORLD = """# The Reach

## Goblin

- **Armor Class** 15 (leather armor, shield)
- **Hit Points** 7 (2d6)
"""


async def test_the_gm_keeps_the_glossary_and_a_player_s_change_is_refused(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_file(world, "reach.md", WORLD)

    # Break the rule on purpose once: a player's add and remove are refused, and nothing changes.
    refused = await emu.invoke(chan, pat, "lore glossary add", term="greenskin", meaning="goblin")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    asked = await emu.invoke(chan, pat, "lore ask", question="greenskin hp")
    assert "Nothing the table knows" in everything(asked.message)

    added = await emu.invoke(chan, gm, "lore glossary add", term="Greenskin", meaning="goblin")
    assert added.ephemeral and "greenskin" in (added.content or "") and "goblin" in (added.content or "")
    asked = await emu.invoke(chan, pat, "lore ask", question="greenskin hp")
    assert "Goblin's hit points are 7 (2d6)." in everything(asked.message)

    listed = await emu.invoke(chan, pat, "lore glossary list")
    shown = everything(listed.message)
    assert listed.ephemeral and "**greenskin** → goblin" in shown and "**hp** → hit points" in shown

    refused = await emu.invoke(chan, pat, "lore glossary remove", term="greenskin")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    mention = await emu.invoke(chan, gm, "lore glossary add", term="<@&1>", meaning="goblin")
    assert mention.ephemeral and "A glossary term is a word" in everything(mention.message)
    removed = await emu.invoke(chan, gm, "lore glossary remove", term="greenskin")
    assert removed.ephemeral and "Removed from the glossary: **greenskin** → goblin." in (
        removed.content or ""
    )
    # A shipped term removed is switched off for the campaign: read as written, until removed again.
    off = await emu.invoke(chan, gm, "lore glossary remove", term="hp")
    assert "**hp** is read as written in this campaign now, not as the shipped “hit points”." in (
        off.content or ""
    )
    listed = everything((await emu.invoke(chan, gm, "lore glossary list")).message)
    assert "**hp**: read as written (the shipped “hit points” is off)" in listed
    asked = await emu.invoke(chan, pat, "lore ask", question="greenskin hp")
    assert "Nothing the table knows" in everything(asked.message)
