"""A field asked of a named subject prefers the section titled with it over sections whose titles name more."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval import PRESETS
from memory.knowledge.retrieval.titles import title_fit
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

# The ogre zombie's section says "zombie" more often than the zombie's own: words alone put it first.
BESTIARY = """# Bestiary

## Ogre Zombie

- **Armor Class** 8
- **Hit Points** 85 (9d10 + 36)

***Undead Fortitude.*** If damage reduces the ogre zombie to 0 hit points, the zombie makes a saving throw; a
zombie ogre is a zombie that keeps coming, as every zombie does.

## Zombie

- **Armor Class** 8
- **Hit Points** 22 (3d8 + 9)

***Undead Fortitude.*** If damage reduces it to 0 hit points, it makes a Constitution saving throw. The dead
rise from old battlefields and village graveyards alike, shambling in loose crowds behind whoever raised them,
slow, relentless and silent, until their master's will is broken or their bodies are burned to ash.

## Blink

A spell: you vanish into the Ethereal Plane for a moment and return somewhere near.
"""


def test_the_share_of_a_title_the_question_names() -> None:
    assert title_fit(["zombie"], ["Bestiary", "Zombie"]) == 1.0
    assert title_fit(["zombies"], ["Bestiary", "Zombie"]) == 1.0  # plurals folded
    assert title_fit(["zombie"], ["Bestiary", "Ogre Zombie"]) == 0.25
    assert title_fit(["zombie"], ["Bestiary", "Blink"]) == 0.0
    assert title_fit(["zombie"], []) == 0.0


async def test_a_field_asked_of_a_subject_finds_the_section_named_whole(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Bestiary")
    await service.import_bytes(campaign, "bestiary.md", BESTIARY.encode())
    answer = await service.ask(
        campaign, "how much health does a zombie have", viewer=Viewer.PLAYER, record=False
    )
    assert answer.results[0].heading_path[-1] == "Zombie"
    assert any(r.kind == "title" for r in answer.results[0].reasons)
    assert answer.reply is not None and "22 (3d8 + 9)" in answer.reply.text
    # Without the title's weight, words alone choose the ogre zombie: the rule is what decides.
    plain = PRESETS["default"].model_copy(update={"title_weight": 0.0})
    words = await service.ask(campaign, "how much health does a zombie have", config=plain, record=False)
    assert words.results[0].heading_path[-1] == "Ogre Zombie"
    # A question asking no field of a subject ("which spell lets you blink away?") is left to words and meaning.
    general = await service.ask(campaign, "which undead keeps coming when you blink", record=False)
    assert all(r.kind != "title" for result in general.results for r in result.reasons)
