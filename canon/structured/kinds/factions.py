"""Faction files: houses, guilds, orders and armies, with who leads them, where they sit, who belongs.

Edges: the leader LEADS the faction (and each of its `leaders` over time, for the span written: `kinds.spans`), its seat is SEAT_OF it, each member MEMBER_OF it (a person, creature,
deity or another faction), and the faction ALLY_OF each ally and ENEMY_OF each rival (both ways: one edge per
pair, whichever side lists it). Its `founder` (a person or a god, by name or id) FOUNDED it, on its `founded`
date when given (a date in the calendar's words, kept as the attribute `founded`); whom it worships (`worships`,
kept as its `religion`) and what it speaks (`language`) are words as written: a god's or a tongue's name, and
when the import or canon holds a Deity or a Language of that name, the faction WORSHIPS it or SPEAKS it too.
`goals` is a list of text. `gm_notes` and the fields `gm_only` lists are the GM's alone; a GM-only `founded`
leaves a public founder's tie undated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import hidden_fields
from canon.structured.kinds.spans import link_spans
from canon.structured.normalise import tie
from canon.structured.schemas import (
    HOUSES_TOO,
    PLACES,
    Date,
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
    from canon.calendar import WorldDate
    from canon.structured.normalise import Normaliser
    from canon.structured.schemas import EntityType, RelationType
    from canon.structured.validate import Loc

_LEADERS: tuple[TargetType, ...] = ("Person", "Deity")
#: Who may found a group or a place (FOUNDED): a person or a god.
FOUNDERS: tuple[TargetType, ...] = ("Person", "Deity")


class Faction(Entry):
    """A faction: a house, guild, order, army or any other group."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    leader: Ref | None = None
    # Its leaders one after another, each a name or `{name: .., from: .., to: ..}` (`kinds.spans`).
    leaders: list[Ref] = Field(default_factory=list)
    seat: Ref | None = None
    members: list[Ref] = Field(default_factory=list)
    allies: list[Ref] = Field(default_factory=list)
    rivals: list[Ref] = Field(default_factory=list)
    goals: list[Text] = Field(default_factory=list)
    founder: Ref | None = None
    founded: Date | None = None
    # Whom they worship and what they speak, in words: a god's or a tongue's name, or "the old gods".
    worships: Text | None = None
    language: Text | None = None
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)

    # The ontology's names for them: `founded_by` is the founder, `religion` or `faith` whom they worship.
    yaml_aliases: ClassVar[dict[str, str]] = {
        "founded_by": "founder",
        "religion": "worships",
        "faith": "worships",
        "tongue": "language",
        "past_leaders": "leaders",
        "former_leaders": "leaders",
    }


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
            "founded": n.date_text(faction.founded),
            "religion": faction.worships,
            "language": faction.language,
            "description": faction.description,
            "gm_notes": faction.gm_notes,
        }
        hidden = hidden_fields(n, faction, loc)
        visibility = faction.visibility or "public"
        n.define("Faction", faction.id, faction.name, attributes, visibility, loc, hidden)
        link_spans(n, "Faction", "leaders", faction.id, loc, faction.leaders, hidden)  # dated first: kept
        n.link_fields("Faction", faction, loc, skip=("founder", "leaders"), gm_only=hidden)
        link_founder(n, "Faction", faction.id, loc, faction.founder, faction.founded, hidden)
        said: tuple[tuple[RelationType, str, str | None], ...] = (
            ("WORSHIPS", "worships", faction.worships),
            ("SPEAKS", "language", faction.language),
        )
        for relation, field_name, name in said:
            tie(n, relation, faction.id, field_name, name, (*loc, field_name), gm_only=field_name in hidden)
        for rival in faction.rivals:
            if rival in faction.allies:
                index = faction.rivals.index(rival)
                n.v.report((*loc, "rivals", index), f'"{rival}" is listed both as an ally and as a rival')


def link_founder(
    n: Normaliser,
    entity_type: EntityType,
    owner: str,
    loc: Loc,
    founder: str | None,
    founded: WorldDate | None,
    hidden: tuple[str, ...] = (),
) -> None:
    """Check a founding date and record who FOUNDED the entry, from that date unless only the GM may read the
    date while anyone may read who (the tie's date would tell it)."""
    if founded is not None:
        n.check_date(owner, founded, (*loc, "founded"), "founded")
    if founder is None:
        return
    secret = "founder" in hidden
    dated = founded if secret or "founded" not in hidden else None
    n.link(entity_type, "founder", owner, (*loc, "founder"), founder, valid_from=dated, gm_only=secret)


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
            entity_type="Faction", field="leaders", relation="LEADS", outgoing=False, target_types=_LEADERS
        ),
        RelationField(
            entity_type="Faction", field="seat", relation="SEAT_OF", outgoing=False, target_types=PLACES
        ),
        RelationField(
            entity_type="Faction",
            field="members",
            relation="MEMBER_OF",
            outgoing=False,
            target_types=HOUSES_TOO,
        ),
        RelationField(
            entity_type="Faction", field="allies", relation="ALLY_OF", outgoing=True, target_types=HOUSES_TOO
        ),
        RelationField(
            entity_type="Faction", field="rivals", relation="ENEMY_OF", outgoing=True, target_types=HOUSES_TOO
        ),
        RelationField(
            entity_type="Faction", field="founder", relation="FOUNDED", outgoing=False, target_types=FOUNDERS
        ),
    ),
)
