"""NPCs and secrets through the real client, the emulator and the LLM stub server: an NPC never tells a player
what their character does not know, and the GM may let it tell one secret, which those present then learn."""

from __future__ import annotations

from tests.e2e.canon_flow import embed_text, gm_adds
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_knowledge_e2e import card_of
from tests.e2e.test_voice_e2e import voice_world  # noqa: F401 - the fixture: a world with the LLM stub
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_stub import VoiceScript

pytestmark = sql_run_below("tests/bot/voice/test_npc_knowledge.py", "tests/bot/wiki/test_page_cache.py")

CONFESSION = "*sighs* Very well. I am a spy, and I always was."


async def test_an_npc_keeps_a_secret_until_the_gm_lets_it_tell_those_present(
    voice_world: tuple[World, LLMStub, VoiceScript],  # noqa: F811
) -> None:
    world, _stub, script = voice_world
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    script.handlers["npc_talk"] = CONFESSION
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await gm_adds(world, "fact", subject="The Duke", attribute="secret", value="a spy", gm_only=True)
    await emu.invoke(chan, gm, "character set", name="Sable", player=pat)
    await emu.invoke(chan, gm, "character set", name="Brann", player=quinn)
    await emu.invoke(chan, gm, "scene start", title="The Duke's study")
    await emu.send_message(chan, pat, "I corner the Duke by the fire.")

    # Sable does not know it: the Duke's confession is held back (asked again once, then silence).
    asked = await emu.invoke(chan, pat, "npc talk", npc="The Duke", message="Are you a spy?")
    assert "says nothing" in (asked.content or ""), asked.content
    refused = await emu.invoke(chan, pat, "npc talk", npc="The Duke", message="Confess!", tell="Duke spy")
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content

    told = await emu.invoke(chan, gm, "npc talk", npc="The Duke", message="Tell her.", tell="Duke spy")
    assert "Sable now knows The Duke's secret: a spy" in (told.content or ""), told.content
    assert "a spy" in await card_of(world, pat, "The Duke")  # she was there: she learned it
    assert "a spy" not in await card_of(world, quinn, "The Duke")  # Brann was not
    history = embed_text((await emu.invoke(chan, gm, "canon known", character="Sable")).embeds[0])
    assert "The Duke told them in scene 1" in history, history
