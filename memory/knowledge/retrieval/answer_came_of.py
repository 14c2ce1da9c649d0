"""What came of an event: "What came of the Siege of Corbel Weir?", "how did the siege end?", "what happened after
the Drowning Fair?", "what was the upshot of …".

Canon first: an event's `outcome` (or `result`) as its file typed it ("At the Drowning Fair, the outcome was …"),
then its description's sentence saying how it ended.
A world-builder often writes the result only in the world bible's prose, in the event's own section or in a
sentence naming it: that sentence answers, quoted and cited. Of the sentences about the event (those of a section
whose heading names it, and those naming it anywhere), the one saying how it ended or what followed: an ending's,
a victory's or a flight's words ("the river-lords withdrew and paid a blood-price"), the first in the text so
(a setting-out sentence, "the river-lords besieged Corbel Weir for forty days", says no result). Only passages
the asker may read are read (the retriever filtered them), fact passages only; a GM-only event is no card of a
player's, and what a player reads of it is what its public prose says. None when no such sentence exists, so the
answer falls through to the other steps ("nothing known").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import attribute_words
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_words import fold_words, sections_of, sentences
from memory.knowledge.retrieval.event_said import names_event, said_of_event

__all__ = ["asks_came_of", "came_of_answer"]

_ASKS = re.compile(
    r"^\s*(?:what\s+(?:came|become|became|has\s+become)\s+of|"
    r"how\s+did\s+.+?\s+(?:end|conclude|finish|turn\s+out|come\s+out)\b|"
    r"how\s+(?:was|were)\s+.+?\s+(?:ended|settled|resolved|concluded)\b|"
    r"what\s+happened\s+(?:after|following|at\s+the\s+end\s+of|as\s+a\s+result\s+of|because\s+of|in\s+the\s+wake\s+of)|"
    r"what\s+(?:was|were)\s+the\s+(?:outcomes?|results?|upshot|consequences?|aftermath|end)\s+of|"
    r"what\s+followed|what\s+did\s+.+?\s+(?:lead\s+to|result\s+in|bring\s+about))",
    re.IGNORECASE,
)
#: A sentence saying how something ended or what followed.
_RESULT = re.compile(
    r"\b(?:end(?:ed|s)?|ending|withdr[ae]w\w*|retreat\w*|fled|flee|routed?|won|lost|victor\w*|defeat\w*|"
    r"surrender\w*|yield\w*|result\w*|afterwards?|thereafter|since\s+then|never\s+again|ever\s+since|"
    r"paid|pays?|peace|truce|lifted|broke|broken|fell|drowned|burn(?:ed|t)|razed|exiled|banished|settled|"
    r"resolved|conclud\w*|led\s+to|forced|ruined|destroyed|abandoned|sued|sealed|signed|fail(?:ed|s)?|"
    r"succeed\w*|saved|spared|executed|hanged|crowned|captured|took\s+(?:the|back))\b",
    re.IGNORECASE,
)
#: "how did Ansel meet his end" asks a death (`answer_deaths`).
_DEATH = re.compile(r"\bmeet\w*\s+(?:his|her|their|its)\s+end\b", re.IGNORECASE)
_DESCRIBED = re.compile("description")
_TYPED = re.compile(r"outcomes?|results?|upshot|aftermath|consequences?", re.IGNORECASE)


def asks_came_of(question: str) -> bool:
    """Return whether a question asks what came of something (see the module docstring)."""
    return _ASKS.search(question) is not None and not _DEATH.search(question)


def _event(question: str, facts: Sequence[CanonFact]) -> tuple[int, CanonFact] | None:
    """Return the event card the question names, with its number."""
    asked = set(fold_words(question))
    for number, fact in enumerate(facts, 1):
        if is_event(fact) and fact.matched and set(fold_words(fact.matched)) <= asked:
            return number, fact
    return None


def came_of_answer(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return what came of the event asked (see the module docstring), or None."""
    if not asks_came_of(question):
        return None
    found = _event(question, facts)
    if found is None:
        return None
    number, event = found
    citations = numbered(facts, results)
    typed = event.typed(_TYPED)
    if typed is not None:
        named = in_prose(event.entity_name, "Event")
        text = f"At {named}, the {attribute_words(typed[0])} was {typed[1].strip().rstrip('.')}. [{number}]"
        return _answer(text, [number], citations)
    described = event.description or (event.typed(_DESCRIBED) or ("", ""))[1]  # a timeline's `description:`
    told = [s for s in sentences(described) if _RESULT.search(s)]
    name = event.entity_name
    if told:  # the event's own description says how it ended, said of the event by name
        return _answer(f"{said_of_event(name, told[0])}. [{number}]", [number], citations)
    for passage, result in enumerate(results, len(facts) + 1):
        if not result.is_fact:
            continue
        headed = names_event(" ".join(result.heading_path), name)
        for heading, text in sections_of(result.text):
            inside = headed if heading is None else names_event(heading, name) or headed
            for sentence in sentences(text):
                if (inside or names_event(sentence, name)) and _RESULT.search(sentence):
                    return _answer(f"{said_of_event(name, sentence)}. [{passage}]", [passage], citations)
    return None


def _answer(text: str, cited: Sequence[int], citations: Sequence[Citation]) -> ShortAnswer:
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in citations]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)
