"""Books against Markdown: the SRD world imported as PDF, DOCX, EPUB and HTML beside its Markdown, in one run.

Makes each `world/*.md` file of `../shared/corpora/srd` into a book of each format at bench time
(`bench.book_making`: ReportLab, python-docx, an EPUB zip, an HTML export), imports each format into a fresh
campaign (real SQLite file, real Chroma, the offline embedding model) and the Markdown files into another, and
reports: seconds and pages/s of each import and its ratio to Markdown's (goal ≤ 1.5), recall@5 of `/lore` on the
corpus's questions for each format against Markdown's (goal: within 0.02), the share of the PDF hits whose
citation carries the page the producer put the heading on (the PDF's own bookmarks), and the event loop's
longest stall while one long PDF (the whole world in one book, about 350 pages, whatever `--files` says) is
imported (goal < 100 ms), set up as the bot is (its start-up heap frozen, the model loaded in the background, the
embedded vector index in a process of its own), with the machine's own floor measured alongside and our own part
of each stall told from the machine's (`bench.loop_lag`: `max_own_stall_ms` leaves out the loop's waits for a
core), and the load average at the start and the end. One JSON line.

    .venv/bin/python -m bench.books [--files N] [--questions N] [--corpus DIR] [--long-only]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.book_making import make_docx, make_epub, make_html, make_pdf, parse_markdown
from bench.loop_lag import LoopWatch, machine_floor
from bench.lore_quality import SRD, first_hit
from bot.client.client import freeze_startup_heap
from bot.schema import database
from canon import campaigns, offload
from canon.models import Viewer
from canon.storage import Database
from memory import chroma_apart
from memory.embedding import MiniLMEmbedder
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.vector_index import ChromaVectorIndex

FORMATS = ("md", "pdf", "docx", "epub", "html")
TITLE = "SRD"


def make_books(files: list[Path], out: Path) -> dict[str, int]:
    """Write each Markdown file as a book of every format into out/<format>/; return the PDF pages per file."""
    from pypdf import PdfReader

    pages: dict[str, int] = {}
    for fmt in FORMATS:
        (out / fmt).mkdir(parents=True, exist_ok=True)
    for path in files:
        text = path.read_text(encoding="utf-8")
        sections = parse_markdown(text)
        title = next((s.title for s in sections if s.level == 1), path.stem)
        (out / "md" / path.name).write_text(text, encoding="utf-8")
        pdf = make_pdf(title, sections)
        (out / "pdf" / f"{path.stem}.pdf").write_bytes(pdf)
        pages[path.stem] = len(PdfReader(io.BytesIO(pdf)).pages)
        (out / "docx" / f"{path.stem}.docx").write_bytes(make_docx(title, sections))
        (out / "epub" / f"{path.stem}.epub").write_bytes(make_epub(title, [(title, sections)]))
        (out / "html" / f"{path.stem}.html").write_bytes(make_html(title, sections))
    return pages


def bookmark_pages(pdf: Path) -> dict[str, int]:
    """Return the page (1-based) each bookmarked heading of a PDF is on, as its producer placed it."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    found: dict[str, int] = {}

    def walk(items: list[Any]) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            elif (page := reader.get_destination_page_number(item)) is not None:
                found.setdefault(" ".join(str(item.title).split()).casefold(), page + 1)

    walk(reader.outline)
    return found


def place_pages(place: str | None) -> range:
    """Return the pages a place names ("p. 4" -> 4..4, "pp. 4–6" -> 4..6; empty for none)."""
    if not place or not place.startswith("p"):
        return range(0)
    numbers = place.split(" ", 1)[1].split("–")
    try:
        return range(int(numbers[0]), int(numbers[-1]) + 1)
    except ValueError:
        return range(0)


