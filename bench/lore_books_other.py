"""The short answers of `/lore` over books of another game than the SRD: a folder of books, its questions, one line.

The answer step was tuned on the SRD's layout; this bench asks it about books laid out otherwise (price lists with
dotted leaders, stat lines joined by slashes, definition lists, tables printed to PDF, a setting chapter). Each set
is a folder of books imported as Reference into a campaign of its own and a JSONL of questions asked as a player:
`{id, question, answers}`, `answers` a list of acceptable answers, each a short string or a list of strings that
must all be held (case ignored; a bare number only as a whole number, never a citation's), `[]` for a question
the books cannot answer; an answer starting "yes" or "no" is a verdict: the reply must start with it.

Sets:
- `saltglass_md`, `saltglass_pdf` and `saltglass_html`: "Saltglass", a small game written by a GM who had not seen
  this code (`bench/data/saltglass/books/`: core rules and a setting chapter in Markdown, the gear and bestiary
  chapter in Markdown, as the PDF a browser printed of it, or as HTML), with the questions that GM
  asked as a player and more in their forms (`bench/data/lore_saltglass.jsonl`). Tuning material: `--misses`
  prints their wrong answers.
- `lanternwake`: "Lanternwake", another small game, written by an outsider who saw neither this code nor Saltglass,
  in other layouts again (`bench/data/lanternwake/books/`: core rules as HTML with definition lists and a weapons
  table, a bestiary in Markdown with stat lines joined by dots, a gear catalogue as the PDF a browser printed, a
  chapter of rites whose costs are said in sentences, a setting chapter in HTML), with its 60 questions (45
  answerable, 15 not; `bench/data/lore_lanternwake.jsonl`), written before any answer was read. Untouched: only
  its figures are printed, never its misses.
- `dustwire_tuning` and `dustwire_untouched`: "Dustwire", a third game in layouts unlike the other two and the SRD's
  (`bench/data/dustwire/books/`: core rules in Markdown under numbered headings ("2.3 Ante") with a boxed note,
  a glossary page in plain text ("BITE. A die that shows a 7 or an 8."), a bestiary whose stat lines are
  abbreviations joined by bars ("BRN 2 | QCK 4 | HSK 8"), an outfitter's catalogue printed to a two-column PDF by a
  browser from `bench/data/dustwire/source/` (tables with units in their headers, a price list, a sidebar), a
  gazetteer in HTML with asides), with 100 questions in the players' words, jargon and plain words for the same
  thing (75 answerable, 25 not; `bench/data/lore_dustwire.jsonl`). They were split in two halves by a hash of each
  id before any answer was read: the tuning half prints its misses under `--misses`, the untouched half never does.
- `mossbell_tuning` and `mossbell_untouched`: "Mossbell", a fourth game written to check that what was fixed on
  Dustwire was not fitted to it (`bench/data/mossbell/books/`: a plain-text handbook laid out like
  reStructuredText, with underlined headings, indented definition lists, a field list (":Breath: Wade + Heart + 4")
  and a table aligned by spaces; an almanac printed to a three-column PDF by a browser from
  `bench/data/mossbell/source/`, with run-in item names and their price in brackets, a weapons table, beasts whose
  stats are a one-row table under their heading, run-in "Weakness." heads and boxed asides), with 46 questions
  (37 answerable, 9 not; `bench/data/lore_mossbell.jsonl`) written before anything was run on the books, split in
  halves by a hash of each id like Dustwire's.
- `--extra NAME=DIR` (repeatable): another game's books (`DIR/books/`) and questions (`DIR/questions.jsonl`).
  An extra set is untouched: only its figures are printed, never its misses.

Each line holds the share of answers holding their fact, of unanswerable questions answered "nothing known", of
answerable ones wrongly answered "nothing known", and the answer latency (wall clock and the process's CPU time),
p50 and p95.

    .venv/bin/python -m bench.lore_books_other [--work DIR] [--only saltglass_md,...] [--misses] [--extra N=DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.lore_answers import answer_digest_line, holds, percentile
from bench.lore_quality import open_corpus
from canon import offload
from canon.models import Viewer
from memory.embedding import MiniLMEmbedder
from memory.knowledge.answer_models import ShortAnswer

DATA = Path(__file__).resolve().parent / "data"
SALTGLASS = DATA / "saltglass" / "books"
SALTGLASS_QUESTIONS = DATA / "lore_saltglass.jsonl"
LANTERNWAKE = DATA / "lanternwake" / "books"
LANTERNWAKE_QUESTIONS = DATA / "lore_lanternwake.jsonl"
DUSTWIRE = DATA / "dustwire" / "books"
DUSTWIRE_QUESTIONS = DATA / "lore_dustwire.jsonl"
MOSSBELL = DATA / "mossbell" / "books"
MOSSBELL_QUESTIONS = DATA / "lore_mossbell.jsonl"
VERDICTS = ("yes", "no")


def saltglass_books(form: str = ".md") -> list[Path]:
    """Return Saltglass's books: every Markdown book, the gear and bestiary chapter in `form` (".md", ".pdf" as a
    browser printed it, ".html" as it was published) standing in for its Markdown twin."""
    books = sorted(p for p in SALTGLASS.iterdir() if p.suffix in (".md", ".pdf", ".html"))
    twins = {p.stem for p in books if p.suffix != ".md"}
    return [p for p in books if p.suffix == form or (p.suffix == ".md" and p.stem not in twins)]


def folder_books(folder: Path) -> list[Path]:
    """Return the files of a folder of books, in name order."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def read_questions(path: Path) -> list[dict[str, Any]]:
    """Return a set's questions (`{id, question, answers}`)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def tuning_half(question_id: str) -> bool:
    """Return whether a question falls in its set's tuning half (the first byte of its id's SHA-256 is even)."""
    return hashlib.sha256(question_id.encode("utf-8")).digest()[0] % 2 == 0


def accepted(text: str, answer: str | Sequence[str]) -> bool:
    """Return whether a reply holds one acceptable answer (a string, or strings all held; a verdict first)."""
    parts = [answer] if isinstance(answer, str) else list(answer)
    if parts and parts[0].strip().casefold() in VERDICTS:
        if not re.match(rf"{parts[0].strip()}\b", text.strip(), re.IGNORECASE):
            return False
        parts = parts[1:]
    return holds(text, parts) if parts else True


class Tally:
    """The counts of the answer step on one set."""

    def __init__(self) -> None:
        self.answerable = self.unanswerable = self.right = 0
        self.unknown_right = self.unknown_wrong = 0
        self.timings: list[float] = []
        self.cpu: list[float] = []
        self.misses: list[dict[str, Any]] = []
        self.digest = hashlib.sha256()

    def add(self, q: dict[str, Any], reply: ShortAnswer, ms: float, cpu_ms: float) -> None:
        self.timings.append(ms)
        self.cpu.append(cpu_ms)
        self.digest.update(answer_digest_line(reply))
        answers = q["answers"]
        if not answers:
            self.unanswerable += 1
            self.unknown_right += not reply.known
            if reply.known:
                self.misses.append({"id": q["id"], "q": q["question"], "answer": reply.text})
            return
        self.answerable += 1
        self.unknown_wrong += not reply.known
        ok = reply.known and any(accepted(reply.text, a) for a in answers)
        self.right += ok
        if not ok:
            self.misses.append({"id": q["id"], "q": q["question"], "want": answers, "answer": reply.text})

    def report(self) -> dict[str, Any]:
        return {
            "fact_in_answer": round(self.right / (self.answerable or 1), 3),
            "nothing_known_when_unanswerable": round(self.unknown_right / (self.unanswerable or 1), 3),
            "nothing_known_when_answerable": round(self.unknown_wrong / (self.answerable or 1), 3),
            "latency_ms_p50": round(percentile(self.timings, 0.5), 1),
            "latency_ms_p95": round(percentile(self.timings, 0.95), 1),
            "cpu_ms_p50": round(percentile(self.cpu, 0.5), 1),
            "cpu_ms_p95": round(percentile(self.cpu, 0.95), 1),
        }


async def run_set(
    name: str, books: list[Path], questions: list[dict[str, Any]], work: Path, embedder: MiniLMEmbedder
) -> tuple[dict[str, Any], Tally]:
    """Import a set's books (or reuse their import in `work`), ask its questions; return its line and tally."""
    service, db, campaign_id, seconds = await open_corpus(
        work / name, name, [(p, p.name) for p in books], embedder
    )
    try:
        await service.ask(campaign_id, "warm up", viewer=Viewer.PLAYER, record=False)
        gc.collect()
        gc.freeze()  # as the bot does once started (`bot.client.client.freeze_startup_heap`)
        tally = Tally()
        for q in questions:
            started, cpu = time.perf_counter(), time.process_time()
            answer = await service.ask(campaign_id, q["question"], viewer=Viewer.PLAYER, record=False)
            assert answer.reply is not None, "a question asked without a language model has its short answer"
            tally.add(
                q, answer.reply, (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
            )
    finally:
        await db.dispose()
    report = {
        "bench": "lore_books_other",
        "set": name,
        "books": len(books),
        "answerable": tally.answerable,
        "unanswerable": tally.unanswerable,
        "now": tally.report(),
        "import_s": seconds,
        "digest": tally.digest.hexdigest()[:16],
    }
    return report, tally


Half = bool | None  # a set's half of its questions file: True tuning, False untouched, None all of it


def sets_of(extra: Sequence[str]) -> dict[str, tuple[list[Path], Path, bool, Half]]:
    """Return every set: its books, its questions' file, whether its misses may be read, which half it asks."""
    sets: dict[str, tuple[list[Path], Path, bool, Half]] = {
        "saltglass_md": (saltglass_books(".md"), SALTGLASS_QUESTIONS, True, None),
        "saltglass_pdf": (saltglass_books(".pdf"), SALTGLASS_QUESTIONS, True, None),
        "saltglass_html": (saltglass_books(".html"), SALTGLASS_QUESTIONS, True, None),
        "lanternwake": (folder_books(LANTERNWAKE), LANTERNWAKE_QUESTIONS, False, None),
        "dustwire_tuning": (folder_books(DUSTWIRE), DUSTWIRE_QUESTIONS, True, True),
        "dustwire_untouched": (folder_books(DUSTWIRE), DUSTWIRE_QUESTIONS, False, False),
        "mossbell_tuning": (folder_books(MOSSBELL), MOSSBELL_QUESTIONS, True, True),
        "mossbell_untouched": (folder_books(MOSSBELL), MOSSBELL_QUESTIONS, False, False),
    }
    for spec in extra:
        name, _, folder = spec.partition("=")
        root = Path(folder)
        if not name or not (root / "books").is_dir() or not (root / "questions.jsonl").is_file():
            print(json.dumps({"skipped": name or spec, "why": "no books/ or questions.jsonl"}), flush=True)
            continue
        sets[name] = (folder_books(root / "books"), root / "questions.jsonl", False, None)
    return sets


async def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=None, help="keep (and reuse) each set's import here")
    parser.add_argument("--misses", action="store_true", help="print the tuning sets' wrong answers (stderr)")
    parser.add_argument("--only", default=None, help="run some sets, comma-separated")
    parser.add_argument(
        "--extra",
        action="append",
        default=[],
        help="NAME=DIR: an untouched set (DIR/books, DIR/questions.jsonl)",
    )
    args = parser.parse_args(argv)
    temporary = tempfile.TemporaryDirectory() if args.work is None else None
    work = Path(temporary.name) if temporary else args.work
    embedder = MiniLMEmbedder()
    reports: list[dict[str, Any]] = []
    try:
        for name, (books, path, readable, half) in sets_of(args.extra).items():
            if args.only and name not in args.only.split(","):
                continue
            questions = read_questions(path)
            if half is not None:
                questions = [q for q in questions if tuning_half(q["id"]) == half]
            report, tally = await run_set(name, books, questions, work, embedder)
            reports.append(report)
            print(json.dumps(report, ensure_ascii=False), flush=True)
            if args.misses and readable:
                for miss in tally.misses:
                    print(json.dumps({"set": name, **miss}, ensure_ascii=False), file=sys.stderr)
    finally:
        offload.shutdown()
        if temporary is not None:
            temporary.cleanup()
    return reports


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
