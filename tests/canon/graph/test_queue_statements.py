"""A deferred writer's `queue_statements` (the YAML import's bulk path) writes exactly what `queue_statement`
writes for each row: the same columns, checks and placeholders, mixed with single queued statements in order."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.campaigns import ChangesetKind, open_changeset
from canon.errors import InvalidInput
from canon.graph import CanonWriter, bulk_insert
from canon.models import ALWAYS, Authority, StatementKind, Validity, Visibility
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured.write import EVIDENCE_COLUMNS
from canon.tables import EvidenceRow, StatementRow

WHEN = Validity(world_from="1 AR", world_from_key=10)
COLUMNS = [c for c in StatementRow.__table__.c if c.name not in ("id", "changeset_id", "recorded_at")]


def _rows(a: int, b: int) -> list[tuple[Any, ...]]:
    return [
        (StatementKind.RELATION, a, "PARENT_OF", b, None, WHEN, Visibility.PUBLIC, None),
        (StatementKind.ATTRIBUTE, a, "title", None, "Queen", ALWAYS, Visibility.GM_ONLY, None),
        (StatementKind.STATE, b, "state", None, "alive", WHEN, Visibility.PUBLIC, None),
        (StatementKind.ATTRIBUTE, b, "title", None, "Prince", ALWAYS, Visibility.PUBLIC, None),
    ]


async def _write(db: Database, name: str, bulk: bool) -> list[tuple[Any, ...]]:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, name))

    async def work(session: AsyncSession) -> list[tuple[Any, ...]]:
        changeset = await open_changeset(session, campaign.id, ChangesetKind.YAML_IMPORT)
        writer = CanonWriter(session, changeset, base_ontology(), deferred=True)
        a = await writer.create_entity(type="Person", name="Ada", authority=Authority.SOURCE)
        b = await writer.create_entity(type="Person", name="Bo", authority=Authority.SOURCE)
        rows = _rows(a, b)
        first = writer.queue_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=a,
            predicate="motto",
            value="Onward",
            authority=Authority.GM,
        )
        if bulk:
            placeholders = writer.queue_statements(rows, authority=Authority.SOURCE)
        else:
            placeholders = [
                writer.queue_statement(
                    kind=k,
                    subject_id=s,
                    predicate=p,
                    object_id=o,
                    value=v,
                    validity=w,
                    authority=Authority.SOURCE,
                    visibility=vis,
                    replaces_id=r,
                )
                for k, s, p, o, v, w, vis, r in rows
            ]
        last = writer.queue_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=b,
            predicate="motto",
            value="Later",
            authority=Authority.GM,
        )
        assert placeholders == [first - 1, first - 2, first - 3, first - 4] and last == first - 5
        mapping = await writer.flush()
        ids = [mapping[p] for p in [first, *placeholders, last]]
        found = (await session.execute(select(StatementRow).where(StatementRow.id.in_(ids)))).scalars().all()
        by_id = {row.id: row for row in found}
        names = {a: "a", b: "b"}
        return [
            tuple(
                names.get(getattr(by_id[i], c.name), getattr(by_id[i], c.name))
                if c.name in ("subject_id", "object_id")
                else getattr(by_id[i], c.name)
                for c in COLUMNS
                if c.name != "campaign_id"
            )
            for i in ids
        ]

    return await db.run(work)


async def test_queue_statements_writes_what_queue_statement_writes(db: Database) -> None:
    one = await _write(db, "one by one", bulk=False)
    bulk = await _write(db, "in bulk", bulk=True)
    assert bulk == one
    assert len(bulk) == 6


async def test_queue_statements_refuses_what_queue_statement_refuses(db: Database) -> None:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "refused"))

    async def work(session: AsyncSession) -> None:
        changeset = await open_changeset(session, campaign.id, ChangesetKind.YAML_IMPORT)
        writer = CanonWriter(session, changeset, base_ontology(), deferred=True)
        good = (StatementKind.ATTRIBUTE, 1, "title", None, "Queen", WHEN, Visibility.PUBLIC, None)
        with pytest.raises(InvalidInput, match="other end"):
            writer.queue_statements(
                [good, (StatementKind.RELATION, 1, "PARENT_OF", None, None, WHEN, Visibility.PUBLIC, None)],
                authority=Authority.SOURCE,
            )
        with pytest.raises(InvalidInput, match="needs a value"):
            writer.queue_statements(
                [good, (StatementKind.ATTRIBUTE, 1, "title", None, None, WHEN, Visibility.PUBLIC, None)],
                authority=Authority.SOURCE,
            )
        with pytest.raises(RuntimeError):
            CanonWriter(session, changeset, base_ontology()).queue_statements(
                [good], authority=Authority.SOURCE
            )

    await db.run(work)


async def test_bulk_insert_of_tuple_rows_stores_what_dict_rows_store(db: Database) -> None:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "evidence"))
    names = EVIDENCE_COLUMNS  # the order the import builds its tuple rows in

    async def work(session: AsyncSession) -> list[list[tuple[Any, ...]]]:
        changeset = await open_changeset(session, campaign.id, ChangesetKind.YAML_IMPORT)
        head = (campaign.id, changeset.id, changeset.recorded_at)
        values = [(*head, "statement", "yaml", f"f{i % 2}.yaml", None, 100 + i, i + 1) for i in range(5)]
        stored = []
        for kind, rows in (("dicts", [dict(zip(names, v, strict=True)) for v in values]), ("tuples", values)):
            await bulk_insert(
                session, EvidenceRow.__table__, rows, columns=None if kind == "dicts" else names
            )
            table = EvidenceRow.__table__.c
            query = select(*(table[n] for n in names)).order_by(table.id.desc()).limit(len(values))
            stored.append([tuple(r) for r in (await session.execute(query)).all()][::-1])
        return stored

    as_dicts, as_tuples = await db.run(work)
    assert as_tuples == as_dicts
    assert [r[-2:] for r in as_tuples] == [(100 + i, i + 1) for i in range(5)]
