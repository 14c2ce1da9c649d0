"""The GM-only fields an entry of a roster may declare: `gm_notes` (always the GM's), and `gm_only: [field, ...]`
naming the entry's other fields only the GM may read (a character's true faction, a faction's real goals).

A hidden death hides how it came (`gm_only: [died]` hides `cause_of_death` too): the cause would tell it. A
field written one way or several ways (`spouse` and `spouses`, `faction` and `factions`): hiding the spelling
the entry leaves empty hides the one it gives, so a GM who hides `spouse` while the entry says `spouses:` never
shows a player the tie (an entry giving both hides each on its own: a public `winner`, a secret one in
`winners`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import JsonValue

from canon.structured.schemas import EntityType, LoreModel, Visibility

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

# Fields that cannot be hidden one by one: the entry itself says who may see it (`visibility: gm_only`).
NOT_HIDEABLE = frozenset({"id", "name", "visibility", "gm_only", "gm_notes"})
#: Fields kept as a fact of another name: hiding the field hides the fact (`worships` is the fact `religion`).
STORED_AS = {"worships": "religion"}
# Fields that say one thing, once or as a list: hiding one hides the others.
_ONE_SECRET: tuple[frozenset[str], ...] = (
    frozenset({"spouse", "spouses", "spouse_of"}),
    frozenset({"faction", "factions"}),
    frozenset({"winner", "winners"}),
    frozenset({"player", "players"}),
)


def hidden_fields(
    n: Normaliser, entry: LoreModel, loc: Loc, hideable: frozenset[str] | None = None
) -> tuple[str, ...]:
    """Return the fields of `entry` only the GM may read; report each `gm_only` item that names no such field
    (`hideable`: the fields that may be hidden, when not every field but the entry's own may)."""
    named: list[str] = list(getattr(entry, "gm_only", ()))
    spelled = type(entry).yaml_aliases  # `gm_only: [spouse_of]` on a character: its `spouses`, as written
    allowed = [
        name
        for name in type(entry).model_fields
        if name not in NOT_HIDEABLE and (hideable is None or name in hideable)
    ]
    hidden: list[str] = ["gm_notes"]
    for index, written in enumerate(named):
        name = spelled.get(written, written)
        if name in allowed:
            hidden.append(name)
        else:
            n.v.report(
                (*loc, "gm_only", index),
                f'"gm_only" lists "{written}", which is not a field it can hide; it may list: {", ".join(allowed)}',
            )
    if "died" in hidden:
        hidden.extend(name for name in ("cause_of_death", "died_at") if name in type(entry).model_fields)
    hidden.extend(STORED_AS[name] for name in list(hidden) if name in STORED_AS)
    for group in _ONE_SECRET:
        if any(name in group and getattr(entry, name) in (None, []) for name in hidden):
            hidden.extend(sorted(name for name in group - set(hidden) if name in allowed))
    return tuple(hidden)


def status_told(n: Normaliser, entry: LoreModel, loc: Loc, hidden: tuple[str, ...]) -> tuple[str, ...]:
    """Return the hidden fields with what a person's status keeps from players: beside `public_status` (what the
    table is told), the true `status` is the GM's; a true status kept for the GM with nothing told in its place
    hides the birth's "alive" too (`born`), which would half-tell it. `public_status` without a `status` is
    reported at its line: it is told in place of a truth."""
    told, status = getattr(entry, "public_status", None), getattr(entry, "status", None)
    if told is not None and status is None:
        n.v.report(
            (*loc, "public_status"),
            '"public_status" says what players are told in place of the truth: give the truth beside it in "status"',
        )
        return hidden
    if told is not None:
        return hidden if "status" in hidden else (*hidden, "status")
    if "status" in hidden and status not in (None, "alive") and "born" not in hidden:
        return (*hidden, "born")
    return hidden


def define_hiding(
    n: Normaliser, entity_type: EntityType, entry: LoreModel, attributes: dict[str, JsonValue], loc: Loc
) -> None:
    """Define an entry of a kind with no more to it than its fields and their edges (a creature, a culture, a
    deity, a spell, ...), its `gm_notes` and the fields its `gm_only:` lists the GM's alone, as a character's."""
    hidden = hidden_fields(n, entry, loc)
    attributes = {**attributes, "gm_notes": getattr(entry, "gm_notes", None)}
    name = str(getattr(entry, "name", ""))
    visibility: Visibility = getattr(entry, "visibility", None) or "public"
    n.define(entity_type, str(getattr(entry, "id", "")), name, attributes, visibility, loc, hidden)
    n.link_fields(entity_type, entry, loc, gm_only=hidden)
