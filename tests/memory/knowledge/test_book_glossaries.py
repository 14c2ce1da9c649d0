"""The book glossaries are made when sources change (once the files of an import are in, after a removal) and kept
in the database: a question (in a process that never read the passages) only reads them, and a player's is never
drawn from what only the GM may read."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval import book_terms
from memory.knowledge.tables import KnowledgeBookGlossaryRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

PUBLIC = b"""# Reef Guide

## Words of the Reef

- **Drift**: the slow current between the reefs
- **Husk**: a drowned sailor walking again
"""

SECRET_SOURCE = b"""# Keeper Notes

## Spirits

A Gloam is a lantern spirit that eats memories.
"""

SECTIONED = b"""# Harbour Lore

## The Docks

Boats unload salt and amber on the quay.

## The Pact (GM only)

- **Mireling**: a bog witch bargaining for names
"""


async def kept_rows(db: Database) -> list[tuple[str, int, dict[str, str]]]:
    async with db.session() as session:
        t = KnowledgeBookGlossaryRow
        return [tuple(r) for r in (await session.execute(select(t.readable, t.asked_in, t.terms))).all()]


async def test_an_import_keeps_the_players_and_the_gms_glossaries(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reefs")
    await service.import_bytes(campaign, "reef.md", PUBLIC)
    await service.settle_book_terms(campaign)
    await service.import_bytes(campaign, "keeper.md", SECRET_SOURCE, hidden=True)
    await service.settle_book_terms(campaign)
    rows = await kept_rows(db)
    assert {asked for _, asked, _ in rows} == {campaign}
    terms = [t for _, _, t in rows]
    assert any(t.get("current") == "drift" and "spirit" not in t for t in terms)  # the players'
    assert any(t.get("current") == "drift" and t.get("spirit") == "gloam" for t in terms)  # the GM's
    assert len(rows) == 2  # the first import's glossaries were dropped with its sources' set


async def test_a_question_reads_the_kept_glossary_not_the_passages(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await new_campaign(db, "Reefs")
    importer = knowledge_service(db, tmp_path, semantic=False)
    await importer.import_bytes(campaign, "reef.md", PUBLIC)
    await importer.settle_book_terms(campaign)

    async def unread(*_args: object, **_kwargs: object) -> list[str]:
        raise AssertionError("a kept glossary was made again from the passages")

    monkeypatch.setattr(book_terms, "chunk_words_texts", unread)
    fresh = knowledge_service(db, tmp_path, semantic=False)  # another process: nothing in memory
    terms = await fresh.retriever.book_terms(campaign, viewer=Viewer.PLAYER)
    assert terms["current"] == "drift"
    assert terms["sailor"] == "husk"


async def test_a_players_glossary_holds_nothing_of_a_gm_only_source_or_section(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reefs")
    await service.import_bytes(campaign, "keeper.md", SECRET_SOURCE, hidden=True)
    await service.import_bytes(campaign, "harbour.md", SECTIONED)
    await service.settle_book_terms(campaign)
    for asker in (service, knowledge_service(db, tmp_path, semantic=False)):  # made here, and read elsewhere
        player = await asker.retriever.book_terms(campaign, viewer=Viewer.PLAYER)
        gm = await asker.retriever.book_terms(campaign, viewer=Viewer.GM)
        assert not {"spirit", "lantern spirit", "witch", "bog witch"} & set(player)
        assert player.values() and "gloam" not in player.values() and "mireling" not in player.values()
        assert gm["spirit"] == "gloam"
        assert gm["witch"] == "mireling"


async def test_a_removed_source_leaves_no_glossary_behind(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reefs")
    reef = await service.import_bytes(campaign, "reef.md", PUBLIC)
    await service.import_bytes(campaign, "keeper.md", SECRET_SOURCE)
    assert (await service.retriever.book_terms(campaign, viewer=Viewer.PLAYER))["spirit"] == "gloam"
    await service.delete_source(campaign, reef.source.id)
    rows = await kept_rows(db)
    assert rows and all("current" not in terms for _, _, terms in rows)
    terms = await knowledge_service(db, tmp_path, semantic=False).retriever.book_terms(
        campaign, viewer=Viewer.PLAYER
    )
    assert "current" not in terms and terms["spirit"] == "gloam"
