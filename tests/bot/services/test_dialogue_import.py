"""Dialogue files into scenes: the formats read strictly, and an imported dialogue becoming a closed scene with
the NPCs' memories and a review card (the real openai client against the local LLM stub).

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services
from canon.errors import InvalidInput
from memory.dialogue import is_dialogue, parse_dialogue
from memory.scenes import SceneStatus, SpeakerKind
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import GM, open_services, seed, settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply

YAML = b"""title: At the Drowned Rat
date: 3rd_age.year_340
location: Thornwall
dialogue:
  - speaker: Mira
    line: The ledger is hidden in the cellar, under the barrels.
  - speaker: Kestrel
    line: Then we go down tonight.
  - speaker: GM
    line: The cellar door creaks.
    location: the cellar
  - speaker: the Innkeeper
    line: Mind the third step.
"""
SCRIPT = b"""# At the Drowned Rat
Kind: dialogue
Date: 3rd_age.year_340
Location: Thornwall

**Mira:** The ledger is hidden in the cellar.
Kestrel: Then we go down tonight.
*At the harbour, 3rd_age.year_341:*
Mira: The tide turns.
"""
TRANSCRIPT = b"""# Scene 3: The ledger

Location: Thornwall

Started 2026-12-01 20:00 UTC by Gina.

**1. Pat** 20:01:02
I listen to Mira.

**2. Mira (npc)** 20:01:30
The ledger is in the cellar.
It is under the barrels.

**3. Quinn** 20:02:00 [deleted]
*(message deleted)*

**4. Gina (gm)** 20:03:00 [edited]
The door creaks.
"""


def test_the_three_formats_read_speakers_lines_dates_and_places() -> None:
    assert (
        is_dialogue("talk.yaml", YAML) and is_dialogue("talk.md", SCRIPT) and is_dialogue("s.md", TRANSCRIPT)
    )
    assert not is_dialogue("world.md", b"# Westhaven\n\nKing Aldric rules.\n")
    assert not is_dialogue("bestiary.yaml", b"creatures: []\n")
    script = parse_dialogue("talk.yaml", YAML)
    assert (script.title, script.date, script.location) == (
        "At the Drowned Rat",
        "3rd_age.year_340",
        "Thornwall",
    )
    assert [(line.speaker, line.line) for line in script.lines] == [
        ("Mira", 5),
        ("Kestrel", 7),
        ("GM", 9),
        ("the Innkeeper", 12),
    ]
    assert script.lines[2].location == "the cellar"
    md = parse_dialogue("talk.md", SCRIPT)
    assert [line.speaker for line in md.lines] == ["Mira", "Kestrel", "Mira"]
    assert (md.lines[2].location, md.lines[2].date) == ("the harbour", "3rd_age.year_341")
    transcript = parse_dialogue("scene.md", TRANSCRIPT)
    assert [(line.speaker, line.kind, line.text) for line in transcript.lines] == [
        ("Pat", None, "I listen to Mira."),
        ("Mira", "npc", "The ledger is in the cellar.\nIt is under the barrels."),
        ("Gina", "gm", "The door creaks."),
    ]


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("a.yaml", b"dialogue:\n  - speaker: Mira\n    line: ''\n", "a.yaml, line 2: Mira says nothing"),
        ("a.yaml", b"dialogue:\n  - speaker: Mira\n    said: hi\n", "a.yaml, line 2: unknown field"),
        ("a.yaml", b"dialogue:\n  - speaker: Mira\n    line: [a]\n", "a.yaml, line 3: expected text"),
        ("a.yaml", b"dialog: []\n", "a.yaml, line 1: unknown field"),
        ("a.yaml", b"dialogue: [\n", "a.yaml, line 1: the file ends in the middle of a value"),
        (
            "a.md",
            b"# T\nKind: dialogue\n\nMira: fine\nthis line has no speaker\n",
            "a.md, line 5: expected a line",
        ),
        ("a.md", b"# T\nKind: dialogue\n", "holds no line of dialogue"),
        ("a.md", b"# T\nKind: dialogue\n\nMira: \xc3\x28\n", "is not UTF-8"),
    ],
)
def test_a_bad_dialogue_is_refused_at_its_line(name: str, data: bytes, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_dialogue(name, data)


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path, stub: LLMStub) -> AsyncIterator[Services]:
    opened = await open_services(db_target, settings_for(tmp_path, stub))
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_dialogue_becomes_a_closed_scene_with_a_review_card_and_the_npcs_remember_it(
    services: Services, stub: LLMStub
) -> None:
    stub.responder = VoiceScript(
        extraction=items_reply(
            {"kind": "fact", "subject": "Mira", "attribute": "hid", "value": "the ledger", "turns": [2]}
        ),
        npc_memory={
            "memories": [
                {"text": "I told the stranger where the ledger is.", "importance": 0.8, "turns": [2]}
            ],
            "links": [],
        },
    )
    world = await seed(services)
    outcome = await services.dialogue.import_dialogue(world.campaign, "talk.yaml", YAML, GM)
    assert outcome.lines == 4 and outcome.npcs == ("Mira", "the Innkeeper")
    scene = outcome.report.scene
    assert scene.title == "At the Drowned Rat (year 340 of the 3rd age)" and scene.location == "Thornwall"
    assert scene.status == SceneStatus.REVIEW and scene.channel_id < 0
    assert [p.content.value for p in outcome.review.proposals] == ["the ledger"]  # type: ignore[union-attr]
    _, turns = await services.scenes.transcript(scene.id)
    assert [(t.speaker, t.author_name) for t in turns] == [
        (SpeakerKind.NARRATOR, "Narrator"),
        (SpeakerKind.NPC, "Mira"),
        (SpeakerKind.PLAYER, "Kestrel"),
        (SpeakerKind.NARRATOR, "Narrator"),
        (SpeakerKind.GM, "GM"),
        (SpeakerKind.NPC, "Mira"),  # "the Innkeeper" is Mira's alias: her turn, by her name
    ]
    assert (
        turns[0].text == "In-fiction date: year 340 of the 3rd age. Place: Thornwall."
        and "the cellar" in turns[3].text
    )
    # The GM commits the card: the scene is complete, and Mira remembers it.
    await services.reviews.accept_all(scene.id, GM)
    await services.canon.commit_scene(scene.id, GM)
    await services.voice.drain()
    _, memories = await services.voice.npc_memories(world.campaign, "Mira")
    assert any("ledger" in m.content and m.scene_id == scene.id for m in memories)
    report = await services.scenes.report(scene.id)
    assert report.scene.status == SceneStatus.COMPLETED
