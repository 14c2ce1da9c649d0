"""Character files: a roster of the campaign's people, NPCs and player characters.

A character is an NPC (the default) or, with `role: pc`, a player character; either is a Person wherever a
Person is expected (a family tree's parents, an event's participants). Edges: the character MEMBER_OF its
faction (`faction`, or several: `factions`), LIVES_IN its home, HELD_AT where it is held (`held_at`), PARENT_OF
as a family tree's (`parents`, `children`: kin told outside a tree, a secret father hidden by `gm_only`), and
SPOUSE_OF as a tree's `spouse_of` (`spouse`, or several: `spouses`; `spouse_of` is read as `spouses`). `born` and `died` write the states alive and dead as a family tree's do;
`status` (alive, missing, imprisoned, ...), `sex` (male or female, as kin words read it) and `cause_of_death`
are attributes. `gm_notes` and the fields `gm_only` lists are the
GM's alone. `player` (a player character's) names the Discord member(s) who play it: it is no canon, but a
link the import makes (`RosterPlayer`, resolved against the server's members by the service that imports).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.deaths import check_death, stated_death
from canon.structured.kinds.faith import FAITH_SPELLINGS, link_faith, religion
from canon.structured.kinds.fates import FATE_FIELDS, told_attributes, truths_told
from canon.structured.kinds.hidden import hidden_fields, status_told
from canon.structured.kinds.leaks import warn_told_truths
from canon.structured.kinds.ties import TIE_FIELDS, Tie, link_ties
from canon.structured.kinds.titles import held_titles
from canon.structured.records import RosterPlayer
from canon.structured.schemas import (
    BIRTH_SPELLINGS,
    PLACES,
    SERVED,
    Date,
    EntityType,
    Entry,
    Id,
    LifeEventKind,
    LoreModel,
    Name,
    Names,
    Ref,
    RelationField,
    Role,
    Sex,
    Status,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser


class Character(Entry):
    """A person of the roster: an NPC, or a player character (`role: pc`)."""

    id: Id
    name: Name
    role: Role | None = None
    aliases: list[Text] = Field(default_factory=list)
    sex: Sex | None = None
    faction: Ref | None = None
    factions: list[Ref] = Field(default_factory=list)
    home: Ref | None = None
    titles: list[Text] = Field(default_factory=list)
    status: Status | None = None
    # What players are told in place of a `status` the GM keeps (`status: imprisoned`, `public_status: missing`).
    public_status: Status | None = None
    born: Date | None = None
    died: Date | None = None
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
    held_at: Ref | None = None
    # Where they died (DIED_AT): "where did X die?".
    died_at: Ref | None = None
    # The people the character belongs to, as a family tree's member says it (MEMBER_OF a Culture).
    culture: Ref | None = None
    # Kin told outside any family tree (a secret father: `gm_only: [parents]`), as a family tree's members say it.
    parents: list[Ref] = Field(default_factory=list)
    children: list[Ref] = Field(default_factory=list)
    # Whose child the table believes them to be (REPUTED_PARENT_OF), beside the truth `parents` may keep for the GM.
    reputed_parents: list[Ref] = Field(default_factory=list)
    # Husband or wife, as a family tree's `spouse_of` says it (SPOUSE_OF): one (`spouse`) or several (`spouses`).
    spouse: Ref | None = None
    spouses: list[Ref] = Field(default_factory=list)
    # Ties to other people that are neither a parent's nor a marriage: `{name: Idrel Vask, is: mentor}`.
    ties: list[Tie] = Field(default_factory=list)
    # Whom they worship: a god's name or several (`kinds.faith`), WORSHIPS each god of that name there is.
    worships: Names = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)
    player: Text | None = None
    players: list[Text] = Field(default_factory=list)

    # A family tree's member writes its spouses `spouse_of:`: a line copied from a tree reads the same here.
    yaml_aliases: ClassVar[dict[str, str]] = {"spouse_of": "spouses", **BIRTH_SPELLINGS, **FAITH_SPELLINGS}


class CharactersFile(LoreModel):
    """A roster of characters."""

    characters: list[Character] = Field(default_factory=list)


def normalise(n: Normaliser, document: CharactersFile) -> None:
    """Define the characters, with their lives, factions and homes."""
    for character in document.characters:
        loc = n.v.loc_of(character)
        character = stated_death(character)
        hidden = truths_told(
            n, character, loc, status_told(n, character, loc, hidden_fields(n, character, loc))
        )
        titles, spans = held_titles(n, character.id, loc, character.titles, character.died, hidden)
        attributes: dict[str, JsonValue] = {
            "aliases": list(character.aliases),
            "sex": character.sex,
            "titles": titles,
            "held_titles": spans,
            "status": character.status,
            "status_public": character.public_status,
            "born": n.date_text(character.born),
            "died": n.date_text(character.died),
            "birth_name": character.birth_name,
            "cause_of_death": character.cause_of_death,
            "religion": religion(character.worships),
            **told_attributes(character),
            "description": character.description,
            "gm_notes": character.gm_notes,
        }
        check_death(n, character, loc)
        entity_type: EntityType = "PC" if character.role == "pc" else "NPC"
        visibility = character.visibility or "public"
        warn_told_truths(n, character, loc, hidden, visibility=visibility)
        n.define(entity_type, character.id, character.name, attributes, visibility, loc, hidden)
        for field_name, date in (("born", character.born), ("died", character.died)):
            if date is not None:
                n.check_date(character.id, date, (*loc, field_name), field_name)
                n.life(character.id, typing.cast(LifeEventKind, field_name), date, (*loc, field_name))
        born, died = character.born, character.died
        if born is not None and died is not None and n.calendar.compare(died, born) == "before":
            n.v.report((*loc, "died"), f'"died" ({died}) is before "born" ({born})')
        n.link_fields("Person", character, loc, gm_only=hidden)
        link_ties(n, character.id, character.ties, loc, hidden)
        link_faith(n, character.id, character.worships, loc, hidden)
        _players(n, character, loc)


def _players(n: Normaliser, character: Character, loc: tuple[str | int, ...]) -> None:
    """Record who plays a player character (`player:`), each value where it is written; refuse it elsewhere."""
    written: list[tuple[tuple[str | int, ...], str]] = [
        ((*loc, "players", index), value) for index, value in enumerate(character.players)
    ]
    if character.player is not None:
        written.insert(0, ((*loc, "player"), character.player))
    if written and character.role != "pc":
        n.v.report(written[0][0], '"player" is for a player character: add "role: pc" to this entry')
        return
    for at, value in written:
        if not value.strip():
            n.v.report(at, '"player" is empty: give the member\'s name or Discord id')
            continue
        line, column = n.v.pos(at)
        n.players.append(RosterPlayer(character=character.id, member=value.strip(), line=line, column=column))


KIND = KindSpec(
    name="characters",
    keys=("characters",),
    model=CharactersFile,
    entries={Character: ("Person", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Person",
            field="faction",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=SERVED,
        ),
        RelationField(
            entity_type="Person",
            field="factions",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=SERVED,
        ),
        RelationField(
            entity_type="Person", field="home", relation="LIVES_IN", outgoing=True, target_types=PLACES
        ),
        # Where one was born, on a character or a family tree's member alike.
        RelationField(
            entity_type="Person", field="birthplace", relation="BORN_IN", outgoing=True, target_types=PLACES
        ),
        # A family tree's members are held somewhere too (the family tree links it as the characters do).
        RelationField(
            entity_type="Person", field="held_at", relation="HELD_AT", outgoing=True, target_types=PLACES
        ),
        # Where one died, on a character or a family tree's member alike (kept with `died` by `gm_only: [died]`).
        RelationField(
            entity_type="Person", field="died_at", relation="DIED_AT", outgoing=True, target_types=PLACES
        ),
        # A husband or a wife, as a family tree's `spouse_of` (a tree's member may write `spouse:` too).
        RelationField(
            entity_type="Person",
            field="spouse",
            relation="SPOUSE_OF",
            outgoing=True,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="spouses",
            relation="SPOUSE_OF",
            outgoing=True,
            target_types=("Person",),
        ),
        # Ties that are neither a parent's nor a marriage, on a character or a family tree's member.
        *TIE_FIELDS,
        # Who killed them, who adopted or fostered them: on a character or a family tree's member.
        *FATE_FIELDS,
    ),
)
