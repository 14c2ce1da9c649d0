"""The voice's renderers, without Discord: narration contexts, memories, moments, results."""

from __future__ import annotations

import datetime as dt

from bot.voice.narration import NarrationOutcome
from bot.voice.npcs import NpcReply
from cogs import voice_embeds
from memory.context import ContextItem, ContextSection, SectionKind, assemble
from memory.digests import Moment
from memory.leaks import Leak
from memory.narrations import NarrationRecord, NarrationStatus
from memory.npc_memory import DocType, MemoryRecord, ScopeKind

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def record(**changes: object) -> NarrationRecord:
    context = assemble(
        [
            ContextSection(
                kind=SectionKind.STATE, title="Who is here", items=(ContextItem.of("Mira (NPC)"),)
            ),
            ContextSection(
                kind=SectionKind.INSPIRATION,
                title="Ideas",
                items=(
                    ContextItem.of("word " * 300, ref="chunk:8"),
                    ContextItem.of("word " * 3000, ref="chunk:9"),
                ),
            ),
        ],
        600,
    )
    values: dict[str, object] = {
        "id": 7,
        "campaign_id": 1,
        "scene_id": 3,
        "channel_id": 5,
        "trigger": "auto",
        "requested_by_name": None,
        "status": NarrationStatus.POSTED,
        "context": context.model_dump(mode="json"),
        "prompt": [
            {"role": "system", "content": "You are the narrator."},
            {"role": "user", "content": "ctx"},
        ],
        "output": "The fog lifts.",
        "blocked_reason": None,
        "model": "stub",
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "message_id": 99,
        "turn_number": 4,
        "created_at": NOW,
    }
    values.update(changes)
    return NarrationRecord.model_validate(values)


def memory(
    memory_id: int, content: str, doc_type: DocType = DocType.MEMORY, **changes: object
) -> MemoryRecord:
    values: dict[str, object] = {
        "id": memory_id,
        "campaign_id": 1,
        "npc_id": 2,
        "npc_name": "Mira",
        "doc_type": doc_type,
        "scope": "/campaign/1/npc/2/scene/3",
        "scope_kind": ScopeKind.SCENE,
        "scene_id": 3,
        "content": content,
        "importance": 0.5,
        "relationship_type": None,
        "memory_ids": (),
        "strength": None,
        "turn_from": 1,
        "turn_to": 1,
        "method": "llm",
        "created_at": NOW,
        "last_accessed_at": NOW,
        "forgotten_at": None,
    }
    values.update(changes)
    return MemoryRecord.model_validate(values)


def test_the_context_file_shows_the_exact_prompt_and_what_was_dropped() -> None:
    text = voice_embeds.narration_context_text(record())
    assert text.startswith("# Narration #7")
    assert "### system" in text and "You are the narrator." in text
    assert "### Who is here: 1 kept, 0 dropped" in text and "Mira (NPC)" in text
    assert "Dropped for want of room:" in text and "chunk:9" in text
    assert text.rstrip().endswith("The fog lifts.")


def test_results_tell_the_gm_why_and_players_nothing_secret() -> None:
    blocked = NarrationOutcome(
        status="blocked", narration_id=7, leaks=(Leak(label="hidden canon about Mira", phrase="x"),)
    )
    assert "hidden canon about Mira" in voice_embeds.narration_result_text(blocked, is_gm=True)
    player = voice_embeds.narration_result_text(blocked, is_gm=False)
    assert "Mira" not in player and "hidden" not in player
    refused = NpcReply(npc_name="Mira", status="blocked", text=None, message_id=None)
    assert "says nothing" in voice_embeds.npc_result_text(refused)


def test_the_held_back_notice_fits_a_message_however_many_secrets_it_names() -> None:
    """Worst case: every hidden entity named, each with a name as long as a name may be (200 characters)."""
    leaks = tuple(Leak(label=f"{n:03d} " + "Q" * 196, phrase="x") for n in range(60))
    blocked = NarrationOutcome(status="blocked", narration_id=123456789, leaks=leaks)
    text = voice_embeds.narration_result_text(blocked, is_gm=True)
    assert len(text) <= 2000
    assert text.startswith("The narration was held back") and "narration #123456789" in text
    named = sum(f"{n:03d} " in text for n in range(60))
    assert 1 <= named < 60 and f"and {60 - named} more" in text
    few = NarrationOutcome(status="blocked", narration_id=1, leaks=leaks[:2])
    assert "more" not in voice_embeds.narration_result_text(few, is_gm=True)


def test_memories_fit_an_embed_however_many_there_are() -> None:
    memories = [memory(i, "I remember " + "a great deal " * 40) for i in range(1, 60)]
    memories.append(
        memory(
            99,
            "Both came together.",
            DocType.RELATIONSHIP,
            memory_ids=(1, 2),
            strength=0.7,
            relationship_type="same_evening",
        )
    )
    embed = voice_embeds.memories_embed("Mira", memories)
    assert embed.title == "What Mira remembers"
    assert len(embed.description or "") <= 4096 and "more" in (embed.description or "")
    assert embed.footer.text is not None and "59 memories, 1 links" in embed.footer.text
    assert voice_embeds.memories_embed("Mira", []).description == "Mira remembers nothing yet."


def test_moments_and_small_texts() -> None:
    embed = voice_embeds.moments_embed(
        "a gate",
        [Moment(scene_id=2, story_order=2, title="The north gate", summary="A password.", similarity=0.61)],
    )
    assert embed.fields[0].name == "Scene 2: The north gate (very like it)"  # no raw score
    assert voice_embeds.moments_embed("x", []).description == "No committed scene is like that yet."
    assert "forgot memory #4" in voice_embeds.forgot_text("Mira", 1, 4)
    assert voice_embeds.cast_text("Aldric", False, remove=False) == "Aldric is already in the scene's cast."
    # Posted under the NPC's answer, once that is sent.
    assert voice_embeds.npc_exchange_text("Pat", "Mira", "hi") == "↑ **Mira** answering **Pat**: hi"
    assert voice_embeds.npc_exchange_text("P*t", "M_ra", "hi").startswith("↑ **M\\_ra** answering **P\\*t**")
    assert len(voice_embeds.npc_exchange_text("P" * 200, "N" * 200, "x" * 1500)) <= 2000
