"""`/npc talk` to an NPC out of the story's present: refused privately with the reason, unless the GM allows it.

The default world has no language model: an NPC who may talk gets "no language model" instead, which shows that
the refusal (checked first) did not stop it.
"""

from __future__ import annotations

from tests.e2e.canon_flow import gm_adds
from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)


def spoken(world: World) -> list[object]:
    """Return what NPCs said in the channel (webhook messages)."""
    return [
        m
        for m in world.emu.channel_messages(world.channel)
        if m["author"].get("bot") and m.get("webhook_id") and m["author"]["username"] != "Lorekeeper"
    ]


async def test_a_dead_or_missing_npc_is_refused_privately_unless_the_gm_allows_it(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for name in ("Aldric", "Mara", "Vell"):
        await gm_adds(world, "entity", name=name, type="NPC")
    await gm_adds(world, "state", subject="Aldric", state="dead")
    await gm_adds(world, "state", subject="Mara", state="missing")
    await gm_adds(world, "state", subject="Vell", state="dead", gm_only=True)  # a secret death

    dead = await emu.invoke(chan, pat, "npc talk", npc="Aldric", message="Aldric, wake up!")
    assert dead.ephemeral and "Aldric cannot answer: at this point of the story Aldric is dead" in (
        dead.content or ""
    )
    assert "flashback or a ghost" in (dead.content or "")
    missing = await emu.invoke(chan, pat, "npc talk", npc="Mara", message="Mara?")
    assert missing.ephemeral and "Mara is missing (whereabouts unknown)" in (missing.content or "")
    assert spoken(world) == []  # nothing said in the channel

    # Only the GM may allow it; a player's allow is refused, privately, and changes nothing.
    cheat = await emu.invoke(chan, pat, "npc talk", npc="Aldric", message="Hi", allow="ghost")
    assert cheat.ephemeral and "Only the GM" in (cheat.content or "")
    ghost = await emu.invoke(chan, gm, "npc talk", npc="Aldric", message="Speak, shade.", allow="ghost")
    assert (
        ghost.ephemeral
        and "language model" in (ghost.content or "")
        and "cannot answer" not in (ghost.content or "")
    )
    gm_refused = await emu.invoke(chan, gm, "npc talk", npc="Vell", message="Vell?")
    assert gm_refused.ephemeral and "Vell is dead" in (gm_refused.content or "")
    # A player is never told of a secret death: Vell is not refused for being dead.
    secret = await emu.invoke(chan, pat, "npc talk", npc="Vell", message="Vell?")
    assert (
        secret.ephemeral
        and "dead" not in (secret.content or "")
        and "language model" in (secret.content or "")
    )
