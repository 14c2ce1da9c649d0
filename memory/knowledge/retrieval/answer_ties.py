"""Questions of a person's ties that are not kin, answered from the ties on their card as the asker may see it:

- "Who is Saska's mentor?", "who taught Saska?": those MENTOR_OF her; "who are Idrel's apprentices (students,
  pupils)?": those Idrel is MENTOR_OF; in a trade's words ("who was Saska apprenticed to"): `answer_mentors`;
- "Who are Saska's rivals (friends, allies, enemies, foes)?": the tie read from either end, one edge for both;
- "Who is Pell's godfather (stepmother, father-in-law, sister-in-law)?", "who are Corm's godchildren?": kin by
  rite and by marriage a file's `ties` says; a child taken in later than birth: `answer_fates`;
- "How are Saska and Cade related?", "how is Idrel related to Saska?": when no kin joins the two (`answer_kin`
  answers kin, with these ties after it), the ties that do: "Cade Harrow is a rival of Saska Orme"
  (`answer_related`).

A tie the asker may not see is not on their card: the question reads as if the file never said it (None, and the
other forms answer as they would of a person with no such tie).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_bonds import bond_answer
from memory.knowledge.retrieval.answer_fates import killer_answer, taken_in_answer
from memory.knowledge.retrieval.answer_mentor_spans import mentor_span_answer
from memory.knowledge.retrieval.answer_mentors import mentor_answer
from memory.knowledge.retrieval.answer_related import related_between
from memory.knowledge.retrieval.kin import FAMILY
from memory.knowledge.retrieval.tie_sexes import gendered, sexed_tie
from memory.knowledge.retrieval.tie_tense import ties_in_tense

__all__ = ["ties_answer"]


def _words(predicate: str, end: str, singular: str, plural: str) -> dict[str, tuple[str, str, str, str]]:
    return dict.fromkeys((singular, plural), (predicate, end, singular, plural))


#: A word asked -> the relation, the end the others are at ("subject": they are its subject, as a mentor is;
#: "object"; "either"), and the noun the answer says them by (one, several).
_ASKED: dict[str, tuple[str, str, str, str]] = {
    **_words("MENTOR_OF", "subject", "mentor", "mentors"),
    **_words("MENTOR_OF", "subject", "teacher", "teachers"),
    **_words("MENTOR_OF", "subject", "tutor", "tutors"),
    **_words("MENTOR_OF", "object", "apprentice", "apprentices"),
    **_words("MENTOR_OF", "object", "student", "students"),
    **_words("MENTOR_OF", "object", "pupil", "pupils"),
    **_words("MENTOR_OF", "object", "protege", "proteges"),
    **_words("RIVAL_OF", "either", "rival", "rivals"),
    **_words("FRIEND_OF", "either", "friend", "friends"),
    **_words("ALLY_OF", "either", "ally", "allies"),
    **_words("ENEMY_OF", "either", "enemy", "enemies"),
    **_words("ENEMY_OF", "either", "sworn enemy", "sworn enemies"),
    **_words("ENEMY_OF", "either", "foe", "foes"),
    **_words("ENEMY_OF", "either", "nemesis", "nemeses"),
    **_words("GODPARENT_OF", "subject", "godparent", "godparents"),
    **_words("GODPARENT_OF", "subject", "godfather", "godfathers"),
    **_words("GODPARENT_OF", "subject", "godmother", "godmothers"),
    **_words("GODPARENT_OF", "object", "godchild", "godchildren"),
    **_words("GODPARENT_OF", "object", "godson", "godsons"),
    **_words("GODPARENT_OF", "object", "goddaughter", "goddaughters"),
    **_words("STEP_PARENT_OF", "subject", "stepfather", "stepfathers"),
    **_words("STEP_PARENT_OF", "subject", "stepmother", "stepmothers"),
    **_words("STEP_PARENT_OF", "subject", "step-parent", "step-parents"),
    **_words("STEP_PARENT_OF", "object", "stepchild", "stepchildren"),
    **_words("STEP_PARENT_OF", "object", "stepson", "stepsons"),
    **_words("STEP_PARENT_OF", "object", "stepdaughter", "stepdaughters"),
    **_words("PARENT_IN_LAW_OF", "subject", "father-in-law", "fathers-in-law"),
    **_words("PARENT_IN_LAW_OF", "subject", "mother-in-law", "mothers-in-law"),
    **_words("PARENT_IN_LAW_OF", "subject", "parent-in-law", "parents-in-law"),
    **_words("PARENT_IN_LAW_OF", "object", "son-in-law", "sons-in-law"),
    **_words("PARENT_IN_LAW_OF", "object", "daughter-in-law", "daughters-in-law"),
    **_words("PARENT_IN_LAW_OF", "object", "child-in-law", "children-in-law"),
    **_words("SIBLING_IN_LAW_OF", "either", "brother-in-law", "brothers-in-law"),
    **_words("SIBLING_IN_LAW_OF", "either", "sister-in-law", "sisters-in-law"),
    **_words("SIBLING_IN_LAW_OF", "either", "sibling-in-law", "siblings-in-law"),
}
_PEOPLE = frozenset({"Person", "NPC", "PC"})
_WHO = re.compile(r"^\s*(?:who|whom|name|list|what\s+are|tell\s+me)\b", re.I)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were)\b", re.I)
_TAUGHT = re.compile(r"^\s*who\s+(?:taught|trained|mentored|tutored)\s+(?P<name>.+?)\s*\??\s*$", re.I)


def ties_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a question of a tie that is not kin (see the module docstring), or None."""
    return (
        bond_answer(question, facts)  # when two were rivals, allies: their tie's span (`answer_bonds`)
        or killer_answer(question, facts)
        or taken_in_answer(question, facts)
        or mentor_span_answer(question, facts)  # "when did Corin study under Orrin": the tie's span
        or mentor_answer(question, facts)  # "who was Corin apprenticed to", "who did Halloran train"
        or _asked_tie(question, facts)
        or _related(question, facts)
    )


