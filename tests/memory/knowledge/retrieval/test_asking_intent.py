"""The asker's character's wish before the deed asked about ("my pilot wants to shove ..."), on a starfarers' gear
list written as paragraphs under headings, not the SRD's entries."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval.asking_intent import without_intent
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

GEAR = """# Gear

## Void Pocket

A void pocket folds out of a palm-sized disc into a hole in space three metres deep. Anything put inside it is
weightless. Placing a void pocket inside the space of a cargo sling tears both apart and opens a rift to the
Deep, which swallows everything within ten metres.

## Cargo Sling

A cargo sling is a mesh bag whose inside is far larger than its outside. It carries up to 300 kilos. A crew
member can climb out of it with some effort.

## Pilot's Licence

Every pilot carries a licence issued by the Guild of Lanes.
"""


def test_the_askers_wish_opening_a_sentence_or_a_clause_is_left_out() -> None:
    said = without_intent("my pilot wants to shove a cargo sling into a void pocket. what happens?")
    assert said == "shove a cargo sling into a void pocket. what happens?"
    assert without_intent("our medic is trying to patch the hull, how long does it take") == (
        "patch the hull, how long does it take"
    )
    assert (
        without_intent("I'm going to jump the gap - how far can I jump?")
        == "jump the gap - how far can I jump?"
    )
    assert (
        without_intent("so, I need to fly the shuttle. which licence?")
        == "so, fly the shuttle. which licence?"
    )


def test_a_wish_to_know_leaves_what_is_asked() -> None:
    assert without_intent("I want to know who issues a pilot's licence") == "who issues a pilot's licence"
    assert (
        without_intent("my pilot wants to find out how deep a void pocket is") == "how deep a void pocket is"
    )
    # Not before a question word: what they want to learn stays as said.
    assert without_intent("i want to learn about void pockets") == "learn about void pockets"


def test_a_wish_the_question_asks_about_stays() -> None:
    # Inside the question, the wish is what is asked: "what do I need to ...", "do I want to ...".
    assert without_intent("what do I need to fly a shuttle?") == "what do I need to fly a shuttle?"
    assert without_intent("do we want to open the void pocket?") == "do we want to open the void pocket?"
    assert without_intent("my pilot's licence, who issues it?") == "my pilot's licence, who issues it?"


async def test_a_deed_asked_after_the_askers_wish_is_answered_by_the_sentence_about_it(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Lanes")
    await service.import_bytes(campaign, "gear.md", GEAR.encode())
    answer = await service.ask(
        campaign,
        "my pilot wants to shove a cargo sling into a void pocket. what happens?",
        viewer=Viewer.PLAYER,
    )
    assert answer.reply is not None and answer.reply.known
    assert "opens a rift" in answer.reply.text, answer.reply.text
