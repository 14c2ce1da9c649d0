"""A person's ties that are not kin said in the tense they hold in: a tie over by its span (`bonds.card_bonds`
reads it by the house's one rule, `canon.wording.tense.dated_span`), or one either of whose two is dead, is said in
the past with its span ("Corin Thorne's mentor was Orrin Quell (from year 438 to 446 of the Lantern Age)"); one
that holds today as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Hold
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["held_tie", "is_past", "ties_in_tense"]


def held_tie(owner: CanonFact, predicate: str, other: str) -> Hold | None:
    """Return the dated tie of `predicate` between the owner and `other` on the owner's card, or None."""
    return next((b for b in owner.bonds if b.predicate == predicate and b.holder == other), None)


def is_past(owner: CanonFact, facts: Sequence[CanonFact], predicate: str, other: str) -> bool:
    """Return whether the tie with `other` is over: its span ended, or either of the two is dead."""
    held = held_tie(owner, predicate, other)
    dead = {f.entity_name for f in facts if f.state == "dead"} | set(owner.deaths)
    return (held is not None and held.ended) or owner.state == "dead" or other in dead


def ties_in_tense(
    owner: CanonFact, facts: Sequence[CanonFact], predicate: str, found: Sequence[str], nouns: tuple[str, str]
) -> str:
    """Return "X's mentor is A" of the ties that hold, and "X's mentor was B (from … to …)" of those over."""
    me = owner.entity_name
    past = [n for n in found if is_past(owner, facts, predicate, n)]
    now = [n for n in found if n not in past]
    parts: list[str] = []
    for names, verbs in ((now, ("is", "are")), (past, ("was", "were"))):
        if not names:
            continue
        several = len(names) > 1
        shown = [_spanned(owner, predicate, n) if names is past else n for n in names]
        parts.append(f"{possessive(me)} {nouns[several]} {verbs[several]} {names_list(shown)}")
    return "; ".join(parts)


def _spanned(owner: CanonFact, predicate: str, other: str) -> str:
    """Return one of a tie that is over with its span, else, of one dead, when they died ("Hale Marsh (died in year
    338 of …)")."""
    held = held_tie(owner, predicate, other)
    if held is not None and held.span:
        return f"{other} ({held.span})"
    when = owner.deaths.get(other)
    return other if when is None else f"{other} (died{' ' + when if when else ''})"
