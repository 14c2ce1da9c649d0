"""A scanned PDF imported as knowledge: refused plainly, or read by OCR when the GM asks, its pages cited."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from canon.errors import InvalidInput
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.helpers.scans import needs_tesseract, scanned_book
from tests.memory.knowledge.test_import import count


async def test_a_scan_imported_without_ocr_is_refused_and_nothing_is_written(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Scans")
    with pytest.raises(InvalidInput, match=r"^scan\.pdf has no text: it looks scanned"):
        await service.import_bytes(campaign, "scan.pdf", scanned_book())
    assert await count(db, KnowledgeSourceRow) == 0
    assert list((tmp_path / "data").rglob("*.pdf")) == [] and not any(
        path.is_file() for path in (tmp_path / "data" / "sources").rglob("*")
    )


async def _places(db: Database) -> dict[str, str | None]:
    async with db.session() as session:
        rows = (await session.execute(select(KnowledgeChunkRow))).scalars()
        return {row.text: row.place for row in rows}


@needs_tesseract
async def test_a_scan_read_by_ocr_imports_cites_its_pages_and_stays_so_through_reindex_and_export(
    db: Database, tmp_path: Path
) -> None:
    from memory.knowledge.archive import KnowledgeArchive, export_knowledge, restore_knowledge

    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Scans")
    report = await service.import_bytes(campaign, "scan.pdf", scanned_book(), ocr=True)
    assert "scan.pdf: pages 1–2 were read by OCR" in report.warnings[0]
    assert report.source.title == "Combat" and report.source.parser_version.endswith("+ocr")
    answer = await service.ask(campaign, "long rest standing watch", viewer=Viewer.PLAYER, config="lexical")
    assert answer.results[0].where == "Combat, pp. 1–2 (Resting)"
    before = await _places(db)
    await service.reindex(campaign, rechunk=True)  # the original read again, by OCR again
    assert await _places(db) == before
    archive = KnowledgeArchive.model_validate_json(
        (await export_knowledge(service, campaign)).model_dump_json()
    )
    assert archive.sources[0].ocr
    target = await new_campaign(db, "Restored")
    (restored,) = await restore_knowledge(
        knowledge_service(db, tmp_path / "other", semantic=False), target, archive
    )
    assert restored.source.parser_version.endswith("+ocr") and restored.chunk_count == report.chunk_count
