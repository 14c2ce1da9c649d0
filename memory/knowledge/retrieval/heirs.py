"""Heirs, only as canon says them: "Who is Arlen's heir?", "Who is heir to the Reedholt?".

Canon says an heir in a relation whose name says so (HEIR_OF, a campaign's own), in a title ("Heir of the
Reedholt") or in a description ("… the heir to the east-bank ferry"); never by birth order, which says nothing of
a succession. A question saying "heir" (or "heiress", "successor") finds those whose titles or descriptions hold
the word, as the asker may read them (`heir_holders`); the answer keeps those whose words name what is asked (the
place of "heir to the Reedholt"; of "Arlen's heir", Arlen's name or the place of Arlen's own title, "Warden of
the Reedholt") and says it as canon does, with the title of the one whose heir it is. Nothing said: the honest
"nothing known".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, facts_holding
from canon.wording import relation_sentence
from canon.wording.relations import possessive
from memory.fulltext import STOPWORDS
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_words import fold_words, sentences
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.steps import owner_of

__all__ = ["heir_answer", "heir_holders"]

_HEIR = re.compile(r"\b(heirs?|heiress(?:es)?|successors?)\b", re.I)
_ABOUT = re.compile(
    r"\b(?:heirs?|heiress(?:es)?|successors?)\s+(?:to|of)\s+(?P<what>(?:the\s+)?[\w' -]+?)\s*\??$", re.I
)
_OWNED = re.compile(r"(?P<owner>[\w' -]+?)(?:'s|s')\s+(?:heirs?|heiress|successors?)\b")
#: The most holders found: a world of many heirs is asked of one place.
_MOST = 8
_SCORE = 60.0
_ATTRIBUTES = ("title", "titles", "description")


async def heir_holders(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return those whose titles or descriptions say the heir word asked, as matches found by that word."""
    asked = _HEIR.search(question)
    if asked is None:
        return []
    word = asked.group(1).casefold().rstrip("s") if asked.group(1).casefold() != "heiress" else "heiress"
    known = {m.entity_id for m in named}
    found: dict[int, EntityMatch] = {}
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    whose = _OWNED.search(folded)
    owner = await owner_of(reader, whose["owner"], named) if whose else None
    if owner is not None and owner[0] not in known:  # "the Ember Queen's heir": whoever holds that title
        found[owner[0]] = EntityMatch(entity_id=owner[0], matched=owner[1], window=owner[1], score=95.0)
        known.add(owner[0])
    for statement in await facts_holding(reader, _ATTRIBUTES, [word.removesuffix("es")]):
        if statement.subject_id not in known and len(found) < _MOST:
            found.setdefault(
                statement.subject_id,
                EntityMatch(entity_id=statement.subject_id, matched=word, window=word, score=_SCORE),
            )
    return list(found.values())


def _words(text: str, besides: set[str]) -> set[str]:
    return {w for w in fold_words(text) if w not in STOPWORDS and w not in besides and len(w) > 2}


def _titles(fact: CanonFact) -> list[str]:
    """Return the lines saying what someone is by a title of something ("Arlen Moss is Warden of the Reedholt")."""
    lead = f"{fact.entity_name} is "
    titled = re.compile(
        rf"^{re.escape(lead)}(?:the )?[A-Z][^,;]* of "
    )  # "… is Warden of the Reedholt", a title
    return [f for f in fact.facts if titled.match(f) and not _HEIR.search(f)]


def _said(fact: CanonFact) -> list[str]:
    """Return what canon says of an heir on a card: its heir titles, then its description's sentences saying one."""
    lead = f"{fact.entity_name} is "
    titles = [f for f in fact.facts if f.startswith(lead) and _HEIR.search(f)]
    described = fact.description or attribute_value(fact, "description") or ""
    told = [s.rstrip(".") for s in sentences(described) if _HEIR.search(s)]
    if told and not told[0].startswith(fact.entity_name):  # "Brann Tally's niece, …": what the heir is
        text = re.sub(r"^(?:She|He|They)\s+(?:is|are)\s+", "", told[0])
        text = re.sub(r"^(A|An|The)\b", lambda m: m[1].lower(), text)
        told = [f"{fact.entity_name} is {text}"]
    return titles + told[:1]


