"""A person's ties to another that hold both ways and may be dated: rivals, friends, allies, enemies (a `ties:`
item with `from:` and `to:`, "rival since 610", "sworn enemy from 3 Thaw 612 to 620"); and a mentor's tie, either
way (`answer_mentor_spans`).

`card_bonds` reads them off a person's card as the asker may see them (a tie kept for the GM is on no player's
card; a date in an era hidden from the asker is no date), each with its span in the calendar's words, over when it
ended before the story's date and held today otherwise, as a leader's span is read (`tenures.card_holds`).
`tensed_bonds` says a card's line of a tie that is over in the past ("Mara Quell was an enemy of Dunstan Reed (from
…)"): a card says every tie as "is", whenever it held. `answer_bonds` answers from them.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.models import EntityCard, Validity
from canon.wording import PLAIN, Wording
from canon.wording.tense import dated_span
from memory.knowledge.answer_models import Hold

__all__ = ["BONDS", "card_bonds", "in_tense", "tensed_bonds"]

#: The ties that hold both ways and may be dated, by the noun a sentence says them by (one, several).
BONDS: dict[str, tuple[str, str]] = {
    "RIVAL_OF": ("rival", "rivals"),
    "FRIEND_OF": ("friend", "friends"),
    "ALLY_OF": ("ally", "allies"),
    "ENEMY_OF": ("enemy", "enemies"),
}


#: The ties read with their spans: those that hold both ways, and a mentor's (who taught whom, from when to when).
_DATED = (*BONDS, "MENTOR_OF")


def card_bonds(card: EntityCard, words: Wording = PLAIN, now: int | None = None) -> tuple[Hold, ...]:
    """Return the card's ties to other people that hold both ways (`BONDS`), each with the other's name and its
    span as the asker may read it: over when it ended by today, held today otherwise."""
    me = card.entity.id
    found: list[Hold] = []
    for view in card.relations:
        s = view.statement
        predicate = s.predicate.upper()
        if predicate not in _DATED or view.subject is None or view.object is None:
            continue
        other = view.object if s.subject_id == me else view.subject
        v = s.validity
        start, end, ended, current = dated_span(words, v, now)
        span = Validity(
            world_from=v.world_from if start else None, world_until=v.world_until if end else None
        )
        found.append(
            Hold(
                holder=other.name,
                predicate=predicate,
                start_key=start,
                end_key=end,
                span=words.span(span) if start is not None or end is not None else "",
                ended=ended,
                current=current,
            )
        )
    return tuple(sorted(found, key=lambda h: (h.start_key is None, h.start_key or 0, h.holder)))


def tensed_bonds(lines: list[str], name: str, bonds: Sequence[Hold]) -> list[str]:
    """Return a card's lines with each tie that is over said in the past: "Mara Quell was an enemy of Dunstan
    Reed (from …)", from either end."""
    over = [b for b in bonds if b.ended and b.predicate in BONDS]
    if not over:
        return lines
    said: list[str] = []
    for line in lines:
        for bond in over:
            noun = BONDS[bond.predicate][0]
            article = "an" if noun[0] in "aeiou" else "a"
            for first, second in ((name, bond.holder), (bond.holder, name)):
                now = f"{first} is {article} {noun} of {second} ("
                if line.startswith(now):
                    line = f"{first} was {line[len(first) + 4 :]}"
        said.append(line)
    return said


def in_tense(sentence: str, bonds: Sequence[Hold], other: str, predicate: str) -> str:
    """Return a tie's sentence ("Mara Quell is an enemy of Dunstan Reed") in the past with its span when the tie
    with `other` is over ("Mara Quell was an enemy of Dunstan Reed, from … to …"), else as it is."""
    over = next(
        (b for b in bonds if b.predicate == predicate.upper() and b.holder == other and b.ended), None
    )
    if over is None:
        return sentence
    return sentence.replace(" is ", " was ", 1) + (f", {over.span}" if over.span else "")
