"""Item files: the objects of a world that matter (artifacts, relics, named weapons, bells, a bone flute).

An item is found by its name and `aliases`; what it is (`type`, or `kind` as a GM may write it), its
`description`, when it was made (`made`, a date in the calendar's words) and of what (`made_of`, text) are
attributes. Edges: whoever made it MADE it (`made_by`), whoever holds it POSSESSES it (`held_by`, or `owner`),
from `held_since` when given, and each of its `holders` one after another for the span written (`kinds.spans`), and it is LOCATED_IN its `location`. Its `status` (intact, damaged, destroyed,
missing, cursed; `lost` is missing) is its state, as the ontology's states for an Item allow. `gm_notes` and the
fields `gm_only` lists are the GM's alone, as a character's; `visibility: gm_only` hides the whole item.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import hidden_fields
from canon.structured.kinds.spans import link_spans
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
    ScalarKind,
    TargetType,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser

#: What an item's `status` may say: the ontology's states of an Item, and "lost", read as missing.
ItemStatus = Annotated[
    Literal["intact", "damaged", "destroyed", "missing", "lost", "cursed"], ScalarKind.CHOICE
]
#: Who or what may hold an item (POSSESSES): a person, a faction, a creature, a god, or a place (a shrine).
_HOLDERS: tuple[TargetType, ...] = (*AGENTS, *PLACES)


class Item(Entry):
    """An object of the world: an artifact, a relic, a named weapon, a bell."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    # What it is, in words: "a bronze bell", "a flute of bone".
    type: Text | None = None
    description: Text | None = None
    made: Date | None = None
    made_by: Ref | None = None
    made_of: list[Text] = Field(default_factory=list)
    held_by: Ref | None = None
    held_since: Date | None = None
    # Who held it one after another, each a name or `{name: .., from: .., to: ..}` (`kinds.spans`).
    holders: list[Ref] = Field(default_factory=list)
    location: Ref | None = None
    status: ItemStatus | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)

    # What a GM writes for them: `kind: a bell` says what it is, `owner:` who holds it.
    yaml_aliases: ClassVar[dict[str, str]] = {
        "kind": "type",
        "owner": "held_by",
        "owners": "holders",
        "past_holders": "holders",
        "former_holders": "holders",
    }


class ItemsFile(LoreModel):
    """Items."""

    items: list[Item] = Field(default_factory=list)

    yaml_aliases: ClassVar[dict[str, str]] = {"artifacts": "items"}


def normalise(n: Normaliser, document: ItemsFile) -> None:
    """Define the items, with their makers, holders (from when they hold them) and places."""
    for item in document.items:
        loc = n.v.loc_of(item)
        attributes: dict[str, JsonValue] = {
            "aliases": list(item.aliases),
            "type": item.type,
            "description": item.description,
            "made": n.date_text(item.made),
            "made_of": list(item.made_of),
            "status": "missing" if item.status == "lost" else item.status,
            "gm_notes": item.gm_notes,
        }
        hidden = hidden_fields(n, item, loc)
        if "held_by" in hidden:
            hidden = (*hidden, "held_since")  # when it changed hands would tell who holds it
        n.define("Item", item.id, item.name, attributes, item.visibility or "public", loc, hidden)
        for field_name, date in (("made", item.made), ("held_since", item.held_since)):
            if date is not None:
                n.check_date(item.id, date, (*loc, field_name), field_name)
        if item.held_since is not None and item.held_by is None:
            n.v.report((*loc, "held_since"), '"held_since" says since when someone holds it: add "held_by"')
        link_spans(n, "Item", "holders", item.id, loc, item.holders, hidden)  # dated first: kept
        n.link_fields("Item", item, loc, skip=("held_by", "holders"), gm_only=hidden)
        if item.held_by is not None:
            n.link(
                "Item",
                "held_by",
                item.id,
                (*loc, "held_by"),
                item.held_by,
                valid_from=item.held_since,
                gm_only="held_by" in hidden,
            )


KIND = KindSpec(
    name="items",
    keys=("items", "artifacts"),
    model=ItemsFile,
    entries={Item: ("Item", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Item", field="made_by", relation="MADE", outgoing=False, target_types=AGENTS
        ),
        RelationField(
            entity_type="Item", field="held_by", relation="POSSESSES", outgoing=False, target_types=_HOLDERS
        ),
        RelationField(
            entity_type="Item", field="holders", relation="POSSESSES", outgoing=False, target_types=_HOLDERS
        ),
        RelationField(
            entity_type="Item", field="location", relation="LOCATED_IN", outgoing=True, target_types=PLACES
        ),
    ),
)
