"""One page of an entity's facts, read in the database: an entity of any number of facts costs one page.

The facts (attributes) a card lists, as `CanonReader.card` reads them: through the lineage, valid and standing at
the as-of point, as the reader's viewer may see them (`statement_seen_sql`, the SQL twin of the rule the card's
views apply), in the card's order (`statement_sort_key`: story order, world date, changeset; then id).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from canon.graph.lineage import lineage_as_of, valid_at
from canon.graph.reads import LineageReader
from canon.graph.rows import RowReader, with_retcons
from canon.models import AsOf, Entity, StatementKind, StatementView
from canon.tables import StatementRow, StatusChangeRow
from canon.visibility import TOLD_FOR, as_told, statement_seen_sql

#: Where an undated fact falls on the world's clock (as `statement_sort_key` puts it: before every date).
UNDATED = -(2**62)


async def facts_page(
    reader: LineageReader,
    entity: Entity,
    as_of: AsOf,
    *,
    leave_out: Collection[str] = (),
    offset: int,
    limit: int,
    with_evidence: bool = True,
) -> tuple[list[StatementView], int]:
    """Return one page of an entity's facts (those of `leave_out` attributes aside) with their evidence (unless
    `with_evidence` is off: the caller reads it with more), and how many facts there are in all.

    The page and the count are one query (the count a window over the facts found); a page past the end counts
    them alone."""
    table = StatementRow.__table__
    # What players are told of a truth stands for it (`visibility.as_told`): left out with it.
    leave_out = {*leave_out, *(told for told, truth in TOLD_FOR.items() if truth in leave_out)}
    change = aliased(StatusChangeRow.__table__)
    retconned = (
        select(change.c.id)
        .where(
            change.c.target_kind == "statement",
            change.c.target_id == table.c.id,
            *lineage_as_of(change.c, reader.steps, as_of),
        )
        .exists()
    )
    conditions = [
        table.c.subject_id == entity.id,
        table.c.kind == StatementKind.ATTRIBUTE.value,
        table.c.predicate.not_in(sorted(leave_out)),
        *lineage_as_of(table.c, reader.steps, as_of),
        *valid_at(table.c, as_of),
        ~retconned,
        statement_seen_sql(table.c, reader.viewer, [(entity.id, entity.visibility)], reader.knowing, as_of),
    ]
    query = (
        with_retcons(table, reader.steps, "statement", as_of)
        .add_columns(func.count().over().label("facts_in_all"))
        .where(*conditions)
        .order_by(
            func.coalesce(table.c.story_from, -1),
            func.coalesce(table.c.world_from_key, UNDATED),
            table.c.changeset_id,
            table.c.id,
        )
        .offset(offset)
        .limit(limit)
    )
    rows = (await reader.session.execute(query)).all()
    if not rows:
        if offset == 0:
            return [], 0
        counted = select(func.count()).select_from(table).where(*conditions)
        return [], int(await reader.session.scalar(counted) or 0)
    total = int(rows[0].facts_in_all)
    statements = RowReader(table).statements(rows, {})
    evidence = await reader.evidence("statement", [s.id for s in statements], as_of) if with_evidence else {}
    subject = reader.ref(entity)
    views = [
        StatementView(
            statement=replace(s, evidence=tuple(evidence.get(s.id, ()))), subject=subject, object=None
        )
        for s in statements
    ]
    return as_told(views, reader.viewer), total
