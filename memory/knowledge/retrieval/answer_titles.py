"""What title a person holds: "what is Bran Holt's title?", "what are Maren Dray's titles", "what's Bran's role",
"what title does Bran Holt hold/have/bear".

Answered with the title lines the asker's card holds, as the card says them ("Bran Holt is the Guildmaster."): a
title is a fact whose attribute is a being word (`canon.wording.relations.BEING`), said "<name> is <title>". A card
holds only what the asker may see, so a GM-only title is not on a player's card: a person with no title line the
asker may see is left to the other forms, and a player reads word for word what a person with none written reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import relation_sentence
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_offices import offices_held

__all__ = ["title_answer"]

_NOUN = r"(?:title|role|office|rank|position)s?"
_END = r"(?:\s+(?:now|today|still|currently))?\s*[?.!]*\s*$"
_FORMS = (
    re.compile(rf"^\s*what(?:'s|s|\s+is|\s+are|\s+was|\s+were)\s+(?P<who>.+?)(?:'s|')\s+{_NOUN}{_END}"),
    re.compile(
        rf"^\s*what\s+{_NOUN}\s+(?:does|did|do)\s+(?P<who>.+?)\s+(?:hold|have|bear|carry|possess){_END}"
    ),
    re.compile(rf"^\s*what\s+{_NOUN}\s+(?:has|have|had)\s+(?P<who>.+?)\s+(?:held|had|borne){_END}"),
)
#: A question asking every title someone has held, the past ones too ("what titles did Y hold", "… has Y held").
_EVER = re.compile(r"\b(?:did|was|were|has|have|had|held|ever)\b")


def _folded(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.replace("’", "'").casefold().split()))


def _titles(fact: CanonFact) -> list[str]:
    """Return the titles the card's lines say ("the Guildmaster"): "<name> is <Title>", neither a state ("is
    dead", "is a member of …": a lowercase word) nor a tie to another ("is Ysolde Marrow's father")."""
    head = f"{fact.entity_name} is "
    ties = tuple(
        relation_sentence(r.predicate, r.subject, r.object)
        for r in fact.relations
        if r.subject.casefold() == fact.entity_name.casefold()
    )
    found = []
    for line in fact.facts:
        if not line.startswith(head) or line.startswith(ties):
            continue
        rest = line[len(head) :].strip()
        first = rest.split(" ", 1)[0]
        if first.casefold() == "the" and " " in rest:
            first = rest.split(" ", 2)[1]
        if not first[:1].isupper() or "'s " in rest:
            continue
        found.append(rest)
    return list(dict.fromkeys(found))


def title_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the titles of the person the question names, as their card says them, or None."""
    said = question.replace("’", "'").casefold()
    for pattern in _FORMS:
        asked = pattern.match(said)
        if asked is None:
            continue
        who = _folded(asked["who"])
        for number, fact in enumerate(facts, 1):
            if who not in (_folded(fact.matched), _folded(fact.entity_name)):
                continue
            titles = _titles(fact)
            spans = tuple(f"{o.title} (" for o in fact.offices)
            plain = [t for t in titles if not (spans and t.removeprefix("the ").startswith(spans))]
            over_time = offices_held(fact, plain, ever=bool(_EVER.search(said.split(" ", 1)[-1])))
            if over_time is not None:  # titles held for a span: those held today, or all the asker asks
                return f"{over_time}. [{number}]", number
            titles = plain  # a span over is no title held now
            if not titles:
                return None
            said_titles = ", ".join(titles[:-1]) + f" and {titles[-1]}" if len(titles) > 1 else titles[0]
            return f"{fact.entity_name} is {said_titles}. [{number}]", number
        return None
    return None
