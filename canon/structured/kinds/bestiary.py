"""Bestiary files: creatures, species or named individuals.

Edges: creature INHABITS its habitat (`null` for none, as in the SRD bestiary), and whoever defeated it
DEFEATED it. A creature's `aliases` are names it is found by (one may be the GM's: `{name: ..., gm_only: true}`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import define_hiding
from canon.structured.schemas import (
    AGENTS,
    PLACES,
    Date,
    Entry,
    Id,
    LoreModel,
    Name,
    Ref,
    RelationField,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser


class Creature(Entry):
    """A creature: a species or a named individual."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    species: Text | None = None
    alignment: Text | None = None
    habitat: Ref | None = None
    first_appeared: Date | None = None
    description: Text | None = None
    defeated_by: list[Ref] = Field(default_factory=list)
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class BestiaryFile(LoreModel):
    """Creatures."""

    creatures: list[Creature] = Field(default_factory=list)


def normalise(n: Normaliser, document: BestiaryFile) -> None:
    """Define the creatures, with when they first appeared."""
    for creature in document.creatures:
        loc = n.v.loc_of(creature)
        attributes: dict[str, JsonValue] = {
            "aliases": list(creature.aliases),
            "species": creature.species,
            "alignment": creature.alignment,
            "first_appeared": n.date_text(creature.first_appeared),
            "description": creature.description,
        }
        define_hiding(n, "Creature", creature, attributes, loc)
        if creature.first_appeared is not None:
            appeared_loc = (*loc, "first_appeared")
            n.check_date(creature.id, creature.first_appeared, appeared_loc, "first_appeared")
            n.life(creature.id, "first_appeared", creature.first_appeared, appeared_loc)


KIND = KindSpec(
    name="bestiary",
    keys=("creatures",),
    model=BestiaryFile,
    entries={Creature: ("Creature", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Creature", field="habitat", relation="INHABITS", outgoing=True, target_types=PLACES
        ),
        RelationField(
            entity_type="Creature",
            field="defeated_by",
            relation="DEFEATED",
            outgoing=False,
            target_types=AGENTS,
        ),
    ),
)
