"""Who holds a title of a place or a group: "Who rules the Saltmarch?", "Who is the lady of Saltmarch?".

Canon often says a ruler as a title ("Tamsin Vaske is Lady of Saltmarch") rather than a relation. A question
asking who rules something named, or who is "the <title> of" it, finds the title facts that name it (and hold
the title's words asked), on the campaign-and-attribute index: those holding them are found as if named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, facts_holding, titles_naming
from canon.models import Entity
from memory.fulltext import STOPWORDS
from memory.knowledge.retrieval.answer_culprits import asks_culprit, says_a_deed
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.heads import asks_head
from memory.knowledge.retrieval.rulers import asks_ruler

__all__ = ["described", "mentioned", "of_type", "title_holders", "titled"]

_WHAT_IS = re.compile(r"^\s*what\s+(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+)?([a-z][a-z' -]+?)\s*\??$")
#: The most descriptions a thing no entity is named for is looked up in.
_DESCRIBED = 3

_HOW_MANY = re.compile(
    r"^\s*how many ([a-z]+(?: [a-z]+)?) (?:are there|exist|are known|do we know|does canon know|are in canon)\b"
)

#: "Who poisoned Orrin?": a who-question with a verb of its own, and what it is asked of.
_WHO_DID = re.compile(r"^\s*who\s+([a-z]+ed|[a-z]+)\s+(.+)$")
_NOT_DEEDS = frozenset(
    {
        *(
            "is",
            "was",
            "are",
            "were",
            "has",
            "have",
            "had",
            "does",
            "did",
            "do",
            "will",
            "can",
            "rules",
            "ruled",
        ),
        *("leads", "led", "lives", "lived", "governs", "holds", "took", "fought", "died", "knows", "owns"),
    }
)
#: The attributes whose words tell what someone did: a description, the GM's notes (GM-only: the reader's
#: viewer filters them).
_TOLD = ("description", "gm_notes", "notes")
_DEED_SCORE = 85.0

_TITLE_OF = re.compile(r"^\s*who\s+(?:is|was|are|were)\s+the\s+(.+?)\s+of\s+(.+)$")
_ARTICLES = frozenset({"the", "a", "an"})
#: A holder found by a title scores below a name typed.
_HOLDER_SCORE = 90.0


def _asked(question: str) -> tuple[list[str], str] | None:
    """Return the title's words asked ("lady", none for "who rules") and the text naming what is held."""
    folded = " ".join(question.casefold().replace("?", " ").split())
    rules = asks_ruler(folded) or asks_head(folded)
    if rules is not None:
        return [], rules
    titled = _TITLE_OF.match(folded)
    if titled:
        return fold_words(titled.group(1)), titled.group(2)
    return None


async def title_holders(
    reader: CanonReader, question: str, named: Sequence[EntityMatch]
) -> list[EntityMatch]:
    """Return the holders of a title of an entity the question names, as matches (the title as the words that
    found them), or none when the question asks no holder."""
    asked = _asked(question)
    if asked is None:
        return []
    words, held = asked
    found: list[EntityMatch] = []
    for match in named:
        if not set(fold_words(match.window)) <= set(fold_words(held)):
            continue
        name = [w for w in fold_words(match.matched) if w not in _ARTICLES]
        if not name:
            continue
        for statement in await titles_naming(reader, " ".join(name)):
            title = statement.value or ""
            if not all(w in fold_words(title) for w in words):
                continue
            if statement.subject_id in {m.entity_id for m in [*named, *found]}:
                continue
            found.append(
                EntityMatch(entity_id=statement.subject_id, matched=title, window=title, score=_HOLDER_SCORE)
            )
    return found


#: The most title look-ups a question makes (each an indexed query), and the longest run of words tried.
_TITLE_TRIES = 6
_LONGEST_TITLE = 4
_WHO_IS = re.compile(r"^\s*who\s+(?:is|was)\s+(.+?)\s*$")


def _bare(text: str) -> str:
    """Return a title's folded words without articles ("the Ember Queen" is "ember queen")."""
    return " ".join(w for w in fold_words(text) if w not in _ARTICLES)


def _unled(text: str) -> str:
    """Return words without a leading article ("the Voice of the Choir" is "Voice of the Choir")."""
    first, _, rest = text.strip().partition(" ")
    return rest if rest and first.casefold() in _ARTICLES else text.strip()


