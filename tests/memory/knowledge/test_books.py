"""Books (PDF, DOCX, EPUB, HTML) imported as knowledge: the same chunks as Markdown, each with its page or chapter."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from canon.models import Viewer
from canon.storage import Database
from memory.books import read_book
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.tables import KnowledgeChunkRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.helpers.paths import REPO

BOOKS = REPO / "tests" / "fixtures" / "books"


def book(name: str) -> bytes:
    return (BOOKS / name).read_bytes()


@pytest.mark.parametrize(
    "name", ["basic-rules.pdf", "basic-rules.docx", "basic-rules.epub", "basic-rules.html"]
)
def test_every_format_reads_as_the_same_sections(name: str) -> None:
    read = read_book(book(name), name)
    headings = [line for line in read.text.splitlines() if line.startswith("#")]
    assert "# Combat" in headings
    assert "## Cover" in headings
    assert "#### Opportunity Attacks" in headings
    assert "| Size | Space |" in read.text  # the table kept as rows
    assert "Gargantuan | 20 by 20 ft. or larger" in read.text
    # Scripts, menus, stylesheets and running heads are not text of the book.
    assert "analytics" not in read.text and "Search" not in headings
    assert "Basic Rules\n" not in read.text


def test_a_two_column_pdf_reads_in_order_without_its_running_heads() -> None:
    read = read_book(book("basic-rules.pdf"), "basic-rules.pdf")
    assert read.kind == "pdf" and read.pages >= 5
    # A sentence that runs from the foot of the left column on: read whole, never interleaved with the right one.
    assert (
        "The GM determines who might be surprised. If neither side tries to be stealthy, they automatically "
        "notice each other." in read.text
    )
    assert "Basic Rules" not in read.text  # the running head of every page
    lines = read.text.splitlines()
    assert not any(line.strip().isdigit() for line in lines)  # page numbers dropped
    cover = read.text.index("## Cover")
    assert read.place(cover, cover + 40) == "p. 6"


async def test_a_pdf_imports_with_its_pages_and_an_answer_cites_the_page(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Pages")
    report = await service.import_bytes(
        campaign, "basic-rules.pdf", book("basic-rules.pdf"), knowledge_class=KnowledgeClass.REFERENCE
    )
    assert report.source.title == "Basic Rules"
    assert report.source.mime_type == "application/pdf"
    async with db.session() as session:
        rows = (
            await session.execute(select(KnowledgeChunkRow).order_by(KnowledgeChunkRow.chunk_index))
        ).scalars()
        places = [(row.heading_path, row.place) for row in rows]
    assert all(place and place.startswith(("p. ", "pp. ")) for _, place in places)
    assert (["Combat", "Cover"], "p. 6") in places
    answer = await service.ask(campaign, "what does three-quarters cover give", viewer=Viewer.PLAYER)
    cover = next(r for r in answer.results if r.heading_path[-1:] == ["Cover"])
    assert cover.place == "p. 6"
    assert cover.where == "Basic Rules, p. 6 (Combat › Cover)"
    assert answer.reply is not None
    assert "Basic Rules, p. 6 (Combat › Cover)" in [c.label for c in answer.reply.citations], answer.reply


async def test_a_markdown_source_keeps_its_sections_as_places(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Sections")
    await service.import_bytes(campaign, "world.md", b"# World\n\n## Harbor\n\nBoats and a lighthouse.\n")
    answer = await service.ask(campaign, "lighthouse", viewer=Viewer.PLAYER, config="lexical")
    assert answer.results[0].place is None
    assert answer.results[0].where == "World › Harbor"


async def test_a_book_survives_export_import_and_a_rechunking_reindex_with_its_pages(
    db: Database, tmp_path: Path
) -> None:
    from memory.knowledge.archive import KnowledgeArchive, export_knowledge, restore_knowledge

    service = knowledge_service(db, tmp_path, semantic=False)
    source = await new_campaign(db, "Shelf")
    await service.import_bytes(source, "basic-rules.pdf", book("basic-rules.pdf"), hidden=True)
    archive = KnowledgeArchive.model_validate_json(
        (await export_knowledge(service, source)).model_dump_json()
    )
    other = knowledge_service(db, tmp_path / "elsewhere", semantic=False)
    target = await new_campaign(db, "Restored")
    (report,) = await restore_knowledge(other, target, archive)
    assert report.source.hidden and report.source.mime_type == "application/pdf"
    await other.reindex(target, rechunk=True)
    answer = await other.ask(target, "three-quarters cover", viewer=Viewer.GM, config="lexical")
    cover = next(r for r in answer.results if r.heading_path[-1:] == ["Cover"])
    assert (cover.place, cover.hidden) == ("p. 6", True)
    player = await other.ask(target, "three-quarters cover", viewer=Viewer.PLAYER, config="lexical")
    assert player.results == []
