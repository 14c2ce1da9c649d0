"""The records a lore file becomes, whatever its kind: what the canon-graph ingestion consumes.

`LoreEntry` per entity, `LoreRelation` per edge, `LifeEvent` per dated moment, `UnresolvedReference` per id the
file uses without defining it, `LoreProblem` per problem. `record` builds one from values already checked,
without validating them again (a 10,000-person tree makes about 100,000 of them).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from canon.calendar import WorldDate
from canon.structured.schemas import EntityType, LifeEventKind, RelationType, TargetType, Visibility


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LoreProblem(_Record):
    """One problem in a lore file, at a 1-based line and column, with a message for a world-builder."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}: line {self.line}, column {self.column}: {self.message}"


class RosterPlayer(_Record):
    """A roster's `player:` value: the member it names (a name or a Discord id, as written) for a character's
    id, where it is written (a bad one is reported there)."""

    character: str
    member: str
    line: int
    column: int


class LoreEntry(_Record):
    """One entity defined by a lore file, whatever its kind.

    `attributes` holds every non-reference field the world-builder gave (dates as canonical date text,
    coordinates as {"x": .., "y": ..}); reference fields become `LoreRelation`s instead. `gm_only` names the
    attributes only the GM may read, whatever the entry's visibility (`gm_notes`, fields listed in `gm_only:`).
    """

    id: str
    entity_type: EntityType
    name: str
    attributes: dict[str, JsonValue]
    visibility: Visibility
    file: str
    line: int
    column: int
    gm_only: tuple[str, ...] = ()


class LoreRelation(_Record):
    """One typed edge `source_id -[type]-> target_id`, at the line and column of the YAML reference."""

    type: RelationType
    source_id: str
    target_id: str
    field: str
    visibility: Visibility
    valid_from: WorldDate | None = None
    valid_until: WorldDate | None = None
    file: str
    line: int
    column: int


class LifeEvent(_Record):
    """A dated moment of an entity: birth, death, first appearance, era start/end, an event's occurrence."""

    entity_id: str
    event: LifeEventKind
    date: WorldDate
    file: str
    line: int
    column: int


class UnresolvedReference(_Record):
    """A reference to an id the file does not define; the caller resolves it against existing canon."""

    file: str
    line: int
    column: int
    source_id: str
    field: str
    target_id: str
    expected_types: tuple[TargetType, ...]

    def __str__(self) -> str:
        kinds = " or ".join(self.expected_types) if self.expected_types else "entity"
        article = "an" if kinds[:1] in "AEIOUe" else "a"
        return (
            f'{self.file}: line {self.line}, column {self.column}: "{self.field}" of "{self.source_id}" '
            f'refers to "{self.target_id}", which this file does not define (expected {article} {kinds})'
        )


RecordT = TypeVar("RecordT", bound=BaseModel)


def record(cls: type[RecordT], **values: Any) -> RecordT:
    """Build a record from already-validated values, every field given: `model_construct` without its cost.

    A 10,000-person tree makes ~100,000 records; pydantic's `model_construct` alone would cost seconds.
    """
    return from_values(cls, values)


_set_attribute = object.__setattr__
# The fields set of each frozen record model, shared by its records that give every field (nothing can add to
# it: the records are frozen, and `model_copy` copies it): one set per model instead of one per record.
_ALL_FIELDS: dict[type[BaseModel], set[str]] = {}


def from_values(cls: type[RecordT], values: dict[str, Any]) -> RecordT:
    """Build a record from a dict of already-validated values (it becomes the record's own); see `record`."""
    record = cls.__new__(cls)
    _set_attribute(record, "__dict__", values)
    fields = _ALL_FIELDS.get(cls)
    if fields is None:
        fields = set(cls.model_fields)
        if cls.model_config.get("frozen"):
            _ALL_FIELDS[cls] = fields
        else:  # pragma: no cover - every record model is frozen
            fields = set(values)
    if len(values) != len(fields):  # pragma: no cover - records give every field
        fields = set(values)
    _set_attribute(record, "__pydantic_fields_set__", fields)
    _set_attribute(record, "__pydantic_extra__", None)
    _set_attribute(record, "__pydantic_private__", None)
    return record
