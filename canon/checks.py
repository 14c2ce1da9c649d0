"""Running the continuity rules against the database: snapshots of the graph, and the conflicts table.

`canon.continuity` is pure; this module feeds it. A check around new statements loads only their
neighbourhood (the entities they touch, those entities' relations and parents); the whole-graph check loads
every standing row of the campaign's lineage once. Findings are recorded by fingerprint, so a problem found
again is not reported as new.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.continuity import PARENT_OF, PART_OF, SUB_ERA_OF, Finding, Side, Snapshot, check
from canon.graph import CanonReader, lineage_filter
from canon.storage import utc_now
from canon.tables import ConflictRow, DependencyRow


async def _dependencies(
    reader: CanonReader, statement_ids: Collection[int] | None
) -> dict[int, list[tuple[str, int]]]:
    """Return what each statement depends on (every dependency of the lineage when `statement_ids` is None)."""
    found: dict[int, list[tuple[str, int]]] = {}
    if statement_ids is None:
        query = select(
            DependencyRow.statement_id, DependencyRow.depends_on_kind, DependencyRow.depends_on_id
        ).where(lineage_filter(DependencyRow, reader.steps))
        for statement_id, kind, target in (await reader.session.execute(query)).all():
            found.setdefault(statement_id, []).append((kind, target))
        return found
    ids = list(statement_ids)
    for start in range(0, len(ids), 500):
        query = select(
            DependencyRow.statement_id, DependencyRow.depends_on_kind, DependencyRow.depends_on_id
        ).where(
            DependencyRow.statement_id.in_(ids[start : start + 500]),
            lineage_filter(DependencyRow, reader.steps),
        )
        for statement_id, kind, target in (await reader.session.execute(query)).all():
            found.setdefault(statement_id, []).append((kind, target))
    return found


# What the rules read of the entities at the other end of a relation: parents' lives (their states), an
# event's era (its sub-era links), a place's containers. Nothing else of theirs can take part in
# a finding about the entities a check is around, and reading all of it pulls in most of a dense graph.
_NEIGHBOUR_PREDICATES = ("state", PARENT_OF, PART_OF, SUB_ERA_OF)


async def neighbourhood_snapshot(reader: CanonReader, statement_ids: Collection[int]) -> Snapshot:
    """Return a snapshot around some statements: their entities and those entities' neighbourhood (see
    `entities_snapshot`), and what the statements rely on (a retconned fact they cite)."""
    seed = await reader.statements(statement_ids=statement_ids, include_retconned=True, with_evidence=False)
    entity_ids = {s.subject_id for s in seed} | {s.object_id for s in seed if s.object_id is not None}
    relied = [
        target for targets in (await _dependencies(reader, statement_ids)).values() for target in targets
    ]
    entity_ids |= {target for kind, target in relied if kind == "entity"}
    return await entities_snapshot(
        reader, entity_ids, relied_on=[target for kind, target in relied if kind == "statement"]
    )


async def entities_snapshot(
    reader: CanonReader,
    entity_ids: Collection[int],
    *,
    relied_on: Collection[int] = (),
    held: Collection[int] = (),
) -> Snapshot:
    """Return a snapshot of some entities: everything said about them, and of the entities at the other end
    what the rules read (their states, parents, containers and sub-eras); `relied_on` adds statements.

    `held` are entities the caller already holds, with every statement about them (an import's new entities):
    they are neither read nor followed as neighbours, and the caller adds them to the snapshot."""
    ids = set(entity_ids)
    statements = await reader.statements(
        subject_ids=ids, object_ids=ids, include_retconned=True, with_evidence=False
    )
    known = {s.id for s in statements}
    if relied_on:
        cited = await reader.statements(statement_ids=relied_on, include_retconned=True, with_evidence=False)
        statements += [s for s in cited if s.id not in known]
        known |= {s.id for s in cited}
    related = {s.subject_id for s in statements} | {
        s.object_id for s in statements if s.object_id is not None
    }
    extra = related - ids - set(held)
    if extra:
        more = await reader.statements(
            subject_ids=extra,
            predicates=_NEIGHBOUR_PREDICATES,
            include_retconned=True,
            with_evidence=False,
        )
        statements += [s for s in more if s.id not in known]
        related |= {s.subject_id for s in more} | {s.object_id for s in more if s.object_id is not None}
    entities = await reader.entities((related | ids) - set(held), include_retconned=True)
    dependencies = await _dependencies(reader, [s.id for s in statements])
    return Snapshot(
        entities=entities, statements=statements, dependencies=dependencies, ontology=reader.ontology
    )


async def whole_snapshot(reader: CanonReader) -> Snapshot:
    """Return a snapshot of the campaign's whole graph (evidence is attached to findings afterwards)."""
    entities = await reader.all_entities(include_retconned=True)
    statements = await reader.statements(include_retconned=True, with_evidence=False)
    dependencies = await _dependencies(reader, None)
    return Snapshot(
        entities=entities, statements=statements, dependencies=dependencies, ontology=reader.ontology
    )


async def findings_around(reader: CanonReader, statement_ids: Collection[int]) -> list[Finding]:
    """Return the continuity findings that involve some statements (new or hypothetical ones)."""
    if not statement_ids:
        return []
    snapshot = await neighbourhood_snapshot(reader, statement_ids)
    return await with_evidence(reader, check(snapshot, focus=set(statement_ids)))


async def whole_graph_findings(reader: CanonReader) -> list[Finding]:
    """Return every continuity finding of the campaign's graph, each side with its evidence."""
    return await with_evidence(reader, check(await whole_snapshot(reader)))


async def with_evidence(reader: CanonReader, findings: list[Finding]) -> list[Finding]:
    """Attach the evidence of every side of the findings (snapshots are loaded without it: it is big)."""
    if not findings:
        return findings
    statement_ids = sorted({side.statement_id for f in findings for side in f.sides if side.statement_id})
    entity_ids = sorted({side.entity_id for f in findings for side in f.sides if side.entity_id})
    evidence = {
        "statement": await reader.evidence("statement", statement_ids),
        "entity": await reader.evidence("entity", entity_ids),
    }

    def attach(side: Side) -> Side:
        kind, target = ("statement", side.statement_id) if side.statement_id else ("entity", side.entity_id)
        found = evidence[kind].get(target or 0)
        return side.model_copy(update={"evidence": tuple(found)}) if found and not side.evidence else side

    return [f.model_copy(update={"sides": tuple(attach(s) for s in f.sides)}) for f in findings]


async def record_findings(
    session: AsyncSession,
    campaign_id: int,
    findings: Sequence[Finding],
    *,
    accepted: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Record findings in the conflicts table; return those never seen before (for "post only new conflicts").

    `accepted` maps the fingerprints of findings the GM accepted anyway to the rationale given; they are
    recorded as accepted, every other new finding as open.
    """
    if not findings:
        return []
    prints = [f.fingerprint for f in findings]
    known = set(
        (
            await session.execute(
                select(ConflictRow.fingerprint).where(
                    ConflictRow.campaign_id == campaign_id, ConflictRow.fingerprint.in_(prints)
                )
            )
        ).scalars()
    )
    now = utc_now()
    overridden = accepted or {}
    new: list[Finding] = []
    for finding in findings:
        if finding.fingerprint in known:
            continue
        known.add(finding.fingerprint)
        new.append(finding)
        session.add(
            ConflictRow(
                campaign_id=campaign_id,
                kind=finding.kind.value,
                fingerprint=finding.fingerprint,
                message=finding.message,
                details=finding.model_dump(mode="json"),
                status="accepted" if finding.fingerprint in overridden else "open",
                rationale=overridden.get(finding.fingerprint),
                first_seen_at=now,
                last_seen_at=now,
            )
        )
    await session.flush()
    return new


class RecordedConflict(BaseModel):
    """A conflict as recorded: what was found, when, and whether and how it was closed (`canon.conflicts`)."""

    model_config = ConfigDict(frozen=True)

    id: int
    kind: str
    message: str
    #: The finding as the check recorded it (stored as JSON, read back typed).
    details: Finding
    status: str
    rationale: str | None
    first_seen_at: dt.datetime
    resolution: str | None = None
    closed_at: dt.datetime | None = None
    closed_by: str | None = None


def conflict_from_row(r: ConflictRow) -> RecordedConflict:
    """Return a recorded conflict from its row."""
    return RecordedConflict(
        id=r.id,
        kind=r.kind,
        message=r.message,
        details=Finding.model_validate(r.details),
        status=r.status,
        rationale=r.rationale,
        first_seen_at=r.first_seen_at,
        resolution=r.resolution,
        closed_at=r.closed_at,
        closed_by=r.closed_by,
    )


async def recorded_conflicts(
    session: AsyncSession, campaign_id: int, *, limit: int = 50
) -> list[RecordedConflict]:
    """Return the campaign's recorded conflicts, newest first."""
    query = (
        select(ConflictRow)
        .where(ConflictRow.campaign_id == campaign_id)
        .order_by(ConflictRow.id.desc())
        .limit(limit)
    )
    return [conflict_from_row(r) for r in (await session.execute(query)).scalars()]
