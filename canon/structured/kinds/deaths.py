"""A person's death as a roster or a family tree states it: a cause of death given of someone alive is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from canon.structured.schemas import LoreModel

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc


#: The states in which someone may have died (the undead too).
_DIED_STATES = frozenset({"dead", "undead"})


def check_death(n: Normaliser, person: LoreModel, loc: Loc) -> None:
    """Refuse a cause of death given of someone whose `status` says they live."""
    status = getattr(person, "status", None)
    if (
        getattr(person, "cause_of_death", None) is not None
        and status is not None
        and status not in _DIED_STATES
    ):
        n.v.report(
            (*loc, "cause_of_death"),
            f'"cause_of_death" is given, but "status" is {status}: write "status: dead" (or leave "status" out), '
            'or drop "cause_of_death"',
        )
