"""Facts a culture's or a group's entry keeps, asked loosely: whom they worship, where they are based, what they
speak.

"What god do the Stonekin pray to", "who do the Ember Wardens worship", "where are the Ember Wardens based", "where
do they meet", "what language do the Stonekin speak": the question's words say which fact is asked (`ASKED`, one
small table of words for the whole world, never one world's names), and the card of the group named answers from
the ties a culture or faction file writes (WORSHIPS, SEAT_OF, SPEAKS, LANGUAGE_OF: docs/structured-lore.md) or from
an attribute the table keeps under a name of that fact ("religion", "headquarters", "tongue"). The answer is a
sentence naming the group and the value ("Hallowforge is the seat of the Ember Wardens."), cited by its card.
Only what the asker may see is on a card, so a GM-only tie or value is never read for a player: the question
then falls through to the answer any other unanswered question gets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canon.wording import relation_sentence
from canon.wording.relations import is_or_are, possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["ASKED", "Kept", "kept_answer"]


@dataclass(frozen=True)
class Kept:
    """A fact a group's entry keeps: the question's words that ask it, the ties that hold it (with whether the
    group is the tie's subject), and the attribute names a table may keep it under."""

    asks: re.Pattern[str]
    ties: tuple[tuple[str, bool], ...]
    attributes: re.Pattern[str]


#: Question words -> the ties and attribute names that answer them; the first fact whose words the question
#: holds is asked.
ASKED: tuple[Kept, ...] = (
    Kept(
        re.compile(
            r"\b(?:gods?|goddess(?:es)?|deity|deities|worship\w*|pray|prays|prayed|praying|religions?|faiths?"
            r"|revere\w*|venerate\w*|patron|believe|believes|beliefs?)\b"
        ),
        (("WORSHIPS", True),),
        re.compile(r"religion|faith|deity|god|gods|goddess|patron(?: god| deity)?|worships?|creed"),
    ),
    Kept(
        re.compile(
            r"\b(?:based|base|headquarters|hq|seat|meet|meets|gather|gathers|headquartered|stronghold|hideout"
            r"|lair|(?:operates?|works?|runs?)\s+(?:from|out\s+of))\b"
        ),
        (("SEAT_OF", False), ("HOMELAND_OF", False), ("INHABITS", True), ("LOCATED_IN", True)),
        re.compile(r"seat|headquarters|hq|base|meeting place|stronghold|hideout|lair"),
    ),
    Kept(
        re.compile(r"\b(?:languages?|tongues?|speak|speaks|spoke|spoken|speaking)\b"),
        (("SPEAKS", True), ("LANGUAGE_OF", False)),
        re.compile(r"languages?|tongues?|speech"),
    ),
)

#: A question about the value's own card ("who worships Morruk", "who speaks Old Delvish") is no question of
#: what the group keeps: those read the tie from its other end (`answer_graph`).
_FROM_VALUE = re.compile(r"^\s*(?:who|which\s+\w+)\s+(?:worships?|prays?|speaks?|meets?|is\s+based)\b")


_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|has|have)\b")


def _asked(question: str) -> Kept | None:
    folded = question.casefold()
    if _FROM_VALUE.match(folded) or _YES_NO.match(folded):
        return None
    return next((kept for kept in ASKED if kept.asks.search(folded)), None)


def _from_ties(fact: CanonFact, kept: Kept) -> str | None:
    """Return the sentence a card's ties say of the fact asked ("The Stonekin worship Morruk the Anvil")."""
    for predicate, group_is_subject in kept.ties:
        others = fact.tied(predicate, to_me=not group_is_subject)
        if not others:
            continue
        if group_is_subject:
            return relation_sentence(predicate, fact.entity_name, names_list(others))
        return "; ".join(relation_sentence(predicate, other, fact.entity_name) for other in others)
    return None


def _from_attribute(fact: CanonFact, kept: Kept) -> str | None:
    """Return the sentence an attribute kept under a name of the fact says ("The Lantern Circle's religion is
    the Quiet Lamp")."""
    typed = fact.typed(kept.attributes)
    if typed is None:
        return None
    attribute, value = typed
    return f"{possessive(fact.entity_name)} {attribute} {is_or_are(attribute)} {value}"


def kept_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what a group's card keeps of the fact the question asks (see the module docstring), or None."""
    kept = _asked(question)
    if kept is None:
        return None
    for number, fact in enumerate(facts, 1):
        if fact.step_span:
            continue
        said = _from_ties(fact, kept) or _from_attribute(fact, kept)
        if said is not None:
            return f"{said[0].upper()}{said[1:]}. [{number}]", number
    return None
