"""A person's death as a roster or a family tree states it: a killer, a cause or a place of death given without a
`status` says the person is dead (kept for the GM when each of them is); given of someone alive, it is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from canon.structured.kinds.fates import faked_death
from canon.structured.schemas import LoreModel

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc


#: The states in which someone may have died (the undead too).
_DIED_STATES = frozenset({"dead", "undead"})
#: The fields that tell a death without a date, each with the `gm_only` items that keep it for the GM.
_TELLING = {
    "killed_by": ("killed_by",),
    "cause_of_death": ("cause_of_death", "died"),
    "died_at": ("died_at", "died"),
}
_Person = TypeVar("_Person", bound=LoreModel)


def stated_death(person: _Person) -> _Person:
    """Return `person` as the GM means it: one whose killer, cause or place of death is written, with no `status`
    and no `died` date (which records the death itself), is `status: dead`; a death every such field keeps for the
    GM is the GM's (`status` joins `gm_only`), so a player reads the person as if no death were written."""
    if getattr(person, "status", None) is not None or getattr(person, "died", None) is not None:
        return person
    kept = set(getattr(person, "gm_only", ()))
    telling = [hiding for field, hiding in _TELLING.items() if getattr(person, field, None) is not None]
    if not telling:
        return person
    update: dict[str, object] = {"status": "dead"}
    if all(kept.intersection(hiding) for hiding in telling):
        update["gm_only"] = [*getattr(person, "gm_only", ()), "status"]
    return person.model_copy(update=update)


def check_death(n: Normaliser, person: LoreModel, loc: Loc) -> None:
    """Refuse a death's cause, what players are told of it, or a killer given of someone whose `status` says
    they live."""
    status = getattr(person, "status", None)
    if status is None or status in _DIED_STATES:
        return
    for field in ("cause_of_death", "public_cause_of_death", "killed_by", "died_at"):
        if getattr(person, field, None) is not None and not faked_death(person, field):
            n.v.report(
                (*loc, field),
                f'"{field}" is given, but "status" is {status}: write "status: dead" (or leave "status" out), '
                f'or drop "{field}"',
            )
