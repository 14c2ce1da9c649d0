"""When one learned from another, from the mentor's tie's span on the apprentice's card (`bonds.card_bonds`):

- "When did Corin study under Orrin?", "how long did Corin train with Orrin?", "when was Corin apprenticed to
  Orrin?", "when did Orrin teach Corin?": the span in the calendar's words, in the past when the tie is over or
  either is dead (`tie_tense`): "Corin Thorne studied under Orrin Quell from year 438 to 446 of the Lantern Age";
- a tie canon holds without dates: that nothing says when, with the tie.

A tie kept for the GM is on no player's card: the question reads as of two no tie joins (None).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.tie_tense import held_tie, is_past

__all__ = ["mentor_span_answer"]

_END = r"\s*[?.!]*\s*$"
_WHEN = r"^\s*(?:when|how\s+long|in\s+what\s+years?|during\s+what\s+years?)\s+"
#: The apprentice first: "when did Corin study under Orrin".
_LEARNED = (
    re.compile(
        rf"{_WHEN}(?:did|was|were)\s+(?P<apprentice>.+?)\s+(?:study|train|learn|apprentice|serve)\s+"
        rf"(?:under|with|from|to)\s+(?P<mentor>.+?){_END}",
        re.I,
    ),
    re.compile(
        rf"{_WHEN}(?:was|were|is)\s+(?P<apprentice>.+?)\s+(?:apprenticed|trained|taught|mentored|tutored)\s+"
        rf"(?:to|by|under|with)\s+(?P<mentor>.+?){_END}",
        re.I,
    ),
)
#: The mentor first: "when did Orrin teach Corin".
_TAUGHT = re.compile(
    rf"{_WHEN}did\s+(?P<mentor>.+?)\s+(?:teach|train|mentor|tutor)\s+(?P<apprentice>.+?){_END}", re.I
)


def _named(text: str, facts: Sequence[CanonFact]) -> CanonFact | None:
    folded = text.casefold().replace("’", "'")
    found = [f for f in facts if f.matched and re.search(rf"\b{re.escape(f.matched.casefold())}\b", folded)]
    return max(found, key=lambda f: len(f.matched), default=None)


def mentor_span_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when one named learned from the other named (see the module docstring), or None."""
    asked = next((m for m in (*_LEARNED, _TAUGHT) if m.match(question)), None)
    found = asked.match(question) if asked else None
    if found is None:
        return None
    apprentice, mentor = _named(found["apprentice"], facts), _named(found["mentor"], facts)
    if apprentice is None or mentor is None or apprentice is mentor:
        return None
    me, them = apprentice.entity_name, mentor.entity_name
    if not any(
        r.predicate.upper() == "MENTOR_OF" and r.subject == them and r.object == me
        for r in apprentice.relations
    ):
        return None
    number = facts.index(apprentice) + 1
    held = held_tie(apprentice, "MENTOR_OF", them)
    past = is_past(apprentice, facts, "MENTOR_OF", them)
    if held is None or not held.span:
        tie = f"{them} {'was' if past else 'is'} {possessive(me)} mentor"
        return f"Nothing the table knows says when {me} studied under {them}; {tie}. [{number}]", number
    return f"{me} {'studied' if past else 'studies'} under {them} {held.span}. [{number}]", number
