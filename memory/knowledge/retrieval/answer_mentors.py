"""A mentor and an apprentice asked in the words of a trade (MENTOR_OF, a `ties:` item `is: mentor`):

- "Who was Corin apprenticed to?", "whose apprentice was Corin?", "who did Corin apprentice under?", "who took
  Corin as an apprentice?": Corin's mentors ("Corin Brannock was apprenticed to Master Halloran");
- "Who did Halloran train (teach, mentor)?", "who was apprenticed to Halloran?", "who trained under Halloran?":
  Halloran's apprentices ("Master Halloran trained Corin Brannock");
- "Was Corin apprenticed to Halloran?", "did Halloran train Corin?": yes with the tie, or that nothing the table
  knows says it, with the mentor canon does name.

Ties are read off the cards as the asker may see them: a tie kept for the GM is on no player's card, so a player
reads what a person with no mentor written gets (None: the passages may say what canon does not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["mentor_answer"]

_PEOPLE = frozenset({"Person", "NPC", "PC"})
_END = r"\s*[?.!]*\s*$"
#: Questions asking whom someone learned from: the apprentice is `who`.
_MENTORS = (
    re.compile(
        rf"^\s*(?:who|whom)\s+(?:was|were|is|got)\s+(?P<who>.+?)\s+apprenticed(?:\s+(?:to|under|with))?{_END}",
        re.I,
    ),
    re.compile(rf"^\s*whose\s+(?:apprentice|pupil|student|protege)\s+(?:is|was)\s+(?P<who>.+?){_END}", re.I),
    re.compile(
        rf"^\s*(?:who|whom)\s+did\s+(?P<who>.+?)\s+(?:apprentice|train|study|learn)\s+(?:under|with|to|from){_END}",
        re.I,
    ),
    re.compile(
        rf"^\s*who\s+took\s+(?P<who>.+?)\s+(?:on\s+)?as\s+(?:an?|his|her|their)\s+(?:apprentice|pupil|student){_END}",
        re.I,
    ),
)
#: Questions asking whom someone taught: the mentor is `who`.
_APPRENTICES = (
    re.compile(
        rf"^\s*(?:who|whom)\s+did\s+(?P<who>.+?)\s+(?:train|teach|mentor|tutor|apprentice){_END}", re.I
    ),
    re.compile(
        rf"^\s*who\s+(?:was|were|is|are)\s+(?:apprenticed|trained|taught|mentored)\s+(?:to|by|under)\s+(?P<who>.+?){_END}",
        re.I,
    ),
    re.compile(
        rf"^\s*who\s+(?:trained|studied|apprenticed|learned)\s+(?:under|with)\s+(?P<who>.+?){_END}", re.I
    ),
)
#: Whether one learned from another: `apprentice` and `mentor` name the two.
_WHETHER = (
    re.compile(
        rf"^\s*(?:was|were|is)\s+(?P<apprentice>.+?)\s+(?:apprenticed|trained|taught)\s+(?:to|by|under)\s+(?P<mentor>.+?){_END}",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:did|does)\s+(?P<mentor>.+?)\s+(?:train|teach|mentor|tutor)\s+(?P<apprentice>.+?){_END}",
        re.I,
    ),
)
#: "Is Corin Halloran's apprentice?", "was Halloran Corin's master?": the two named in `both`, the first the noun's.
_WHOSE = re.compile(
    rf"^\s*(?:is|was)\s+(?P<both>.+?)(?:'s|s'|')\s+(?P<noun>apprentice|pupil|student|protege|mentor|master"
    rf"|teacher|tutor){_END}",
    re.I,
)
_PUPIL = frozenset({"apprentice", "pupil", "student", "protege"})


def mentor_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a question of a mentor or an apprentice (see the module docstring), or None."""
    asked = question.replace("’", "'")
    for pattern in _WHETHER:
        found = pattern.match(asked)
        if found is not None:
            return _whether(found["apprentice"], found["mentor"], facts)
    whose = _WHOSE.match(asked)
    two = _two(whose["both"], facts) if whose else None
    if whose is not None and two is not None:
        first, second = two
        return _whether(*((first, second) if whose["noun"].casefold() in _PUPIL else (second, first)), facts)
    for patterns, mentors in ((_MENTORS, True), (_APPRENTICES, False)):
        for pattern in patterns:
            found = pattern.match(asked)
            person = _person(found["who"], facts) if found else None
            if person is None:
                continue
            others = _tied(person, mentors=mentors)
            if not others:
                return None
            number = facts.index(person) + 1
            if mentors:
                return f"{person.entity_name} was apprenticed to {names_list(others)}. [{number}]", number
            if "apprenticed" in asked.casefold():  # "who was apprenticed to Halloran"
                be = "was" if len(others) == 1 else "were"
                said = f"{names_list(others, opens=True)} {be} apprenticed to {person.entity_name}"
                return f"{said}. [{number}]", number
            return f"{person.entity_name} trained {names_list(others)}. [{number}]", number
    return None


def _person(words: str, facts: Sequence[CanonFact]) -> CanonFact | None:
    """Return the person the words name, as the question found them."""
    folded = words.casefold()
    for fact in facts:
        if fact.entity_type in _PEOPLE and fact.matched.casefold() in folded:
            return fact
    return None


def _two(words: str, facts: Sequence[CanonFact]) -> tuple[str, str] | None:
    """Return the words naming two people, in the order the words name them, or None."""
    folded = words.casefold()
    at = sorted(
        (folded.find(f.matched.casefold()), f.matched)
        for f in facts
        if f.entity_type in _PEOPLE and f.matched.casefold() in folded
    )
    named = list(dict.fromkeys(m for _, m in at))
    return (named[0], named[1]) if len(named) >= 2 else None


def _tied(person: CanonFact, *, mentors: bool) -> list[str]:
    """Return the person's mentors (or apprentices) on their card."""
    me = person.entity_name
    found = [
        (r.subject if mentors else r.object)
        for r in person.relations
        if r.predicate.upper() == "MENTOR_OF" and (r.object if mentors else r.subject) == me
    ]
    return [n for n in dict.fromkeys(found) if n != me]


def _whether(apprentice: str, mentor: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    pupil, master = _person(apprentice, facts), _person(mentor, facts)
    if pupil is None or master is None or pupil is master:
        return None
    number = facts.index(pupil) + 1
    mentors = _tied(pupil, mentors=True)
    if master.entity_name in mentors:
        return f"Yes: {pupil.entity_name} was apprenticed to {master.entity_name}. [{number}]", number
    said = f"Nothing the table knows says {pupil.entity_name} was apprenticed to {master.entity_name}"
    if mentors:
        said += f"; canon says {pupil.entity_name} was apprenticed to {names_list(mentors)}"
    return f"{said}. [{number}]", number