async def titled(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return who holds a title the question names as a whole, as matches found by that title ("Who is the Ember
    Queen?", "Master of Lanterns": a title is a name people are called by; "who is the Ember Queen married to",
    when no name is found, by the longest run of words after a "the" that is a title); none when a name found
    already covers every word asked, or no title is named."""
    folded = " ".join(question.casefold().replace("?", " ").split())
    asked = _WHO_IS.match(folded)
    phrases = ([_unled(asked.group(1))] if asked else []) + ([] if named else _after_the(folded))
    for phrase in phrases[:_TITLE_TRIES]:
        bare = _bare(phrase)
        if not bare or any(_bare(m.window) == bare for m in named):
            return []
        found: list[EntityMatch] = []
        for statement in await titles_naming(reader, phrase):
            for title in (statement.value or "").split(", "):
                whole = _bare(title) == bare or _bare(title).startswith(bare + " of ")  # "Salt Queen of Amar"
                if not whole or statement.subject_id in {m.entity_id for m in found}:
                    continue
                found.append(
                    EntityMatch(
                        entity_id=statement.subject_id, matched=title, window=title, score=_HOLDER_SCORE
                    )
                )
        if found:
            return found
    return []


def _after_the(folded: str) -> list[str]:
    """Return the runs of words after each "the" of a question, longest first ("ember queen married", "ember
    queen", "ember"), that do not end on a stopword."""
    words = folded.split()
    runs = [
        " ".join(words[at + 1 : at + 1 + size])
        for at, word in enumerate(words)
        if word == "the"
        for size in range(min(_LONGEST_TITLE, len(words) - at - 1), 0, -1)
    ]
    return [r for r in runs if r.split()[-1] not in STOPWORDS and r.split()[0] not in STOPWORDS]


def _stem(verb: str) -> str:
    """Return the part of a verb its other forms share ("poison" of "poisoned", "crown" of "crowned")."""
    for ending in ("ied", "ed", "es", "s"):
        if verb.endswith(ending) and len(verb) - len(ending) >= 4:
            return verb[: -len(ending)]
    return verb


async def mentioned(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return those whose description or notes (as the asker may read them) say the question's verb of an
    entity it names ("Who poisoned Orrin?": "She poisoned Lord Orrin's wine …" in Nell Quarrow's notes), as
    matches with that sentence as the words that found them."""
    asked = _WHO_DID.match(" ".join(question.casefold().replace("?", " ").split()))
    if asked is None or asked.group(1) in _NOT_DEEDS or len(asked.group(1)) < 4:
        # "who set the fire", "who was behind the riot": a deed of an event, by a word of its name
        return await _culprits(reader, named) if asks_culprit(question) else []
    stem = _stem(asked.group(1))
    found: list[EntityMatch] = []
    for match in named:
        if not set(fold_words(match.window)) <= set(fold_words(asked.group(2))):
            continue
        first = next((w for w in fold_words(match.matched) if w not in _ARTICLES), None)
        if first is None:
            continue
        for statement in await facts_holding(reader, _TOLD, [first, stem]):
            if statement.subject_id in {m.entity_id for m in [*named, *found]}:
                continue
            said = statement.value or ""
            found.append(
                EntityMatch(entity_id=statement.subject_id, matched=said, window=said, score=_DEED_SCORE)
            )
    return found or (await _culprits(reader, named) if asks_culprit(question) else [])


#: The most told sentences a culprit asked is looked for in, and the most found by them.
_TOLD_READ = 200
_CULPRITS = 3


async def _culprits(reader: CanonReader, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return those whose description or notes (as the asker may read them) say a deed of the event a "who set
    the fire" question names, by a word of its name ("She set the Mill Row fire herself"), as matches with that
    text as the words that found them; `answer_culprits` reads which sentence says it of the event."""
    have = {m.entity_id for m in named}
    entities = await reader.entities([m.entity_id for m in named[:2]])
    found: list[EntityMatch] = []
    for match in named[:2]:
        entity = entities.get(match.entity_id)
        if entity is None or not reader.ontology.is_a(entity.type, ["Event"]):
            continue  # "who poisoned Orrin": a deed done to someone is `mentioned`'s, by the verb
        words = [
            w for w in fold_words(match.matched) if w not in _ARTICLES and w not in STOPWORDS and len(w) > 2
        ]
        if not words:
            continue
        # The rarer the word, the fewer the lines read; two, for a name led by its deed ("Massacre at Greyfen").
        told = [
            st
            for word in sorted(set(words), key=len, reverse=True)[:2]
            for st in (await facts_holding(reader, _TOLD, [word]))[:_TOLD_READ]
        ]
        for statement in told:
            said = statement.value or ""
            if statement.subject_id in have or not says_a_deed(said):
                continue
            have.add(statement.subject_id)
            found.append(
                EntityMatch(entity_id=statement.subject_id, matched=said, window=said, score=_DEED_SCORE)
            )
    return found[:_CULPRITS]


async def of_type(reader: CanonReader, question: str) -> tuple[str, list[Entity]] | None:
    """Return the word a "How many factions are there?" counts and the entities of that type (and its
    subtypes) the reader's viewer sees, on the campaign-and-type index; None when the question counts no type."""
    asked = _HOW_MANY.match(question.casefold())
    if asked is None:
        return None
    word = asked.group(1)
    key = word.replace(" ", "")
    types = reader.ontology.entity_types
    forms = {key, key.removesuffix("s"), key.removesuffix("es"), key.removesuffix("ies") + "y"}
    forms |= {"person"} if key == "people" else set()
    base = next((t for t in types if t.casefold() in forms), None)
    if base is None:
        return None
    wanted = [t for t in types if reader.ontology.is_a(t, [base])]
    seen = await reader.all_entities(types=wanted)
    return word, sorted(seen.values(), key=lambda e: e.name.casefold())


async def described(reader: CanonReader, question: str) -> list[EntityMatch]:
    """Return the entities whose description says a thing of two words or more that no entity is named for
    ("What is the salt crown?": the Investiture of Tamsin, "given the salt crown of Saltmarch"), as matches with
    that description as the words that found them."""
    asked = _WHAT_IS.match(question.casefold())
    if asked is None or len(asked.group(1).split()) < 2:
        return []
    found: list[EntityMatch] = []
    for statement in (await facts_holding(reader, ("description",), [asked.group(1)]))[:_DESCRIBED]:
        said = statement.value or ""
        if statement.subject_id not in {m.entity_id for m in found}:
            found.append(
                EntityMatch(entity_id=statement.subject_id, matched=said, window=said, score=_DEED_SCORE)
            )
    return found
