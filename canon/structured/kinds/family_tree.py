"""Family-tree files: a lineage (the file's top level) and its members.

Edges: every member MEMBER_OF the lineage (from birth to death), each parent PARENT_OF the member (from the
member's birth to that parent's death; a member's `children` are as if each listed it among its `parents`, one
edge when both say it), SPOUSE_OF (one edge per pair, even when both sides list it),
MEMBER_OF the member's culture, and, as a character's, LIVES_IN the member's `home`, HELD_AT its `held_at` and
MEMBER_OF each faction (`faction`, `factions`). `founding_ancestor` writes no edge (the ontology has none): it is a Lineage
attribute, checked as a reference to a Person.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.deaths import check_death, stated_death
from canon.structured.kinds.faith import FAITH_SPELLINGS, link_faith, religion
from canon.structured.kinds.fates import told_attributes, truths_told
from canon.structured.kinds.hidden import hidden_fields, status_told
from canon.structured.kinds.leaks import warn_told_truths
from canon.structured.kinds.ties import Tie, link_ties
from canon.structured.kinds.titles import held_titles
from canon.structured.schemas import (
    BIRTH_SPELLINGS,
    HOUSES_TOO,
    PLACES,
    Date,
    Entry,
    Id,
    LifeEventKind,
    LoreModel,
    Name,
    Names,
    Ref,
    RelationField,
    Sex,
    Status,
    TargetType,
    Text,
    Visibility,
    VisibilityField,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

_FOUNDING_ANCESTOR: tuple[TargetType, ...] = ("Person",)
#: The fields a house that is a faction too shares with a faction's (`kinds/factions.py`), written as edges.
_HOUSE_FIELDS = ("leader", "seat", "allies", "rivals")
#: The house's own fields its `gm_only` may list (its members are entries of their own, hidden one by one).
_HOUSE_HIDEABLE = frozenset({"aliases", "founding_ancestor", "description", "goals", *_HOUSE_FIELDS})


class Person(Entry):
    """A member of a family tree."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    sex: Sex | None = None
    born: Date | None = None
    died: Date | None = None
    died_at: Ref | None = None  # where they died (DIED_AT), as a character's
    # The name one was born with (a maiden name), and where (BORN_IN): where they are from.
    birth_name: Text | None = None
    birthplace: Ref | None = None
    cause_of_death: Text | None = None
    # How the table believes they died, beside the true `cause_of_death`; who killed them (`kinds.fates`).
    public_cause_of_death: Text | None = None
    killed_by: Ref | None = None
    # Who took them in later than birth (`{name: Bran Holt, adopted: 1204}`): the tie holds from that date.
    adoptive_parents: list[Ref] = Field(default_factory=list)
    foster_parents: list[Ref] = Field(default_factory=list)
    # Where the member is held, as a character's (HELD_AT).
    held_at: Ref | None = None
    parents: list[Ref] = Field(default_factory=list)
    # A family may be told downwards too: each child listed is as if it listed this member among its parents.
    children: list[Ref] = Field(default_factory=list)
    # Whose child the table believes the member to be (REPUTED_PARENT_OF), as a character's.
    reputed_parents: list[Ref] = Field(default_factory=list)
    spouse_of: list[Ref] = Field(default_factory=list)
    # One spouse, as a character writes it (`spouses:` is read as `spouse_of`): the same SPOUSE_OF edge.
    spouse: Ref | None = None
    culture: Ref | None = None
    # Where the member lives and whom they serve, as a character's `home`, `faction` and `factions` (the edges
    # of the characters' kind: LIVES_IN, MEMBER_OF): a family defined once, in its tree, is placed there too.
    home: Ref | None = None
    faction: Ref | None = None
    factions: list[Ref] = Field(default_factory=list)
    # The lineage the member belongs to when it is not the file's (one who married in: `lineage: House Ibarra`),
    # or none (`lineage: null`); left out, the file's.
    lineage: Ref | None = None
    titles: list[Text] = Field(default_factory=list)
    status: Status | None = None
    # What players are told in place of a `status` the GM keeps (`status: imprisoned`, `public_status: missing`).
    public_status: Status | None = None
    # Ties to other people that are neither a parent's nor a marriage: `{name: Idrel Vask, is: mentor}`.
    ties: list[Tie] = Field(default_factory=list)
    # Whom the member worships, as a character's (`kinds.faith`).
    worships: Names = Field(default_factory=list)
    description: Text | None = None
    # The GM's alone, as a character's: notes, and the fields named (`gm_only: [faction]`, a secret allegiance).
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)

    yaml_aliases: ClassVar[dict[str, str]] = {"spouses": "spouse_of", **BIRTH_SPELLINGS, **FAITH_SPELLINGS}


