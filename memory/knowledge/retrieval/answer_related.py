"""How two people named are related ("how is Wren related to Tove?", "are Wren and Tove related?"): every tie
between the two that the asker may see, kin first, each in plain words once.

Kin is read from the family of the one named second (`CanonFact.kin`): each tie that holds the other, nearest first
("Wren Moss is Tove Moss's cousin; Wren Moss is married to Tove Moss"), a parent or child the table only believes
in as what is believed (`kin_reputed`). Then the ties that are no blood: kin by rite, law or marriage a file states
(a stepmother, a godfather, a brother-in-law), then the others (a mentor, a friend, an ally, a rival, an enemy, a
killer), each in the tense it holds in (`bonds.in_tense`). A tie the asker may not see is on none of their cards,
so the answer reads as if the file never said it. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.relations import possessive, relation_sentence
from canon.wording.tense import in_past
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.bonds import in_tense
from memory.knowledge.retrieval.kin import TIES
from memory.knowledge.retrieval.kin_far_words import FAR_TIES
from memory.knowledge.retrieval.kin_nouns import tie_noun
from memory.knowledge.retrieval.kin_reputed import believed_tie

__all__ = ["NOT_KIN", "related_between"]

#: The ties that are no blood, in the order they are said: kin by rite, law or marriage first, then the others.
NOT_KIN = (
    *("ADOPTIVE_PARENT_OF", "FOSTER_PARENT_OF", "STEP_PARENT_OF", "PARENT_IN_LAW_OF", "SIBLING_IN_LAW_OF"),
    *("GODPARENT_OF", "MENTOR_OF", "FRIEND_OF", "ALLY_OF", "RIVAL_OF", "ENEMY_OF", "KILLED"),
)
#: A tie a file states that the family's walk finds too (`kin_far`): said once, with the family.
_WALKED = {
    "STEP_PARENT_OF": ("step-parents", "step-children"),
    "PARENT_IN_LAW_OF": ("parents-in-law", "children-in-law"),
    "SIBLING_IN_LAW_OF": ("siblings-in-law",),
}


def _kin_said(owner: CanonFact, other: CanonFact) -> tuple[list[str], set[str]]:
    """Return the kin ties between the two in sentences, nearest first, and the ties said."""
    kin = owner.kin
    if kin is None:
        return [], set()
    me, them = owner.entity_name, other.entity_name
    held = [t for t in (*TIES, *FAR_TIES) if them in kin.ties.get(t, ())]
    story = next((s for t in ("parents", "children") if (s := believed_tie(me, them, kin, t, None))), None)
    said: list[str] = []
    if story and (not held or held[0] in ("parents", "children")):
        said.append(story)  # a parent the table believes in: as believed, never as the truth
        held = [t for t in held if t not in ("parents", "children")]
    verb = "was" if them in kin.deaths else "is"  # "Aldric Thorne was Pip Thorne's father": he is dead
    for tie in held:
        if tie == "spouses":
            married = relation_sentence("SPOUSE_OF", them, me)
            dead = them in kin.deaths or owner.state == "dead"
            said.append(married.replace(" is married", " was married", 1) if dead else married)
            continue
        shown = "half-siblings" if tie == "siblings" and them in kin.ties.get("half-siblings", ()) else tie
        text = f"{them} {verb} {possessive(me)} {tie_noun(shown, kin.sexes.get(them), False)}"
        how = kin.via.get(tie, {}).get(them)  # "(her father Corin Brannock's adopted son)"
        said.append(f"{text} ({how})" if how else text)
    return said, set(held)


def _others_said(owner: CanonFact, other: CanonFact, walked: set[str]) -> list[str]:
    """Return the ties between the two that are no blood, in `NOT_KIN`'s order, each once; one the family's walk
    said already (`walked`) is not said again."""
    me, them = owner.entity_name, other.entity_name
    said: list[str] = []
    for predicate in NOT_KIN:
        if walked & set(_WALKED.get(predicate, ())):
            continue
        for r in owner.relations:
            if r.predicate.upper() != predicate or {r.subject, r.object} != {me, them}:
                continue
            # The card says it by the subject's sex ("… is Hob Greave's brother-in-law"), where it knows it, and
            # in the past of a tie over by a death ("Hale Marsh was Jory Marsh's mentor (until …)").
            plain = relation_sentence(r.predicate, r.subject, r.object)
            lines = (*owner.facts, *other.facts)
            lead = f"{r.subject} is {possessive(r.object)} "
            past = next((f for f in lines if f.startswith(in_past(plain, r.subject))), None)
            dead = them in owner.deaths or owner.state == "dead"
            if past is None or not dead:  # a tie over by its span says its span once (`in_tense`)
                line = next((f for f in lines if f.startswith(lead)), None)
                text = in_tense(line or plain, owner.bonds, them, predicate)
            else:  # a tie a death ended, as the card says it: "Hale Marsh was Jory Marsh's mentor (until …)"
                text = past
            if text not in said:
                said.append(text)
    return said


def related_between(
    owner: CanonFact, other: CanonFact, facts: Sequence[CanonFact], *, yes_no: bool = False
) -> tuple[str, int] | None:
    """Return every tie between `other` and `owner` the asker may see, kin first ("Pip Thorne is Corwin Ashby's
    stepbrother (…); Pip Thorne is a rival of Corwin Ashby"), "Yes: " first for a yes/no question kin answers;
    None when no tie joins them."""
    kin, walked = _kin_said(owner, other)
    said = [*kin, *_others_said(owner, other, walked)]
    if not said:
        return None
    number = facts.index(owner) + 1
    yes = (
        "Yes: " if yes_no and kin else ""
    )  # a mentor or a rival is no kin: "are they related" is not answered yes
    return f"{yes}{'; '.join(said)}. [{number}]", number
