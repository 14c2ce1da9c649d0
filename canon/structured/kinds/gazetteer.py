"""Gazetteer files: locations and regions.

Edges: location PART_OF its place, a culture CULTURE_OF the location, each event held OCCURRED_AT the location
(dated by the event on ingest, so that it is the same fact as a timeline's `location`), region PART_OF its
parent region, and whatever a region `contains` PART_OF it. A place's `aliases` are names it is found by (as a
character's), its `population` an attribute as written: a number (`2400`) or words (`a few hundred souls`).
A place's `founder` (a person or a god, by name or id) FOUNDED it, and its `founded` (a date in the calendar's
words or a year) is the attribute `founded` and dates the founder's tie, as a faction's (`factions.link_founder`).
`gm_notes` and the fields `gm_only` lists are the GM's alone, as a faction's (`gm_only: [founder]` keeps who
founded it for the GM, `gm_only: [founded]` when).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.factions import FOUNDERS, link_founder
from canon.structured.kinds.hidden import hidden_fields
from canon.structured.schemas import (
    PLACES,
    Date,
    Entry,
    Id,
    LoreModel,
    Name,
    Number,
    Ref,
    RelationField,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc


class Coordinates(LoreModel):
    """A position on the campaign map."""

    x: Number
    y: Number


class Location(Entry):
    """A place: a city, fortress, pass, ..."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    type: Text | None = None
    # How many live there, as the GM says it: a number (2400) or words ("a few hundred souls").
    population: Text | None = None
    part_of: Ref | None = None
    culture_of: Ref | None = None
    coordinates: Coordinates | None = None
    description: Text | None = None
    events_held: list[Ref] = Field(default_factory=list)
    founder: Ref | None = None
    founded: Date | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class Region(Entry):
    """A region containing locations and other regions."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    population: Text | None = None
    parent_region: Ref | None = None
    contains: list[Ref] = Field(default_factory=list)
    description: Text | None = None
    founder: Ref | None = None
    founded: Date | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class GazetteerFile(LoreModel):
    """Locations and regions."""

    locations: list[Location] = Field(default_factory=list)
    regions: list[Region] = Field(default_factory=list)


def normalise(n: Normaliser, document: GazetteerFile) -> None:
    """Define the locations and regions, with what contains what (never itself)."""
    containment: dict[str, list[tuple[str, Loc]]] = {}
    for place in document.locations:
        loc = n.v.loc_of(place)
        attributes: dict[str, JsonValue] = {
            "aliases": list(place.aliases),
            "type": place.type,
            "population": _population(n, place.population, (*loc, "population")),
            "coordinates": place.coordinates.model_dump() if place.coordinates else None,
            "founded": n.date_text(place.founded),
            "description": place.description,
            "gm_notes": place.gm_notes,
        }
        hidden = hidden_fields(n, place, loc)
        n.define("Location", place.id, place.name, attributes, place.visibility or "public", loc, hidden)
        n.link_fields("Location", place, loc, skip=("founder",), gm_only=hidden)
        link_founder(n, "Location", place.id, loc, place.founder, place.founded, hidden)
        if place.part_of is not None and place.part_of != place.id:
            containment.setdefault(place.id, []).append((place.part_of, (*loc, "part_of")))
    for region in document.regions:
        loc = n.v.loc_of(region)
        attributes = {
            "aliases": list(region.aliases),
            "population": _population(n, region.population, (*loc, "population")),
            "founded": n.date_text(region.founded),
            "description": region.description,
            "gm_notes": region.gm_notes,
        }
        hidden = hidden_fields(n, region, loc)
        n.define("Region", region.id, region.name, attributes, region.visibility or "public", loc, hidden)
        n.link_fields("Region", region, loc, skip=("founder",), gm_only=hidden)
        link_founder(n, "Region", region.id, loc, region.founder, region.founded, hidden)
        if region.parent_region is not None and region.parent_region != region.id:
            containment.setdefault(region.id, []).append((region.parent_region, (*loc, "parent_region")))
        for index, member in enumerate(region.contains):
            if member != region.id:
                containment.setdefault(member, []).append((region.id, (*loc, "contains", index)))
    n.report_cycles(containment, lambda cycle: f'"{cycle[0]}" would be part of itself: {" -> ".join(cycle)}')


def _population(n: Normaliser, said: str | None, loc: Loc) -> str | None:
    """Return a population as written (a number or words), refusing one that says nothing."""
    if said is None:
        return None
    if not said.strip():
        n.v.report(loc, '"population" is empty: give a number like 2400, or words like "a few hundred souls"')
        return None
    return said.strip()


KIND = KindSpec(
    name="gazetteer",
    keys=("locations", "regions"),
    model=GazetteerFile,
    entries={Location: ("Location", "id"), Region: ("Region", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Location", field="part_of", relation="PART_OF", outgoing=True, target_types=PLACES
        ),
        RelationField(
            entity_type="Location",
            field="culture_of",
            relation="CULTURE_OF",
            outgoing=False,
            target_types=("Culture",),
        ),
        RelationField(
            entity_type="Location",
            field="events_held",
            relation="OCCURRED_AT",
            outgoing=False,
            target_types=("Event",),
        ),
        RelationField(
            entity_type="Region",
            field="parent_region",
            relation="PART_OF",
            outgoing=True,
            target_types=("Region",),
        ),
        RelationField(
            entity_type="Region", field="contains", relation="PART_OF", outgoing=False, target_types=PLACES
        ),
        *(
            RelationField(
                entity_type=place, field="founder", relation="FOUNDED", outgoing=False, target_types=FOUNDERS
            )
            for place in ("Location", "Region")
        ),
    ),
)
