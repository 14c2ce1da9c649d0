"""Structured lore (YAML) speed: a typical file of each kind, the SRD bestiary, and a 10,000-person family tree.

Prints one JSON line. For each file: `load_ms` (read and validate, the strict loader alone) and `ingest_ms`
(the whole import into a fresh SQLite campaign: validation, entities, statements, evidence, the continuity
checks on the new facts and the conflicts they record). Goals (issue 5): under 50 ms per typical file
(~100 entries), under 2 s for the 10,000-person tree, anachronism check included. `*_cpu*` figures are the
process's CPU time (all threads) for the same work: wall time suffers on a busy machine (see `load_average`),
and `reference_loop_cpu_ms` (a fixed pure-Python loop) tells how slow the machine was while it ran.

    .venv/bin/python -m bench.yaml_ingest [--people 10000] [--generations 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.yaml_data import TYPICAL, family_tree_text, timeline_text
from bot import database
from bot.structured_import import StructuredImportService
from canon import campaigns
from canon.storage import Database
from canon.structured import load_lore_file

PLANTED = 3  # anachronisms planted in the generated family tree
SRD_BESTIARY = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "srd" / "world" / "bestiary.yaml"


def load_ms(data: bytes, name: str, repeat: int) -> dict[str, float]:
    """Return the best wall and CPU times of `repeat` strict loads, in milliseconds."""
    best = best_cpu = float("inf")
    for _ in range(repeat):
        cpu = time.process_time()
        started = time.perf_counter()
        result = load_lore_file(data, name)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        assert result.ok, result.problems[:3]
    return {"load_ms": round(best * 1000, 1), "load_cpu_ms": round(best_cpu * 1000, 1)}


async def fresh(tmp: Path, name: str) -> tuple[Database, campaigns.Campaign, StructuredImportService]:
    db = Database.from_url(f"sqlite+aiosqlite:///{tmp}/{name}.sqlite3")
    await database.upgrade(db)
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))
    return db, campaign, StructuredImportService(db)


async def typical(tmp: Path, repeat: int) -> dict[str, Any]:
    """Time each kind's typical file: loading alone, then importing it (after the timeline it dates from)."""
    found: dict[str, Any] = {}
    for kind, make in TYPICAL.items():
        data = make().encode()
        entry: dict[str, Any] = {"bytes": len(data), "entries": len(load_lore_file(data, kind).entries)}
        entry |= load_ms(data, f"{kind}.yaml", repeat)
        best = best_cpu = float("inf")
        for attempt in range(repeat):
            db, campaign, importer = await fresh(tmp, f"{kind}{attempt}")
            if kind != "timeline":
                await importer.import_files(campaign, [("timeline.yaml", timeline_text().encode())])
            cpu = time.process_time()
            started = time.perf_counter()
            report = await importer.import_files(campaign, [(f"{kind}.yaml", data)])
            best = min(best, time.perf_counter() - started)
            best_cpu = min(best_cpu, time.process_time() - cpu)
            assert report.status == "ingested", report.summary()
            await db.dispose()
        entry["ingest_ms"] = round(best * 1000, 1)
        entry["ingest_cpu_ms"] = round(best_cpu * 1000, 1)
        found[kind] = entry
    return found


async def bestiary(tmp: Path, repeat: int) -> dict[str, Any] | None:
    """Time the SRD bestiary (334 creatures, read in place)."""
    if not SRD_BESTIARY.exists():
        return None
    data = SRD_BESTIARY.read_bytes()
    db, campaign, importer = await fresh(tmp, "srd")
    cpu = time.process_time()
    started = time.perf_counter()
    report = await importer.import_files(campaign, [("bestiary.yaml", data)])
    ingest_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu
    assert report.status == "ingested" and report.counts == {"Creature": 334}, report.summary()
    started = time.perf_counter()
    again = await importer.import_files(campaign, [("bestiary.yaml", data)])
    unchanged_s = time.perf_counter() - started
    assert again.status == "unchanged"
    await db.dispose()
    return {
        "creatures": 334,
        "bytes": len(data),
        **load_ms(data, "bestiary.yaml", repeat),
        "ingest_ms": round(ingest_s * 1000, 1),
        "ingest_cpu_ms": round(cpu_s * 1000, 1),
        "unchanged_ms": round(unchanged_s * 1000, 1),
    }


async def family_tree(tmp: Path, people: int, generations: int) -> dict[str, Any]:
    """Time a generated family tree with three planted anachronisms: load, import (checks included), re-import.

    The import must find exactly the planted anachronisms (one `born_before_parent` each) and nothing else.
    """
    data = family_tree_text(people, generations, anachronisms=PLANTED).encode()
    db, campaign, importer = await fresh(tmp, "tree")
    await importer.import_files(campaign, [("timeline.yaml", timeline_text().encode())])
    load_cpu = time.process_time()
    started = time.perf_counter()
    result = load_lore_file(data, "family_tree.yaml")
    loaded = time.perf_counter() - started
    load_cpu = time.process_time() - load_cpu
    assert result.ok and len(result.entries) == people + 1
    cpu = time.process_time()
    started = time.perf_counter()
    report = await importer.import_files(campaign, [("family_tree.yaml", data)])
    ingest_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu
    assert report.status == "ingested", report.summary()
    anachronisms = sum(1 for w in report.warnings if w.kind == "born_before_parent")
    assert anachronisms == PLANTED == len(report.warnings), [w.message for w in report.warnings]
    started = time.perf_counter()
    unchanged = await importer.import_files(campaign, [("family_tree.yaml", data)])
    unchanged_s = time.perf_counter() - started
    assert unchanged.status == "unchanged"
    changed = data.replace(b"description: Member 30 of", b"description: The thirtieth member of", 1)
    started = time.perf_counter()
    one = await importer.import_files(campaign, [("family_tree.yaml", changed)])
    changed_s = time.perf_counter() - started
    assert one.status == "ingested" and one.statements.changed == 1, one.summary()
    await db.dispose()
    return {
        "people": people,
        "generations": generations,
        "bytes": len(data),
        "entities": report.entities.created,
        "statements": report.statements.created,
        "load_s": round(loaded, 3),
        "load_cpu_s": round(load_cpu, 3),
        "ingest_s": round(ingest_s, 3),
        "cpu_s": round(cpu_s, 3),
        "anachronisms_planted": PLANTED,
        "anachronisms_found": anachronisms,
        "warnings": len(report.warnings),
        "unchanged_s": round(unchanged_s, 3),
        "one_change_s": round(changed_s, 3),
    }


def reference_ms() -> float:
    """Return the CPU time of a fixed pure-Python loop (best of three), to tell a slow machine from slow code.

    The figures above scale with it: on a busy machine a process's CPU time grows too (shared caches and
    cores), so comparing runs means comparing their figures divided by this one.
    """
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.process_time() - started)
    return round(best * 1000, 1)


async def main(people: int, generations: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        before = reference_ms()
        result = {
            "benchmark": "yaml_ingest",
            "typical_files": await typical(tmp, repeat),
            "srd_bestiary": await bestiary(tmp, repeat),
            "family_tree": await family_tree(tmp, people, generations),
        }
        return result | {
            "reference_loop_cpu_ms": min(before, reference_ms()),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.people, args.generations, args.repeat))))
