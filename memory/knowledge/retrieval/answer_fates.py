"""A child taken in later than birth, and what players are told beside a truth the GM keeps, from the cards as the
asker may see them.

- "Who adopted Wenna?", "who fostered Wenna?", "who are Wenna's adoptive (foster) parents?", "was Wenna adopted?":
  the ADOPTIVE_PARENT_OF and FOSTER_PARENT_OF ties on her card, with the date each holds from ("Wenna Tull was
  adopted by Corm Tull in year 1205").
- "Who killed Sef Rook?": the KILLED ties on his card (a file's `killed_by`), else that nothing names who and how
  he died where the card says it.
- "Who are Wenna's parents?", "who is Wenna's father?" of one who was adopted or fostered: the birth parents the
  asker may see, then who took her in ("Wenna Tull's birth mother is Ysolt Dunmere; Wenna Tull was adopted by Corm
  Tull in year 1205"). A birth parent the asker may not see is on no card of theirs: the answer reads as one of a
  file that never named that parent.

What players are told beside a truth the GM keeps (a cause of death, an outcome) is `told_truths`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.kin_doubted import DOUBTING
from memory.knowledge.retrieval.lives import death_cause, typed_death

__all__ = ["killer_answer", "taken_in_answer"]

_PEOPLE = frozenset({"Person", "NPC", "PC"})
#: The ties of a child taken in: the relation, its verb, and the word before the date ("adopted … in year 1205").
_TAKEN_IN = (("ADOPTIVE_PARENT_OF", "adopted", "adoptive"), ("FOSTER_PARENT_OF", "fostered", "foster"))
_WHO_TOOK_IN = re.compile(
    r"^\s*(?:who|whom)\s+(?:(?P<verb>adopted|fostered)|took\s+in|raised|brought\s+up)\s+(?P<name>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
_WAS_TAKEN_IN = re.compile(
    r"^\s*(?:was|were|is)\s+(?P<name>.+?)\s+(?P<verb>adopted|fostered)\b(?!\s+by)", re.IGNORECASE
)
_PARENT_WORDS = (
    r"(?P<kind>adoptive\s+|foster\s+|(?:birth|real|true|biological|natural|actual|blood)\s+)?"
    r"(?P<word>parents?|fathers?|mothers?)"
)
_ASKS_WHO = re.compile(r"^\s*(?:who|whom|what|name|tell\s+me)\b", re.IGNORECASE)


#: What makes a parent's word an in-law's ("father-in-law"): no parent by birth or adoption.
_IN_LAW = r"[\s-]*in[\s-]*laws?\b"


def _whose(question: str, facts: Sequence[CanonFact]) -> tuple[CanonFact, re.Match[str]] | None:
    """Return the person whose parents a question asks ("who are Wenna's parents", "who is the adoptive father
    of Wenna"), with the words it asks them by, or None."""
    if not _ASKS_WHO.match(question):
        return None
    folded = question.casefold().replace("’", "'")
    for fact in facts:
        if fact.entity_type not in _PEOPLE:
            continue
        for said in dict.fromkeys((fact.matched.casefold(), fact.entity_name.casefold())):
            name = re.escape(said)
            found = re.search(
                rf"\b{name}(?:'s|s'|')\s+{_PARENT_WORDS}\b(?!')(?!{_IN_LAW})", folded
            ) or re.search(rf"\b{_PARENT_WORDS}\s+of\s+{name}\b", folded)
            if found:
                return fact, found
    return None


def _card(facts: Sequence[CanonFact], asked: str) -> CanonFact | None:
    """Return the person a part of the question names (by the name it was found by, or its own)."""
    said = asked.casefold().replace("’", "'").strip()
    for fact in facts:
        if fact.entity_type in _PEOPLE and said in (fact.matched.casefold(), fact.entity_name.casefold()):
            return fact
    return None


def _takers(child: CanonFact) -> list[tuple[str, str, str, str | None]]:
    """Return who took a child in: each one's name, the verb, the card's word for them (father, mother, parent)
    and the date it holds from (in the calendar's words, as the card says it), adoptive parents first."""
    me = child.entity_name
    found: list[tuple[str, str, str, str | None]] = []
    for predicate, verb, word in _TAKEN_IN:
        for parent in child.tied(predicate):
            line = re.compile(
                rf"^{re.escape(parent)} (?:is|was) {re.escape(me)}'s {word} (?P<sex>\w+)"
                r"(?: \((?:since|from) (?P<when>.+)\))?$"  # of a dead parent, in the past: "was … (from …)"
            )
            said = next((m for f in child.facts if (m := line.match(f))), None)
            when = said["when"] if said else None
            when = None if when and " to " in when else when  # a span's start alone is no date of taking in
            found.append((parent, verb, said["sex"] if said else "parent", when))
    return found


def _taken_in(child: CanonFact, only: str | None = None, sex: str | None = None) -> str | None:
    """Return who took a child in, as one clause each ("Wenna Tull was adopted by Corm Tull in year 1205 and
    fostered by Old Mag from year 1203"), or None; `only` the verb asked, `sex` the word asked (a father)."""
    said: dict[str, list[tuple[str, str | None]]] = {}
    takers = _takers(child)
    if sex in ("father", "mother") and any(word == sex for _p, _v, word, _w in takers):
        takers = [t for t in takers if t[2] == sex]
    for parent, verb, _word, when in takers:
        if only is None or verb == only:
            said.setdefault(verb, []).append((parent, when))
    if not said:
        return None
    clauses = [f"{verb} by {_dated(verb, names)}" for verb, names in said.items()]
    return f"{child.entity_name} was {' and '.join(clauses)}"


def _dated(verb: str, takers: Sequence[tuple[str, str | None]]) -> str:
    """Return those who took a child in with when each did: a date they share said once, after them all ("Tobin
    Aske and Ilse Aske on 3 Greening, year 318"); "on" a day, "in" a year, "from" of fostering."""

    def at(when: str) -> str:
        return "from" if verb != "adopted" else "in" if re.match(r"^(?:year|in)\b", when) else "on"

    dates = {when for _, when in takers}
    if len(takers) > 1 and len(dates) == 1 and None not in dates:
        (when,) = dates
        assert when is not None
        return f"{names_list([p for p, _ in takers])} {at(when)} {when}"
    return names_list([p if when is None else f"{p} {at(when)} {when}" for p, when in takers])


def _says(child: CanonFact, parent: str, word: str) -> bool:
    """Tell whether the child's card calls one their father or mother (of the dead, in the past)."""
    me = child.entity_name
    return f"{parent} is {me}'s {word}" in child.facts or f"{parent} was {me}'s {word}" in child.facts


def _birth(child: CanonFact, word: str) -> str | None:
    """Return the birth parents the card shows, said of the child ("Wenna Tull's birth mother is Ysolt Dunmere"),
    of the sex asked (`word`: "father", "mother" or "parent"), or None."""
    me = child.entity_name
    parents = child.tied("PARENT_OF")
    if word in ("father", "mother"):
        parents = [p for p in parents if _says(child, p, word)]
    if not parents:
        return None
    shown = [
        p if p not in child.deaths else f"{p} (died{' ' + child.deaths[p] if child.deaths[p] else ''})"
        for p in parents
    ]
    if len(parents) == 1:
        own = next((w for w in ("father", "mother") if _says(child, parents[0], w)), "parent")
        return f"{possessive(me)} birth {own} {'was' if parents[0] in child.deaths else 'is'} {shown[0]}"
    return f"{possessive(me)} birth parents are {names_list(shown)}"


_WHO_KILLED = re.compile(
    r"^\s*(?:who|whom)\s+(?:killed|slew|murdered|slayed)\s+(?P<name>.+?)\s*[?.!]*\s*$", re.IGNORECASE
)


#: A cause of death that names who did it ("slain by Ser Aldric", "murdered by her steward").
_BY = re.compile(r"\b(?:by|killed|slew|slain|murdered|assassinated)\b", re.IGNORECASE)


def killer_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who killed the person asked of, as their card ties it (KILLED: "Hob Greave killed Sef Rook"); of
    one whose killer canon does not name, that nothing names who, and how they died where the card says it; None
    when the question asks no such thing, or of one the card tells nothing of death or killing."""
    asked = _WHO_KILLED.match(question)
    victim = _card(facts, asked["name"]) if asked else None
    if victim is None:
        return None
    number = facts.index(victim) + 1
    me = victim.entity_name
    killers = victim.tied("KILLED")
    if killers:
        return f"{names_list(killers, opens=True)} killed {me}. [{number}]", number
    if death_cause(me, victim.description):
        return None  # the description tells the death: the answers reading it say who, if anyone
    cause = typed_death(victim)
    if cause is None and not victim.tied("KILLED", to_me=False):
        return None  # what else canon says may tell it (a deed, a passage)
    if cause and _BY.search(cause):  # "Orrin Vaske was slain by Ser Aldric": the cause names who
        return f"{cause}. [{number}]", number
    how = f"; {cause}" if cause else ""
    return f"Nothing the table knows names who killed {me}{how}. [{number}]", number


def taken_in_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a question of a child taken in (see the module docstring), or None."""
    took = _WHO_TOOK_IN.match(question) or _WAS_TAKEN_IN.match(question)
    was = took is not None and took.re is _WAS_TAKEN_IN
    whose = None if took else _whose(question, facts)
    child = _card(facts, took["name"]) if took else whose[0] if whose else None
    matched = took or (whose[1] if whose else None)
    if child is None or matched is None or not _takers(child):
        return None
    number = facts.index(child) + 1
    if took:
        verb = (matched["verb"] or "").casefold() or None
        said = _taken_in(child, verb)
        if said is None:
            return None
        return f"{'Yes: ' if was else ''}{said}. [{number}]", number
    kind = (matched["kind"] or "").strip().casefold()
    word = matched["word"].casefold().rstrip("s")
    if kind in ("adoptive", "foster"):
        said = _taken_in(child, "adopted" if kind == "adoptive" else "fostered", word)
        return None if said is None else (f"{said}. [{number}]", number)
    birth = _birth(child, word)
    parts = [s for s in (birth, _taken_in(child, sex=word)) if s]
    if kind in DOUBTING and birth is None:
        return None
    return f"{'; '.join(parts)}. [{number}]", number