async def open_world(
    work: Path, name: str, embedder: MiniLMEmbedder
) -> tuple[Database, KnowledgeService, int]:
    work.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a benchmark's setup
    db = Database.from_url(f"sqlite+aiosqlite:///{work / 'lore.sqlite3'}")
    await database.upgrade(db)
    vectors = ChromaVectorIndex(path=work / "chroma")
    service = KnowledgeService(db, data_dir=work, vectors=vectors, embedder=embedder)
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))
    await vectors.count(campaign.id)  # chromadb's start-up is not the import's
    return db, service, campaign.id


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=None, help="only the first N world files (sorted)")
    parser.add_argument("--questions", type=int, default=None, help="only the first N questions")
    parser.add_argument(
        "--corpus", type=Path, default=SRD, help="the SRD corpus (default: ../shared/corpora/srd)"
    )
    parser.add_argument("--long-only", action="store_true", help="only the loop during the long PDF's import")
    args = parser.parse_args(argv)
    srd: Path = args.corpus
    if not (srd / "world").is_dir():
        print(f"SRD corpus not found at {srd}: nothing measured.", file=sys.stderr)
        return {"skipped": "no SRD corpus"}
    files = sorted((srd / "world").glob("*.md"))[: args.files]
    names = {p.name for p in files}
    questions = [
        q
        for q in (
            json.loads(line) for line in (srd / "eval" / "dev.jsonl").read_text().splitlines() if line.strip()
        )
        if q["file"] in names
    ][: args.questions]
    embedder = MiniLMEmbedder()
    await offload.in_background(embedder.load)  # as the bot's warm-up does
    offload.settle()
    result: dict[str, Any] = {"bench": "books", "load_avg_1m": round(os.getloadavg()[0], 2)}
    result.update({"files": len(files), "questions": len(questions)})
    with tempfile.TemporaryDirectory(prefix="lk-books-") as temp:
        root = Path(temp)
        if not args.long_only:
            await _formats(result, files, questions, root, embedder)
        everything = sorted((srd / "world").glob("*.md"))
        result["long_pdf"] = await _long_pdf(everything, root, embedder)
    offload.shutdown()
    result["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result))
    return result


async def _formats(
    result: dict[str, Any],
    files: list[Path],
    questions: list[dict[str, Any]],
    root: Path,
    embedder: MiniLMEmbedder,
) -> None:
    """Import the world as Markdown and as each book format; time, recall@5 and the PDF's right pages."""
    started = time.perf_counter()
    pages = make_books(files, root / "books")
    result["make_books_s"] = round(time.perf_counter() - started, 1)
    result["pdf_pages"] = sum(pages.values())
    for fmt in FORMATS:
        db, service, campaign = await open_world(root / f"world-{fmt}", f"World {fmt}", embedder)
        started = time.perf_counter()
        for path in sorted((root / "books" / fmt).iterdir()):
            await service.import_path(campaign, path, knowledge_class=KnowledgeClass.REFERENCE)
        seconds = time.perf_counter() - started
        ranks = []
        right_page = checked = 0
        marks = {}
        for q in questions:
            stem = Path(q["file"]).stem
            suffix = ".md" if fmt == "md" else f".{fmt}"
            targets = [
                {"file": f"{Path(t['file']).stem}{suffix}", "heading": t["heading"]}
                for t in [q, *q.get("alt", [])]
            ]
            answer = await service.ask(campaign, q["q"], viewer=Viewer.PLAYER, record=False, limit=10)
            rank = first_hit(answer.results, targets)
            ranks.append(rank)
            if fmt == "pdf" and rank is not None:
                if stem not in marks:
                    marks[stem] = bookmark_pages(root / "books" / "pdf" / f"{stem}.pdf")
                truth = marks[stem].get(" ".join(q["heading"].split()).casefold())
                hit = answer.results[rank - 1]
                if truth is not None and hit.filename == f"{stem}.pdf":
                    checked += 1
                    right_page += truth in place_pages(hit.place)
        recall = round(sum(1 for r in ranks if r is not None and r <= 5) / max(1, len(ranks)), 3)
        result[fmt] = {
            "import_s": round(seconds, 1),
            "pages_per_s": round(sum(pages.values()) / seconds, 1),
            "recall@5": recall,
        }
        if fmt == "pdf":
            result["pdf"]["right_page_share"] = round(right_page / max(1, checked), 3)
            result["pdf"]["pages_checked"] = checked
        await db.dispose()
    for fmt in FORMATS[1:]:
        result[fmt]["time_vs_md"] = round(result[fmt]["import_s"] / max(0.001, result["md"]["import_s"]), 2)
        result[fmt]["recall_vs_md"] = round(result[fmt]["recall@5"] - result["md"]["recall@5"], 3)


async def _long_pdf(files: list[Path], root: Path, embedder: MiniLMEmbedder) -> dict[str, Any]:
    """Return the loop's longest stall while one long PDF (every world file in one book) is imported."""
    from pypdf import PdfReader

    sections = [s for path in files for s in parse_markdown(path.read_text(encoding="utf-8"))]
    big = make_pdf(TITLE, sections)
    count = len(PdfReader(io.BytesIO(big)).pages)
    chroma_apart.keep_apart(
        True
    )  # as the bot does (`lorekeeper run`): the embedded index in a process of its own
    db, service, campaign = await open_world(root / "lag", "Lag", embedder)
    freeze_startup_heap()  # as the bot does once connected
    watch = LoopWatch(db, campaign)

    async def one_book() -> None:
        await service.import_bytes(campaign, "srd.pdf", big, knowledge_class=KnowledgeClass.REFERENCE)

    load = round(os.getloadavg()[0], 2)
    lag, machine = await machine_floor(watch.during(one_book))
    await db.dispose()
    return {
        "pages": count,
        "load_avg_1m": load,
        **lag,
        "machine": machine,
        "goal_met_own": lag["max_own_stall_ms"] < 100,
        "goal_met": lag["max_stall_ms"] < 100,
    }


if __name__ == "__main__":
    asyncio.run(main())
