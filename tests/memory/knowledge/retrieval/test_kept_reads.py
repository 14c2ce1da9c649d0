"""/lore keeps the calendar, the glossary and the readable sources between questions only while nothing shown was
written: after the GM changes the calendar, canon or the glossary (here or in another process), the next answer
reads the new ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from canon import campaigns
from canon.campaign_calendar import CALENDAR_SETTINGS
from canon.graph import CanonReader
from canon.models import Authority, Validity, Viewer
from canon.ontology import base_ontology
from canon.storage import Database
from memory.knowledge.glossary import GLOSSARY_SETTINGS
from memory.knowledge.service import KnowledgeService
from tests.conftest import DatabaseTarget
from tests.helpers.knowledge_helpers import gm_writer, knowledge_service, new_campaign

MONTHS = "how many months are in a year?"
DUSK = "how long did the Long Dusk last?"


async def _world(db: Database, tmp_path: Path) -> tuple[KnowledgeService, int]:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Kept")
    await service.import_bytes(
        campaign, "ogres.md", b"# Ogre\n\nAn ogre has 59 hit points and swings a greatclub.\n"
    )
    return service, campaign


async def _reply(
    service: KnowledgeService, campaign: int, question: str, viewer: Viewer = Viewer.PLAYER
) -> str:
    answer = await service.ask(campaign, question, viewer=viewer, record=False)
    assert answer.reply is not None
    return answer.reply.text


async def _settings(db: Database, campaign: int, settings: dict[str, Any]) -> None:
    await db.run(lambda session: campaigns.update_campaign_settings(session, campaign, settings))


async def test_the_calendar_the_gm_sets_is_read_by_the_next_question(db: Database, tmp_path: Path) -> None:
    service, campaign = await _world(db, tmp_path)
    before = await _reply(service, campaign, MONTHS)  # canon's default calendar: months with no names
    assert "Rimewake" not in before
    assert await _reply(service, campaign, MONTHS) == before  # kept: nothing written

    block = {"months": [{"name": "Rimewake", "days": 28}, {"name": "Thawling", "days": 30}]}
    await _settings(db, campaign, {CALENDAR_SETTINGS: block})
    said = await _reply(service, campaign, MONTHS)
    assert "Rimewake" in said and "Thawling" in said

    await _settings(db, campaign, {CALENDAR_SETTINGS: {}})  # cleared again
    assert await _reply(service, campaign, MONTHS) == before


async def test_a_calendar_set_by_another_process_is_read_by_the_next_question(
    db: Database, db_target: DatabaseTarget, tmp_path: Path
) -> None:
    service, campaign = await _world(db, tmp_path)
    assert "Emberwane" not in await _reply(service, campaign, MONTHS)
    other = db_target.open()  # the bot's other process: its own engines and connections
    try:
        await _settings(other, campaign, {CALENDAR_SETTINGS: {"months": [{"name": "Emberwane", "days": 31}]}})
    finally:
        await other.dispose()
    assert "Emberwane" in await _reply(service, campaign, MONTHS)


async def test_an_era_written_into_canon_and_retconned_is_read_by_the_next_question(
    db: Database, tmp_path: Path
) -> None:
    service, campaign = await _world(db, tmp_path)
    before = await _reply(service, campaign, DUSK)
    assert "year 300" not in before

    async def era(session: Any) -> int:
        writer = await gm_writer(session, campaign)
        return await writer.create_entity(
            type="Era",
            name="The Long Dusk",
            key="long_dusk",
            validity=Validity(world_from_key=1 * 10000, world_until_key=300 * 10000),
            authority=Authority.GM,
        )

    dusk = await db.run(era)
    assert "year 300" in await _reply(service, campaign, DUSK)
    assert "year 300" in await _reply(service, campaign, DUSK)

    async def retcon(session: Any) -> None:
        writer = await gm_writer(session, campaign)
        reader = await CanonReader.open(session, campaign, base_ontology(), viewer=Viewer.GM)
        await writer.retcon(reader, "entity", dusk, replacement_id=None, rationale="no such era")

    await db.run(retcon)
    assert "year 300" not in await _reply(service, campaign, DUSK)


async def test_a_glossary_term_the_gm_adds_reads_the_next_question(db: Database, tmp_path: Path) -> None:
    service, campaign = await _world(db, tmp_path)
    first = await service.ask(campaign, "what does an ogre swing, a grk?", viewer=Viewer.PLAYER, record=False)
    assert "greatclub" not in (first.trace.lexical_query or "")

    await _settings(db, campaign, {GLOSSARY_SETTINGS: {"grk": "greatclub"}})
    second = await service.ask(
        campaign, "what does an ogre swing, a grk?", viewer=Viewer.PLAYER, record=False
    )
    assert "greatclub" in (second.trace.lexical_query or "")


async def test_a_word_a_source_adds_is_known_to_the_next_question(db: Database, tmp_path: Path) -> None:
    service, campaign = await _world(db, tmp_path)
    asked = "does an ogre fear the zorblax?"
    first = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    assert "zorblax" in first.trace.unknown_words
    assert (
        "zorblax"
        in (await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)).trace.unknown_words
    )

    # The same file imported again with new text: a new version of the same source.
    await service.import_bytes(
        campaign, "ogres.md", b"# Ogre\n\nAn ogre has 59 hit points and fears the zorblax above all.\n"
    )
    again = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    assert "zorblax" not in again.trace.unknown_words

    # A word only a hidden source holds is unknown to a player, whoever asked before.
    hidden = await service.import_bytes(campaign, "gm.md", b"# Notes\n\nThe quexling hides in the well.\n")
    await service.set_source(campaign, hidden.source.id, hidden=True)
    gm = await service.ask(campaign, "where is the quexling?", viewer=Viewer.GM, record=False)
    assert "quexling" not in gm.trace.unknown_words
    player = await service.ask(campaign, "where is the quexling?", viewer=Viewer.PLAYER, record=False)
    assert "quexling" in player.trace.unknown_words


async def test_an_entity_written_into_canon_is_named_by_the_next_question(
    db: Database, tmp_path: Path
) -> None:
    service, campaign = await _world(db, tmp_path)
    asked = "who is Morwen Vale?"
    assert not (await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)).canon_facts

    async def npc(session: Any) -> None:
        writer = await gm_writer(session, campaign)
        await writer.create_entity(
            type="NPC", name="Morwen Vale", description="The smugglers' queen.", authority=Authority.GM
        )

    await db.run(npc)
    answer = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    assert [f.entity_name for f in answer.canon_facts] == ["Morwen Vale"]
