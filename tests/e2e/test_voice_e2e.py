"""The game-master's voice end to end: the real discord.py client against the emulator, the real openai client
against a local stub server, a real database, real Chroma and the real embedding model.

One story: a scene with the narrator on, a narration that would have leaked hidden canon held back, the
GM's Context button, /endscene with extracted proposals on the review card, the commit, NPC memories written,
a second scene Mira missed, and /npc talk recalling the right memory and not the other scene's, while the
hidden fact never reaches a player through narration or an NPC.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.offline.emulator import DiscordEmulator
from bot.offline.emulator.messages import custom_ids
from memory.narrations import NarrationStatus
from memory.npc_memory import DocType
from memory.scene_tables import SceneRow
from memory.scenes import SceneStatus, SpeakerKind
from memory.voice_tables import NarrationRow, SceneDigestRow
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, running, scene_report, sql_run_below, tavern
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import SECRET_VALUE, seed, settings_for
from tests.helpers.voice_stub import VoiceScript, framed, items_reply, user_text

pytestmark = sql_run_below(
    "tests/bot/voice/test_extraction.py", "tests/bot/services/branches/test_branch_recall.py"
)

CLEAN = "The fire crackles; Mira wipes the bar and glances at the cellar door."
LEAKY = f"Mira leans close: she has sworn herself to {SECRET_VALUE}."


def turn_number(body: dict[str, Any], needle: str) -> int:
    """Return the number of the transcript line containing `needle` in an extraction prompt."""
    for line in user_text(body).splitlines():
        match = re.match(r"^\[(\d+)\] (.*)$", line)
        if match and needle in match.group(2):
            return int(match.group(1))
    raise AssertionError(f"{needle!r} is not in the transcript")


def extraction(body: dict[str, Any]) -> dict[str, Any]:
    text = user_text(body)
    if "cellar" not in text:
        return items_reply()
    cellar = turn_number(body, "hidden in the cellar")
    corvin = turn_number(body, "Corvin")
    return items_reply(
        {
            "kind": "fact",
            "subject": "the Innkeeper",
            "attribute": "hid",
            "value": "the ledger in the cellar",
            "turns": [cellar],
            "confidence": 0.8,
        },
        {
            "kind": "entity",
            "name": "Corvin",
            "entity_type": "NPC",
            "description": "a hooded stranger",
            "turns": [corvin],
        },
    )


def summary(body: dict[str, Any]) -> str:
    if "moonwater" in user_text(body):
        return "At the north gate the old knight gave the travellers the password."
    return "Pat asked Mira about the stolen ledger."


def npc_memory(body: dict[str, Any]) -> dict[str, Any]:
    who = framed(user_text(body), "character")
    if who == ["Mira"]:
        return {
            "memories": [
                {
                    "text": "Pat asked me about the ledger; I told them it lies in the cellar.",
                    "importance": 0.8,
                    "turns": [1],
                }
            ]
        }
    if who == ["Aldric"]:
        return {
            "memories": [
                {"text": "I gave the travellers the password: moonwater.", "importance": 0.7, "turns": [2]}
            ]
        }
    return {"memories": []}


def npc_talk(body: dict[str, Any]) -> str:
    found = re.findall(r"remembers: (.+)", user_text(body))
    return f"*leans in* I remember: {found[0]}" if found else "I know nothing of that."


@pytest.fixture
async def voice_world(
    db_target: DatabaseTarget, tmp_path: Path
) -> AsyncIterator[tuple[World, LLMStub, VoiceScript]]:
    script = VoiceScript(
        extraction=extraction,
        narration=CLEAN,
        npc_memory=npc_memory,
        npc_talk=npc_talk,
        summary=summary,
    )
    async with LLMStub(responder=script) as stub, DiscordEmulator() as emu:
        settings = settings_for(tmp_path, stub, narrator_debounce_seconds=0.05)
        async with running(tavern(emu, settings, db_target)) as world:
            yield world, stub, script


def posted_text(world: World) -> list[str]:
    """Return everything posted where players can read it: non-ephemeral bot and webhook messages."""
    texts = []
    for stored in world.emu.messages.values():
        if stored.ephemeral or not (stored.from_bot or stored.data.get("webhook_id")):
            continue
        data = stored.view()
        texts.append(data.get("content") or "")
        for embed in data.get("embeds", []):
            texts += [embed.get("title") or "", embed.get("description") or ""]
            texts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return texts


async def test_the_game_masters_voice_from_narration_to_npc_memory(
    voice_world: tuple[World, LLMStub, VoiceScript],
) -> None:
    world, _stub, script = voice_world
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    await seed(services, campaign=campaign)

    # A scene with the narrator on: a player's turn brings a narration (debounced), with a Context button.
    await emu.invoke(chan, gm, "scene start", title="The Drowned Rat", location="Thornwall")
    turned = await emu.invoke(chan, gm, "scene narrator", mode="on")
    assert "narrator is on" in (turned.content or "")
    await emu.send_message(chan, pat, "I ask the Innkeeper where the stolen ledger went.")
    await emu.wait_for(
        lambda: any(CLEAN in (m.get("content") or "") for m in emu.channel_messages(chan)), what="a narration"
    )
    narration = next(m for m in emu.channel_messages(chan) if CLEAN in (m.get("content") or ""))
    (button,) = [i for i in custom_ids(narration.get("components", [])) if i.startswith("lk:narration:")]
    narration_id = int(button.split(":")[2])

    # The GM's turns do not wake the narrator; the players' do, once.
    await emu.send_message(
        chan,
        gm,
        "Mira whispers that the ledger is hidden in the cellar. A hooded stranger named Corvin watches.",
    )
    assert len(script.seen["narration"]) == 1

    # A narration that would quote hidden canon is rewritten, and held back when it insists.
    script.handlers["narration"] = LEAKY
    held = await emu.invoke(chan, gm, "narrate")
    assert held.ephemeral and "held back" in (held.content or "")
    script.handlers["narration"] = CLEAN

    # Only the GM sees a narration's context: the exact prompt, hidden canon included.
    refused = await emu.click(narration, button, pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    shown = await emu.click(narration, button, gm)
    assert shown.ephemeral
    (context,) = shown.files.values()
    assert "## The exact prompt sent to the model" in context.decode() and SECRET_VALUE in context.decode()
    async with services.db.session() as session:
        rows = list((await session.execute(select(NarrationRow).order_by(NarrationRow.id))).scalars())
    assert [r.status for r in rows] == [NarrationStatus.POSTED, NarrationStatus.BLOCKED] and rows[
        0
    ].id == narration_id

    # /endscene: the transcript becomes proposals on the review card, which the GM accepts and commits.
    await emu.invoke(chan, gm, "endscene")
    cards = [
        m
        for m in emu.channel_messages(chan)
        if any(i.startswith("lk:review:") for i in custom_ids(m.get("components", [])))
    ]
    (card,) = cards
    card_text = " ".join(
        f"{f['name']} {f['value']}" for e in card["embeds"] for f in e.get("fields", [])
    ) + " ".join(e.get("description") or "" for e in card["embeds"])
    assert "hid" in card_text and "Corvin" in card_text
    ids = custom_ids(card.get("components", []))
    scene_id = int(next(i for i in ids if i.endswith(":commit")).split(":")[2])
    await emu.click(card, f"lk:review:{scene_id}:accept_all", gm)
    await emu.click(emu.stored(card).view(), f"lk:review:{scene_id}:commit", gm)
    await services.voice.drain()

    # Committed: the scene has its summary, and Mira her memory of it.
    async with services.db.session() as session:
        scene = await session.get(SceneRow, scene_id)
        digest = await session.get(SceneDigestRow, scene_id)
    assert scene is not None and scene.status == SceneStatus.COMPLETED
    assert digest is not None and scene.summary == "Pat asked Mira about the stolen ledger."
    _, mira = await services.voice.npc_memories(campaign, "Mira")
    assert [m.content for m in mira if m.doc_type == DocType.MEMORY] == [
        "Pat asked me about the ledger; I told them it lies in the cellar."
    ]
    _, turns = await services.scenes.transcript(scene_id)
    narrated = [t for t in turns if t.speaker == SpeakerKind.NARRATOR]
    assert [t.text for t in narrated] == [CLEAN] and narrated[0].discord_message_id == int(narration["id"])

    # A second scene, elsewhere, that Mira misses and Aldric (cast by the GM) remembers.
    gate = emu.add_text_channel(world.guild, "north-gate")
    await world.restart()  # the new channel is announced at connect; the Context button survives the restart
    services = world.bot.services
    await emu.invoke(gate, gm, "scene start", title="The north gate")
    cast = await emu.invoke(gate, gm, "scene cast", npc="Aldric")
    assert cast.ephemeral and "Aldric is in the scene" in (cast.content or "")
    await emu.send_message(gate, pat, "We reach the north gate at dusk.")
    await emu.send_message(gate, gm, "The old knight asks for the password; it is moonwater.")
    await emu.invoke(gate, gm, "endscene")
    await services.voice.drain()
    _, aldric = await services.voice.npc_memories(campaign, "Aldric")
    assert any("moonwater" in m.content for m in aldric)
    again = await emu.click(emu.stored(narration).view(), button, gm)
    assert again.ephemeral and again.files

    # /npc talk: Mira answers through a webhook with her name, from her memory of the right scene only.
    before = len(script.seen["npc_talk"])
    asked = await emu.invoke(
        chan, pat, "npc talk", npc="Mira", message="What do you know about the password, or the ledger?"
    )
    assert asked.ephemeral and "Mira answered" in (asked.content or "")
    hooks = [
        m for m in emu.channel_messages(chan) if m.get("webhook_id") and m["author"]["username"] == "Mira"
    ]
    (spoken,) = hooks
    assert "cellar" in spoken["content"] and "moonwater" not in spoken["content"]
    (prompt,) = [user_text(b) for b in script.seen["npc_talk"][before:]]
    assert "cellar" in prompt and "moonwater" not in prompt and SECRET_VALUE not in prompt

    # An NPC pushed to reveal hidden canon says nothing that quotes it.
    script.handlers["npc_talk"] = f"Fine. I serve {SECRET_VALUE}."
    pressed = await emu.invoke(chan, pat, "npc talk", npc="Mira", message="Who do you really serve?")
    assert pressed.ephemeral and "says nothing" in (pressed.content or "")
    hidden = await emu.invoke(chan, pat, "npc talk", npc="Orsolya", message="Hello?")
    assert hidden.ephemeral and "Nothing in this campaign's canon is called" in (hidden.content or "")

    # Nothing any player could read ever carried the hidden fact.
    assert not any(SECRET_VALUE.lower() in text.lower() for text in posted_text(world))
    gm_only = await emu.invoke(chan, pat, "npc memories", npc="Mira")
    assert gm_only.ephemeral and "Only the GM" in (gm_only.content or "")
    listed = await emu.invoke(chan, gm, "npc memories", npc="Mira")
    assert listed.ephemeral and "cellar" in (listed.embeds[0].get("description") or "")
    similar = await emu.invoke(chan, pat, "scene similar", text="a secret password at a gate")
    assert similar.embeds[0]["fields"][0]["name"].startswith("Scene 2: The north gate")

    # Only the GM makes an NPC forget.
    refused = await emu.invoke(gate, pat, "npc forget", npc="Aldric")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    forgot = await emu.invoke(gate, gm, "npc forget", npc="Aldric")
    assert forgot.ephemeral and f"Aldric forgot everything: {len(aldric)} memories" in (forgot.content or "")
    assert (await services.voice.npc_memories(campaign, "Aldric"))[1] == []


async def test_without_an_llm_the_voice_commands_say_so_and_the_rest_works(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    services = world.bot.services
    assert services.llm is None
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    await seed(services, campaign=campaign)
    await emu.invoke(chan, gm, "scene start", title="No model tonight")
    for command, options in (("narrate", {}), ("scene narrator", {"mode": "on"})):
        reply = await emu.invoke(chan, gm, command, **options)
        assert reply.ephemeral and "No language model is configured" in (reply.content or ""), command
    # NPCs can't answer: both are told in a sentence what happens instead, never a setting's name.
    told = await emu.invoke(chan, pat, "npc talk", npc="Mira", message="Hi")
    assert told.ephemeral and told.content == (
        "NPCs have no voice of their own yet: no language model is connected to this bot. "
        "Your GM can answer for Mira in the scene."
    )
    gm_told = await emu.invoke(chan, gm, "npc talk", npc="Mira", message="Hi")
    assert gm_told.ephemeral and gm_told.content == (
        "NPCs have no voice of their own yet: no language model is connected to this bot. Speak for Mira "
        "yourself in the scene: NPCs still remember the scenes they are in. Whoever runs the bot can connect a "
        "language model to let NPCs answer here."
    )
    for said in (told.content or "", gm_told.content or ""):
        assert not re.search(r"LOREKEEPER_|\bllm\.|_url\b|\.env\b|\.toml\b|/", said), said
    await emu.send_message(chan, pat, "I ask the Innkeeper about the ledger in the cellar.")
    await emu.send_message(chan, gm, "Mira looks away and says nothing.")  # the GM puts her in the scene
    await emu.invoke(chan, gm, "endscene")
    assert scene_report(emu, chan)["embeds"][0]["title"] == "Scene ended: No model tonight"
    await services.voice.drain()
    _, mira = await services.voice.npc_memories(campaign, "Mira")
    assert mira and all(m.method == "extractive" for m in mira)  # memories without a model, from her scene
    async with services.db.session() as session:
        scene = await session.scalar(select(SceneRow).order_by(SceneRow.id.desc()).limit(1))
    assert scene is not None and scene.summary and "ledger" in scene.summary


async def test_npc_talk_offers_only_the_beings_that_can_speak(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for name, kind in (
        ("Tidewater Age", "Era"),
        ("Tide Festival", "Event"),
        ("Tidewater Coast", "Region"),
        ("Tidecaller", "Deity"),
        ("Tide Warden", "NPC"),
        ("Tide Crab", "Creature"),
    ):
        await emu.invoke(chan, gm, "canon add entity", name=name, type=kind)
    offered = [c["name"] for c in await emu.autocomplete(chan, pat, "npc talk", "npc", "Tide")]
    assert sorted(offered) == ["Tide Crab (Creature)", "Tide Warden (NPC)", "Tidecaller (Deity)"]
