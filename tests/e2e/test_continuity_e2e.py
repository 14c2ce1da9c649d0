"""Continuity that keeps up with play, end to end: attributes read against the ontology's declarations.

The real discord.py client against the emulator; the world fixture fails a test when anything logged an error
or could ping.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import World
from tests.e2e.test_canon_e2e import embed_text

FAMILY = """\
lineage: house_tidewright
name: House Tidewright
members:
  - id: mara_tidewright
    name: Mara Tidewright
    titles: [Harbourmaster of Greyhaven]
"""


async def import_yaml(world: World, name: str, data: str) -> Any:
    attachment = world.emu.make_attachment(name, data)
    return await world.emu.invoke(world.channel, world.gm, "lore import", file=attachment)


async def test_a_title_from_play_against_the_world_bible_is_warned_with_both_sides_evidence(
    world: World,
) -> None:
    emu, chan = world.emu, world.channel
    await import_yaml(world, "family.yaml", FAMILY)
    await emu.invoke(chan, world.gm, "scene start", title="The harbour")
    await emu.send_message(chan, world.pat, "Mara raises the black flag over the harbour.")

    for attribute in ("title", "titles"):
        reply = await emu.invoke(
            chan,
            world.pat,
            "propose fact",
            subject="Mara Tidewright",
            attribute=attribute,
            value="Pirate Queen",
        )
        text = embed_text(reply.embeds[0])
        assert reply.ephemeral and "Mara Tidewright: title = Pirate Queen" in text, text
        assert "Continuity warnings" in text, text
        assert (
            "Mara Tidewright's title is “Pirate Queen” according to play (scene 1), contradicting "
            "“Harbourmaster of Greyhaven” from an imported source (undated)" in text
        ), text
        assert "Mara Tidewright: title = Harbourmaster of Greyhaven: family.yaml, line 4" in text, text
        assert "Mara Tidewright: title = Pirate Queen (scene 1): scene #" in text and ", turn 1\n" in text, (
            text
        )
        assert "accepted by" not in text, text  # the proposal is not accepted: only checked as if it were
