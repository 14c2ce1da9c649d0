"""Rows of the graph's tables as values: the columns a validity fills, and `RowReader`, which builds entities and
statements from rows joined with their retcons (`with_retcons`)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import String, select, type_coerce

from canon.forks import LineageStep
from canon.graph.lineage import lineage_as_of
from canon.models import (
    AsOf,
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    Validity,
    Visibility,
)
from canon.tables import StatusChangeRow

# Enum lookups by value: calling an Enum class is slow, and these run for every row of a whole-graph check.
AUTHORITY_OF = {a.value: a for a in Authority}
VISIBILITY_OF = {v.value: v for v in Visibility}
STATEMENT_KIND_OF = {k.value: k for k in StatementKind}


def validity_columns(v: Validity) -> dict[str, Any]:
    """Return the `world_*` and `story_*` column values of a validity (dataclasses.asdict is slow in bulk)."""
    return {
        "world_from": v.world_from,
        "world_from_key": v.world_from_key,
        "world_until": v.world_until,
        "world_until_key": v.world_until_key,
        "story_from": v.story_from,
        "story_until": v.story_until,
    }


class RowReader:
    """Build entities and statements from rows of a table joined with their retcon (`retconned_at`,
    `replaced_by`, the last two columns), by position: a row's attributes by name cost more than the rest.

    Equal validities and provenances are shared (both are frozen): a whole-graph read turns a million rows
    into objects, and they have only a few thousand distinct values of each, which cost more to build than
    to look up. One reader per query or batch of queries keeps the memo from outliving them.
    """

    def __init__(self, table: Any) -> None:
        at = {name: index for index, name in enumerate([c.name for c in table.c] + RETCON_COLUMNS)}
        self.at = at
        self._validity_key = itemgetter(*(at[name] for name in VALIDITY_COLUMNS))
        self._provenance_key = itemgetter(*(at[name] for name in PROVENANCE_COLUMNS))
        self._validities: dict[tuple[Any, ...], Validity] = {}
        self._provenances: dict[tuple[Any, ...], Provenance] = {}

    def validity(self, row: Any) -> Validity:
        """Return a row's validity."""
        key = self._validity_key(row)
        found = self._validities.get(key)
        if found is None:
            found = self._validities[key] = Validity(*key)
        return found

    def provenance(self, row: Any) -> Provenance:
        """Return a row's provenance."""
        key = self._provenance_key(row)
        found = self._provenances.get(key)
        if found is None:
            campaign_id, changeset_id, recorded_at, authority, confidence, retconned_at, replaced_by = key
            found = self._provenances[key] = Provenance(
                campaign_id=campaign_id,
                changeset_id=changeset_id,
                recorded_at=aware(recorded_at),
                authority=AUTHORITY_OF[authority],
                confidence=confidence,
                level=CanonLevel.RETCONNED if retconned_at is not None else CanonLevel.CANON,
                retconned_at=aware(retconned_at) if retconned_at is not None else None,
                replaced_by=replaced_by,
            )
        return found

    def entity(self, row: Any, aliases: Sequence[str] = ()) -> Entity:
        """Return an entity from a row of `entities`."""
        at = self.at
        return Entity(
            id=row[at["id"]],
            type=row[at["type"]],
            name=row[at["name"]],
            key=row[at["key"]],
            kind=row[at["kind"]],
            visibility=VISIBILITY_OF[row[at["visibility"]]],
            description=row[at["description"]],
            attributes=dict(row[at["attributes"]] or {}),
            aliases=tuple(aliases),
            validity=self.validity(row),
            provenance=self.provenance(row),
        )

    def statements(self, rows: Iterable[Any], evidence: Mapping[int, Sequence[Evidence]]) -> list[Statement]:
        """Return the statements of rows of `statements`, with their evidence by id."""
        at = self.at
        i_id, i_kind, i_subject, i_predicate = at["id"], at["kind"], at["subject_id"], at["predicate"]
        i_object, i_value, i_via, i_visibility = at["object_id"], at["value"], at["via"], at["visibility"]
        i_replaces = at["replaces_id"]
        validity, provenance = self.validity, self.provenance
        return [
            Statement(
                row[i_id],
                STATEMENT_KIND_OF[row[i_kind]],
                row[i_subject],
                row[i_predicate],
                provenance(row),
                row[i_object],
                row[i_value],
                row[i_via],
                VISIBILITY_OF[row[i_visibility]],
                validity(row),
                row[i_replaces],
                tuple(evidence.get(row[i_id], ())),
            )
            for row in rows
        ]


# Read times without type processing (a String has none, on SQLite and PostgreSQL alike): SQLite gives the
# stored text, asyncpg a datetime; `aware` makes either an aware UTC datetime.
RAW = String()


def aware(value: Any) -> dt.datetime:
    """Return a time read raw from the database as an aware UTC datetime."""
    moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


RETCON_COLUMNS = ["retconned_at", "replaced_by"]
VALIDITY_COLUMNS = (
    "world_from",
    "world_from_key",
    "world_until",
    "world_until_key",
    "story_from",
    "story_until",
)
PROVENANCE_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    "authority",
    "confidence",
    "retconned_at",
    "replaced_by",
)


def evidence_from_row(row: Any) -> Evidence:
    """Return the evidence a row of `evidence` holds."""
    return Evidence(
        kind=EvidenceKind(row.kind),
        scene_id=row.scene_id,
        turn_from=row.turn_from,
        turn_to=row.turn_to,
        source_id=row.source_id,
        chunk_id=row.chunk_id,
        file=row.file,
        line=row.line,
        proposal_id=row.proposal_id,
        note=row.note,
        changeset_id=row.changeset_id,
    )


def retcon_subquery(steps: Sequence[LineageStep], kind: str, as_of: AsOf) -> Any:
    """Return a subquery of the retcons visible through a lineage: target id, when, and the replacement."""
    sc = StatusChangeRow.__table__.c
    return (
        select(sc.target_id, sc.recorded_at.label("retconned_at"), sc.replacement_id.label("replaced_by"))
        .where(sc.target_kind == kind, *lineage_as_of(sc, steps, as_of))
        .subquery()
    )


def with_retcons(table: Any, steps: Sequence[LineageStep], kind: str, as_of: AsOf) -> Any:
    """Return a select of a table's rows joined with their retcons, in `RowReader`'s column order.

    The times come raw (no type processing: `RowReader` converts each distinct one once); a whole-graph
    read would otherwise parse two timestamps per row. Built once for each table, lineage, kind and as-of
    point (a statement is never changed in place: each `where` makes a new one), as building it costs more
    than running it.
    """
    return _with_retcons(table, tuple(steps), kind, as_of)


@functools.lru_cache(maxsize=512)
def _with_retcons(table: Any, steps: tuple[LineageStep, ...], kind: str, as_of: AsOf) -> Any:
    retcons = retcon_subquery(steps, kind, as_of)
    columns = [type_coerce(c, RAW).label(c.name) if c.name == "recorded_at" else c for c in table.c]
    return select(
        *columns, type_coerce(retcons.c.retconned_at, RAW).label("retconned_at"), retcons.c.replaced_by
    ).outerjoin(retcons, retcons.c.target_id == table.c.id)
