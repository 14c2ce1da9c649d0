"""GM-only sections measured on the SRD world: what players and the GM get, and what the filter costs.

Two campaigns in one run (real SQLite file, real Chroma, the offline MiniLM model), each importing
`../shared/corpora/srd/world/*.md` as Canon: `plain` as the files are, and `marked` with the section a quarter of
the dev questions (`eval/dev.jsonl`, every fourth) ask about marked `(GM only)`. Prints one JSON line:

- `player_recall5_hidden`: of the questions about a marked section, the share whose section a player's top 5
  holds in `marked` (must be 0), beside `plain` (the same questions when nothing is hidden);
- `gm_recall5_hidden`: the GM's, in `marked` against `plain` (the GM loses nothing);
- `player_recall5_public`: the other questions, as a player, `marked` against `plain` (the public part answers as
  before);
- `leaks`: player answers in `marked` holding a passage of a hidden section (must be 0);
- `player_ms`: p50/p95 of a player's `ask` (hybrid, 5 results, not recorded) in `marked` against `plain`, after a
  warm-up pass: the cost of leaving the hidden sections out;
- `import_s`: seconds to import each campaign's files (embedding included).

    .venv/bin/python -m bench.sections
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.lore_quality import SRD, is_hit
from bot.schema import database
from canon import campaigns
from canon.models import Viewer
from canon.storage import Database
from memory.embedding import MiniLMEmbedder
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.vector_index import ChromaVectorIndex


def _marked(text: str, headings: set[str]) -> str:
    """Return a file's text with the (level 2 and deeper) headings named marked GM-only."""

    def mark(match: re.Match[str]) -> str:
        return (
            f"{match.group(1)} {match.group(2)} (GM only)" if match.group(2) in headings else match.group(0)
        )

    return re.sub(r"^(#{2,6})[ \t]+(.+?)[ \t]*$", mark, text, flags=re.MULTILINE)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


async def _campaign(
    service: KnowledgeService, db: Database, name: str, files: dict[str, str]
) -> tuple[int, float]:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))
    started = time.perf_counter()
    for filename, text in files.items():
        await service.import_bytes(campaign.id, filename, text.encode(), knowledge_class=KnowledgeClass.CANON)
    return campaign.id, round(time.perf_counter() - started, 1)


async def _ask(service: KnowledgeService, campaign: int, q: str, viewer: Viewer) -> tuple[Any, float]:
    started = time.perf_counter()
    answer = await service.ask(campaign, q, viewer=viewer, limit=5, record=False)
    return answer, (time.perf_counter() - started) * 1000


async def run(work: Path) -> dict[str, Any]:
    """Build both campaigns, ask every question in each, and return the figures."""
    questions = [json.loads(line) for line in (SRD / "eval" / "dev.jsonl").read_text().splitlines() if line]
    wanted: dict[str, set[str]] = {}
    for q in questions[::4]:
        wanted.setdefault(q["file"], set()).add(q["heading"])
    # A question about a marked section is a hidden one, whichever it is (two may ask about one section).
    hidden_qs = [q for q in questions if q["heading"] in wanted.get(q["file"], set())]
    public_qs = [q for q in questions if q not in hidden_qs]
    plain = {p.name: p.read_text(encoding="utf-8") for p in sorted((SRD / "world").glob("*.md"))}
    marked = {name: _marked(text, wanted.get(name, set())) for name, text in plain.items()}

    db = Database.from_url(f"sqlite+aiosqlite:///{work / 'sections.sqlite3'}")
    await database.upgrade(db)
    service = KnowledgeService(
        db, data_dir=work, vectors=ChromaVectorIndex(path=work / "chroma"), embedder=MiniLMEmbedder()
    )
    ids: dict[str, int] = {}
    imports: dict[str, float] = {}
    for name, files in (("plain", plain), ("marked", marked)):
        ids[name], imports[name] = await _campaign(service, db, name, files)
    sources = await service.list_sources(ids["marked"])
    hidden_chunks = sum(s.hidden_chunks for s in sources)
    secret_ids = {
        c.id
        for s in sources
        if s.hidden_chunks
        for c in await service.chunks(ids["marked"], s.id)
        if c.section_hidden
    }
    for q in questions[:20]:  # warm-up
        for name in ids:
            await _ask(service, ids[name], q["q"], Viewer.PLAYER)

    # The two campaigns are asked in turn, question by question (the first of a pair alternating), so that the
    # load of a shared machine weighs on both alike.
    timings: dict[str, list[float]] = {name: [] for name in ids}
    hits: dict[str, dict[str, list[bool]]] = {name: {"hidden": [], "public": [], "gm": []} for name in ids}
    leaks = 0
    for index, q in enumerate(questions):
        target = [{"file": q["file"], "heading": q["heading"]}]
        order = list(ids) if index % 2 == 0 else list(reversed(ids))
        for name in order:
            answer, ms = await _ask(service, ids[name], q["q"], Viewer.PLAYER)
            timings[name].append(ms)
            hit = any(is_hit(r, target) for r in answer.results[:5])
            hits[name]["hidden" if q in hidden_qs else "public"].append(hit)
            if name == "marked":
                leaks += sum(1 for r in answer.results if r.chunk_id in secret_ids)
            if q in hidden_qs:
                gm, _ = await _ask(service, ids[name], q["q"], Viewer.GM)
                hits[name]["gm"].append(any(is_hit(r, target) for r in gm.results[:5]))

    def recall(found: list[bool]) -> float:
        return round(sum(found) / max(1, len(found)), 3)

    out = {
        "player_ms": {name: {"p50": _p(t, 0.5), "p95": _p(t, 0.95)} for name, t in timings.items()},
        "player_recall5_hidden": {name: recall(h["hidden"]) for name, h in hits.items()},
        "player_recall5_public": {name: recall(h["public"]) for name, h in hits.items()},
        "gm_recall5_hidden": {name: recall(h["gm"]) for name, h in hits.items()},
    }
    await db.dispose()
    return {
        "bench": "sections",
        "questions": {"hidden": len(hidden_qs), "public": len(public_qs)},
        "chunks_hidden": hidden_chunks,
        "chunks": sum(s.chunk_count for s in sources),
        **out,
        "leaks": leaks,
        "import_s": imports,
    }


def main() -> int:
    """Print the JSON line (or say what is missing)."""
    if not (SRD / "world").is_dir():
        print(f"the SRD corpus is not at {SRD} (benchmarks read ../shared in place)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lk-sections-") as work:
        print(json.dumps(asyncio.run(run(Path(work)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
