"""The kinds of structured-lore file, registered in one place.

A new kind is one module beside these (its file and entry models, the top-level keys that identify it, the
reference fields that become edges, and how its document becomes records: a `KindSpec`), registered here: its
name in `LoreKind`, its file model in `LoreDocument`, its spec in `KINDS` (a test checks the three agree). An
entity type no kind defined before also goes into `schemas.EntityType` (and the ontology).

A file says its kind (`kind: timeline`) or is recognised by its top-level keys (`KIND_KEYS`); keys of two
kinds in one file are an error naming both.
"""

from __future__ import annotations

from typing import Literal

from canon.structured.kinds import (
    bestiary,
    characters,
    culture,
    factions,
    family_tree,
    gazetteer,
    items,
    magic_system,
    timeline,
)
from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.bestiary import BestiaryFile, Creature
from canon.structured.kinds.characters import Character, CharactersFile
from canon.structured.kinds.culture import Culture, CultureFile, Deity, Language
from canon.structured.kinds.factions import Faction, FactionsFile
from canon.structured.kinds.family_tree import FamilyTreeFile, Person
from canon.structured.kinds.gazetteer import Coordinates, GazetteerFile, Location, Region
from canon.structured.kinds.items import Item, ItemsFile
from canon.structured.kinds.magic_system import MagicSystem, MagicSystemFile, Spell
from canon.structured.kinds.timeline import Era, Event, TimelineFile
from canon.structured.schemas import EntityType, LoreModel, RelationField, TargetType

__all__ = [
    "FILE_MODELS",
    "IDENTITIES",
    "KINDS",
    "KIND_KEYS",
    "LORE_KINDS",
    "REFERENCE_ONLY_FIELDS",
    "RELATION_FIELDS",
    "BestiaryFile",
    "Character",
    "CharactersFile",
    "Coordinates",
    "Creature",
    "Culture",
    "CultureFile",
    "Deity",
    "Era",
    "Event",
    "Faction",
    "FactionsFile",
    "FamilyTreeFile",
    "GazetteerFile",
    "Item",
    "ItemsFile",
    "KindSpec",
    "Language",
    "Location",
    "LoreDocument",
    "LoreKind",
    "MagicSystem",
    "MagicSystemFile",
    "Person",
    "Region",
    "Spell",
    "TimelineFile",
]

LoreKind = Literal[
    "timeline",
    "family_tree",
    "gazetteer",
    "bestiary",
    "magic_system",
    "culture",
    "characters",
    "factions",
    "items",
]
LoreDocument = (
    TimelineFile
    | FamilyTreeFile
    | GazetteerFile
    | BestiaryFile
    | MagicSystemFile
    | CultureFile
    | CharactersFile
    | FactionsFile
    | ItemsFile
)

KINDS: dict[LoreKind, KindSpec] = {
    "timeline": timeline.KIND,
    "family_tree": family_tree.KIND,
    "gazetteer": gazetteer.KIND,
    "bestiary": bestiary.KIND,
    "magic_system": magic_system.KIND,
    "culture": culture.KIND,
    "characters": characters.KIND,
    "factions": factions.KIND,
    "items": items.KIND,
}
LORE_KINDS: tuple[LoreKind, ...] = tuple(KINDS)
FILE_MODELS: dict[LoreKind, type[LoreModel]] = {name: spec.model for name, spec in KINDS.items()}
# Top-level keys that identify a kind when the file has no `kind:`.
KIND_KEYS: dict[LoreKind, tuple[str, ...]] = {name: spec.keys for name, spec in KINDS.items()}
# The entity type of each entry model and the field holding its id.
IDENTITIES: dict[type[LoreModel], tuple[EntityType, str]] = {
    model: identity for spec in KINDS.values() for model, identity in spec.entries.items()
}
# Which reference field writes which edge; endpoint types follow config/ontology.yaml (a test keeps them in step).
RELATION_FIELDS: dict[tuple[EntityType, str], RelationField] = {
    (spec.entity_type, spec.field): spec for kind in KINDS.values() for spec in kind.relations
}
# Reference fields that are checked (and may be unresolved) but write no edge of their own.
REFERENCE_ONLY_FIELDS: dict[tuple[EntityType, str], tuple[TargetType, ...]] = {
    key: types for kind in KINDS.values() for key, types in kind.references.items()
}