def _target(fact: CanonFact) -> tuple[list[str], set[str]]:
    """Return the titles of the one whose heir is asked, and the words an heir's line may name them by."""
    theirs = _titles(fact)
    return theirs, _words(fact.entity_name, set()) | {
        w for t in theirs for w in _words(t.split(" of ", 1)[1], set())
    }


def _whose(question: str, owners: Sequence[tuple[int, CanonFact]]) -> tuple[int, CanonFact]:
    """Return the one whose heir is asked: named before "'s heir" ("the Ember Queen's heir"), else the first."""
    folded = question.casefold().replace("’", "'")
    for number, fact in sorted(owners, key=lambda nf: -len(nf[1].matched)):  # the longest name ending there
        if re.search(
            rf"{re.escape(fact.matched.casefold())}(?:'s|s'|')\s+(?:\w+\s+)?(?:heir|heiress|successor)",
            folded,
        ):
            return number, fact
    return owners[0]


def _is_heir(
    question: str,
    owners: Sequence[tuple[int, CanonFact]],
    holders: Sequence[tuple[int, CanonFact]],
    about: re.Match[str] | None,
) -> tuple[str, int] | None:
    """Return whether the first one named is the heir asked ("Is Tove Arlen's heir?"): yes with what canon says,
    or that nothing says so, with what canon does say (never a "No" it does not say)."""
    folded = question.casefold()
    named = sorted(owners, key=lambda nf: folded.find(nf[1].matched.casefold()) % (len(folded) + 1))
    if not named:
        return None
    number, first = named[0]
    other = named[1][1] if len(named) > 1 else None
    theirs, target = (
        _target(other) if other is not None else ([], _words(about["what"], set()) if about else set())
    )
    said = _said(first)
    own = set(fold_words(first.entity_name))
    kept = [s for s in said if _words(s, own) & target] if target else said
    if kept:
        return f"Yes: {'; '.join([kept[0], *theirs[:1]])}. [{number}]", number
    whose = (
        f"{possessive(other.entity_name)} heir"
        if other
        else f"heir to {about['what']}"
        if about
        else "an heir"
    )
    text = f"Nothing the table knows says {first.entity_name} is {whose}"
    known = (
        said[:1]
        or [
            s
            for _, h in holders
            for s in _said(h)
            if target and _words(s, set(fold_words(h.entity_name))) & target
        ][:1]
    )
    if known:
        text += f"; canon says {known[0]}"
    return f"{text}. [{number}]", number


def heir_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who canon says is the heir asked, with the title they are heir to where that says it, or None."""
    if _HEIR.search(question) is None or not re.match(
        r"^\s*(?:who|whos|is|was|name|does|has)\b", question, re.I
    ):
        return None
    holders = [(n, f) for n, f in enumerate(facts, 1) if _HEIR.fullmatch(f.matched.strip())]
    owners = [(n, f) for n, f in enumerate(facts, 1) if (n, f) not in holders and not f.step_span]
    about = _ABOUT.search(question.replace("’", "'"))
    if re.match(r"^\s*(?:is|was)\b", question, re.I):
        return _is_heir(question, owners, holders, about)
    owner = _whose(question, owners) if owners and about is None else None
    for number, fact in owners[:1] if owner else ():
        for r in fact.relations:  # a relation that says it: "Tove Moss is heir of Arlen Moss"
            says = "HEIR" in r.predicate.upper() or "SUCCE" in r.predicate.upper()
            if says and r.object.casefold() == fact.entity_name.casefold():
                return f"{relation_sentence(r.predicate, r.subject, r.object)}. [{number}]", number
    if owner is not None:
        number, fact = owner
        theirs, target = _target(fact)
    elif about is not None:
        theirs, target = [], _words(about["what"], set())
    else:
        return None
    for number, fact in holders:
        own = set(fold_words(fact.entity_name))
        said = [s for s in _said(fact) if _words(s, own) & target]
        if said:
            text = "; ".join([said[0], *theirs[:1]])
            return f"{text}. [{number}]", number
    if owner is not None:
        number, fact = owner
        return f"Nothing the table knows names an heir of {fact.entity_name}. [{number}]", number
    return None
