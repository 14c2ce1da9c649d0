"""A relation question answered from the canon graph: "Who is Ysolde's brother?", "Who rules Greyhaven?", "Is Sabine a
member of the Blackwater Compact?".

The question names an entity and a relation word; the entity's card answers it when it holds such a relation
("Ysolde Marrow is a sibling of Tomas Marrow."), read in the question's direction, every one found named, a "how
many" answered with their count. A kin word naming a sex ("father", "eldest son") is answered from the family read
beside the question (`answer_kin.tie_said`): each one found of that sex, said by it, never a "parent" of a man. Only
what the asker may see is on the card, so a GM-only relative is never counted for a player. Pure.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from canon.wording import relation_sentence
from canon.wording.counts import in_words
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import tie_said
from memory.knowledge.retrieval.answer_words import RELATION_WORDS, fold_words
from memory.knowledge.retrieval.kin import KIN_WORDS

__all__ = ["in_name", "relation_answer", "titled"]

#: A relation asked from one end: the question's entity is the relation's subject ("children of X": those X
#: is PARENT_OF) or its object ("parents of X": those PARENT_OF X). Words not listed ask from either end.
_ENTITY_IS_SUBJECT = frozenset({"child", "children", "kid", "kids", "son", "sons", "daughter", "daughters"})
_ENTITY_IS_OBJECT = frozenset({"father", "mother", "parent", "parents", "ruler", "leader"})

#: What those found are called, by relation and by the end the question's entity is at (subject, object).
_NOUNS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "PARENT_OF": (("child", "children"), ("parent", "parents")),
    "SIBLING_OF": (("sibling", "siblings"), ("sibling", "siblings")),
    "SPOUSE_OF": (("spouse", "spouses"), ("spouse", "spouses")),
    "ALLY_OF": (("ally", "allies"), ("ally", "allies")),
    "ENEMY_OF": (("enemy", "enemies"), ("enemy", "enemies")),
}
#: Relation words that are also titles before a name ("lord Orrin"); verbs ("rules Greyhaven") are not.
_TITLES = frozenset(
    {"lord", "lady", "king", "queen", "ruler", "leader", "father", "mother", "sister", "brother"}
)
#: Relations said once of all their subjects: "A, B and C took part in the Battle of Red Ford".
_TOLD_TOGETHER = frozenset({"PARTICIPATED_IN"})
_SYMMETRIC = frozenset({"SIBLING_OF", "SPOUSE_OF", "ALLY_OF", "ENEMY_OF"})


def _related(fact: CanonFact, wanted: set[str], asked: Sequence[str]) -> tuple[str, bool, list[str]] | None:
    """Return the relation asked, whether the entity is its subject, and the names at the other end."""
    from_subject = not any(w in _ENTITY_IS_OBJECT for w in asked)
    from_object = not any(w in _ENTITY_IS_SUBJECT for w in asked)
    me = fact.entity_name.casefold()
    for predicate in dict.fromkeys(r.predicate.upper() for r in fact.relations):
        if predicate not in wanted:
            continue
        mine = [r for r in fact.relations if r.predicate.upper() == predicate]
        symmetric = predicate in _SYMMETRIC
        objects = [r.object for r in mine if r.subject.casefold() == me and (from_subject or symmetric)]
        subjects = [r.subject for r in mine if r.object.casefold() == me and (from_object or symmetric)]
        # "Who rules Greyhaven?": a relation that may be asked from either end reads from the end that holds it.
        if objects and (not subjects or (from_subject and not from_object) or symmetric):
            return predicate, True, list(dict.fromkeys([*objects, *(subjects if symmetric else [])]))
        if subjects:
            return predicate, False, list(dict.fromkeys(subjects))
    return None


def relation_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return a sentence answering a relation question from the canon graph, and the card it comes from.

    The relation is read in the question's direction ("the children of Aldren Vale" are those he is a parent
    of), every one found is named, and a "how many" is answered with their count. Only what the asker may see
    is on the card, so a GM-only relative is never counted for a player.
    """
    words = fold_words(question.replace("’", "'"))
    titles = titled(question, facts)
    asked = [w for w in words if w in RELATION_WORDS and not in_name(w, facts) and w not in titles]
    if not asked or re.match(r"^\s*(?:where|when)\b", question.casefold()):
        return None  # "Where was Tamsin's father born?" asks of the relative, whose card is not read here
    wanted = {p for w in asked for p in RELATION_WORDS[w]}
    how_many = any(a == "how" and b == "many" for a, b in itertools.pairwise(words))
    between = _between(question, facts, wanted)
    if between is not None:
        return between
    for number, fact in enumerate(facts, 1):
        found = _related(fact, wanted, asked)
        if found is None:
            continue
        predicate, entity_is_subject, others = found
        nouns = _NOUNS.get(predicate)
        name = fact.entity_name
        if predicate == "SPOUSE_OF" and not how_many:  # "Maren Dray is married to Quell Amberly"
            text = relation_sentence(predicate, name, names_list(others))
            if fact.state == "dead":  # "Oswin Tarr was married to Alda Tarr"
                text = text.replace(" is married to ", " was married to ", 1)
        elif nouns is not None and not how_many and (sexed := _by_sex(fact, asked)) is not None:
            text = sexed  # "Pell Brann's father is Hale Brann", of a question kin's answers do not read
        elif nouns is not None:
            singular, plural = nouns[0 if entity_is_subject else 1]
            noun = singular if len(others) == 1 else plural
            if how_many:
                had = "had" if fact.state == "dead" else "has"  # the dead's ties are said in the past
                text = f"{name} {had} {in_words(len(others))} {noun}: {names_list(others)}"
            else:
                text = f"{possessive(name)} {noun} {'is' if len(others) == 1 else 'are'} {names_list(others)}"
        elif entity_is_subject:
            text = relation_sentence(predicate, name, names_list(others))
        elif predicate in _TOLD_TOGETHER:
            text = relation_sentence(predicate, names_list(others, opens=True), name)
        else:
            text = "; ".join(relation_sentence(predicate, other, name) for other in others)
        return f"{_verdict(question, facts, others)}{text}. [{number}]", number
    return None