class FamilyTreeFile(LoreModel):
    """A lineage (the file's top-level fields) and its members."""

    lineage: Id
    name: Name | None = None
    # Other names the lineage is found by ("the royal family").
    aliases: list[Text] = Field(default_factory=list)
    founding_ancestor: Ref | None = None
    description: Text | None = None
    visibility: VisibilityField | None = None
    # A noble house that is a faction too is written once, here: what a faction says of itself (LEADS, SEAT_OF,
    # ALLY_OF, ENEMY_OF, goals), and its name goes wherever a faction's does (an event's participants, a
    # character's faction, a faction's allies).
    leader: Ref | None = None
    seat: Ref | None = None
    allies: list[Ref] = Field(default_factory=list)
    rivals: list[Ref] = Field(default_factory=list)
    goals: list[Text] = Field(default_factory=list)
    # The house's fields only the GM may read (`gm_only: [seat, allies]`), as a faction's.
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)
    members: list[Person] = Field(default_factory=list)


def normalise(n: Normaliser, document: FamilyTreeFile) -> None:
    """Define the lineage and its members, with their lives, parents (or children), spouses and cultures."""
    lineage = document.lineage
    lineage_visibility: Visibility = document.visibility or "public"
    founder = next((p for p in document.members if p.id == document.founding_ancestor), None)
    attributes: dict[str, JsonValue] = {
        "aliases": list(document.aliases),
        "description": document.description,
        # A reader sees the founder's name, never the file's id (an id from another file stays as written).
        "founding_ancestor": founder.name if founder is not None else document.founding_ancestor,
    }
    if document.goals:
        attributes["goals"] = list(document.goals)
    name = document.name or lineage
    hidden = hidden_fields(n, document, (), _HOUSE_HIDEABLE)
    attributes["gm_notes"] = document.gm_notes
    n.define("Lineage", lineage, name, attributes, lineage_visibility, ("lineage",), hidden)
    _link_house(n, document, hidden)
    if document.founding_ancestor is not None:
        expected = _FOUNDING_ANCESTOR
        n.refer(lineage, ("founding_ancestor",), "founding_ancestor", document.founding_ancestor, expected)
    people = {person.id: person for person in document.members}
    ancestry: dict[str, list[tuple[str, Loc]]] = {}
    for person in document.members:
        loc = n.v.loc_of(person)
        person = stated_death(person)
        hidden = truths_told(n, person, loc, status_told(n, person, loc, hidden_fields(n, person, loc)))
        titles, spans = held_titles(n, person.id, loc, person.titles, person.died, hidden)
        person_attributes: dict[str, JsonValue] = {
            "aliases": list(person.aliases),
            "sex": person.sex,
            "born": n.date_text(person.born),
            "died": n.date_text(person.died),
            "birth_name": person.birth_name,
            "cause_of_death": person.cause_of_death,
            "religion": religion(person.worships),
            **told_attributes(person),
            "titles": titles,
            "held_titles": spans,
            "status": person.status,
            "status_public": person.public_status,
            "description": person.description,
            "gm_notes": person.gm_notes,
        }
        check_death(n, person, loc)
        visibility = person.visibility or lineage_visibility
        warn_told_truths(n, person, loc, hidden, visibility=visibility)
        n.define("Person", person.id, person.name, person_attributes, visibility, loc, hidden)
        _link_lineage(n, person, loc, lineage, "lineage" in hidden)
        for field_name, date in (("born", person.born), ("died", person.died)):
            if date is not None:
                n.check_date(person.id, date, (*loc, field_name), field_name)
                n.life(person.id, typing.cast(LifeEventKind, field_name), date, (*loc, field_name))
        if (
            person.born is not None
            and person.died is not None
            and n.calendar.compare(person.died, person.born) == "before"
        ):
            n.v.report((*loc, "died"), f'"died" ({person.died}) is before "born" ({person.born})')
        _link_kin(n, person, loc, people, hidden, ancestry)
        n.link_fields("Person", person, loc, skip=("parents", "children", "lineage"), gm_only=hidden)
        link_ties(n, person.id, person.ties, loc, hidden)
        link_faith(n, person.id, person.worships, loc, hidden)
    n.report_cycles(
        ancestry,
        lambda cycle: (
            f'"{cycle[0]}" would be their own ancestor: {" -> ".join(cycle)} '
            "(each followed by one of their parents)"
        ),
    )


