"""Exporting a campaign's knowledge and restoring it elsewhere keeps every setting, version and answer."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.archive import KnowledgeArchive, export_knowledge, restore_knowledge
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import VectorStatus
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

WORLD = b"# Westhaven\n\n## The Crown\n\nKing Aldric rules from the Gull Throne.\n\n## The Abbey\n\nMonks keep the Ledger of Tides.\n"
SECRET = b"# Secrets\n\nThe abbot is a vampire who feeds in the crypt.\n"
MOOD = b"# Mood\n\nFog, gulls and the smell of tar over the harbor.\n"
QUESTIONS = (
    "who rules from the gull throne?",
    "what do the monks keep?",
    "is the abbot a vampire?",
    "harbor fog",
)


async def test_a_round_trip_keeps_settings_versions_and_answers(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    source = await new_campaign(db, "Original")
    first = await service.import_bytes(source, "world.md", WORLD.replace(b"Aldric", b"Borin"))
    await service.import_bytes(source, "world.md", WORLD, tags=["setting"])  # version 2
    secret = await service.import_bytes(
        source, "secrets.md", SECRET, hidden=True, knowledge_class=KnowledgeClass.CANON
    )
    mood = await service.import_bytes(source, "mood.md", MOOD, knowledge_class=KnowledgeClass.INSPIRATION)
    await service.disable_source(source, mood.source.id)
    await service.ask(source, QUESTIONS[0], viewer=Viewer.PLAYER)
    before = {
        (q, viewer): [
            (r.filename, r.heading_path, r.text, r.hidden)
            for r in (await service.ask(source, q, viewer=viewer, record=False)).results
        ]
        for q in QUESTIONS
        for viewer in (Viewer.PLAYER, Viewer.GM)
    }

    archive = KnowledgeArchive.model_validate_json(
        (await export_knowledge(service, source)).model_dump_json()
    )
    assert [s.filename for s in archive.sources] == ["world.md", "secrets.md", "mood.md"]
    assert len(archive.sources[0].files) == 2  # both versions' bytes

    other = knowledge_service(db, tmp_path / "elsewhere")
    target = await new_campaign(db, "Restored")
    reports = await restore_knowledge(other, target, archive)
    assert [r.vector_status for r in reports] == [VectorStatus.INDEXED] * 3
    restored = {s.filename: s for s in await other.list_sources(target)}
    world = restored["world.md"]
    assert world.version == 2 and world.tags == ["setting"] and world.times_used == 1
    assert world.content_hash != first.source.content_hash
    assert restored["secrets.md"].hidden and restored["secrets.md"].knowledge_class == KnowledgeClass.CANON
    assert (
        not restored["mood.md"].enabled and restored["mood.md"].knowledge_class == KnowledgeClass.INSPIRATION
    )
    detail = await other.get_source(target, world.id)
    assert [v.version for v in detail.versions] == [1, 2]
    assert detail.versions[0].content_hash == first.source.content_hash and detail.versions[0].replaced_at
    assert (tmp_path / "elsewhere" / "data" / "sources" / first.source.file_hash).is_file()
    after = {
        (q, viewer): [
            (r.filename, r.heading_path, r.text, r.hidden)
            for r in (await other.ask(target, q, viewer=viewer, record=False)).results
        ]
        for q in QUESTIONS
        for viewer in (Viewer.PLAYER, Viewer.GM)
    }
    assert after == before
    assert secret.source.id not in {s.id for s in restored.values()}
