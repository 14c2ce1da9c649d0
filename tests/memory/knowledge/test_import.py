"""Importing knowledge sources: validation, duplicates, versions, all-or-nothing, embedding failures, real corpora."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from canon.errors import InvalidInput, NotFound
from canon.models import Viewer
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge import import_rows
from memory.knowledge.files import InvalidEncoding, expand_paths
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ImportOutcome, ImportProgress, ImportStage, VectorStatus
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow, KnowledgeSourceVersionRow
from tests.conftest import SRD, require_shared
from tests.helpers.knowledge_helpers import FailingEmbedder, knowledge_service, new_campaign

WORLD = """# Westhaven

## The Old Abbey

The abbey on the cliff bears a broken-circle symbol above its gate. The monks fled in the Year of Ash.

## The Harbor

Fishing boats, a lighthouse and the Drowned Lantern tavern, where Captain Mirelle drinks alone.
"""


async def count(db: Database, model: type, *where: object) -> int:
    async with db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


async def fts_rows(db: Database) -> int:
    """Return how many chunks the full-text index holds (FTS5: one docsize row per indexed chunk)."""
    async with db.session() as session:
        if db.is_sqlite:
            query = "SELECT count(*) FROM knowledge_fts_docsize"
        else:
            query = "SELECT count(*) FROM knowledge_chunks WHERE search_vector IS NOT NULL"
        return int((await session.execute(text(query))).scalar_one())


async def test_import_stores_source_version_chunks_file_and_vectors(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    events: list[ImportProgress] = []
    report = await service.import_bytes(
        campaign, "world.md", WORLD.encode(), tags=["Setting", "setting", "coast"], progress=events.append
    )
    assert report.outcome == ImportOutcome.CREATED and report.duplicate_of is None
    source = report.source
    assert source.title == "Westhaven" and source.filename == "world.md"
    assert source.knowledge_class == KnowledgeClass.REFERENCE and source.enabled and not source.hidden
    assert source.tags == ["setting", "coast"] and source.version == 1 and source.mime_type == "text/markdown"
    assert source.content_hash == hashlib.sha256(WORLD.encode()).hexdigest() == source.file_hash
    assert source.vector_status == VectorStatus.INDEXED and report.vector_error is None
    assert report.chunk_count == source.chunk_count >= 1
    stored = tmp_path / "data" / "sources" / source.file_hash
    assert stored.read_bytes() == WORLD.encode()
    assert events[0].stage == ImportStage.CHUNKING and events[-1].stage == ImportStage.DONE
    embedding = [e for e in events if e.stage == ImportStage.EMBEDDING]
    assert embedding and embedding[-1].done == embedding[-1].total == report.chunk_count
    assert await count(db, KnowledgeSourceVersionRow) == 1
    assert await count(db, KnowledgeChunkRow) == report.chunk_count == await fts_rows(db)
    assert service.vectors is not None
    assert (
        await service.vectors.count(campaign) == 3 * report.chunk_count
    )  # a prose, a title and a names view each
    status = await service.index_status(campaign)
    assert status["vector_index"]["embedding_model"] == "all-MiniLM-L6-v2"
    assert status["vector_index"]["embedding_dimensions"] == 384
    assert status["vector_index"]["chunking_version"] == source.chunking_version


async def test_invalid_utf8_is_refused_with_the_byte_offset_and_nothing_written(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    data = "# Notes\n\nCafé crème\n".encode() + b"\xff\xfe broken" + b" tail"
    with pytest.raises(InvalidEncoding) as raised:
        await service.import_bytes(campaign, "notes.md", data)
    offset = len("# Notes\n\nCafé crème\n".encode())
    assert raised.value.byte_offset == offset
    assert f"byte offset {offset}" in raised.value.message and "0xFF" in raised.value.message
    assert "line 4" in raised.value.message
    assert await count(db, KnowledgeSourceRow) == 0 and await count(db, KnowledgeChunkRow) == 0
    assert not (tmp_path / "data" / "sources").exists()
    with pytest.raises(InvalidEncoding, match="binary"):
        await service.import_bytes(campaign, "nul.txt", b"text\x00more")


async def test_oversize_empty_and_wrong_type_files_are_refused(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False, settings=LoreSettings(max_file_bytes=2048))
    campaign = await new_campaign(db, "Westhaven")
    with pytest.raises(InvalidInput, match="import limit is 2 KB"):
        await service.import_bytes(campaign, "big.md", b"x" * 2049)
    big = tmp_path / "big.md"
    big.write_bytes(b"y" * 5000)
    with pytest.raises(InvalidInput, match="import limit"):
        await service.import_path(campaign, big)
    with pytest.raises(InvalidInput, match="empty"):
        await service.import_bytes(campaign, "empty.md", b"")
    with pytest.raises(InvalidInput, match="no text"):
        await service.import_bytes(campaign, "blank.txt", b" \n\t\n  ")
    with pytest.raises(InvalidInput, match="YAML"):
        await service.import_bytes(campaign, "bestiary.yaml", b"creatures: []")
    with pytest.raises(InvalidInput, match=r"only \.md, \.txt, \.pdf, \.docx, \.epub or \.html"):
        await service.import_bytes(campaign, "sheet.odt", b"PK\x03\x04")
    with pytest.raises(InvalidInput, match="damaged PDF"):
        await service.import_bytes(campaign, "sheet.pdf", b"%PDF-1.7")
    with pytest.raises(NotFound):
        await service.import_bytes(campaign + 99, "world.md", WORLD.encode())
    assert await count(db, KnowledgeSourceRow) == 0


async def test_the_same_content_twice_is_reported_not_indexed_again(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    first = await service.import_bytes(campaign, "world.md", WORLD.encode())
    again = await service.import_bytes(campaign, "world.md", WORLD.encode())
    renamed = await service.import_bytes(campaign, "copy of world.md", WORLD.encode())
    # NFC and NFD spell the same text: still a duplicate, whatever the bytes.
    decomposed = unicodedata.normalize("NFD", WORLD + "Café\n")
    composed = await service.import_bytes(
        campaign, "cafe.md", unicodedata.normalize("NFC", WORLD + "Café\n").encode()
    )
    nfd = await service.import_bytes(campaign, "cafe-nfd.md", decomposed.encode())
    assert first.outcome == ImportOutcome.CREATED
    for report in (again, renamed):
        assert report.outcome == ImportOutcome.DUPLICATE and report.duplicate_of == first.source.id
        assert report.chunk_count == 0 and report.warnings
    assert nfd.outcome == ImportOutcome.DUPLICATE and nfd.duplicate_of == composed.source.id
    assert await count(db, KnowledgeSourceRow) == 2
    assert await count(db, KnowledgeChunkRow) == first.chunk_count + composed.chunk_count
    # The duplicate's raw bytes were not kept: only sources own stored files.
    stored = sorted(p.name for p in (tmp_path / "data" / "sources").iterdir())
    assert stored == sorted({first.source.file_hash, composed.source.file_hash})


async def test_a_changed_file_becomes_a_new_version_and_keeps_the_old_metadata(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    first = await service.import_bytes(
        campaign, "world.md", WORLD.encode(), knowledge_class=KnowledgeClass.CANON, tags=["coast"]
    )
    old_chunks = await service.chunks(campaign, first.source.id)
    changed = (
        WORLD.replace("Year of Ash", "Year of Embers")
        + "\n## The Market\n\nSpice stalls and a moneylender.\n"
    )
    second = await service.import_bytes(campaign, "world.md", changed.encode())
    assert second.outcome == ImportOutcome.UPDATED and second.previous_version == 1
    source = second.source
    assert source.id == first.source.id and source.version == 2
    assert source.knowledge_class == KnowledgeClass.CANON and source.tags == ["coast"]  # kept when not given
    assert source.content_hash != first.source.content_hash
    detail = await service.get_source(campaign, source.id)
    assert [v.version for v in detail.versions] == [1, 2]
    assert detail.versions[0].content_hash == first.source.content_hash
    assert detail.versions[0].replaced_at is not None and detail.versions[1].replaced_at is None
    new_chunks = await service.chunks(campaign, source.id)
    assert {c.id for c in new_chunks}.isdisjoint({c.id for c in old_chunks})
    assert await count(db, KnowledgeChunkRow) == len(new_chunks) == await fts_rows(db)
    assert service.vectors is not None and await service.vectors.count(campaign) == 3 * len(new_chunks)
    # Both versions' raw files are kept (the old version's metadata points at its copy).
    assert (tmp_path / "data" / "sources" / first.source.file_hash).is_file()
    assert (tmp_path / "data" / "sources" / source.file_hash).is_file()
    answer = await service.ask(
        campaign, "when did the monks flee the abbey?", viewer=Viewer.PLAYER, record=False
    )
    assert "Year of Embers" in answer.results[0].text
    assert all("Year of Ash" not in r.text for r in answer.results)


async def test_an_import_that_fails_half_way_leaves_nothing(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    original = import_rows.insert_chunks

    async def insert_then_fail(session, rows):  # type: ignore[no-untyped-def]
        await original(session, rows)  # the chunks and their full-text rows are written...
        raise RuntimeError("disk full")  # ...then the transaction fails

    monkeypatch.setattr(import_rows, "insert_chunks", insert_then_fail)
    with pytest.raises(RuntimeError, match="disk full"):
        await service.import_bytes(campaign, "world.md", WORLD.encode())
    assert await count(db, KnowledgeSourceRow) == 0
    assert await count(db, KnowledgeSourceVersionRow) == 0
    assert await count(db, KnowledgeChunkRow) == 0
    assert await fts_rows(db) == 0
    assert not any((tmp_path / "data" / "sources").iterdir())
    assert service.vectors is not None and await service.vectors.count(campaign) == 0
    # A failed update keeps the previous version whole.
    monkeypatch.setattr(import_rows, "insert_chunks", original)
    first = await service.import_bytes(campaign, "world.md", WORLD.encode())
    monkeypatch.setattr(import_rows, "insert_chunks", insert_then_fail)
    with pytest.raises(RuntimeError):
        await service.import_bytes(campaign, "world.md", (WORLD + "\nMore.\n").encode())
    detail = await service.get_source(campaign, first.source.id)
    assert detail.source.version == 1 and [v.replaced_at for v in detail.versions] == [None]
    assert len(detail.chunks) == first.chunk_count == await fts_rows(db)


async def test_embedding_failure_keeps_the_source_searchable_by_words_and_visible(
    db: Database, tmp_path: Path
) -> None:
    broken = knowledge_service(db, tmp_path, embedder=FailingEmbedder())
    campaign = await new_campaign(db, "Westhaven")
    report = await broken.import_bytes(campaign, "world.md", WORLD.encode())
    assert report.outcome == ImportOutcome.CREATED
    assert report.vector_status == VectorStatus.FAILED == report.source.vector_status
    assert report.vector_error and "embedding model" in report.vector_error
    assert report.warnings and "words only" in report.warnings[0]
    listed = await broken.list_sources(campaign)
    assert listed[0].vector_status == VectorStatus.FAILED and listed[0].vector_error
    answer = await broken.ask(campaign, "broken circle symbol", viewer=Viewer.PLAYER, record=False)
    assert answer.results and "broken-circle" in answer.results[0].text
    assert answer.trace.semantic_status.startswith("failed") and answer.trace.warnings

    # Switched off: imported the same way, marked disabled, searchable.
    off = knowledge_service(db, tmp_path, semantic=False)
    other = await off.import_bytes(campaign, "harbor.txt", b"The lighthouse keeper hoards brass keys.")
    assert other.vector_status == VectorStatus.DISABLED and other.vector_error is None
    assert (await off.ask(campaign, "lighthouse keeper", viewer=Viewer.PLAYER, record=False)).results

    # Reindex with a working model repairs it: vectors for every chunk, every source indexed.
    fixed = knowledge_service(db, tmp_path)
    rebuilt = await fixed.reindex(campaign)
    assert rebuilt.vector_status == VectorStatus.INDEXED and rebuilt.vectors == rebuilt.chunks
    assert {s.vector_status for s in await fixed.list_sources(campaign)} == {VectorStatus.INDEXED}
    semantic = await fixed.ask(
        campaign, "who looks after the tower light?", viewer=Viewer.PLAYER, record=False
    )
    assert semantic.trace.semantic_status == "ok" and semantic.results[0].filename == "harbor.txt"


async def test_reindex_rebuilds_full_text_and_vectors_without_touching_sources(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    report = await service.import_bytes(campaign, "world.md", WORLD.encode())
    before = await service.list_sources(campaign)
    if db.is_sqlite:  # wreck the derived full-text index; reindex must repair it from the chunks
        await db.run(
            lambda s: s.execute(text("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('delete-all')"))
        )
        assert await fts_rows(db) == 0
    assert service.vectors is not None
    await service.vectors.reset(campaign)
    rebuilt = await service.reindex(campaign, rechunk=True)
    assert rebuilt.sources == 1 and rebuilt.rechunked_sources == 1 and rebuilt.chunks == report.chunk_count
    assert await fts_rows(db) == report.chunk_count
    assert await service.vectors.count(campaign) == 3 * report.chunk_count
    after = await service.list_sources(campaign)
    keep = ("id", "content_hash", "file_hash", "version", "knowledge_class", "title", "imported_at")
    assert [s.model_dump(include=set(keep)) for s in after] == [
        s.model_dump(include=set(keep)) for s in before
    ]


def test_folders_expand_to_sorted_md_and_txt_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/z.md", "a.txt", "b/a.MD", "notes.yaml", "img.png", "c.markdown"):
        (tmp_path / name).write_text("x")
    single = tmp_path / "a.txt"
    assert [n for _, n in expand_paths([tmp_path])] == ["a.txt", "b/a.MD", "b/z.md", "c.markdown"]
    assert [n for _, n in expand_paths([single])] == ["a.txt"]


@pytest.mark.slow
async def test_the_srd51_wiki_tree_imports_file_by_file(sqlite_db: Database, tmp_path: Path) -> None:
    db = sqlite_db  # 1,000+ imports: once is enough (PostgreSQL runs every other import test)
    wiki = require_shared(SRD / "raw" / "srd51-wiki")
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "SRD wiki")
    files = expand_paths([wiki])
    assert len(files) > 1000
    outcomes: dict[ImportOutcome, int] = {}
    for path, name in files:
        report = await service.import_path(campaign, path, filename=name)
        outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
        assert report.outcome == ImportOutcome.DUPLICATE or report.chunk_count >= 1, name
    assert outcomes.get(ImportOutcome.CREATED, 0) > 900
    sources = await service.list_sources(campaign)
    assert len(sources) == outcomes[ImportOutcome.CREATED]
    assert all(s.chunk_count >= 1 and s.token_count >= 1 for s in sources)
    assert await count(db, KnowledgeChunkRow) == sum(s.chunk_count for s in sources) == await fts_rows(db)
    answer = await service.ask(campaign, "sahuagin shark telepathy", viewer=Viewer.PLAYER, record=False)
    assert answer.results[0].filename == "Monsters/Sahuagin.md"


@pytest.mark.slow
async def test_a_one_and_a_half_megabyte_concatenation_of_srd52_imports(
    sqlite_db: Database, tmp_path: Path
) -> None:
    db = sqlite_db
    src = require_shared(SRD / "raw" / "srd52" / "src")
    data = b"\n\n".join(p.read_bytes() for p in sorted(src.rglob("*.md")))
    assert len(data) > 1_400_000
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "SRD 5.2")
    report = await service.import_bytes(campaign, "srd52.md", data)
    assert report.outcome == ImportOutcome.CREATED and report.chunk_count > 500
    assert report.source.size_bytes == len(data)
    chunks = await service.chunks(campaign, report.source.id)
    assert max(c.token_count for c in chunks) <= 800 and all(c.heading_path for c in chunks[1:])
    assert await fts_rows(db) == len(chunks)
    answer = await service.ask(campaign, "Fireball spell damage", viewer=Viewer.PLAYER, record=False)
    assert any("Fireball" in r.heading_path for r in answer.results)


async def test_the_same_content_in_another_campaign_is_no_duplicate(db: Database, tmp_path: Path) -> None:
    """Duplicate detection looks at the importing campaign's sources only (not only on the branch-export path)."""
    service = knowledge_service(db, tmp_path, semantic=False)
    westhaven, eastmarch = await new_campaign(db, "Westhaven"), await new_campaign(db, "Eastmarch")
    first = await service.import_bytes(westhaven, "world.md", WORLD.encode())
    other = await service.import_bytes(eastmarch, "world.md", WORLD.encode())
    assert first.outcome == other.outcome == ImportOutcome.CREATED and other.duplicate_of is None
    assert other.source.campaign_id == eastmarch and other.chunk_count == first.chunk_count > 0
    again = await service.import_bytes(eastmarch, "copy.md", WORLD.encode())
    assert again.outcome == ImportOutcome.DUPLICATE and again.duplicate_of == other.source.id


async def test_a_large_import_writes_on_a_loop_of_its_own_with_the_same_result(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from canon import offload
    from memory.knowledge import importer

    apart: list[int] = []
    write_apart = offload.write_apart

    async def counted(database: Database, work: object) -> object:
        apart.append(1)
        return await write_apart(database, work)  # type: ignore[arg-type]

    monkeypatch.setattr(importer, "APART_CHUNKS", 1)
    monkeypatch.setattr(offload, "write_apart", counted)
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Apart")
    report = await service.import_bytes(campaign, "world.md", WORLD.encode())
    assert apart and report.outcome == ImportOutcome.CREATED and report.chunk_count >= 1
    assert (
        await count(db, KnowledgeChunkRow, KnowledgeChunkRow.source_id == report.source.id)
        == report.chunk_count
    )
    answer = await service.ask(campaign, "lighthouse", viewer=Viewer.PLAYER, config="lexical")
    assert [r.source_id for r in answer.results] == [report.source.id]
    updated = await service.import_bytes(
        campaign, "world.md", (WORLD + "\n## Docks\n\nNets and crates.\n").encode()
    )
    assert updated.outcome == ImportOutcome.UPDATED and len(apart) == 2