def _verdict(question: str, facts: Sequence[CanonFact], others: Sequence[str]) -> str:
    """Return "Yes: " of a yes/no question naming one the relation found holds with ("did Oren Vask die in the
    Siege of Harl?"), its verdict before the sentence; else nothing."""
    if not _YES_NO.match(question):
        return ""
    asked = question.casefold()
    named = {o.casefold() for o in others}
    said = any(o in asked for o in named) or any(
        f.entity_name.casefold() in named and f.matched.casefold() in asked for f in facts
    )
    return "Yes: " if said else ""


_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", re.IGNORECASE)


def _between(question: str, facts: Sequence[CanonFact], wanted: set[str]) -> tuple[str, int] | None:
    """Return whether a relation asked holds between the two entities a yes/no question names ("Is Sabine a
    member of the Blackwater Compact?"): yes with the relation, or that nothing the asker may see says it."""
    if not _YES_NO.match(question) or len(facts) < 2:
        return None
    folded = question.casefold()
    a, b = sorted(facts[:2], key=lambda f: folded.find(f.matched.casefold()) % (len(folded) + 1))
    for predicate in sorted(wanted):
        for first, second in ((a, b), (b, a)):
            number = facts.index(first) + 1
            held = any(
                r.predicate.upper() == predicate
                and r.subject.casefold() == first.entity_name.casefold()
                and r.object.casefold() == second.entity_name.casefold()
                for fact in (a, b)
                for r in fact.relations
            )
            if held:
                return (
                    f"Yes: {relation_sentence(predicate, first.entity_name, second.entity_name)}. [{number}]",
                    number,
                )
    predicate = sorted(wanted)[0]
    said = relation_sentence(predicate, a.entity_name, b.entity_name)
    # What canon does say of the first named ("… is married to Quell Amberly"): never a "No" it does not say.
    me = a.entity_name.casefold()
    known = [
        r.object if r.subject.casefold() == me else r.subject
        for r in a.relations
        if r.predicate.upper() == predicate
        and (r.subject.casefold() == me or (predicate in _SYMMETRIC and r.object.casefold() == me))
    ]
    if known:
        said += f"; canon says {relation_sentence(predicate, a.entity_name, names_list(list(dict.fromkeys(known))))}"
    return f"Nothing the table knows says {said}. [{facts.index(a) + 1}]", facts.index(a) + 1


def titled(question: str, facts: Sequence[CanonFact]) -> set[str]:
    """Return the relation words of a question that stand as a title before a name found ("lord" of "when did
    lord Orrin die"): they name, they do not ask."""
    words = fold_words(question.replace("’", "'"))
    firsts = {fold_words(f.matched)[0] for f in facts if fold_words(f.matched)}
    return {a for a, b in itertools.pairwise(words) if a in _TITLES and b in firsts}


def in_name(word: str, facts: Sequence[CanonFact]) -> bool:
    """Return whether a word is one of the words naming an entity found ("mother" of "Mother Eel", "king" of
    "the Drowned King"): it names, it does not ask a relation. A name of one word, or a word of a name, is no
    name here ("mother" of "Corran's mother" is asked, even beside a Mother Eel)."""
    return any(word in fold_words(f.matched) for f in facts if len(fold_words(f.matched)) > 1)


def _by_sex(fact: CanonFact, asked: Sequence[str]) -> str | None:
    """Return the kin a word naming a sex asks ("father", "daughters") from the family read beside the question,
    each of that sex said by it (`answer_kin.tie_said`), or None (no such word, or no family read)."""
    word = next((w for w in asked if KIN_WORDS.get(w, ("", None))[1] is not None), None)
    if word is None or fact.kin is None:
        return None
    said = tie_said(fact.entity_name, fact.kin, word)
    return said[0] if said is not None else None
