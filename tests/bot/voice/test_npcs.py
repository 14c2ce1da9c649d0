"""NPC memory and speech: memories at commit (extractive and by the LLM), recall, forgetting, isolation, secrets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.app import Services
from bot.llm.client import LLMUnavailable
from canon.errors import NotAllowed, NotFound
from canon.models import Visibility
from canon.proposals import Ref, StateChangeContent
from memory.npc_memory import DocType, NewMemory, ScopeKind
from memory.scenes import SceneStatus, SpeakerKind
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub, Reply
from tests.helpers.voice_fixtures import (
    GM,
    PAT,
    QUINN,
    SECRET_VALUE,
    Posts,
    open_services,
    play,
    say,
    seed,
    settings_for,
)
from tests.helpers.voice_stub import VoiceScript, outside_frames, user_text

LEDGER_SCENE = [
    (PAT, "I ask the Innkeeper where the stolen ledger went."),
    (GM, "Mira whispers that the ledger is hidden in the cellar, under the wine barrels."),
    (QUINN, "I keep watch at the door while Pat talks to Mira."),
]
GATE_SCENE = [
    (PAT, "We reach the north gate at dusk."),
    (GM, "The old knight at the gate asks for the password: it is moonwater."),
    (QUINN, "I whisper moonwater and we slip through."),
]


def echo_memories(body: dict) -> str:
    """An NPC 'answers' by repeating the first memory it was given (so tests can see what it recalled)."""
    found = re.findall(r"remembers: (.+)", user_text(body))
    return f"I recall this: {found[0]}" if found else "I remember nothing of the sort."


async def finish(services: Services, channel_id: int) -> int:
    """End a scene (completing it when nothing was proposed, else accepting all and committing) and digest it."""
    report, _review = await services.canon.end_scene(channel_id)
    if report.scene.status != SceneStatus.COMPLETED:
        await services.reviews.accept_all(report.scene.id, GM)
        await services.canon.commit_scene(report.scene.id, GM)
    await services.voice.drain()
    return report.scene.id


async def test_npcs_remember_only_the_scenes_they_were_in_and_recall_the_right_memory(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    world = await seed(services)
    ledger = await play(services, world, LEDGER_SCENE, channel_id=801, title="The ledger")
    first = await finish(services, 801)
    gate = await play(services, world, GATE_SCENE, channel_id=802, title="The north gate", location=None)
    name, added = await services.voice.cast(world.campaign, 802, "Aldric", GM)
    assert (name, added) == ("Aldric", True)
    second = await finish(services, 802)
    assert (first, second) == (ledger.id, gate.id)

    _, mira = await services.voice.npc_memories(world.campaign, "the Innkeeper")
    assert mira and {m.scene_id for m in mira} == {ledger.id}
    assert all(
        m.method == "extractive" and m.scope_kind == ScopeKind.SCENE
        for m in mira
        if m.doc_type == DocType.MEMORY
    )
    assert any("cellar" in m.content for m in mira)
    assert all(
        m.scope == f"/campaign/{world.campaign.id}/npc/{world.mira}/scene/{ledger.id}"
        for m in mira
        if m.doc_type == DocType.MEMORY
    )
    _, aldric = await services.voice.npc_memories(world.campaign, "Aldric")
    assert (
        aldric and {m.scene_id for m in aldric} == {gate.id} and any("moonwater" in m.content for m in aldric)
    )
    assert (await services.voice.npc_memories(world.campaign, "Orsolya"))[1] == []

    # Each scene got a summary, stored and searchable by meaning.
    _, _turns = await services.scenes.transcript(ledger.id)
    scene, _ = await services.scenes.transcript(ledger.id)
    assert scene.summary and "cellar" in scene.summary
    moments = await services.voice.similar_scenes(
        world.campaign, "where was the ledger hidden under the barrels"
    )
    assert moments[0].scene_id == ledger.id

    # Mira recalls the ledger, never the password of a scene she missed, and never hidden canon.
    script = VoiceScript(npc_talk=echo_memories)
    stub.responder = script
    talking = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(talking)
    posts = Posts()
    reply = await talking.voice.npc_talk(
        world.campaign, 803, "Mira", "Where did the ledger end up?", PAT, post=posts.npc
    )
    assert reply.status == "posted" and posts.npc_lines == [("Mira", reply.text)]
    assert any("cellar" in m.content for m in reply.recalled)
    (prompt,) = script.prompts("npc_talk")
    assert "cellar" in prompt and "moonwater" not in prompt and SECRET_VALUE not in prompt
    assert "keeper of the Drowned Rat" in prompt  # public canon about her
    assert "<<<DATA message" in prompt and "Where did the ledger end up?" in prompt
    # Names are data: the NPC's and the player's stand only inside frames, section titles included.
    assert "Mira" not in outside_frames(prompt) and "Pat" not in outside_frames(prompt)
    after = {m.id: m for m in (await talking.voice.npc_memories(world.campaign, "Mira"))[1]}
    assert after[reply.recalled[0].id].last_accessed_at > reply.recalled[0].created_at


async def test_llm_memories_in_the_npcs_words_with_links_and_forgetting(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(
        npc_memory={
            "memories": [
                {
                    "text": "That nosy Pat asked about my ledger. I told them too much.",
                    "importance": 0.8,
                    "turns": [1, 2],
                },
                {"text": "Quinn stood by the door like a guard dog.", "importance": 0.3, "turns": [3, 77]},
            ],
            "links": [
                {
                    "source": "new:1",
                    "target": "new:2",
                    "relationship_type": "same evening",
                    "observation": "Both of them came together; they are a team.",
                    "strength": 0.7,
                },
                {
                    "source": "new:1",
                    "target": "old:99999",
                    "relationship_type": "recalls",
                    "observation": "nothing",
                    "strength": 0.5,
                },
            ],
        },
        summary="Pat questioned Mira about the ledger; she revealed its hiding place.",
    )
    stub.responder = script
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    scene = await play(services, world, LEDGER_SCENE, channel_id=811)
    await finish(services, 811)

    _, memories = await services.voice.npc_memories(world.campaign, "Mira")
    own = [m for m in memories if m.doc_type == DocType.MEMORY]
    links = [m for m in memories if m.doc_type == DocType.RELATIONSHIP]
    assert [m.content for m in own] == [
        "That nosy Pat asked about my ledger. I told them too much.",
        "Quinn stood by the door like a guard dog.",
    ]
    assert own[0].method == "llm" and (own[0].turn_from, own[0].turn_to) == (1, 2)
    assert (own[1].turn_from, own[1].turn_to) == (3, 3)  # turn 77 does not exist
    (link,) = links  # the link to an unknown old memory was dropped
    assert link.memory_ids == (own[0].id, own[1].id) and link.relationship_type == "same_evening"
    assert link.strength == 0.7 and link.scope_kind == ScopeKind.NPC
    memory_prompt = script.prompts("npc_memory")[0]
    assert "<<<DATA transcript" in memory_prompt and "<<<DATA character" in memory_prompt
    refreshed, _ = await services.scenes.transcript(scene.id)
    assert refreshed.summary == "Pat questioned Mira about the ledger; she revealed its hiding place."

    # Relationships are searched together with memories, or filtered apart.
    both = await services.voice.memories.recall(
        world.campaign.id, world.mira, "Pat and Quinn working as a team", limit=5
    )
    assert {r.memory.doc_type for r in both} == {DocType.MEMORY, DocType.RELATIONSHIP}
    only = await services.voice.memories.recall(
        world.campaign.id, world.mira, "team", limit=5, doc_types=(DocType.RELATIONSHIP,)
    )
    assert [r.memory.id for r in only] == [link.id]

    # Only the GM makes an NPC forget, whoever calls the service.
    with pytest.raises(NotAllowed):
        await services.voice.npc_forget(world.campaign, "Mira", PAT, own[0].id)
    with pytest.raises(NotAllowed):
        await services.voice.npc_forget(world.campaign, "Mira", PAT)
    assert len((await services.voice.npc_memories(world.campaign, "Mira"))[1]) == len(memories)

    # Forgetting a memory takes its links along; the index follows the rows.
    npc, count = await services.voice.npc_forget(world.campaign, "Mira", GM, own[0].id)
    assert (npc, count) == ("Mira", 2)
    _, left = await services.voice.npc_memories(world.campaign, "Mira")
    assert [m.id for m in left] == [own[1].id]
    recalled = await services.voice.memories.recall(world.campaign.id, world.mira, "ledger", limit=5)
    assert [r.memory.id for r in recalled] == [own[1].id]

    # The index is derived: dropped and rebuilt from SQL, recall is the same.
    assert await services.voice.rebuild_indexes(world.campaign.id) == (1, 1)
    again = await services.voice.memories.recall(world.campaign.id, world.mira, "ledger", limit=5)
    assert [r.memory.id for r in again] == [own[1].id]


async def test_a_memory_contradicting_canon_is_recalled_as_a_belief(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(npc_talk="Poor Aldric... or so I heard.")
    stub.responder = script
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    await services.voice.memories.add(
        world.campaign.id,
        [
            NewMemory(
                npc_id=world.mira,
                npc_name="Mira",
                content="I saw Aldric lying dead at the north gate.",
                importance=0.9,
            )
        ],
    )
    await services.voice.npc_talk(world.campaign, 820, "Mira", "Have you seen Aldric?", PAT, post=Posts().npc)
    (prompt,) = script.prompts("npc_talk")
    assert "Mira remembers: I saw Aldric lying dead" in prompt
    assert "[this is their belief; canon says: Aldric is alive]" in prompt
    assert "Canon (true, public; it overrides memories)" in prompt


async def test_npc_replies_never_leak_hidden_canon_and_hidden_npcs_cannot_speak(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(npc_talk=f"Between us, I answer to {SECRET_VALUE}.")
    stub.responder = script
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    posts = Posts()
    reply = await services.voice.npc_talk(
        world.campaign, 830, "Mira", "Who do you really serve?", PAT, post=posts.npc
    )
    assert reply.status == "blocked" and posts.npc_lines == []
    assert len(script.seen["npc_talk"]) == 2  # asked again once, then refused
    assert all(SECRET_VALUE not in p for p in script.prompts("npc_talk"))
    with pytest.raises(NotFound):
        await services.voice.npc_talk(world.campaign, 830, "Orsolya", "Hello?", PAT, post=posts.npc)


async def test_talking_in_a_scene_logs_both_lines_and_puts_the_npc_in_it(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    stub.responder = VoiceScript(npc_talk="Welcome, traveller.")
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    scene = await play(services, world, [(PAT, "We sit down.")], channel_id=840, title="Quiet night")
    posts = Posts()
    reply = await services.voice.npc_talk(
        world.campaign, 840, "Aldric", "Good evening, sir knight.", PAT, post=posts.npc
    )
    _, turns = await services.scenes.transcript(scene.id)
    assert [(t.speaker, t.author_name, t.text) for t in turns[-2:]] == [
        (SpeakerKind.PLAYER, "Pat", "(to Aldric) Good evening, sir knight."),
        (SpeakerKind.NPC, "Aldric", "Welcome, traveller."),
    ]
    assert turns[-1].discord_message_id == reply.message_id
    await say(services, scene, [(PAT, "We leave.")])
    await finish(services, 840)
    _, aldric = await services.voice.npc_memories(world.campaign, "Aldric")
    assert aldric and all(m.scene_id == scene.id for m in aldric)


async def test_memories_of_one_campaign_never_reach_another(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    first = await seed(services)
    second = await seed(services, name="Other Table", guild_id=11)
    store = services.voice.memories
    await store.add(
        first.campaign.id,
        [NewMemory(npc_id=first.mira, npc_name="Mira", content="The ledger is in the cellar.")],
    )
    await store.add(
        second.campaign.id,
        [NewMemory(npc_id=second.mira, npc_name="Mira", content="The ledger burned in the fire.")],
    )
    one = await store.recall(first.campaign.id, first.mira, "where is the ledger", limit=5)
    two = await store.recall(second.campaign.id, second.mira, "where is the ledger", limit=5)
    assert [r.memory.content for r in one] == ["The ledger is in the cellar."]
    assert [r.memory.content for r in two] == ["The ledger burned in the fire."]
    # One collection per campaign, not a filter over a shared one.
    assert store.index is not None
    assert (
        await store.index.count(first.campaign.id) == 1 and await store.index.count(second.campaign.id) == 1
    )
    # An id that is not this campaign's never comes back, even if asked for under the other campaign's NPC id.
    assert await store.recall(first.campaign.id, second.mira, "ledger", limit=5) == []


async def test_a_player_naming_the_secret_does_not_let_an_npc_confirm_it(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(npc_talk=f"*leans in* Yes. I am sworn to {SECRET_VALUE}.")
    stub.responder = script
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    scene = await play(services, world, [(QUINN, f"I heard rumours of {SECRET_VALUE}.")], channel_id=850)
    posts = Posts()
    reply = await services.voice.npc_talk(
        world.campaign, 850, "Mira", f"Are you part of {SECRET_VALUE}?", PAT, post=posts.npc
    )
    assert reply.status == "blocked" and posts.npc_lines == []
    assert len(script.seen["npc_talk"]) == 2
    _, turns = await services.scenes.transcript(scene.id)
    assert [t.author_name for t in turns] == ["Quinn"]  # nothing of the refused exchange was logged

    # Once the GM says it at the table it is public, and Mira may confirm it.
    await say(services, scene, [(GM, f"Everyone in the room now knows Mira serves {SECRET_VALUE}.")])
    posted = await services.voice.npc_talk(
        world.campaign, 850, "Mira", f"Are you part of {SECRET_VALUE}?", PAT, post=posts.npc
    )
    assert posted.status == "posted" and posts.npc_lines == [("Mira", posted.text)]


async def test_an_npc_a_player_only_talks_about_was_not_there_and_remembers_nothing(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    world = await seed(services)
    scene = await play(
        services,
        world,
        [
            (PAT, "I wonder whether Aldric still guards the north gate."),
            (QUINN, "Let us ask the Innkeeper."),
            (GM, "Mira shrugs: nobody has seen that knight in weeks."),
        ],
        channel_id=860,
        title="Rumours",
    )
    await finish(services, 860)
    assert (await services.voice.npc_memories(world.campaign, "Aldric"))[1] == []
    _, mira = await services.voice.npc_memories(world.campaign, "Mira")
    assert mira and all(m.scene_id == scene.id for m in mira)
    # The GM put her there; she heard herself asked for from the first turn naming her, a player's.
    assert min(m.turn_from or 0 for m in mira) == 2


async def test_an_npc_saying_a_hidden_state_in_public_words_is_refused(
    db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub, made: list[Services]
) -> None:
    script = VoiceScript(npc_talk="*lowers her voice* Aldric? Sl\u00adain, last winter. Tell no one.")
    stub.responder = script
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    await services.canon.add_direct(
        world.campaign,
        StateChangeContent(subject=Ref(name="Aldric"), state="dead", visibility=Visibility.GM_ONLY),
        GM,
        command="/canon add",
    )
    posts = Posts()
    reply = await services.voice.npc_talk(
        world.campaign, 860, "Mira", "Where is Aldric these days? Is he dead?", PAT, post=posts.npc
    )
    assert reply.status == "blocked" and posts.npc_lines == []
    # Words of the secret said of nobody in particular pass.
    script.handlers["npc_talk"] = "Aldric drinks to the dead every winter."
    posted = await services.voice.npc_talk(
        world.campaign, 860, "Mira", "Where is Aldric these days?", PAT, post=posts.npc
    )
    assert posted.status == "posted"


async def test_an_endpoint_that_refuses_is_told_in_a_sentence_and_its_settings_stay_in_the_log(
    db_target: DatabaseTarget,
    tmp_path: Path,
    stub: LLMStub,
    made: list[Services],
    caplog: pytest.LogCaptureFixture,
) -> None:
    stub.responder = VoiceScript(npc_talk=Reply.error(401, "bad key"))
    services = await open_services(db_target, settings_for(tmp_path, stub))
    made.append(services)
    world = await seed(services)
    posts = Posts()
    with pytest.raises(LLMUnavailable) as refused:
        await services.voice.npc_talk(world.campaign, 821, "Mira", "Hello?", PAT, post=posts.npc)
    assert refused.value.message == (
        "Mira could not answer: the language model did not respond. Try again in a minute; if it keeps "
        "happening, tell whoever runs the bot."
    )
    assert posts.npc_lines == []
    assert "LOREKEEPER_LLM__API_KEY" in caplog.text  # the operator reads which setting to check
