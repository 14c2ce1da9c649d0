"""Check `tests.conftest.sql_run_below`: a flow run on SQLite only runs no PostgreSQL statement of its own.

Record every test's PostgreSQL statements (the flows marked run on both while recording), then report each marked
flow's statements that no unmarked test runs on PostgreSQL. A statement only a test's own code runs (its
assertions) is left out. Statements are compared with their parameters, numbers and literals taken out.

    LOREKEEPER_SQL_RECORD=/tmp/sql .venv/bin/python -m pytest -k postgres -p tests.helpers.sql_record
    .venv/bin/python -m tests.helpers.sql_record /tmp/sql
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

ROOT = str(Path(__file__).resolve().parents[2]) + os.sep
FOLDER = os.environ.get("LOREKEEPER_SQL_RECORD")
MARK = "_sql_run_below"  # the fixture `sql_run_below` asks for while recording

_PARAM = re.compile(r"\$\d+(?:::[A-Z]+(?: WITH(?:OUT)? TIME ZONE)?(?:\[\])?)?|%\([^)]*\)s|%s")
_now: dict[str, Any] = {"node": None}
_seen: dict[str, set[str]] = defaultdict(set)


def normalised(sql: str) -> str:
    """A statement with its parameters, lists of them, literals, numbers and test schemas taken out."""
    text = _PARAM.sub("?", " ".join(sql.split()))
    text = re.sub(r"\?(, \?)+", "?...", text)
    text = re.sub(r"\(\?\.\.\.\)(, \(\?\.\.\.\))+", "(?...)...", text)
    text = re.sub(r"\blk_(template_)?[0-9a-f]+\b", "SCHEMA", text)
    return re.sub(r"\b\d+\b", "N", re.sub(r"'[^']*'", "'L'", text))


def _frames() -> Iterator[FrameType]:
    """The calling frames, then those of the asyncio task's chain of awaits (SQLAlchemy's greenlets hide them)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        yield frame
        frame = frame.f_back
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return
    chain, coro = [], task.get_coro() if task is not None else None
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            chain.append(frame)
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    yield from reversed(chain)


def _origin() -> str:
    for frame in _frames():
        name = frame.f_code.co_filename
        if name.startswith(ROOT) and f"{os.sep}.venv{os.sep}" not in name:
            return "test" if name.startswith(f"{ROOT}tests{os.sep}") else "program"
    return "program"


def _record(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
    if conn.dialect.name == "postgresql" and _now["node"] is not None:
        _seen[_now["node"]].add(f"{_origin()}|{normalised(statement)}")


def pytest_configure(config: pytest.Config) -> None:
    if FOLDER:
        event.listen(Engine, "before_cursor_execute", _record)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _now["node"] = f"{item.nodeid}{' marked' if MARK in getattr(item, 'fixturenames', ()) else ''}"
    try:
        return (yield)
    finally:
        _now["node"] = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not FOLDER:
        return
    Path(FOLDER).mkdir(parents=True, exist_ok=True)
    with (Path(FOLDER) / f"{os.getpid()}.jsonl").open("w") as out:
        for node, statements in _seen.items():
            out.write(json.dumps({"node": node, "sql": sorted(statements)}) + "\n")


def report(folder: Path) -> int:
    """Print each marked flow's statements no unmarked test runs on PostgreSQL; return how many flows have some."""
    runs: dict[str, set[str]] = defaultdict(set)
    for path in folder.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            runs[row["node"]] |= set(row["sql"])
    kept = {s.split("|", 1)[1] for node, sql in runs.items() if not node.endswith(" marked") for s in sql}
    failing = 0
    for node, sql in sorted(runs.items()):
        if not node.endswith(" marked"):
            continue
        own = sorted({s.split("|", 1)[1] for s in sql if s.startswith("program|")} - kept)
        print(f"{len(own):3} {node.removesuffix(' marked')}")
        for statement in own:
            print(f"      {statement[:200]}")
        failing += bool(own)
    return failing


if __name__ == "__main__":
    sys.exit(1 if report(Path(sys.argv[1])) else 0)
