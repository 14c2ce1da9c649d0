"""What befell a person or an event, written beside what the table believes: the fields a character, a family
tree's member and a timeline's event share for it.

- `public_cause_of_death` beside `cause_of_death`, `public_outcome` beside an event's `outcome`: what players are
  told in place of a truth the GM keeps, as `public_status` is beside `status`. The truth is then the GM's
  without listing it in `gm_only`; a player reads the public one as if the file said only it
  (`canon.visibility.TOLD_FOR`). A public one without its truth is refused at its line.
- `killed_by` (a person, a creature, a faction): who killed them (KILLED, from the one named).
- `adoptive_parents`, `foster_parents`: who took a child in later than birth (ADOPTIVE_PARENT_OF,
  FOSTER_PARENT_OF), each item a name or `{name: Bran Holt, adopted: 1204}` (`fostered:` for a foster parent):
  the tie holds from that date, never from the child's birth; a parent by blood stays under `parents`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from canon.structured.schemas import LoreModel, RelationField

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

#: A field that tells players something in place of a truth the GM keeps -> the truth's field, and the attribute
#: the told one is stored as (`canon.visibility.TOLD_FOR` reads it as the truth for a player).
PUBLIC_FIELDS: dict[str, tuple[str, str]] = {
    "public_cause_of_death": ("cause_of_death", "cause_of_death_public"),
    "public_outcome": ("outcome", "outcome_public"),
}

#: The edges of a person's fate and upbringing, on a character and a family tree's member alike.
FATE_FIELDS: tuple[RelationField, ...] = (
    RelationField(
        entity_type="Person",
        field="killed_by",
        relation="KILLED",
        outgoing=False,
        target_types=("Person", "Creature", "Faction", "Deity"),
    ),
    RelationField(
        entity_type="Person",
        field="adoptive_parents",
        relation="ADOPTIVE_PARENT_OF",
        outgoing=False,
        target_types=("Person",),
    ),
    RelationField(
        entity_type="Person",
        field="foster_parents",
        relation="FOSTER_PARENT_OF",
        outgoing=False,
        target_types=("Person",),
    ),
)


def told_attributes(entry: LoreModel) -> dict[str, str | None]:
    """Return the attributes an entry's public fields are stored as (`cause_of_death_public`: ...)."""
    return {
        attribute: getattr(entry, field)
        for field, (_truth, attribute) in PUBLIC_FIELDS.items()
        if field in type(entry).model_fields
    }


def faked_death(entry: LoreModel, field: str) -> bool:
    """Tell whether a told cause of death is of a death the table believes in but the truth denies: a
    `public_status: dead` beside a living `status` (a death feigned) needs no true cause beside it."""
    public = getattr(entry, "public_status", None)
    return field == "public_cause_of_death" and public in ("dead", "undead")


def truths_told(n: Normaliser, entry: LoreModel, loc: Loc, hidden: tuple[str, ...]) -> tuple[str, ...]:
    """Return the hidden fields with each truth a public field stands in for: beside `public_cause_of_death`
    the true `cause_of_death` is the GM's. A public field without its truth is reported at its line; a public
    field itself hidden (`gm_only: [public_outcome]`, or a hidden death hiding its told cause) is the GM's."""
    for field, (truth, attribute) in PUBLIC_FIELDS.items():
        if field not in type(entry).model_fields or getattr(entry, field) is None:
            continue
        if getattr(entry, truth, None) is None and not faked_death(entry, field):
            n.v.report(
                (*loc, field),
                f'"{field}" says what players are told in place of the truth: give the truth beside it in "{truth}"',
            )
            continue
        if field in hidden or (truth == "cause_of_death" and "died" in hidden):
            hidden = (*hidden, attribute)
        if truth not in hidden:
            hidden = (*hidden, truth)
    return hidden
