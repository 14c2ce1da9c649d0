"""Who has a thing and who made it: "who has the Tolling Bells?", "who's got the bone flute now", "who forged the
Iron Crown", "the Tolling Bells was made by whom".

"Has" asks so many things ("who has a hound", "what powers has she") that it reads as holding only when the
question is "who has <a name>" (or carries, wields, bears, holds it) and that name is a thing that can be held (the
ontology's POSSESSES targets): its holders answer ("The Bellwardens have the Tolling Bells."). A question of making names the thing's makers (its
MADE ties), with the day it was made when the card says it ("Ansel Reed made the Tolling Bells on 3 Bloom, year 12
of the Age of Tolling."). A card holds only what the asker may see: a GM-only holder or maker is never named to a
player, who reads what a thing with none written reads ("Nothing the table knows says who has the Bone Flute.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.ontology import base_ontology
from canon.wording import in_prose, relation_sentence
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["item_answer"]

_ONTOLOGY = base_ontology().relation_types
#: The kinds of entity that can be held, and that can be made (the ontology's POSSESSES and MADE targets).
HELD = frozenset(_ONTOLOGY["POSSESSES"].to_types)
MADE = frozenset(_ONTOLOGY["MADE"].to_types)

_NOW = r"(?:\s+(?:now|today|currently|nowadays|these\s+days|at\s+present|at\s+the\s+moment))?"
_HAS = re.compile(
    r"^\s*who(?:\s+(?:now|still|currently))?(?:'s\s+got|\s+is\s+got|\s+has\s+got|\s+has|\s+got|\s+(?:carries|wields|bears|holds))\s+(?P<thing>.+?)"
    rf"{_NOW}\s*[?.!]*\s*$"  # "who's got" comes here as "who is got"
)
_MAKING = r"(?:made|forged|crafted|cast|built|wrought|carved|created|fashioned|smithed)"
_MAKER = re.compile(
    rf"^\s*who\s+(?:first\s+)?{_MAKING}\s"
    rf"|\b{_MAKING}\s+by\s+(?:whom|who)\b"
    rf"|^\s*who\s+(?:was|were|is|are)\s+.+\s{_MAKING}\s+by\s*[?.!]*\s*$"
    r"|^\s*who\s+(?:is|was|are|were)\s+the\s+(?:maker|makers|smith|creator|crafter|forger)s?\s+of\s"
)
#: The card's line saying when the thing was made ("The Tolling Bells was made on 3 Bloom, year 12 …").
_MADE_ON = " (?:was|were) made (?P<when>(?:on|in) .+)$"


def _folded(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.replace("’", "'").casefold().split()))


def _holder_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    asked = _HAS.match(question.replace("’", "'").casefold())
    if asked is None:
        return None
    thing = _folded(asked["thing"])
    for number, fact in enumerate(facts, 1):
        if fact.entity_type not in HELD or thing not in (_folded(fact.matched), _folded(fact.entity_name)):
            continue
        holders = fact.tied("POSSESSES")
        if not holders:
            return f"Nothing the table knows says who has {in_prose(fact.entity_name)}. [{number}]", number
        said = relation_sentence("POSSESSES", names_list(holders, opens=True), fact.entity_name)
        if len(holders) > 1:
            said = said.replace(" has ", " have ", 1)
        return f"{said}. [{number}]", number
    return None


def _maker_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    if _MAKER.search(question.replace("’", "'").casefold()) is None:
        return None
    said = question.replace("’", "'").casefold()
    named = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if (f.entity_type in MADE or f.tied("MADE")) and _folded(f.matched) in said
    ]
    for number, fact in named:
        makers = fact.tied("MADE")
        if not makers:
            continue
        text = relation_sentence("MADE", names_list(makers, opens=True), fact.entity_name)
        on = re.compile(re.escape(fact.entity_name) + _MADE_ON)
        when = next((m["when"] for line in fact.facts if (m := on.match(line))), None)
        return f"{text}{f' {when}' if when else ''}. [{number}]", number
    if named:
        number, fact = named[0]
        return f"Nothing the table knows says who made {in_prose(fact.entity_name)}. [{number}]", number
    return None


def item_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who has or who made the thing the question names (see the module docstring), or None."""
    return _holder_answer(question, facts) or _maker_answer(question, facts)
