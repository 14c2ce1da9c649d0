"""SQLite bulk inserts (`canon.graph.bulk_insert`): numbers and NULLs the same in every row are written as literals.

What is stored must be exactly what binding each value would store: the same values, the same SQLite types.
Text is always bound, never spliced into the statement.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Boolean, Column, Float, Integer, MetaData, String, Table, event, text
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from canon.graph import bulk_insert

metadata = MetaData()
things = Table(
    "things",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(50), nullable=True),
    Column("count", Integer, nullable=True),
    Column("ratio", Float, nullable=True),
    Column("flag", Boolean, nullable=True),
    Column("note", String(50), nullable=True),
)


async def _stored(
    tmp_path: Path, rows: list[dict[str, Any]], statements: list[str] | None = None
) -> list[tuple[Any, ...]]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/bulk.sqlite3")
    if statements is not None:

        @event.listens_for(engine.sync_engine, "before_cursor_execute")
        def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            statements.append(statement)

    try:
        async with engine.begin() as connection:
            await connection.run_sync(metadata.create_all)
        async with AsyncSession(engine) as session, session.begin():
            await bulk_insert(session, things, rows)
        async with AsyncSession(engine) as session:
            query = text(
                "SELECT name, typeof(name), count, typeof(count), ratio, typeof(ratio), flag, typeof(flag), "
                "note, typeof(note) FROM things ORDER BY id"
            )
            return [tuple(row) for row in (await session.execute(query)).all()]
    finally:
        await engine.dispose()


@pytest.mark.parametrize(
    "name",
    ['it\'s "quoted"', "", "ünïcödé – ✓", "semi; DROP TABLE things; --", "a\x00b"],
)
async def test_a_constant_text_is_stored_as_bound(tmp_path: Path, name: str) -> None:
    rows = [{"name": name, "count": i, "ratio": 0.5, "flag": True, "note": None} for i in range(3)]
    statements: list[str] = []
    stored = await _stored(tmp_path, rows, statements)
    inserts = [s for s in statements if s.startswith("INSERT INTO things")]
    assert len(inserts) == 1 and "0.5" in inserts[0]  # the constant number is a literal ...
    assert inserts[0].count("?") == 2 and (not name or name not in inserts[0])  # ... name and count are bound
    assert stored == [(name, "text", i, "integer", 0.5, "real", 1, "integer", None, "null") for i in range(3)]


@pytest.mark.parametrize("value", [0, -(2**63), 2**63 - 1, 1.0, 1e-300, -2.5, math.inf])
async def test_constant_numbers_keep_their_value_and_type(tmp_path: Path, value: float) -> None:
    rows = [
        {"name": f"n{i}", "count": value if isinstance(value, int) else i, "ratio": value} for i in range(4)
    ]
    stored = await _stored(tmp_path, [row | {"flag": False, "note": "x"} for row in rows])
    for i, row in enumerate(stored):
        assert row[2:4] == ((value, "integer") if isinstance(value, int) else (i, "integer"))
        assert row[4] == float(value) and row[5] == "real"
        assert row[6:] == (0, "integer", "x", "text")


async def test_equal_values_of_different_types_are_each_bound(tmp_path: Path) -> None:
    # 1, 1.0 and True are equal in Python but not the same value to store: nothing is taken as constant.
    rows = [{"name": "a", "count": 1, "ratio": 1, "flag": True, "note": "same"} for _ in range(2)]
    rows.append({"name": "a", "count": True, "ratio": 1.0, "flag": 1, "note": "same"})
    stored = await _stored(tmp_path, rows)
    assert [row[2:6] for row in stored] == [(1, "integer", 1.0, "real")] * 3
    assert {row[8] for row in stored} == {"same"}


async def test_a_single_row(tmp_path: Path) -> None:
    one = await _stored(tmp_path, [{"name": "solo", "count": 7, "ratio": None, "flag": None, "note": None}])
    assert one == [("solo", "text", 7, "integer", None, "null", None, "null", None, "null")]


async def test_varying_columns_beside_constant_ones(tmp_path: Path) -> None:
    rows = [{"name": f"r{i}", "count": i, "ratio": i / 2, "flag": i % 2 == 0, "note": None} for i in range(5)]
    stored = await _stored(tmp_path, rows)
    assert stored == [
        (f"r{i}", "text", i, "integer", i / 2, "real", int(i % 2 == 0), "integer", None, "null")
        for i in range(5)
    ]
