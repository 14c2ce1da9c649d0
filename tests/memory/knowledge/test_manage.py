"""Managing sources: the inspector's fields, class/hidden/tags/always-include, usage counts, async progress."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.errors import InvalidInput, NotFound
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ImportProgress
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

NOTES = b"# Harbor notes\n\n## Lighthouse\n\nThe keeper, Old Tam, counts ships at dawn.\n"


async def test_set_source_changes_class_visibility_tags_and_flags(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    report = await service.import_bytes(campaign, "notes.md", NOTES, tags=["harbor"])
    source_id = report.source.id
    changed = await service.set_source(
        campaign,
        source_id,
        knowledge_class=KnowledgeClass.CANON,
        hidden=True,
        tags=["Lighthouse", "npc"],
        always_include=True,
        title="  Harbor   notes (GM) ",
        notes="Use for the harbor scenes only.",
    )
    assert changed.knowledge_class == KnowledgeClass.CANON and changed.hidden and changed.always_include
    assert changed.tags == ["lighthouse", "npc"] and changed.title == "Harbor notes (GM)"
    assert (
        changed.notes == "Use for the harbor scenes only." and changed.updated_at >= report.source.updated_at
    )
    chunks = await service.chunks(campaign, source_id)
    assert chunks and chunks[0].heading_path[0] == "Harbor notes"
    detail = await service.get_source(campaign, source_id)
    assert detail.source == changed and detail.versions[0].version == 1
    with pytest.raises(InvalidInput, match="tag"):
        await service.set_source(campaign, source_id, tags=["bad<tag>"])
    with pytest.raises(NotFound):
        await service.set_source(campaign, source_id + 100, hidden=False)


async def test_usage_counts_and_async_progress_callbacks(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    seen: list[ImportProgress] = []

    async def progress(event: ImportProgress) -> None:  # a Discord message edit is a coroutine
        seen.append(event)

    path = tmp_path / "notes.md"
    path.write_bytes(NOTES)
    report = await service.import_path(campaign, path, progress=progress)
    assert report.source.filename == "notes.md" and seen[-1].done == seen[-1].total == report.chunk_count
    for _ in range(3):
        await service.ask(campaign, "who keeps the lighthouse?", viewer=Viewer.PLAYER)
    await service.ask(campaign, "who keeps the lighthouse?", viewer=Viewer.PLAYER, record=False)
    (source,) = await service.list_sources(campaign)
    assert source.times_used == 3


async def test_questions_are_validated(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    with pytest.raises(InvalidInput):
        await service.ask(campaign, "   ", viewer=Viewer.PLAYER)
    with pytest.raises(InvalidInput):
        await service.ask(campaign, "x" * 1001, viewer=Viewer.PLAYER)
    with pytest.raises(InvalidInput):
        await service.ask(campaign, "who?", viewer=Viewer.PLAYER, limit=0)
    with pytest.raises(NotFound):
        await service.ask(campaign + 5, "who?", viewer=Viewer.PLAYER)
    empty = await service.ask(campaign, "who keeps the lighthouse?", viewer=Viewer.PLAYER)
    assert empty.results == [] and empty.canon_facts == []