def _people(facts: Sequence[CanonFact]) -> list[CanonFact]:
    return [f for f in facts if f.entity_type in _PEOPLE]


def _asked_tie(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    folded = question.casefold().replace("’", "'")
    taught = _TAUGHT.match(question)
    for fact in _people(facts):
        name = re.escape(fact.matched.casefold())
        if taught and re.search(rf"\b{name}\b", taught["name"].casefold()):
            return _say(fact, facts, _ASKED["mentor"])
        if not _WHO.match(question):
            continue
        for word in sorted(_ASKED, key=len, reverse=True):
            owned = rf"{name}(?:'s|s'|')?\s+{word}\b"
            if re.search(owned, folded) or re.search(rf"\b{word}\s+of\s+{name}\b", folded):
                return _say(fact, facts, _ASKED[word])
    return None


def _say(
    owner: CanonFact, facts: Sequence[CanonFact], asked: tuple[str, str, str, str]
) -> tuple[str, int] | None:
    """Return those of the tie asked, said of the owner ("Saska Orme's mentor is Idrel Vask"), or None."""
    predicate, end, singular, plural = asked
    me = owner.entity_name
    found: list[str] = []
    for r in owner.relations:
        if r.predicate.upper() != predicate:
            continue
        if r.object == me and end in ("subject", "either"):
            found.append(r.subject)
        elif r.subject == me and end in ("object", "either"):
            found.append(r.object)
    found = [n for n in dict.fromkeys(found) if n != me]
    if not found:
        return None
    number = facts.index(owner) + 1
    sexed = gendered(predicate, end, singular)  # "godfather": said of each by their own sex
    if sexed is not None:
        said = sexed_tie(
            owner,
            facts,
            found,
            sexed,
            lambda names, nouns: ties_in_tense(owner, facts, predicate, names, nouns),
        )
        return f"{said}. [{number}]", number
    return f"{ties_in_tense(owner, facts, predicate, found, (singular, plural))}. [{number}]", number


def _related(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the ties that join two people named when no kin does: "Cade Harrow is a rival of Saska Orme"
    (`answer_related`)."""
    if FAMILY.search(question) is None:
        return None
    folded = question.casefold()
    named = sorted(
        (f for f in _people(facts) if folded.find(f.matched.casefold()) >= 0),
        key=lambda f: folded.find(f.matched.casefold()),
    )
    if len(named) < 2:
        return None
    other, owner = named[0], named[1]
    if owner.kin is not None and any(other.entity_name in names for names in owner.kin.ties.values()):
        return None  # kin: `answer_kin` says it, with the other ties after it
    return related_between(owner, other, facts, yes_no=bool(_YES_NO.match(question)))
