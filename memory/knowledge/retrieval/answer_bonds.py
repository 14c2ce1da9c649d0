"""When two people were rivals, friends, allies or enemies, from the dated ties on their cards (`retrieval.bonds`):

- "Since when are Mara and Osric rivals?", "how long have … been allies?": the span in the calendar's words ("Mara
  Quell and Osric Vane have been rivals since year 610 of …"), in the past when it is over ("… were sworn enemies
  from 3 Thaw, year 612 … to year 620 …");
- "Were Mara and Hale ever allies?", "are … rivals?", "were … allies in 615?": yes with the span, or no with it;
- "Who were Mara's allies in 615?": those whose span covers some of that year, each with their span.

A tie the asker may not see is not on their card: a question of two people reads as of two no tie joins, word for
word as of a name nobody wrote (`nothing_known`), and a question of one person's ties in a year as of one with none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Hold
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_nothing import nothing_known

__all__ = ["bond_answer"]

#: A tie word asked -> the tie, and its plural as the answer says it ("sworn enemies" as asked).
_ASKED: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("rival", "rivals"), ("RIVAL_OF", "rivals")),
    **dict.fromkeys(("friend", "friends"), ("FRIEND_OF", "friends")),
    **dict.fromkeys(("ally", "allies"), ("ALLY_OF", "allies")),
    **dict.fromkeys(("enemy", "enemies"), ("ENEMY_OF", "enemies")),
    **dict.fromkeys(("sworn enemy", "sworn enemies"), ("ENEMY_OF", "sworn enemies")),
    **dict.fromkeys(("foe", "foes"), ("ENEMY_OF", "foes")),
    **dict.fromkeys(("nemesis", "nemeses"), ("ENEMY_OF", "nemeses")),
}
#: The plural a tie is asked in -> its singular, for one.
_ONE = {plural: word for word, (_, plural) in _ASKED.items() if word != plural}
_WORD = re.compile(r"\b(" + "|".join(sorted(_ASKED, key=len, reverse=True)) + r")\b")
_SINCE = re.compile(r"^\s*(?:since\s+when|how\s+long|from\s+when|when\s+did\b.*\bbecome)\b")
_YES_NO = re.compile(r"^\s*(?:were|are|was|is|have|has|had|did)\b")
_WHO = re.compile(r"^\s*who\s+(?:were|was|are|is)\b")
_YEAR = re.compile(r"\bin\s+(?:the\s+)?(?:year\s+)?(?P<year>-?\d+)\b")
_PEOPLE = frozenset({"Person", "NPC", "PC"})


def _named(folded: str, facts: Sequence[CanonFact]) -> list[tuple[int, CanonFact]]:
    """Return the people the question names, in the order it names them, with their citation numbers."""
    found = [
        (n, f) for n, f in enumerate(facts, 1) if f.entity_type in _PEOPLE and f.matched.casefold() in folded
    ]
    return sorted(found, key=lambda nf: folded.find(nf[1].matched.casefold()))


def _covers(bond: Hold, year: int) -> bool:
    """Tell whether a tie's span, its start known, covers some of a year."""
    low, high = year * 10000, year * 10000 + 9999
    return (
        bond.start_key is not None
        and bond.start_key <= high
        and (bond.end_key is None or bond.end_key >= low)
    )


def bond_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when two people were rivals, friends, allies or enemies, or whose they were in a year (see the
    module docstring), or None."""
    folded = " ".join(question.casefold().replace("’", "'").split())
    word = _WORD.search(folded)
    if word is None:
        return None
    predicate, plural = _ASKED[word[1]]
    people = _named(folded, facts)
    year = _YEAR.search(folded)
    if _WHO.match(folded) and year is not None and people:
        return _in_year(people[0], predicate, plural, int(year["year"]))
    if not people or not (_SINCE.match(folded) or _YES_NO.match(folded)):
        return None
    number, first = people[0]
    if len(people) < 2:
        # "were Mara and Brackwater ever allies": of a name nobody wrote, as of a tie kept from the asker.
        return (f"{nothing_known(question)} [{number}]", number) if " and " in folded else None
    other = people[1][1]
    bond = next((b for b in first.bonds if b.predicate == predicate and b.holder == other.entity_name), None)
    if bond is None:
        return f"{nothing_known(question)} [{number}]", number
    both = f"{first.entity_name} and {other.entity_name}"
    if _SINCE.match(folded):
        return f"{_since(both, plural, bond)}. [{number}]", number
    return f"{_verdict(both, plural, bond, int(year['year']) if year else None)}. [{number}]", number


def _since(both: str, plural: str, bond: Hold) -> str:
    """Return since when two people are what the tie says, or when they were."""
    if not bond.span:
        return f"{both} are {plural}; nothing the table knows says since when"
    if bond.ended:
        return f"{both} were {plural} {bond.span}"
    if bond.current and bond.start_key is not None:
        return f"{both} have been {plural} {bond.span}"
    return f"{both} are {plural} {bond.span}"


def _verdict(both: str, plural: str, bond: Hold, year: int | None) -> str:
    """Return whether two people were what the tie says (in a year, when one is asked), with its span."""
    verb = "were" if bond.ended else "are"
    if year is None:
        return f"Yes: {both} {verb} {plural}" + (f", {bond.span}" if bond.span else "")
    if not bond.span:
        return f"{both} are {plural}; nothing the table knows says whether they were in year {year}"
    if _covers(bond, year):
        return f"Yes: {both} were {plural} in year {year}, {bond.span}"
    return f"No: {both} {verb} {plural} {bond.span}, not in year {year}"


def _in_year(owner: tuple[int, CanonFact], predicate: str, plural: str, year: int) -> tuple[str, int] | None:
    """Return whose rivals (allies, …) the person was in a year: those whose span covers some of it, each with its
    span; None when canon names no such tie of theirs the asker may see."""
    number, fact = owner
    ties = [b for b in fact.bonds if b.predicate == predicate]
    if not ties:
        return None
    held = [b for b in ties if _covers(b, year)]
    mine = possessive(fact.entity_name)
    if not held:
        known = names_list([f"{b.holder} ({b.span or 'undated'})" for b in ties])
        return (
            f"Nothing the table knows says who {mine} {plural} were in year {year}; canon names {known}. [{number}]",
            number,
        )
    said = names_list([f"{b.holder} ({b.span})" for b in held])
    noun = plural if len(held) > 1 else _ONE[plural]
    verb = "were" if len(held) > 1 else "was"
    return f"In year {year}, {mine} {noun} {verb} {said}. [{number}]", number
