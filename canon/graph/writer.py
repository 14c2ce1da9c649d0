"""`CanonWriter`: appends canon rows to one campaign under one changeset, one at a time or queued in bulk.

A writer never changes or deletes a row: a retcon is a status change that points at the replacement. Queued
statements (a deferred writer) are written by `flush` in a few bulk inserts (`canon.graph.bulk`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import ChangesetRow
from canon.errors import InvalidInput
from canon.graph.bulk import bulk_insert, insert_returning_ids
from canon.graph.keys import fold
from canon.graph.queue import NO_DEPENDENCIES, NO_EVIDENCE, Pending, ValidityValues, queue_rows, write_pending
from canon.graph.reads import LineageReader
from canon.graph.retcons import record_retcon
from canon.graph.rows import validity_columns
from canon.models import (
    ALWAYS,
    Authority,
    Evidence,
    StatementKind,
    Validity,
    Visibility,
)
from canon.ontology import Ontology
from canon.tables import AliasRow, DependencyRow, EntityRow, EvidenceRow, StatementRow


@dataclass(frozen=True)
class NewEntity:
    """An entity to create (`CanonWriter.create_entities`): its type, name, and what comes with it."""

    type: str
    name: str
    authority: Authority
    key: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    description: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    validity: Validity = ALWAYS
    confidence: float = 1.0
    evidence: tuple[Evidence, ...] = ()


class CanonWriter:
    """Appends canon rows to one campaign under one changeset; the caller owns the transaction."""

    def __init__(
        self, session: AsyncSession, changeset: ChangesetRow, ontology: Ontology, *, deferred: bool = False
    ) -> None:
        self.session = session
        self.changeset = changeset
        self.ontology = ontology
        # Deferred: statements are queued and written in bulk by flush() (a commit of hundreds of proposals
        # would otherwise make a round trip per row); add_statement then returns a negative placeholder id.
        self.deferred = deferred
        # Each queued statement's row, evidence and dependencies (`canon.graph.queue`).
        self._pending: Pending = []
        self._stamp_values: dict[str, Any] | None = None
        # The shared column values of each validity written, by identity (see `_statement_values`).
        self._validity_values: ValidityValues = {}
        # The same shared values as a tuple, by identity of their `_validity_values` entry (`queue_statements`).
        self._validity_heads: dict[int, tuple[Any, tuple[Any, ...]]] = {}

    @property
    def campaign_id(self) -> int:
        """Return the campaign written to."""
        return self.changeset.campaign_id

    def _stamp(self) -> dict[str, Any]:
        # Read once: the changeset's ORM attributes cost more than the rest of a bulk add_statement. Callers
        # only spread it (`**self._stamp()`), never change it.
        stamp = self._stamp_values
        if stamp is None:
            stamp = self._stamp_values = {
                "campaign_id": self.changeset.campaign_id,
                "changeset_id": self.changeset.id,
                "recorded_at": self.changeset.recorded_at,
            }
        return stamp

    async def create_entity(
        self,
        *,
        type: str,
        name: str,
        key: str | None = None,
        visibility: Visibility = Visibility.PUBLIC,
        description: str | None = None,
        attributes: dict[str, Any] | None = None,
        aliases: Iterable[str] = (),
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        evidence: Iterable[Evidence] = (),
    ) -> int:
        """Create an entity of an ontology type with its aliases and evidence; return its id."""
        (created,) = await self.create_entities(
            [
                NewEntity(
                    type=type,
                    name=name,
                    key=key,
                    visibility=visibility,
                    description=description,
                    attributes=attributes or {},
                    aliases=tuple(aliases),
                    validity=validity,
                    authority=authority,
                    confidence=confidence,
                    evidence=tuple(evidence),
                )
            ]
        )
        return created

    async def create_entities(self, entities: Sequence[NewEntity]) -> list[int]:
        """Create entities with their aliases and evidence in bulk (a commit's new entities); return their ids."""
        rows = []
        for entity in entities:
            type_name = self.ontology.entity_type(entity.type)
            clean = " ".join(entity.name.split())
            if not clean or len(clean) > 200:
                raise InvalidInput("An entity's name is 1 to 200 characters.")
            rows.append(
                {
                    **self._stamp(),
                    **validity_columns(entity.validity),
                    "type": type_name,
                    "name": clean,
                    "name_folded": fold(clean),
                    "key": entity.key,
                    "kind": self.ontology.entity_types[type_name].kind.value,
                    "visibility": entity.visibility.value,
                    "description": entity.description,
                    "attributes": entity.attributes,
                    "authority": entity.authority.value,
                    "confidence": entity.confidence,
                }
            )
        ids = await insert_returning_ids(self.session, EntityRow.__table__, rows)
        stamp = self._stamp()
        aliases = [
            {**stamp, "entity_id": entity_id, "alias": clean, "alias_folded": fold(clean)}
            for entity_id, entity in zip(ids, entities, strict=True)
            for clean in (" ".join(alias.split()) for alias in entity.aliases)
            if clean
        ]
        evidence = [
            {
                **stamp,
                "target_kind": "entity",
                "target_id": entity_id,
                **item.model_dump(exclude={"changeset_id"}),
            }
            for entity_id, entity in zip(ids, entities, strict=True)
            for item in entity.evidence
        ]
        await bulk_insert(self.session, AliasRow.__table__, aliases)
        await bulk_insert(self.session, EvidenceRow.__table__, evidence)
        return ids

    async def add_alias(self, entity_id: int, alias: str) -> None:
        """Give an entity another name."""
        clean = " ".join(alias.split())
        if clean:
            self.session.add(
                AliasRow(**self._stamp(), entity_id=entity_id, alias=clean, alias_folded=fold(clean))
            )

    async def add_statement(
        self,
        *,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None = None,
        value: str | None = None,
        via: str | None = None,
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        visibility: Visibility = Visibility.PUBLIC,
        replaces_id: int | None = None,
        evidence: Iterable[Evidence] = (),
        depends_on: Iterable[tuple[str, int]] = (),
    ) -> int:
        """Append a statement with its evidence and dependencies; return its id."""
        values = self._statement_values(
            kind, subject_id, predicate, object_id, value, via, validity, authority, confidence, visibility
        )
        values["replaces_id"] = replaces_id
        if self.deferred:
            self._pending.append((values, list(evidence), list(depends_on)))
            return -len(self._pending)
        row = StatementRow(**values)
        self.session.add(row)
        await self.session.flush()
        await self.add_evidence("statement", row.id, evidence)
        for dep_kind, dep_id in depends_on:
            self.session.add(
                DependencyRow(
                    **self._stamp(), statement_id=row.id, depends_on_kind=dep_kind, depends_on_id=dep_id
                )
            )
        return row.id

    def queue_statement(
        self,
        *,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None = None,
        value: str | None = None,
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        visibility: Visibility = Visibility.PUBLIC,
        replaces_id: int | None = None,
    ) -> int:
        """Queue a statement without evidence for `flush` (a deferred writer's bulk path); return its placeholder.

        The same statement as `add_statement` without the await, for imports that queue tens of thousands.
        """
        if not self.deferred:
            raise RuntimeError("queue_statement needs a deferred writer")
        values = self._statement_values(
            kind, subject_id, predicate, object_id, value, None, validity, authority, confidence, visibility
        )
        values["replaces_id"] = replaces_id
        self._pending.append((values, NO_EVIDENCE, NO_DEPENDENCIES))
        return -len(self._pending)

    def queue_statements(
        self,
        rows: Iterable[
            tuple[StatementKind, int, str, int | None, str | None, Validity, Visibility, int | None]
        ],
        *,
        authority: Authority,
        confidence: float = 1.0,
    ) -> list[int]:
        """Queue many statements of one authority and confidence, like `queue_statement` each (same rows,
        same checks); return their placeholders in order.

        Each row is (kind, subject_id, predicate, object_id, value, validity, visibility, replaces_id): one
        loop for the tens of thousands of an import, without a call with keywords per statement.
        """
        if not self.deferred:
            raise RuntimeError("queue_statement needs a deferred writer")
        return queue_rows(
            self._pending,
            self._statement_values,
            self._validity_values,
            self._validity_heads,
            rows,
            authority,
            confidence,
        )

    def _statement_values(
        self,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None,
        value: str | None,
        via: str | None,
        validity: Validity,
        authority: Authority,
        confidence: float,
        visibility: Visibility,
    ) -> dict[str, Any]:
        """Check a statement's shape and return its row's values (all but `replaces_id`)."""
        if kind == StatementKind.RELATION:
            if object_id is None:
                raise InvalidInput("A relation needs an entity at its other end.")
        elif value is None:
            raise InvalidInput("A fact or state needs a value.")
        # The columns every statement of one validity, authority, confidence and `via` shares (the stamp,
        # the validity's columns ...), built once: a bulk writer shares one Validity per date.
        known = self._validity_values.get(id(validity))
        if (
            known is None
            or known[0] is not validity
            or known[1] is not authority
            or known[2] != confidence
            or known[3] != via
        ):
            shared = {
                **self._stamp(),
                **validity_columns(validity),
                "via": via,
                "authority": authority.value,
                "confidence": confidence,
            }
            known = self._validity_values[id(validity)] = (validity, authority, confidence, via, shared)
        # `_value_`: an enum's `.value` is a property, costly on tens of thousands of rows.
        return {
            **known[4],
            "kind": kind._value_,
            "subject_id": subject_id,
            "predicate": predicate,
            "object_id": object_id,
            "value": value,
            "visibility": visibility._value_,
        }

    async def flush(self) -> dict[int, int]:
        """Write the queued statements, their evidence and dependencies in bulk; map placeholders to ids."""
        return await write_pending(self.session, self._stamp(), self._pending)

    async def add_evidence(self, target_kind: str, target_id: int, evidence: Iterable[Evidence]) -> None:
        """Attach evidence to an entity or statement."""
        for item in evidence:
            self.session.add(
                EvidenceRow(
                    **self._stamp(),
                    target_kind=target_kind,
                    target_id=target_id,
                    **item.model_dump(exclude={"changeset_id"}),
                )
            )

    async def retcon(
        self,
        reader: LineageReader,
        target_kind: str,
        target_id: int,
        *,
        replacement_id: int | None,
        rationale: str | None,
    ) -> None:
        """Mark an entity or statement retconned from this changeset on; refuse one already retconned."""
        await record_retcon(
            self.session, self._stamp(), reader, target_kind, target_id, replacement_id, rationale
        )
