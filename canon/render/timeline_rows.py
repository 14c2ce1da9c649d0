"""A timeline's events, one page of them read in the database (the whole timeline's, or one era's): the campaign's events as the reader's viewer
may see them, in the order the timeline draws them, at most `limit` of them, and how many there are in all.

What the timeline would give reading every event and placing each in memory: the lineage, no retcon and the viewer's visibility as canon stands now (as `CanonReader.all_entities`
and `CanonReader.statements` read them there), begun by the as-of point,
the viewer's visibility (`entity_seen_sql`, `statement_own_seen_sql`), each event's era the first standing
`OCCURRED_DURING` of it whose era is drawn (one the reader may see, begun by then), and only events with somewhere to stand: a year, a drawn era or
a scene. Ordered as the drawing orders them: the events of play without a date or an era last, then by year,
scene, name (in code-point order, as Python compares text) and id. A campaign of any size costs one page.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import and_, case, func, literal, null, or_, select
from sqlalchemy.orm import aliased

from canon.graph import CanonReader
from canon.graph.lineage import lineage_as_of, valid_at
from canon.models import NOW, AsOf
from canon.render.timeline import TimelineEvent
from canon.tables import EntityRow, StatementRow, StatusChangeRow
from canon.visibility import entity_seen_sql, statement_own_seen_sql


def _standing(target: Any, kind: str, reader: CanonReader) -> Any:
    """Return the condition of a row no retcon visible through the lineage struck."""
    change = aliased(StatusChangeRow.__table__)
    return ~(
        select(change.c.id)
        .where(
            change.c.target_kind == kind,
            change.c.target_id == target,
            *lineage_as_of(change.c, reader.steps, NOW),
        )
        .exists()
    )


def _begun(entity: Any, as_of: AsOf) -> list[Any]:
    """Return the conditions of an event begun at the as-of point (`from_graph._begun` in SQL)."""
    conditions = []
    if as_of.world_key is not None:
        conditions.append(or_(entity.world_from_key.is_(None), entity.world_from_key <= as_of.world_key))
    if as_of.scene is not None:
        conditions.append(or_(entity.story_from.is_(None), entity.story_from <= as_of.scene))
    return conditions


#: SQL's division binds as tightly as multiplication: `(a + b) / c` keeps its parentheses.
_DIVIDED = {"precedence": 8}


def _year(key: Any) -> Any:
    """Return a world key's year as Python's `key // 10000` gives it (SQL's division truncates toward zero)."""
    return case(
        (key >= 0, key.op("/", **_DIVIDED)(10000)),
        else_=literal(0) - (literal(0) - key + 9999).op("/", **_DIVIDED)(10000),
    )


def _home(reader: CanonReader, entity: Any, eras: Collection[int]) -> Any:
    """Return an event's era: the first standing `OCCURRED_DURING` of it the reader sees whose era is drawn."""
    if not eras:
        return null()
    statement = aliased(StatementRow.__table__)
    return (
        select(statement.c.object_id)
        .where(
            statement.c.subject_id == entity.id,
            statement.c.predicate == "OCCURRED_DURING",
            statement.c.object_id.in_(sorted(eras)),
            *lineage_as_of(statement.c, reader.steps, NOW),
            *valid_at(statement.c, NOW),
            _standing(statement.c.id, "statement", reader),
            statement_own_seen_sql(statement.c, reader.viewer, reader.knowing, NOW),
        )
        .order_by(statement.c.id)
        .limit(1)
        .scalar_subquery()
    )


def _stands(seen: Any, within: Collection[tuple[int | None, int | None]] | None) -> Any:
    """Return the condition of an event with somewhere to stand: on the whole timeline a year, an era or a
    scene; on one era's, one of its eras or a year `within` one of their spans."""
    if within is None:
        return or_(seen.c.key.is_not(None), seen.c.scene.is_not(None), seen.c.home.is_not(None))
    year = _year(seen.c.key)
    spans = [
        and_(*([year >= first] if first is not None else []), *([year <= last] if last is not None else []))
        for first, last in sorted(set(within), key=repr)
        if first is not None or last is not None
    ]
    dated = and_(seen.c.key.is_not(None), or_(*spans)) if spans else literal(False)
    return or_(seen.c.home.is_not(None), dated)


async def events_page(
    reader: CanonReader,
    event_types: Sequence[str],
    eras: Collection[int],
    *,
    as_of: AsOf,
    limit: int,
    within: Collection[tuple[int | None, int | None]] | None = None,
    hidden_eras: Collection[str] = (),
) -> tuple[list[TimelineEvent], int]:
    """Return the first `limit` events of the whole timeline (drawn `eras` given by id), and how many in all.

    `within`: the drawn eras' years (first, last; either open) of one era's timeline: an event stands there in
    one of its eras, or with a year inside one of those spans (an era open at both ends holds no year).
    `hidden_eras`: the keys of the eras hidden from the reader (`CampaignCalendar.hidden_eras`): an event dated in
    one is undated for them, as one nobody dated (it stands by its scene alone, or not at all; never by its year)."""
    entity = EntityRow.__table__.c
    home = _home(reader, entity, eras)
    key: Any = entity.world_from_key
    if hidden_eras:
        dated_hidden = [
            or_(entity.world_from == era, entity.world_from.startswith(f"{era}.", autoescape=True))
            for era in sorted(hidden_eras)
        ]
        key = case((or_(*dated_hidden), null()), else_=entity.world_from_key)
    seen = (
        select(
            entity.id,
            entity.name,
            key.label("key"),
            entity.story_from.label("scene"),
            home.label("home"),
        )
        .where(
            entity.type.in_(list(event_types)),
            *lineage_as_of(entity, reader.steps, NOW),
            _standing(entity.id, "entity", reader),
            entity_seen_sql(entity, reader.viewer, reader.knowing, NOW),
            *_begun(entity, as_of),
        )
        .subquery()
    )
    era = seen.c.home
    stands = _stands(seen, within)
    name = seen.c.name.collate("C") if reader.session.get_bind().dialect.name == "postgresql" else seen.c.name
    query = (
        select(
            seen.c.id,
            seen.c.name,
            seen.c.key,
            seen.c.scene,
            era.label("era"),
            func.count().over().label("total"),  # all that stand, counted in the same pass
        )
        .where(stands)
        .order_by(
            case((and_(seen.c.key.is_(None), era.is_(None)), 1), else_=0),
            func.coalesce(_year(seen.c.key), 0),
            func.coalesce(seen.c.scene, 0),
            name,
            seen.c.id,
        )
        .limit(limit)
    )
    rows = (await reader.session.execute(query)).all()
    events = [
        TimelineEvent(
            id=row.id,
            name=row.name,
            year=row.key // 10000 if row.key is not None else None,
            month=((row.key % 10000) // 100 or None) if row.key is not None else None,
            era=row.era,
            scene=row.scene,
        )
        for row in rows
    ]
    return events, int(rows[0].total) if rows else 0
