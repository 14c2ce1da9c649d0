"""The names view: what it embeds, and adding it to campaigns indexed before it, in the background and resumably.

A campaign "indexed before" is made the way an older installation left it: its vectors' names views removed and
its index state saying the prose and title views only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import select

from canon.models import Viewer
from canon.storage import Database
from memory.embed_text import VIEWS_VERSION, names_view
from memory.knowledge.index_state import index_state_row
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow
from memory.knowledge.view_builder import ViewBuilder
from tests.helpers.knowledge_helpers import EMBEDDER, knowledge_service, new_campaign
from tests.helpers.names_view import BESTIARY, indexed_before

EXTRA = "# Grey Reach\n\n## Stormcrow\n\nStormcrows nest on the cliffs and carry the wardens' messages.\n"


def test_the_names_view_holds_the_title_the_kind_line_and_named_entries_not_field_values() -> None:
    text = BESTIARY.split("\n\n## ")[0]
    view = names_view(["Bestiary", "Pit Fiend"], text)
    assert view == "Pit Fiend (Bestiary): Large fiend (devil), lawful evil. Fear Aura"
    # A table's rows by their first cell (not its header's); another book's headings inside the section.
    table = "| Weapon | Price |\n|---|---|\n| Hookblade | 12 crowns |\n| Reach Pike | 7 crowns |\n"
    assert names_view(["Gear"], table) == "Gear: Hookblade, Reach Pike"
    other = "### Oathsworn\n\nDefense: 14\n\n#### Vow of Iron\n\nThe oathsworn cannot be moved.\n"
    assert names_view(["Callings", "Oathsworn"], other) == "Oathsworn (Callings): Vow of Iron"


class CountingEmbedder:
    """The real model, counting what it embeds; it "dies" (raises) on the call numbered `crash_on`."""

    model_name = EMBEDDER.model_name
    dimensions = EMBEDDER.dimensions

    def __init__(self, crash_on: int | None = None) -> None:
        self.crash_on = crash_on
        self.calls = 0
        self.texts: list[str] = []

    @property
    def model_version(self) -> str:
        return EMBEDDER.model_version

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.crash_on:
            raise SystemExit("the process died")
        self.texts += list(texts)
        return EMBEDDER.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return EMBEDDER.embed_query(text)


async def _chunk_ids(service: KnowledgeService, campaign: int, question: str) -> list[int]:
    answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, limit=10, record=False)
    assert answer.trace.semantic_status == "ok"
    return [r.chunk_id for r in answer.results if r.chunk_id is not None]


async def test_an_old_campaign_gains_its_names_views_after_a_crash_and_is_searched_throughout(
    db: Database, tmp_path: Path
) -> None:
    first = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Bestiary")
    report = await first.import_bytes(campaign, "bestiary.md", BESTIARY.encode())
    chunks = report.chunk_count
    assert chunks >= 6
    assert first.vectors is not None and await first.vectors.count(campaign) == 3 * chunks
    assert (await first.view_build(campaign)).state == "done"  # type: ignore[union-attr]
    await indexed_before(first, db, campaign)
    before = await first.view_build(campaign)
    assert before is not None and (before.state, before.done, before.total) == ("building", 0, chunks)
    # Searched by the views it has meanwhile: semantic search on, each chunk once.
    found = await _chunk_ids(first, campaign, "which devil radiates an aura of fear?")
    assert found and len(found) == len(set(found))

    # A process builds two chunks a batch and dies on its second batch.
    dying = CountingEmbedder(crash_on=2)
    crashed = knowledge_service(db, tmp_path, embedder=dying)
    with pytest.raises(SystemExit):
        await ViewBuilder(db, crashed.chunk_vectors, batch=2).build(campaign)
    halfway = await first.view_build(campaign)
    assert halfway is not None and (halfway.state, halfway.done, halfway.total) == ("building", 2, chunks)
    assert await first.vectors.count(campaign) == 2 * chunks + 2
    found = await _chunk_ids(first, campaign, "which devil radiates an aura of fear?")
    assert found and len(found) == len(set(found))

    # Meanwhile a file is imported: its chunks get every view now, and the build leaves them alone.
    extra = await first.import_bytes(campaign, "reach.md", EXTRA.encode())
    assert (await first.view_build(campaign)).total == chunks  # type: ignore[union-attr]

    # Restarted: it resumes after the last batch recorded; nothing is embedded twice.
    counting = CountingEmbedder()
    restarted = knowledge_service(db, tmp_path, embedder=counting)
    shown: list[int] = []
    done = await ViewBuilder(db, restarted.chunk_vectors, batch=2).build(
        campaign, progress=lambda state: shown.append(state.done)
    )
    assert done is not None and done.state == "done"
    assert len(counting.texts) == chunks - 2 and len(set(counting.texts)) == chunks - 2
    assert shown[-1] == chunks and shown == sorted(shown)
    assert await first.vectors.count(campaign) == 3 * (chunks + extra.chunk_count)
    status = await first.index_status(campaign)
    assert status["names_view"]["state"] == "done"
    async with db.session() as session:  # the fields the old chunks lacked are kept now
        kept = (await session.execute(select(KnowledgeChunkRow.fields))).scalars().all()
    assert kept and all(fields is not None for fields in kept)
    assert any(f == ["Pit Fiend", "Hit Points", "300"] for fields in kept for f in fields or [])
    found = await _chunk_ids(first, campaign, "which devil radiates an aura of fear?")
    assert found and len(found) == len(set(found))
    # Nothing is left to build; building again embeds nothing.
    assert await restarted.view_builder.pending() == []
    await ViewBuilder(db, restarted.chunk_vectors).build(campaign)
    assert len(counting.texts) == chunks - 2


async def test_the_bot_builds_every_campaigns_names_views_in_the_background(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    ones = [await new_campaign(db, name) for name in ("North", "South")]
    for campaign in ones:
        await service.import_bytes(campaign, "bestiary.md", BESTIARY.encode())
        await indexed_before(service, db, campaign)
    assert await service.view_builder.pending() == ones
    task = service.view_builder.start()
    assert task is not None
    await task
    for campaign in ones:
        assert (await service.view_build(campaign)).state == "done"  # type: ignore[union-attr]
    # Stopped before it starts, it leaves the work for the next start.
    await indexed_before(service, db, ones[0])
    service.view_builder.start()
    await service.view_builder.stop()
    assert (await service.view_build(ones[0])).state in ("building", "done")  # type: ignore[union-attr]


async def test_a_reindex_makes_every_view_and_ends_a_build(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Bestiary")
    report = await service.import_bytes(campaign, "bestiary.md", BESTIARY.encode())
    await indexed_before(service, db, campaign)
    await service.reindex(campaign)
    state = await service.view_build(campaign)
    assert state is not None and (state.state, state.done) == ("done", report.chunk_count)
    async with db.session() as session:
        row = await index_state_row(session, campaign)
        assert row is not None and row.embedding_views == VIEWS_VERSION and row.building_until is None


async def test_without_vectors_there_is_nothing_to_build(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Words only")
    await service.import_bytes(campaign, "bestiary.md", BESTIARY.encode())
    assert await service.view_build(campaign) is None
    assert service.view_builder.start() is None
