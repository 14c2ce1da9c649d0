"""A PDF rulebook end to end (the real client, the emulator, a real database and Chroma): attached to `/lore import`
by the GM, then a player's `/lore ask` answered from it, the answer and its Sources citing the page it is on."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything, with_sources
from tests.helpers.paths import REPO
from tests.helpers.scans import needs_tesseract, scanned_book

pytestmark = sql_run_below("tests/bot/cli/test_lore.py", "tests/memory/test_chroma_server.py")

PDF = REPO / "tests" / "fixtures" / "books" / "basic-rules.pdf"


async def test_a_pdf_attached_to_lore_import_is_cited_by_page_in_a_players_answer(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    attachment = emu.make_attachment("basic-rules.pdf", PDF.read_bytes(), content_type="application/pdf")
    # A first book starts the reader's worker process: on a loaded machine that takes seconds.
    imported = await emu.invoke(chan, gm, "lore import", file=attachment, timeout=90)
    text = everything(imported.message)
    assert "Imported: basic-rules.pdf" in text, text

    asked = await emu.invoke(chan, pat, "lore ask", question="What does three-quarters cover give a target?")
    answer = everything(asked.message)
    assert "+5 bonus to AC" in answer, answer
    seen = await with_sources(world, asked, pat)
    assert "Basic Rules, p. 6 (Combat › Cover)" in seen, seen


@needs_tesseract
@pytest.mark.sqlite_only(
    reason="OCR is no SQL: an OCR'd import's rows are written and read on both databases by "
    "tests/memory/knowledge/test_books_ocr.py, and a book through /lore import by the test above"
)
async def test_a_scanned_pdf_is_refused_plainly_then_read_by_ocr_when_the_gm_asks(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    scan = scanned_book()
    refused = await emu.invoke(
        chan,
        gm,
        "lore import",
        file=emu.make_attachment("scan.pdf", scan, content_type="application/pdf"),
        timeout=90,
    )
    said = everything(refused.message)
    assert "scan.pdf has no text: it looks scanned" in said and "OCR turned on" in said, said

    again = emu.make_attachment("scan.pdf", scan, content_type="application/pdf")
    imported = await emu.invoke(chan, gm, "lore import", file=again, ocr=True, timeout=180)
    text = everything(imported.message)
    assert "Imported: scan.pdf" in text and "were read by OCR" in text, text

    asked = await emu.invoke(chan, pat, "lore ask", question="How long is a long rest?")
    seen = await with_sources(world, asked, pat)
    assert "Combat, pp. 1–2 (Resting)" in seen, seen
