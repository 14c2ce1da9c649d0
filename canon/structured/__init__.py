"""Load structured lore (timeline, family tree, gazetteer, bestiary, magic system, culture YAML) strictly.

`load_lore_file` returns a `LoadResult`: a validated document plus kind-independent records (`LoreEntry`,
`LoreRelation`, `LifeEvent`, `UnresolvedReference`), or every `LoreProblem` with line and column.
"""

from __future__ import annotations

from canon.structured.loader import DEFAULT_MAX_BYTES, load_lore_file, parse_yaml_as
from canon.structured.schemas import (
    LORE_KINDS,
    REFERENCE_ONLY_FIELDS,
    RELATION_FIELDS,
    BestiaryFile,
    CultureFile,
    EntityType,
    FamilyTreeFile,
    GazetteerFile,
    LifeEvent,
    LifeEventKind,
    LoadResult,
    LoreDocument,
    LoreEntry,
    LoreKind,
    LoreProblem,
    LoreRelation,
    MagicSystemFile,
    RelationField,
    RelationType,
    TargetType,
    TimelineFile,
    UnresolvedReference,
    Visibility,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
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
