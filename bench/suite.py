"""What makes the test suite fast, each measured against what it replaced in the same run, one JSON line.

* database: a migrated, empty database for one test and its removal; the migrations run for each test (as
  the suite did) against a copy of what they made once (`tests/helpers/db_templates.py`), on SQLite and, when
  LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL (a new schema replayed, then an emptied one reused);
* start: a process importing the services, with no bytecode caches (every module compiled from source, as
  where writing caches is off and nothing was compiled at setup) against the caches `scripts/setup` writes;
* cli: a command-line screen (`lorekeeper --help`) as a subprocess against typer's CliRunner in process;
* collection: pytest collecting the suite in one process, with no caches at all (a worker's first run)
  against warm ones (its assert rewriting and bytecode kept);
* workers (`--workers PATH...`): the given tests in one process (`-n 0`) against one worker per core.

The pairs alternate (A, B, A, B, ...) so that a change in the machine's load falls on both; each figure is a
median. The load averages at the start and the end go with them.

    .venv/bin/python -m bench.suite [--rounds 5] [--workers tests/canon]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text
from typer.testing import CliRunner

from bot.cli.main import app
from bot.schema import database
from canon.storage import Database, create_engine
from tests.helpers.db_templates import Templates

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_URL = os.environ.get("LOREKEEPER_TEST_POSTGRES_URL")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run a process to its end; return its wall and CPU seconds."""
    cpu, began = children_cpu(), time.perf_counter()
    subprocess.run(args, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - began, children_cpu() - cpu


def median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


async def timed(work: Callable[[], Awaitable[None]]) -> float:
    began = time.perf_counter()
    await work()
    return time.perf_counter() - began


async def database_figures(rounds: int) -> dict[str, Any]:
    templates = Templates()
    folder = Path(tempfile.mkdtemp(prefix="bench-suite-"))

    async def sqlite_migrated() -> None:
        db = Database.from_url(f"sqlite+aiosqlite:///{folder / f'{uuid.uuid4().hex}.sqlite3'}")
        await database.upgrade(db)
        await db.dispose()

    async def sqlite_copied() -> None:
        await templates.copy_sqlite(folder / f"{uuid.uuid4().hex}.sqlite3")

    async def postgres_migrated() -> None:
        assert POSTGRES_URL
        schema = f"lk_bench_{uuid.uuid4().hex[:12]}"
        admin = create_engine(POSTGRES_URL)
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        db = Database.from_url(POSTGRES_URL, search_path=schema)
        await database.upgrade(db)
        await db.dispose()
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()

    async def postgres_copied() -> None:
        assert POSTGRES_URL
        schema = await templates.create_postgres(POSTGRES_URL)
        await templates.drop_postgres(POSTGRES_URL, schema)

    pairs = [("sqlite", sqlite_migrated, sqlite_copied)]
    if POSTGRES_URL:
        pairs.append(("postgres", postgres_migrated, postgres_copied))
    figures: dict[str, Any] = {}
    try:
        for kind, migrated, copied in pairs:
            await copied()  # the template itself is made once per process: not what a test pays
            before, after = [], []
            for _ in range(rounds):
                before.append(await timed(migrated))
                after.append(await timed(copied))
            figures[f"{kind}_migrated_ms"] = median_ms(before)
            figures[f"{kind}_copied_ms"] = median_ms(after)
    finally:
        await templates.drop_all()
    return figures


def start_figures(rounds: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    args = [sys.executable, "-c", "import bot.app, bot.cli.main"]
    cold_cpu, warm_cpu, cold_wall, warm_wall = [], [], [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as empty:  # caches looked for there: none found, none written
            wall, cpu = run_process(args, {**env, "PYTHONPYCACHEPREFIX": empty})
        cold_wall.append(wall)
        cold_cpu.append(cpu)
        wall, cpu = run_process(args, env)
        warm_wall.append(wall)
        warm_cpu.append(cpu)
    return {
        "start_uncached_cpu_s": round(statistics.median(cold_cpu), 2),
        "start_cached_cpu_s": round(statistics.median(warm_cpu), 2),
        "start_uncached_ms": median_ms(cold_wall),
        "start_cached_ms": median_ms(warm_wall),
    }


def cli_figures(rounds: int) -> dict[str, Any]:
    script = Path(sys.executable).with_name("lorekeeper")
    process, in_process = [], []
    for _ in range(rounds):
        wall, _cpu = run_process([str(script), "--help"], dict(os.environ))
        process.append(wall)
        began = time.perf_counter()
        with tempfile.TemporaryDirectory() as workdir, contextlib.chdir(workdir):
            assert CliRunner().invoke(app, ["--help"]).exit_code == 0
        in_process.append(time.perf_counter() - began)
    return {"cli_subprocess_ms": median_ms(process), "cli_in_process_ms": median_ms(in_process)}


def collection_figures(rounds: int) -> dict[str, Any]:
    args = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"]
    cold, warm = [], []
    run_process(args, dict(os.environ))  # the warm caches, written once
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as empty:
            cold.append(run_process(args, {**os.environ, "PYTHONPYCACHEPREFIX": empty})[1])
        warm.append(run_process(args, dict(os.environ))[1])
    return {
        "collection_cold_cpu_s": round(statistics.median(cold), 2),
        "collection_warm_cpu_s": round(statistics.median(warm), 2),
    }


def worker_figures(paths: list[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {"workers_tests": paths}
    for name, workers in (("one_process", "0"), ("per_core", "auto")):
        args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, *paths]
        wall, cpu = run_process(args, dict(os.environ))
        figures[f"workers_{name}_s"] = round(wall, 1)
        figures[f"workers_{name}_cpu_s"] = round(cpu, 1)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="pairs of each measurement")
    parser.add_argument("--workers", nargs="*", default=[], help="tests to run in one process and per core")
    options = parser.parse_args()
    load_before = os.getloadavg()
    figures: dict[str, Any] = {"bench": "suite", "cores": os.cpu_count(), "postgres": bool(POSTGRES_URL)}
    figures.update(asyncio.run(database_figures(max(options.rounds, 8))))
    figures.update(start_figures(options.rounds))
    figures.update(cli_figures(options.rounds))
    figures.update(collection_figures(max(1, options.rounds // 2)))
    if options.workers:
        figures.update(worker_figures(options.workers))
    figures["load_before"] = [round(x, 2) for x in load_before]
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
