"""Bad questions to /lore: each a clear error or an honest "nothing known", never an unrelated fact or a leak."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.errors import InvalidInput
from canon.models import Authority, Viewer, Visibility
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode
from tests.helpers.knowledge_helpers import gm_writer, knowledge_service, new_campaign

WORLD = b"""# The Reach

## Goblin

- **Armor Class** 15 (leather armor, shield)
- **Hit Points** 7 (2d6)

Goblins raid the Reach's roads at night and flee from daylight.

## Greyhaven

A grey port city of fishers and smugglers on the cold coast.
"""


async def test_bad_questions_get_a_clear_error_or_nothing_known(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reach")
    await service.import_bytes(campaign, "reach.md", WORLD)

    async def writes(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign)
        await writer.create_entity(
            type="NPC",
            name="Morwen Vale",
            description="The smugglers' queen of Greyhaven.",
            authority=Authority.GM,
            visibility=Visibility.GM_ONLY,
        )

    await db.run(writes)

    for empty in ("", "   \n\t ", "?", " ?! … "):
        with pytest.raises(InvalidInput, match="Ask a question"):
            await service.ask(campaign, empty, viewer=Viewer.PLAYER)
    with pytest.raises(InvalidInput, match="at most 1,000 characters"):
        await service.ask(campaign, "goblin hp " * 200, viewer=Viewer.PLAYER)

    for unanswerable in (
        "what is the of and to a?",  # stop words only
        "🐉🔥❓",  # emoji only
        "¿Cuántos puntos de golpe tiene un dragón?",  # another language, about nothing here
        "How many hit points does a beholder have?",  # a creature nobody wrote
    ):
        answer = await service.ask(campaign, unanswerable, viewer=Viewer.PLAYER, record=False)
        assert answer.reply is not None
        assert not answer.reply.known and answer.reply.mode == AnswerMode.NOTHING, (
            unanswerable,
            answer.reply,
        )
        assert "Nothing the table knows" in answer.reply.text

    # A GM-only entity reads to a player exactly as a name nobody wrote does, word for word.
    hidden = await service.ask(campaign, "Who is Morwen Vale?", viewer=Viewer.PLAYER, record=False)
    unknown = await service.ask(campaign, "Who is Morwen Vael?", viewer=Viewer.PLAYER, record=False)
    assert hidden.reply is not None and unknown.reply is not None
    assert hidden.reply.text == "Nothing the table knows says who Morwen Vale is."
    assert unknown.reply.text == "Nothing the table knows says who Morwen Vael is."
    assert "smugglers' queen" not in hidden.model_dump_json()
    gm = await service.ask(campaign, "Who is Morwen Vale?", viewer=Viewer.GM, record=False)
    assert gm.reply is not None and gm.reply.known and "smugglers' queen" in gm.reply.text

    # Markdown and mentions in a question come back as the asker typed them (the cogs send nothing that pings).
    marked = await service.ask(
        campaign, "**who** is <@123> and @everyone?", viewer=Viewer.PLAYER, record=False
    )
    assert marked.reply is not None and not marked.reply.known
    assert "<@123>" in marked.reply.text and len(marked.reply.text) < 2000

    # Answers stay within Discord's limits, even for the longest question allowed.
    long = await service.ask(campaign, ("goblin hit points " * 60)[:1000], viewer=Viewer.PLAYER, record=False)
    assert long.reply is not None and len(long.reply.text) <= 4096
    answered = await service.ask(campaign, "goblin hp", viewer=Viewer.PLAYER, record=False)
    assert answered.reply is not None and answered.reply.text == "Goblin's hit points are 7 (2d6). [1]"
