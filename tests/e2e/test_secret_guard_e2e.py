"""The secret guard end to end: a narration that says a GM-only fact in public words is held back.

The real client against the emulator, the real openai client against the LLM stub, real Chroma and the real
embedding model. Brann is public and so is a source that speaks of Brann and of the dead; that Brann is dead
is GM-only. A narration saying "Brann is dead." is held back, the GM is told why, and the channel never sees it.
"""

from __future__ import annotations

from sqlalchemy import select

from memory.narrations import NarrationStatus
from memory.voice_tables import NarrationRow
from tests.e2e.canon_flow import embed_text, gm_adds
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_voice_e2e import posted_text, voice_world
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_stub import VoiceScript

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branch_recall.py", "tests/bot/services/branches/test_branches.py"
)

__all__ = ["voice_world"]  # the fixture, shared with the voice's own story

SOURCE = "# Dunmore\n\nThe fishermen sing for the dead at dusk; Brann the smith hammers at the forge.\n"


async def test_a_narration_saying_a_hidden_state_in_public_words_is_held_back(
    voice_world: tuple[World, LLMStub, VoiceScript],
) -> None:
    world, _stub, script = voice_world
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Brann", type="Person")
    await gm_adds(world, "state", subject="Brann", state="dead", gm_only=True)
    imported = await emu.invoke(chan, gm, "lore import", file=emu.make_attachment("dunmore.md", SOURCE))
    assert imported.ephemeral and "Imported" in embed_text(imported.embeds[0]), imported.content

    await emu.invoke(chan, gm, "scene start", title="The forge at dusk", location="Dunmore")
    await emu.send_message(chan, pat, "I look for Brann at the forge while the fishermen sing for the dead.")
    for leaky in ("Brann is dead.", "Br\u00adann has been sl\u0430in."):
        script.handlers["narration"] = leaky
        held = await emu.invoke(chan, gm, "narrate")
        assert held.ephemeral and "held back" in (held.content or "") and "Brann" in (held.content or "")

    async with world.bot.services.db.session() as session:
        rows = list((await session.execute(select(NarrationRow).order_by(NarrationRow.id))).scalars())
    assert [r.status for r in rows] == [NarrationStatus.BLOCKED, NarrationStatus.BLOCKED]
    assert rows[0].blocked_reason == "hidden canon about Brann: “Brann is dead”", rows[0].blocked_reason
    assert all("Brann" not in text or "dead" not in text for text in posted_text(world))
    assert not [m for m in emu.channel_messages(chan) if "slain" in (m.get("content") or "")]

    # Words of the secret said of something else pass: the narration is posted.
    script.handlers["narration"] = "Brann hammers on; down at the quay the fishermen sing for the dead."
    posted = await emu.invoke(chan, gm, "narrate")
    assert "The narrator has spoken." in (posted.content or ""), posted.content
