"""A deferred `CanonWriter`'s statement queue: the bulk queueing of an import's rows and their `flush`.

Module-level functions over the writer's queue (`canon.graph.writer` delegates to them): rows are queued as
dicts or as tuples in `STATEMENT_COLUMNS` order, then written in a few bulk inserts (`canon.graph.bulk`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon.graph.bulk import bulk_insert, insert_returning_ids
from canon.graph.rows import VALIDITY_COLUMNS
from canon.models import Authority, Evidence, StatementKind, Validity, Visibility
from canon.tables import DependencyRow, EvidenceRow, StatementRow

# A statement row's columns in the order `_statement_values` gives them, then `replaces_id` (tuple rows).
STATEMENT_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    *VALIDITY_COLUMNS,  # as `validity_columns` gives them
    "via",
    "authority",
    "confidence",
    "kind",
    "subject_id",
    "predicate",
    "object_id",
    "value",
    "visibility",
    "replaces_id",
)
# What a queued statement without evidence or dependencies carries (never changed).
NO_EVIDENCE: list[Evidence] = []
NO_DEPENDENCIES: list[tuple[str, int]] = []

# Each queued statement's row (a dict, or a tuple in `STATEMENT_COLUMNS` order), evidence, dependencies.
Pending = list[tuple[dict[str, Any] | tuple[Any, ...], list[Evidence], list[tuple[str, int]]]]
# The shared column values of each validity written, by identity (`CanonWriter._statement_values`).
ValidityValues = dict[int, tuple[Validity, Authority, float, str | None, dict[str, Any]]]


def queue_rows(
    pending: Pending,
    values_of: Callable[..., dict[str, Any]],
    shared_of: ValidityValues,
    heads: dict[int, tuple[Any, tuple[Any, ...]]],
    rows: Iterable[tuple[StatementKind, int, str, int | None, str | None, Validity, Visibility, int | None]],
    authority: Authority,
    confidence: float,
) -> list[int]:
    """Queue many statements (`CanonWriter.queue_statements`); return their placeholders in order.

    `values_of` is the writer's `_statement_values`, `shared_of` its cache, `heads` the same as tuples.
    """
    append, relation = pending.append, StatementKind.RELATION
    first = len(pending)
    for kind, subject_id, predicate, object_id, value, validity, visibility, replaces_id in rows:
        known = shared_of.get(id(validity))
        if (
            known is None
            or known[0] is not validity
            or known[1] is not authority
            or known[2] != confidence
            or known[3] is not None
            or (object_id is None if kind == relation else value is None)
        ):
            # A validity seen first, or a row the checks refuse: the one-statement path says why.
            values = values_of(
                kind,
                subject_id,
                predicate,
                object_id,
                value,
                None,
                validity,
                authority,
                confidence,
                visibility,
            )
            values["replaces_id"] = replaces_id
            append((values, NO_EVIDENCE, NO_DEPENDENCIES))
            continue
        # `_statement_values`' row as a tuple in `STATEMENT_COLUMNS` order (a dict per row of a big import
        # costs more than SQLite's insert); `_value_`: an enum's `.value` is a costly property.
        head = heads.get(id(known))
        if head is None or head[0] is not known:
            if tuple(known[4]) != STATEMENT_COLUMNS[:-7]:  # pragma: no cover - a column added above
                raise AssertionError("STATEMENT_COLUMNS must follow _statement_values")
            head = heads[id(known)] = (known, tuple(known[4].values()))
        append(
            (
                (
                    *head[1],
                    kind._value_,
                    subject_id,
                    predicate,
                    object_id,
                    value,
                    visibility._value_,
                    replaces_id,
                ),
                NO_EVIDENCE,
                NO_DEPENDENCIES,
            )
        )
    return list(range(-first - 1, -len(pending) - 1, -1))


async def write_pending(session: AsyncSession, stamp: dict[str, Any], pending: Pending) -> dict[int, int]:
    """Write the queued statements, their evidence and dependencies in bulk; map placeholders to ids."""
    if not pending:
        return {}
    rows: list[Any] = [v for v, _, _ in pending]
    if any(type(v) is tuple for v in rows):
        # Rows queued by `queue_statements` are tuples: the others become tuples too.
        as_tuple = itemgetter(*STATEMENT_COLUMNS)
        rows = [v if type(v) is tuple else as_tuple(v) for v in rows]
        ids = await insert_returning_ids(session, StatementRow.__table__, rows, columns=STATEMENT_COLUMNS)
    else:
        ids = await insert_returning_ids(session, StatementRow.__table__, rows)
    evidence_rows = [
        {
            **stamp,
            "target_kind": "statement",
            "target_id": sid,
            **item.model_dump(exclude={"changeset_id"}),
        }
        for sid, (_, items, _) in zip(ids, pending, strict=True)
        for item in items
    ]
    # A statement may depend on another of the same flush (a state on the previous one): by placeholder.
    placed = {-(i + 1): sid for i, sid in enumerate(ids)}
    dependency_rows = [
        {
            **stamp,
            "statement_id": sid,
            "depends_on_kind": kind,
            "depends_on_id": placed.get(target, target) if kind == "statement" else target,
        }
        for sid, (_, _, deps) in zip(ids, pending, strict=True)
        for kind, target in deps
    ]
    await bulk_insert(session, EvidenceRow.__table__, evidence_rows)
    await bulk_insert(session, DependencyRow.__table__, dependency_rows)
    pending.clear()
    return placed
