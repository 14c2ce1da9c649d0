"""Books built to hurt or that cannot be read: each refused (or bounded) with a sentence a GM understands.

Every hostile file is made here, in memory, from real producers (pypdf's writer, the standard library's zip).
"""

from __future__ import annotations

import io
import socket
import zipfile
import zlib
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DictionaryObject, NameObject, StreamObject, TextStringObject

from canon.errors import InvalidInput
from canon.storage import Database
from config.settings import LoreSettings
from memory.books import BookLimits, BookRefused, read_book
from memory.knowledge.tables import KnowledgeSourceRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.test_books import BOOKS
from tests.memory.knowledge.test_import import count


def pdf_bytes(writer: PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def real_pdf() -> bytes:
    return (BOOKS / "basic-rules.pdf").read_bytes()


def zipped(entries: dict[str, bytes], *, epub: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if epub:
            archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_pdf_with_too_many_pages_is_refused() -> None:
    writer = PdfWriter()
    for _ in range(41):
        writer.add_blank_page(100, 100)
    with pytest.raises(BookRefused, match=r"has 41 pages; a PDF of more than 40 pages is not imported"):
        read_book(pdf_bytes(writer), "huge.pdf", BookLimits(max_pages=40))


def test_a_stream_inflating_past_the_limit_is_refused_not_inflated() -> None:
    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    packer = zlib.compressobj(9)
    block = b"0 0 m\n" * 200_000
    packed = b"".join(packer.compress(block) for _ in range(80)) + packer.flush()  # 96 MB from ~100 KB
    stream = StreamObject()
    stream.set_data(packed)
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = writer._add_object(stream)
    with pytest.raises(BookRefused, match=r"inflate|damaged"):
        read_book(pdf_bytes(writer), "bomb.pdf")


def test_deeply_nested_objects_are_refused() -> None:
    nested = b"[" * 200_000 + b"]" * 200_000
    data = (
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
        b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Annots 4 0 R >> endobj\n"
        b"4 0 obj " + nested + b" endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    )
    with pytest.raises(BookRefused, match=r"no text|damaged|deeply"):
        read_book(data, "deep.pdf")


def test_an_encrypted_pdf_is_refused_with_what_to_do() -> None:
    writer = PdfWriter(clone_from=io.BytesIO(real_pdf()))
    writer.encrypt(user_password="secret", owner_password="owner")
    with pytest.raises(BookRefused, match=r"protected by a password.*print it to PDF"):
        read_book(pdf_bytes(writer), "locked.pdf")


def test_a_broken_cross_reference_table_is_read_around() -> None:
    data = real_pdf()
    start = data.rindex(b"startxref")
    broken = data[:start] + b"startxref\n999999\n%%EOF\n"  # points nowhere: the objects are found by scanning
    book = read_book(broken, "broken.pdf")
    assert "## Cover" in book.text


def test_a_truncated_pdf_is_refused_as_damaged() -> None:
    with pytest.raises(BookRefused, match=r"damaged PDF|no text"):
        read_book(real_pdf()[:600], "cut.pdf")


def test_javascript_and_attached_files_are_never_run_or_unpacked() -> None:
    writer = PdfWriter(clone_from=io.BytesIO(real_pdf()))
    writer.root_object[NameObject("/OpenAction")] = DictionaryObject(
        {
            NameObject("/S"): NameObject("/JavaScript"),
            NameObject("/JS"): TextStringObject("app.alert('pwned');"),
        }
    )
    writer.add_attachment("payload.txt", b"ATTACHED SECRET PAYLOAD")
    book = read_book(pdf_bytes(writer), "scripted.pdf")
    assert "pwned" not in book.text and "ATTACHED SECRET" not in book.text
    assert book.warnings == (
        "scripted.pdf holds JavaScript and attached files; they were ignored (never run or unpacked).",
    )


def test_a_scanned_pdf_without_text_is_refused_plainly() -> None:
    writer = PdfWriter()
    for _ in range(3):
        writer.add_blank_page(612, 792)
    with pytest.raises(BookRefused, match=r"has no text: it looks scanned.*OCR"):
        read_book(pdf_bytes(writer), "scan.pdf")


@pytest.mark.parametrize(("name", "epub"), [("bomb.docx", False), ("bomb.epub", True)])
def test_zip_bombs_are_refused_before_unpacking(name: str, epub: bool) -> None:
    data = zipped({"word/document.xml": b"\0" * 3_000_000, "OEBPS/x.xhtml": b"<p>x</p>"}, epub=epub)
    assert len(data) < 20_000
    with pytest.raises(BookRefused, match="zip bomb"):
        read_book(data, name)


@pytest.mark.parametrize(("name", "epub"), [("escape.docx", False), ("escape.epub", True)])
def test_entries_climbing_out_of_the_archive_are_refused(name: str, epub: bool) -> None:
    first = "META-INF/container.xml" if epub else "word/document.xml"
    data = zipped({first: b"<w/>", "../../etc/evil.xhtml": b"x"}, epub=epub)
    with pytest.raises(BookRefused, match="points outside"):
        read_book(data, name)


def test_an_epub_naming_remote_resources_fetches_nothing() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(5)
        server.setblocking(False)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        chapter = (
            f'<html><head><link rel="stylesheet" href="{url}/s.css"/></head><body><h1>Harbor</h1>'
            f'<img src="{url}/map.png" alt="Harbor map"/><p>Boats and a lighthouse.</p>'
            f'<iframe src="{url}/frame"></iframe></body></html>'
        ).encode()
        opf = (
            "<package><metadata><dc:title>Remote</dc:title></metadata><manifest>"
            '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>'
            f'<item id="b" href="{url}/b.xhtml" media-type="application/xhtml+xml"/>'
            '</manifest><spine><itemref idref="b"/><itemref idref="a"/></spine></package>'
        ).encode()
        container = b'<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>'
        data = zipped(
            {"META-INF/container.xml": container, "OEBPS/content.opf": opf, "OEBPS/a.xhtml": chapter},
            epub=True,
        )
        book = read_book(data, "remote.epub")
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
    assert book.text == "# Harbor\n\n[image: Harbor map]\n\nBoats and a lighthouse."
    assert book.places == ((0, "ch. 1"),)


def test_html_scripts_handlers_and_javascript_links_are_dropped() -> None:
    page = (
        b"<html><head><script>steal()</script><style>p{}</style></head><body>"
        b'<h1 onclick="steal()">Greyhaven</h1><p onmouseover=\'steal()\'>The <a href="javascript:steal()">'
        b'north gate</a> is shut.</p><form action="/x"><input value="typed"><button>Send</button></form>'
        b"<noscript>enable scripts</noscript></body></html>"
    )
    book = read_book(page, "wiki.html")
    assert book.text == "# Greyhaven\n\nThe north gate is shut."


def test_mixed_encodings_are_refused_with_where_the_bad_byte_is() -> None:
    page = "<p>Café</p>".encode() + "<p>Caf\xe9</p>".encode("latin-1")
    with pytest.raises(
        BookRefused, match=r"not valid UTF-8 text: the first bad byte \(0xE9\) is at byte offset 18"
    ):
        read_book(page, "mixed.html")
    declared = b'<meta charset="windows-1252"><p>Caf\xe9</p>'
    assert read_book(declared, "old.html").text == "Café"


def test_a_name_that_lies_about_the_content_is_refused() -> None:
    docx = (BOOKS / "basic-rules.docx").read_bytes()
    with pytest.raises(
        BookRefused, match=r"named as a PDF, but its content is a Word \(.docx\) file.*\.docx"
    ):
        read_book(docx, "rules.pdf")
    with pytest.raises(BookRefused, match="named as an EPUB, but its content is a PDF"):
        read_book(real_pdf(), "rules.epub")


async def test_refused_books_leave_nothing_written(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Shelf")
    with pytest.raises(InvalidInput, match=r"named as a text file, but its content is a PDF.*\.pdf"):
        await service.import_bytes(campaign, "rules.md", real_pdf())
    bomb = zipped({"word/document.xml": b"\0" * 3_000_000})
    with pytest.raises(InvalidInput, match="zip bomb"):
        await service.import_bytes(campaign, "bomb.docx", bomb)
    writer = PdfWriter(clone_from=io.BytesIO(real_pdf()))
    writer.encrypt(user_password="secret")
    with pytest.raises(InvalidInput, match="password"):
        await service.import_bytes(campaign, "locked.pdf", pdf_bytes(writer))
    assert await count(db, KnowledgeSourceRow) == 0
    sources = tmp_path / "data" / "sources"
    assert not sources.exists() or not any(sources.iterdir())


async def test_a_200_mb_book_is_refused_before_it_is_read(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False, settings=LoreSettings())
    campaign = await new_campaign(db, "Shelf")
    huge = tmp_path / "huge.pdf"
    with huge.open("wb") as handle:  # sparse: 200 MB that take no room and are never read
        handle.truncate(200 * 1024 * 1024)
    with pytest.raises(InvalidInput, match=r"huge.pdf is 200.0 MB; the import limit is 60.0 MB"):
        await service.import_path(campaign, huge)
