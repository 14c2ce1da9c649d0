"""Load structured lore (timeline, family tree, gazetteer, bestiary, magic system, culture YAML) strictly.

`load_lore_file` returns a `LoadResult`: a validated document plus kind-independent records (`LoreEntry`,
`LoreRelation`, `LifeEvent`, `UnresolvedReference`), or every `LoreProblem` with line and column.
`canon.structured.ingest` writes loaded files into a campaign's canon graph.
"""

from __future__ import annotations

from canon.structured.kinds import (
    KIND_KEYS,
    LORE_KINDS,
    REFERENCE_ONLY_FIELDS,
    RELATION_FIELDS,
    BestiaryFile,
    CultureFile,
    FamilyTreeFile,
    GazetteerFile,
    LoreDocument,
    LoreKind,
    MagicSystemFile,
    TimelineFile,
)
from canon.structured.loader import DEFAULT_MAX_BYTES, load_lore_file, parse_yaml_as
from canon.structured.records import LifeEvent, LoreEntry, LoreProblem, LoreRelation, UnresolvedReference
from canon.structured.result import LoadResult
from canon.structured.schemas import (
    EntityType,
    LifeEventKind,
    LoreModel,
    RelationField,
    RelationType,
    TargetType,
    Visibility,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "KIND_KEYS",
    "LORE_KINDS",
    "REFERENCE_ONLY_FIELDS",
    "RELATION_FIELDS",
    "BestiaryFile",
    "CultureFile",
    "EntityType",
    "FamilyTreeFile",
    "GazetteerFile",
    "LifeEvent",
    "LifeEventKind",
    "LoadResult",
    "LoreDocument",
    "LoreEntry",
    "LoreKind",
    "LoreModel",
    "LoreProblem",
    "LoreRelation",
    "MagicSystemFile",
    "RelationField",
    "RelationType",
    "TargetType",
    "TimelineFile",
    "UnresolvedReference",
    "Visibility",
    "load_lore_file",
    "parse_yaml_as",
]
