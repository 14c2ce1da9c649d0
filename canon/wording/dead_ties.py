"""Ties to the dead, as a card or an answer says them.

A tie that ends with a life (a mentor, a friend, an ally, a rival, an enemy, a marriage) is over when either of the
two is dead as the reader reads it: said in the past, until the first of the deaths the reader knows the date of
("Hale Marsh was Jory Marsh's mentor (until year 338 of the Third Age)"). A tie of blood, rite or law outlives a
death: it is said in the past only of the one who is dead ("Aldric Thorne was Pip Thorne's father"), never of the
living one ("Pip Thorne was Aldric Thorne's son" would unmake the son), and an answer naming the dead one says when
they died ("Pip Thorne's father was Aldric Thorne (died in year 340 of the Third Age)"). `Wording.deaths` holds who
is dead as the reader reads it (a death kept for the GM is no death to a player) and when. Pure.
"""

from __future__ import annotations

from canon.calendar import UNKNOWN
from canon.models import StatementKind, StatementView
from canon.wording.context import Wording

__all__ = ["ENDS_AT_DEATH", "OUTLIVES_DEATH", "death_end", "past_by_death"]

#: Ties between two people that end when either dies.
ENDS_AT_DEATH = frozenset({"MENTOR_OF", "FRIEND_OF", "ALLY_OF", "RIVAL_OF", "ENEMY_OF", "SPOUSE_OF"})
#: Ties between two people that outlive a death: kin by blood, rite or law.
OUTLIVES_DEATH = frozenset(
    {
        *("PARENT_OF", "REPUTED_PARENT_OF", "ADOPTIVE_PARENT_OF", "FOSTER_PARENT_OF", "STEP_PARENT_OF"),
        *("GODPARENT_OF", "PARENT_IN_LAW_OF", "SIBLING_IN_LAW_OF", "SIBLING_OF", "AUNT_OR_UNCLE_OF"),
        *("GRANDPARENT_OF", "COUSIN_OF"),
    }
)


def _tie(view: StatementView) -> str | None:
    s = view.statement
    return s.predicate.upper() if s.kind == StatementKind.RELATION and view.object is not None else None


def past_by_death(view: StatementView, words: Wording) -> bool:
    """Tell whether a tie reads in the past for a death (see the module docstring)."""
    tie = _tie(view)
    if tie in ENDS_AT_DEATH:
        return view.subject.id in words.deaths or (view.object is not None and view.object.id in words.deaths)
    return tie in OUTLIVES_DEATH and view.subject.id in words.deaths


def death_end(view: StatementView, words: Wording) -> tuple[str, int | None] | None:
    """Return when a tie that ends with a life ended by a death (stored, as a key), the earlier of two the reader
    knows the date of; None when neither is dead, or no death's date is known to the reader."""
    if _tie(view) not in ENDS_AT_DEATH or view.object is None:
        return None
    dated = [
        words.deaths[i]
        for i in (view.subject.id, view.object.id)
        if i in words.deaths and words.deaths[i][0] != UNKNOWN and words.dated(words.deaths[i][0])
    ]
    if not dated:
        return None
    return min(dated, key=lambda d: (d[1] is None, d[1] or 0))
