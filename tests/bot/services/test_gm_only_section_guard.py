"""The secret guard gets a GM-only section's text as it gets a hidden source's: a model's reply quoting it is
never sent to a player (the real openai client against the local stub)."""

from __future__ import annotations

from pathlib import Path

from bot.llm.client import InMemoryTokenLedger
from bot.llm.openai_compatible import OpenAICompatibleLLM
from bot.services.lore_answer import LoreAnswers, guarded_material
from canon.models import Viewer
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.models import KnowledgeClass
from tests.bot.services.test_lore_answer import replies
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.helpers.llm_stub import STUB_MODEL, LLMStub

WORLD = """# Westhaven

## The Abbey

The monks of the Old Abbey keep the Ledger of Tides and ring the bell at dusk.

## The Abbot (GM only)

The abbot of the Old Abbey is a vampire who feeds on the novices in the crypt.
"""
QUESTION = "Who is the abbot of the Old Abbey?"


async def test_a_reply_quoting_a_gm_only_section_is_never_sent_to_a_player(
    db: Database, tmp_path: Path, stub: LLMStub
) -> None:
    knowledge = knowledge_service(db, tmp_path, semantic=False, settings=LoreSettings(chunk_min_tokens=20))
    campaign = await new_campaign(db, "Westhaven")
    await knowledge.import_bytes(campaign, "world.md", WORLD.encode(), knowledge_class=KnowledgeClass.CANON)
    llm = OpenAICompatibleLLM(
        base_url=stub.base_url, model=STUB_MODEL, ledger=InMemoryTokenLedger(), max_retries=0
    )
    try:
        service = LoreAnswers(knowledge.answers, llm)
        player_view = await knowledge.ask(campaign, QUESTION, viewer=Viewer.PLAYER, record=False)
        gm_view = await knowledge.ask(campaign, QUESTION, viewer=Viewer.GM, record=False)
        secrets, public = guarded_material(player_view, gm_view)
        assert any("vampire" in s.text for s in secrets) and not any("vampire" in p for p in public)

        leaked = {
            "known": True,
            "answer": "The abbot is a vampire who feeds on the novices. [1]",
            "cited": [1],
        }
        replies(stub, leaked, leaked)
        player = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER)
        assert player.reply is not None and "vampire" not in player.reply.text
        assert "novices" not in player.reply.text and player.reply.mode != AnswerMode.LLM
    finally:
        await llm.aclose()
