"""A death only a card's description tells: one whose file gives a birth and no `died:` is alive to canon, but a
description saying "He was shot dead outside the saloon in 119 LY" tells the table otherwise. "Is X alive?" is
then answered from that sentence ("No: Eli Hatch was shot dead outside …"), citing the card it is on.

Only the card's own subject's death counts (`lives.own_death`: the sentence opens on them, or on a pronoun), and a
sentence that hedges it ("was thought dead", "feared drowned, but walked home") tells no death; another's death
spoken of ("swore to avenge Eli's death") is not theirs. A state canon gives otherwise (dead, missing, imprisoned,
or a status written with no birth) is canon's to answer. Pure.
"""

from __future__ import annotations

import re

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import sentences
from memory.knowledge.retrieval.lives import own_death

__all__ = ["death_said", "death_told"]

#: Words that make a death in a sentence a belief, a near thing or a thing survived, never a death.
_HEDGED = re.compile(
    r"\b(?:thought|believed|feared|presumed|rumou?red|reported|supposed|said\s+to|seemed|nearly|almost|"
    r"all\s+but|survived|survives|escaped|faked|false(?:ly)?|but\s+(?:lived|lives|returned|came|walked|woke|"
    r"crawled|rose))\b",
    re.IGNORECASE,
)


def death_said(fact: CanonFact) -> str | None:
    """Return the sentence of the card's description telling its subject died, as "Eli Hatch was shot dead …",
    when canon has them alive only by a birth; else None."""
    life = fact.life
    if fact.state != "alive" or life is None or not life.born or life.died:
        return None
    head = f"{possessive(fact.entity_name)} description: "
    told = fact.description or next((f[len(head) :] for f in fact.facts if f.startswith(head)), "")
    return death_told(fact.entity_name, told)


def death_told(name: str, description: str | None) -> str | None:
    """Return the sentence of a description telling its subject died, unhedged, as "Eli Hatch was shot dead …";
    else None."""
    for sentence in sentences(description or ""):
        if _HEDGED.search(sentence):
            continue
        death = own_death(name, sentence)
        if death is not None:
            return death
    return None