def _link_house(n: Normaliser, document: FamilyTreeFile, hidden: tuple[str, ...]) -> None:
    """Record what a house that is a faction too says of itself: its leader, seat, allies and rivals (`hidden`:
    the fields its `gm_only` keeps for the GM)."""
    for field_name in _HOUSE_FIELDS:
        value = getattr(document, field_name)
        targets = value if isinstance(value, list) else [value] if value is not None else []
        for index, target in enumerate(targets):
            at = (field_name, index) if isinstance(value, list) else (field_name,)
            n.link("Lineage", field_name, document.lineage, at, target, gm_only=field_name in hidden)
    for index, rival in enumerate(document.rivals):
        if rival in document.allies:
            n.v.report(("rivals", index), f'"{rival}" is listed both as an ally and as a rival')


def _link_lineage(n: Normaliser, person: Person, loc: Loc, lineage: str, hidden: bool) -> None:
    """Make the member a member of the file's lineage from birth to death, or of the lineage it names itself
    (one who married in), or of none (`lineage: null`)."""
    written = "lineage" in person.model_fields_set
    own = person.lineage if written else lineage
    if own is not None:
        at, field_name = ((*loc, "lineage"), "lineage") if written else (loc, "members")
        n.link(
            "Person",
            field_name,
            person.id,
            at,
            own,
            valid_from=person.born,
            valid_until=person.died,
            gm_only=hidden,
        )


def _link_kin(
    n: Normaliser,
    person: Person,
    loc: Loc,
    people: dict[str, Person],
    hidden: tuple[str, ...],
    ancestry: dict[str, list[tuple[str, Loc]]],
) -> None:
    """Record a member's parents and children (from the child's birth to the parent's death), each ancestry
    step for the cycle check."""
    for index, parent in enumerate(person.parents):
        parent_loc = (*loc, "parents", index)
        parent_person = people.get(parent)
        until = parent_person.died if parent_person is not None else None
        n.link(
            "Person",
            "parents",
            person.id,
            parent_loc,
            parent,
            valid_from=person.born,
            valid_until=until,
            gm_only="parents" in hidden,
        )
        if parent != person.id:
            ancestry.setdefault(person.id, []).append((parent, parent_loc))
    for index, child in enumerate(person.children):
        child_loc = (*loc, "children", index)
        child_person = people.get(child)
        born = child_person.born if child_person is not None else None
        n.link(
            "Person",
            "children",
            person.id,
            child_loc,
            child,
            valid_from=born,
            valid_until=person.died,
            gm_only="children" in hidden,
        )
        if child != person.id:
            ancestry.setdefault(child, []).append((person.id, child_loc))


KIND = KindSpec(
    name="family_tree",
    keys=("members", "founding_ancestor", "lineage"),
    model=FamilyTreeFile,
    entries={FamilyTreeFile: ("Lineage", "lineage"), Person: ("Person", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Person",
            field="parents",
            relation="PARENT_OF",
            outgoing=False,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="children",
            relation="PARENT_OF",
            outgoing=True,
            target_types=("Person",),
        ),
        # Whose child the table believes one to be, beside the truth (a character writes it too).
        RelationField(
            entity_type="Person",
            field="reputed_parents",
            relation="REPUTED_PARENT_OF",
            outgoing=False,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="spouse_of",
            relation="SPOUSE_OF",
            outgoing=True,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="culture",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=("Culture",),
        ),
        RelationField(
            entity_type="Person",
            field="members",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=("Lineage",),
        ),
        # A member's own lineage, when not the file's (one who married in): the same edge.
        RelationField(
            entity_type="Person",
            field="lineage",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=("Lineage",),
        ),
        # A house that is a faction too, as a faction's fields say it.
        RelationField(
            entity_type="Lineage",
            field="leader",
            relation="LEADS",
            outgoing=False,
            target_types=("Person", "Deity"),
        ),
        RelationField(
            entity_type="Lineage", field="seat", relation="SEAT_OF", outgoing=False, target_types=PLACES
        ),
        RelationField(
            entity_type="Lineage", field="allies", relation="ALLY_OF", outgoing=True, target_types=HOUSES_TOO
        ),
        RelationField(
            entity_type="Lineage", field="rivals", relation="ENEMY_OF", outgoing=True, target_types=HOUSES_TOO
        ),
    ),
    references={("Lineage", "founding_ancestor"): _FOUNDING_ANCESTOR},
)
