"""Writing rows in bulk: many rows in one statement, with or without their new ids.

PostgreSQL takes a Core `insert` with many parameter sets (asyncpg's executemany is fast, and it returns ids
in parameter order). On SQLite, SQLAlchemy's per-row statement handling costs more than SQLite's own insert,
so rows go straight to the driver's `executemany`, with each column's bind processing done here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from operator import is_, itemgetter
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession


async def insert_returning_ids(
    session: AsyncSession, table: Any, rows: Sequence[Any], *, columns: Sequence[str] | None = None
) -> list[int]:
    """Insert rows in bulk and return their new ids in the order of `rows`.

    Rows are dicts, or tuples of the values of `columns` in that order.

    PostgreSQL batches `RETURNING` sorted by parameter order itself. SQLAlchemy cannot do that on SQLite and
    falls back to one INSERT per row (seconds for 50,000 statements), so on SQLite the ids are allocated
    here, after the largest id, and the rows go through the driver's `executemany` (`bulk_insert`). The
    caller's transaction holds SQLite's write lock from its first write (every write goes through
    `Database.run`, BEGIN IMMEDIATE), so no other writer can take those ids meanwhile; if one somehow
    did, the insert fails on the primary key instead of mixing rows up.
    """
    if not rows:
        return []
    if _is_sqlite(session):
        last = (await session.execute(select(func.max(table.c.id)))).scalar() or 0
        ids = list(range(last + 1, last + 1 + len(rows)))
        await _sqlite_bulk_insert(session, table, rows, {"id": ids}, columns)
        return ids
    dicts = list(rows) if columns is None else [dict(zip(columns, row, strict=True)) for row in rows]
    result = await session.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True), dicts)
    return [row[0] for row in result.all()]


_UNSET = object()


def _is_sqlite(session: AsyncSession) -> bool:
    return session.bind is not None and session.bind.dialect.name == "sqlite"


async def bulk_insert(
    session: AsyncSession, table: Any, rows: Sequence[Any], *, columns: Sequence[str] | None = None
) -> None:
    """Insert rows in bulk (no ids returned); every row must give the same columns.

    Rows are dicts, or tuples of the values of `columns` in that order (no dict per row of a big import).

    On SQLite the rows go straight to the driver's `executemany` with each column's bind processing done
    here (SQLAlchemy's per-row statement handling costs more than SQLite's own insert); columns a row does
    not give take their Python-side default. Elsewhere a plain Core `insert` (asyncpg's executemany is fast).
    """
    if not rows:
        return
    if not _is_sqlite(session):
        dicts = list(rows) if columns is None else [dict(zip(columns, row, strict=True)) for row in rows]
        await session.execute(insert(table), dicts)
        return
    await _sqlite_bulk_insert(session, table, rows, {}, columns)


async def _sqlite_bulk_insert(
    session: AsyncSession,
    table: Any,
    rows: Sequence[Any],
    extra: dict[str, list[Any]],
    columns_of_rows: Sequence[str] | None = None,
) -> None:
    """Insert rows through the driver's `executemany`; `extra` gives whole columns (the ids) beside the rows.

    Rows are dicts, or tuples of the values of `columns_of_rows` in that order (read by position alike).

    Each row is read once, by one `itemgetter` (the rows of a big import do not fit in the CPU's caches, and a
    Python loop per row and column cost more than SQLite's own insert); only the few columns with a bind
    processor (times, JSON, floats) are read again, and processed once per distinct value in a run.
    """
    dialect = session.bind.dialect  # type: ignore[union-attr]
    # Where each given column is read in a row: its name in a dict, its position in a tuple.
    at: dict[str, Any] = (
        {name: name for name in rows[0]}
        if columns_of_rows is None
        else {name: i for i, name in enumerate(columns_of_rows)}
    )
    given = at.keys() | extra.keys()
    columns = [c for c in table.c if c.name in given or (c.default is not None and c.default.is_scalar)]
    missing = [c for c in table.c if c.name not in given and c not in columns and not c.nullable]
    missing = [c for c in missing if not (c.primary_key and c.autoincrement)]
    if missing or any(
        c.default is not None and not c.default.is_scalar and c.name not in given for c in table.c
    ):
        await _insert_with_defaults(session, table, rows, extra, columns_of_rows)
        return
    count = len(rows)
    plain: list[str] = []  # read as they are, by one itemgetter
    later: list[tuple[str, Iterable[Any]]] = []  # processed, default or extra columns, whole
    # Numbers and NULLs that are the same in every row (the campaign, the changeset, confidence, open ends)
    # are written into the statement as literals: SQLite then binds only what varies.
    fixed: list[tuple[str, str]] = []
    for column in columns:
        name = column.name
        processor = column.type._cached_bind_processor(dialect)
        if name in extra:
            later.append((name, extra[name]))
        elif name not in given:
            default = column.default.arg
            value = default if processor is None else processor(default)
            literal = _sql_literal(value) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                later.append((name, itertools.repeat(value, count)))
        elif processor is not None:
            values = _processed(list(map(itemgetter(at[name]), rows)), processor)
            literal = _constant_literal(values) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                later.append((name, values))
        else:
            literal = _constant_literal(rows, at[name]) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                plain.append(name)
    if len(plain) > 1:
        heads: Iterable[tuple[Any, ...]] = map(itemgetter(*(at[name] for name in plain)), rows)
    else:
        heads = [tuple(row[at[name]] for name in plain) for row in rows]
    tails = zip(*(values for _, values in later), strict=True)
    params = list(map(tuple.__add__, heads, tails)) if later else list(heads)
    bound = [*plain, *(n for n, _ in later)]
    quote = dialect.identifier_preparer.quote
    names = ", ".join(quote(name) for name in [*bound, *(n for n, _ in fixed)])
    slots = ", ".join(["?"] * len(bound) + [literal for _, literal in fixed])
    sql = f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) VALUES ({slots})"
    connection = await session.connection()
    await connection.exec_driver_sql(sql, params)


async def _insert_with_defaults(
    session: AsyncSession,
    table: Any,
    rows: Sequence[Any],
    extra: dict[str, list[Any]],
    columns_of_rows: Sequence[str] | None,
) -> None:
    """Insert rows through SQLAlchemy, which applies the callable defaults of the columns they do not give."""
    as_dicts = rows if columns_of_rows is None else [dict(zip(columns_of_rows, r, strict=True)) for r in rows]
    merged = [row | {name: values[i] for name, values in extra.items()} for i, row in enumerate(as_dicts)]
    await session.execute(insert(table), merged)


def _constant_literal(rows: Sequence[Any], name: str | int | None = None) -> str | None:
    """Return the SQL literal of a column whose every row holds the same object (`rows[i][name]`, or
    `rows[i]` without a name), else None. Only the very same object counts (1 and True, 1 and 1.0 differ)."""
    read = itemgetter(name) if name is not None else None
    first = rows[0] if read is None else read(rows[0])
    middle = rows[len(rows) // 2] if read is None else read(rows[len(rows) // 2])
    last = rows[-1] if read is None else read(rows[-1])
    if middle is not first or last is not first:
        return None
    literal = _sql_literal(first)
    if literal is None:
        return None
    values = rows if read is None else map(read, rows)
    return literal if all(map(is_, values, itertools.repeat(first))) else None


_INT64 = range(-(2**63), 2**63)


def _sql_literal(value: Any) -> str | None:
    """Return a number or NULL as an SQLite literal that stores exactly what binding it would, else None."""
    if value is None:
        return "NULL"
    kind = type(value)
    if kind is int:
        return str(value) if value in _INT64 else None
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    # Text is always bound, never spliced: imported names and files must not become part of a statement.
    return None  # text, bytes, bools, anything else: bound as usual


def _processed(values: Sequence[Any], processor: Any) -> list[Any]:
    """Return a column's values bind-processed; runs of one object (the changeset's time, {}) are done once."""
    found: list[Any] = []
    last: object = _UNSET
    done: Any = None
    for value in values:
        if value is not last:
            last = value
            done = None if value is None else processor(value)
        found.append(done)
    return found
