"""What a person made, has or founded, and whom they serve: the item and founder forms read from the other end.

- "what did Perrin Wexley make/forge/build/craft" names the things whose MADE tie runs from them;
- "what does Hob Lantry have/own/hold" what they hold (POSSESSES), a group's as a person's;
- "what did Perrin Wexley found" what they founded (FOUNDED);
- "who does Perrin Wexley work for / serve / answer to / belong to" the groups they are a member of (MEMBER_OF: the
  ontology keeps no liege or employer tie).
The things read as one sentence ("Perrin Wexley made the Green Lamp and the Reed Flask."), six at most and the rest
counted ("and 2 more"). A card holds only what the asker may see, so a GM-only tie is neither named nor counted to
a player. A person with none the asker may see is left to the other forms, so a player whose every tie is hidden
reads word for word what a person with none written reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import names_many
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["reverse_answer"]

#: The most things named in one answer; the rest are counted.
SHOWN = 6

_MAKE = (
    r"(?:make|forge|build|craft|cast|create|carve|fashion|made|forged|built|crafted|created|carved|fashioned)"
)
_HOLD = r"(?:have|own|hold|possess|keep|carry|got)"
_FOUND = r"(?:found|establish|start|set\s+up|founded|established|started)"
_SERVE = r"(?:work\s+for|serve|answer\s+to|belong\s+to|report\s+to|owe\s+allegiance\s+to|swear\s+to)"
_WHAT = r"^\s*what(?:\s+(?:things?|items?|objects?|groups?|factions?|places?))?\s+(?:did|does|do|has|have)\s+"
_WHO = r"^\s*(?:who|whom|which\s+\w+)\s+(?:does|did|do)\s+"
_END = r"(?:\s+(?:now|today|still|currently))?\s*[?.!]*\s*$"
#: Each form: its pattern, the tie it reads (from the person), and its verb for one and for many.
_FORMS: tuple[tuple[re.Pattern[str], str, str, str], ...] = (
    (re.compile(rf"{_WHAT}(?P<who>.+?)\s+{_MAKE}{_END}"), "MADE", "made", "made"),
    (re.compile(rf"{_WHAT}(?P<who>.+?)\s+{_HOLD}{_END}"), "POSSESSES", "has", "have"),
    (re.compile(rf"{_WHAT}(?P<who>.+?)\s+{_FOUND}{_END}"), "FOUNDED", "founded", "founded"),
    (re.compile(rf"{_WHO}(?P<who>.+?)\s+{_SERVE}{_END}"), "MEMBER_OF", "is a member of", "are members of"),
)


def _folded(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.replace("’", "'").casefold().split()))


def _listed(names: list[str]) -> str:
    if len(names) <= SHOWN:
        return names_list(names)
    return ", ".join(in_prose(name) for name in names[:SHOWN]) + f" and {len(names) - SHOWN} more"


def reverse_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what the person the question names made, has or founded, or whom they serve, or None."""
    said = question.replace("’", "'").casefold()
    for pattern, predicate, one, many in _FORMS:
        asked = pattern.match(said)
        if asked is None:
            continue
        who = _folded(asked["who"])
        for number, fact in enumerate(facts, 1):
            if who not in (_folded(fact.matched), _folded(fact.entity_name)):
                continue
            things = fact.tied(predicate, to_me=False)
            if not things:
                return None
            verb = many if names_many(fact.entity_name) else one
            return f"{fact.entity_name} {verb} {_listed(things)}. [{number}]", number
        return None
    return None
