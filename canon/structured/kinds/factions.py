"""Faction files: houses, guilds, orders and armies, with who leads them, where they sit, who belongs.

Edges: the leader LEADS the faction, its seat is SEAT_OF it, each member MEMBER_OF it (a person, creature,
deity or another faction), and the faction ALLY_OF each ally and ENEMY_OF each rival (both ways: one edge per
pair, whichever side lists it). `goals` is a list of text. `gm_notes` and the fields `gm_only` lists are the
GM's alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import hidden_fields
from canon.structured.schemas import (
    AGENTS,
    PLACES,
    Entry,
    Id,
    LoreModel,
    Name,
    Ref,
    RelationField,
    TargetType,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser

_LEADERS: tuple[TargetType, ...] = ("Person", "Deity")


class Faction(Entry):
    """A faction: a house, guild, order, army or any other group."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    leader: Ref | None = None
    seat: Ref | None = None
    members: list[Ref] = Field(default_factory=list)
    allies: list[Ref] = Field(default_factory=list)
    rivals: list[Ref] = Field(default_factory=list)
    goals: list[Text] = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class FactionsFile(LoreModel):
    """Factions."""

    factions: list[Faction] = Field(default_factory=list)


def normalise(n: Normaliser, document: FactionsFile) -> None:
    """Define the factions, with their leaders, seats, members, allies and rivals."""
    for faction in document.factions:
        loc = n.v.loc_of(faction)
        attributes: dict[str, JsonValue] = {
            "aliases": list(faction.aliases),
            "goals": list(faction.goals),
            "description": faction.description,
            "gm_notes": faction.gm_notes,
        }
        hidden = hidden_fields(n, faction, loc)
        visibility = faction.visibility or "public"
        n.define("Faction", faction.id, faction.name, attributes, visibility, loc, hidden)
        n.link_fields("Faction", faction, loc, gm_only=hidden)
        for rival in faction.rivals:
            if rival in faction.allies:
                index = faction.rivals.index(rival)
                n.v.report((*loc, "rivals", index), f'"{rival}" is listed both as an ally and as a rival')


KIND = KindSpec(
    name="factions",
    keys=("factions",),
    model=FactionsFile,
    entries={Faction: ("Faction", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Faction", field="leader", relation="LEADS", outgoing=False, target_types=_LEADERS
        ),
        RelationField(
            entity_type="Faction", field="seat", relation="SEAT_OF", outgoing=False, target_types=PLACES
        ),
        RelationField(
            entity_type="Faction", field="members", relation="MEMBER_OF", outgoing=False, target_types=AGENTS
        ),
        RelationField(
            entity_type="Faction", field="allies", relation="ALLY_OF", outgoing=True, target_types=AGENTS
        ),
        RelationField(
            entity_type="Faction", field="rivals", relation="ENEMY_OF", outgoing=True, target_types=AGENTS
        ),
    ),
)
