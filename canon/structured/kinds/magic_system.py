"""Magic-system files: systems of magic and their spells.

Edges: each practitioner PRACTICES the system or the spell, and a spell BELONGS_TO its system.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import define_hiding
from canon.structured.schemas import (
    PRACTITIONERS,
    Entry,
    Id,
    Level,
    LoreModel,
    Name,
    Ref,
    RelationField,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser


class MagicSystem(Entry):
    """A system of magic; `source` is free text (a law of nature, a deity's name, ...)."""

    id: Id
    name: Name
    source: Text | None = None
    practitioners: list[Ref] = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class Spell(Entry):
    """A spell, belonging to a magic system."""

    id: Id
    name: Name
    system: Ref | None = None
    level: Level | None = None
    school: Text | None = None
    practitioners: list[Ref] = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class MagicSystemFile(LoreModel):
    """Magic systems and spells."""

    systems: list[MagicSystem] = Field(default_factory=list)
    spells: list[Spell] = Field(default_factory=list)


def normalise(n: Normaliser, document: MagicSystemFile) -> None:
    """Define the systems of magic and their spells."""
    for system in document.systems:
        loc = n.v.loc_of(system)
        attributes: dict[str, JsonValue] = {"source": system.source, "description": system.description}
        define_hiding(n, "MagicSystem", system, attributes, loc)
    for spell in document.spells:
        loc = n.v.loc_of(spell)
        attributes = {"level": spell.level, "school": spell.school, "description": spell.description}
        define_hiding(n, "Spell", spell, attributes, loc)


KIND = KindSpec(
    name="magic_system",
    keys=("systems", "spells"),
    model=MagicSystemFile,
    entries={MagicSystem: ("MagicSystem", "id"), Spell: ("Spell", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="MagicSystem",
            field="practitioners",
            relation="PRACTICES",
            outgoing=False,
            target_types=PRACTITIONERS,
        ),
        RelationField(
            entity_type="Spell",
            field="system",
            relation="BELONGS_TO",
            outgoing=True,
            target_types=("MagicSystem",),
        ),
        RelationField(
            entity_type="Spell",
            field="practitioners",
            relation="PRACTICES",
            outgoing=False,
            target_types=PRACTITIONERS,
        ),
    ),
)
