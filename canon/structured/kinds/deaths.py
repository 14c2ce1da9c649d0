"""A person's death as a roster or a family tree states it: a cause of death given of someone alive is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from canon.structured.kinds.fates import faked_death
from canon.structured.schemas import LoreModel

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc


#: The states in which someone may have died (the undead too).
_DIED_STATES = frozenset({"dead", "undead"})


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
