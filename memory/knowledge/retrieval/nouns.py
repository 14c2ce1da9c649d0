"""A common noun the world uses for one of its entities: "the navy" for the Tideguard, "the dock smugglers" for
the band Vessa Crane leads.

A table says "who leads the navy" where canon names the fleet "The Tideguard" and describes it as "The navy of
Quillhaven, …". When a question's words after a "the" name no entity, the descriptions the asker may read are
looked up for them (on the campaign-and-attribute index, `facts_holding`):
- one entity described as that thing ("The navy of Quillhaven, …", "… is the navy of …") is the one asked
  about, found as if named ("what is the navy": the Tideguard's card);
- else, for a question asking who leads it, one person whose description says they lead that thing ("a
  sharp-eyed widow who leads the dock smugglers") is found by that description (`heads.head_answer` says it).
Only when exactly one entity fits: two described alike name neither.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, facts_holding
from memory.fulltext import STOPWORDS
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.heads import HEAD_VERB, asks_head

__all__ = ["common_nouns"]

#: The longest run of words after "the" read as a common noun ("dock smugglers of quillhaven").
_LONGEST = 4
#: Found by a common noun: below an entity named.
_SCORE = 84.0
#: The most runs looked up (each a query on the descriptions), longest first.
_LOOKUPS = 3
#: The most descriptions holding a noun read.
_READ = 40


def _runs(question: str) -> list[str]:
    """Return the runs of words after each "the" of a question, longest first, ending on no stopword."""
    words = [w for w in re.split(r"[^a-z'-]+", question.casefold().replace("’", "'")) if w]
    runs = [
        " ".join(words[at + 1 : at + 1 + size])
        for at, word in enumerate(words)
        if word == "the"
        for size in range(min(_LONGEST, len(words) - at - 1), 0, -1)
    ]
    return [r for r in runs if r.split()[-1] not in STOPWORDS and r.split()[0] not in STOPWORDS]


def _defines(description: str, noun: str) -> bool:
    """Tell whether a description's first sentence says what it describes is that thing, in lower case (a common
    noun, not a name or a title: "the Ember Queen" names a title): it opens with it ("The navy of Quillhaven, …",
    "Corsairs of the southern isles"), says it after "is" or in apposition (", a fleet of grey cutters")."""
    first = " ".join(description.split()).split(". ")[0]
    said = first[:1].lower() + first[1:]  # its first word's capital is the sentence's
    noun = rf"{re.escape(noun)}\b(?!['’])"  # "the regent's household" is no regent
    some = r"(?:[\w-]+\s+){0,2}?"
    return bool(
        re.match(rf"^(?:(?:the|a|an|our)\s+)?{some}{noun}", said)
        or re.search(rf"\b(?:is|are|was|serves as)\s+(?:the|its|their|a|an)\s+{some}{noun}", said)
        or re.search(rf",\s+(?:the|a|an)\s+{some}{noun}", said)
    )


async def common_nouns(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the one entity a common noun of the question stands for, or the one a description says leads it
    (see the module docstring); none when the noun names an entity already, or fits several or none."""
    covered = {w for m in named for w in fold_words(m.window)}
    head = asks_head(question)
    for noun in _runs(question)[:_LOOKUPS]:
        if set(fold_words(noun)) <= covered:
            return []  # "the Tideguard": named
        told = (await facts_holding(reader, ("description",), [noun]))[:_READ]
        defined = {s.subject_id for s in told if _defines(s.value or "", noun)}
        if defined:  # an event's "The corsairs held the village …" tells what happened, not what it is
            kinds = await reader.entities(list(defined))
            defined = {i for i, e in kinds.items() if not reader.ontology.is_a(e.type, ["Event"])}
        if len(defined) == 1:
            return [EntityMatch(entity_id=defined.pop(), matched=noun, window=noun, score=_SCORE)]
        if defined or head is None or not set(fold_words(noun)) <= set(fold_words(head)):
            continue
        some = r"(?:the\s+)?(?:[\w-]+\s+){0,2}?"  # "leads the dock smugglers" for "the smugglers"
        leading = re.compile(rf"{HEAD_VERB.pattern}\s+{some}{re.escape(noun)}\b", re.IGNORECASE)
        heads = {
            s.subject_id: s.value or "" for s in told if leading.search(" ".join((s.value or "").split()))
        }
        if len(heads) == 1:
            (entity_id, said), *_ = heads.items()
            return [EntityMatch(entity_id=entity_id, matched=said, window=said, score=_SCORE)]
    return []
