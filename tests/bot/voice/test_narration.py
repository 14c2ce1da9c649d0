"""The narrator: narrator mode, context assembly, the GM-only leak check, posting and storing narrator turns."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import Services
from bot.llm.client import LLMUnavailable
from canon.errors import NotAllowed, NotFound
from memory.context import SectionKind
from memory.narrations import NarrationStatus
from memory.scenes import SpeakerKind
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import (
    GM,
    PAT,
    SECRET_VALUE,
    Posts,
    open_services,
    play,
    say,
    seed,
    settings_for,
)
from tests.helpers.voice_stub import VoiceScript, outside_frames, user_text

CHANNEL = 800
LINES = [(PAT, "I push open the door of the Drowned Rat and wave at Mira."), (PAT, "I order a hot stew.")]
LEAKY = f"Mira ladles the stew. Everyone knows she serves {SECRET_VALUE} now."
CLEAN = "Mira ladles a steaming bowl of stew and slides it across the bar."


async def start(made: list[Services], target: DatabaseTarget, tmp_path: Path, stub: LLMStub | None, **voice):
    services = await open_services(target, settings_for(tmp_path, stub, **voice))
    made.append(services)
    world = await seed(services)
    scene = await play(services, world, LINES, channel_id=CHANNEL)
    return services, world, scene


async def test_a_narration_is_posted_stored_as_a_narrator_turn_with_its_context(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(narration=CLEAN)
    stub.responder = script
    services, world, scene = await start(made, db_target, tmp_path, stub)
    posts = Posts()
    outcome = await services.voice.narrate(
        CHANNEL, GM, post=posts.narration, direction="Make the stew memorable."
    )
    assert outcome.status == "posted" and posts.narrations == [(CLEAN, outcome.narration_id)]

    _, turns = await services.scenes.transcript(scene.id)
    last = turns[-1]
    assert (last.speaker, last.author_name, last.text) == (SpeakerKind.NARRATOR, "Narrator", CLEAN)
    assert last.discord_message_id == outcome.message_id

    record = await services.voice.narration(world.campaign, outcome.narration_id or 0)
    assert record.status == NarrationStatus.POSTED and record.turn_number == last.number
    assert record.message_id == outcome.message_id and record.output == CLEAN
    sections = {s.kind: s for s in record.context.sections}
    state = " ".join(i.text for i in sections[SectionKind.STATE].items)
    assert "Mira (NPC)" in state and "keeper of the Drowned Rat" in state and SECRET_VALUE not in state
    assert any("I order a hot stew." in i.text for i in sections[SectionKind.TURNS].items)
    hidden = " ".join(i.text for i in sections[SectionKind.SECRETS].items)
    assert SECRET_VALUE in hidden  # GM-only canon steers the narrator...
    (prompt,) = script.prompts("narration")
    assert record.prompt[1].content in prompt
    assert "never state, quote, paraphrase or hint at it" in prompt  # ...which is told never to reveal it
    assert "<<<DATA gm_direction" in prompt and "Make the stew memorable." in prompt
    assert "Drowned Rat" not in outside_frames(prompt) and "Thornwall" not in outside_frames(prompt)
    assert record.context.used <= record.context.budget


async def test_a_narration_quoting_gm_only_canon_is_rewritten_or_held_back(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(narration=[LEAKY, CLEAN])
    stub.responder = script
    services, world, scene = await start(made, db_target, tmp_path, stub)
    posts = Posts()
    outcome = await services.voice.narrate(CHANNEL, GM, post=posts.narration)
    assert outcome.status == "posted" and posts.narrations[0][0] == CLEAN
    assert "previous draft repeated hidden canon" in script.prompts("narration")[1]

    script.handlers["narration"] = LEAKY
    blocked = await services.voice.narrate(CHANNEL, GM, post=posts.narration)
    assert blocked.status == "blocked" and len(posts.narrations) == 1
    assert blocked.leaks and "Mira" in blocked.leaks[0].label
    record = await services.voice.narration(world.campaign, blocked.narration_id or 0)
    assert record.status == NarrationStatus.BLOCKED and "crimson" in (record.blocked_reason or "").lower()
    _, turns = await services.scenes.transcript(scene.id)
    assert not any(SECRET_VALUE.lower() in t.text.lower() for t in turns)


async def test_narrator_mode_and_who_may_call_the_narrator(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    stub.responder = VoiceScript(narration=CLEAN)
    services, _world, _scene = await start(made, db_target, tmp_path, stub)
    posts = Posts()
    with pytest.raises(NotAllowed):
        await services.voice.narrate(CHANNEL, PAT, post=posts.narration)  # narrator off: GM only
    with pytest.raises(NotAllowed):
        await services.voice.set_narrator(CHANNEL, True, PAT)
    turned = await services.voice.set_narrator(CHANNEL, True, GM)
    assert turned.narrator_mode and CHANNEL in await services.voice.narrator_channels()
    with pytest.raises(NotAllowed):
        await services.voice.narrate(CHANNEL, PAT, post=posts.narration, direction="kill the knight")
    assert (await services.voice.narrate(CHANNEL, PAT, post=posts.narration)).status == "posted"
    assert (
        await services.voice.narrate(CHANNEL, PAT, post=posts.narration, trigger="auto")
    ).status == "posted"
    await services.voice.set_narrator(CHANNEL, False, GM)
    skipped = await services.voice.narrate(CHANNEL, PAT, post=posts.narration, trigger="auto")
    assert skipped.status == "skipped" and CHANNEL not in await services.voice.narrator_channels()
    await services.canon.end_scene(CHANNEL)  # nothing proposed: the scene is complete, the channel free
    with pytest.raises(NotFound):
        await services.voice.narrate(CHANNEL, GM, post=posts.narration)


async def test_without_an_llm_the_narrator_says_so_plainly(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services, _world, _scene = await start(made, db_target, tmp_path, None)
    with pytest.raises(LLMUnavailable, match=r"No language model is configured, and this needs one"):
        await services.voice.narrate(CHANNEL, GM, post=Posts().narration)
    with pytest.raises(LLMUnavailable):
        await services.voice.set_narrator(CHANNEL, True, GM)
    await services.voice.set_narrator(CHANNEL, False, GM)  # turning it off needs no model


async def test_the_context_respects_a_small_budget_and_keeps_the_state(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(narration=CLEAN)
    stub.responder = script
    services, world, scene = await start(made, db_target, tmp_path, stub, context_tokens=500)
    await say(
        services,
        scene,
        [(PAT, f"Turn {i}: I keep talking about the weather in Thornwall at length.") for i in range(40)],
    )
    outcome = await services.voice.narrate(CHANNEL, GM, post=Posts().narration)
    record = await services.voice.narration(world.campaign, outcome.narration_id or 0)
    sections = {s.kind: s for s in record.context.sections}
    assert record.context.used <= 500
    assert sections[SectionKind.STATE].items and not sections[SectionKind.STATE].dropped
    turns = sections[SectionKind.TURNS]
    assert turns.dropped and "Turn 39" in turns.items[-1].text
    assert "Turn 39" in user_text(script.seen["narration"][0])


async def test_a_player_naming_the_secret_does_not_let_a_narration_confirm_it(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(narration=LEAKY)
    stub.responder = script
    services, world, scene = await start(made, db_target, tmp_path, stub)
    await say(services, scene, [(PAT, f"Is Mira secretly part of {SECRET_VALUE}?")])
    posts = Posts()
    blocked = await services.voice.narrate(CHANNEL, GM, post=posts.narration)
    assert blocked.status == "blocked" and posts.narrations == []
    assert len(script.seen["narration"]) == 2  # rewritten once, then held back
    record = await services.voice.narration(world.campaign, blocked.narration_id or 0)
    assert record.status == NarrationStatus.BLOCKED and "crimson" in (record.blocked_reason or "").lower()

    # What the GM says at the table is public: once the GM reveals it, the narration may say it too.
    await say(services, scene, [(GM, f"Mira draws back her sleeve: the tattoo of {SECRET_VALUE}.")])
    revealed = await services.voice.narrate(CHANNEL, GM, post=posts.narration)
    assert revealed.status == "posted" and posts.narrations == [(LEAKY, revealed.narration_id)]
