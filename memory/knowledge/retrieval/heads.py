"""Who leads a group that canon gives no leader: the member whose description says they head it.

A faction's leader is a relation (`LEADS`, answered as "Hesk Marrow leads the Reed Clans") or a title of it
("Guildmistress of the Tallow Guild", found by `holders`). A world-builder as often writes it in a member's
description alone ("A grim old soldier who heads the Iron Host from the hill forts"). For "who leads / runs /
heads / commands X", "who is the head / leader / chief of X", of a group with neither, the finder (`heads_of`)
reads the descriptions of its members as the asker may see them (a GM-only member or membership is none of a
player's), and the answer (`head_answer`) says the sentence that names them its head, of them by name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader
from canon.wording import names_in_prose, relation_sentence
from canon.wording.relations import attribute_words, possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["asks_head", "head_answer", "heads_of"]

_ASKS = re.compile(
    r"^\s*who\s+(?:(?:leads|led|heads|headed|runs|ran|commands|commanded|is\s+in\s+charge\s+of|"
    r"was\s+in\s+charge\s+of)|(?:is|was|s)\s+(?:the\s+)?(?:leader|head|chief|boss|master|mistress|captain|"
    r"commander)\s+of)\s+(?P<group>.+?)\s*\??$"
    r"|^\s*who\s+(?:is|was|s)\s+(?P<owner>.+?)(?:'s|s'|')\s+(?:leader|head|chief|boss|captain|commander)\s*\??$"
)
#: A sentence naming its subject the head of a group.
_HEAD = re.compile(
    r"\b(?:leads|led|heads|headed|runs|ran|commands|commanded|rules|ruled|(?:the\s+)?(?:leader|head|chief|"
    r"captain|commander|master|mistress|founder)\s+of|in\s+charge\s+of|at\s+the\s+head\s+of)\b",
    re.IGNORECASE,
)
#: A group's own word for itself, when a sentence names it so ("who heads the guild").
_GROUP_NOUNS = frozenset(
    {"guild", "clan", "clans", "order", "band", "company", "host", "house", "league", "brotherhood", "circle"}
)
#: Typed facts of a group naming who heads it ("leader: …", "led by: …").
_LEADER_FACTS = re.compile(
    r"leaders?|head|chief|ruler|commander|captain|master|mistress|led[\s_]+by|headed[\s_]+by|boss", re.I
)
#: The most members whose descriptions are read.
_MEMBERS = 40
#: Found by the group asked: below the group itself, named.
_SCORE = 85.5


def asks_head(question: str) -> str | None:
    """Return the words naming the group a "who leads …" question asks the head of ("the iron host"), or None."""
    folded = " ".join(question.casefold().replace("’", "'").replace("whos ", "who is ").split())
    found = _ASKS.match(folded)
    return (found["group"] or found["owner"]) if found else None


def _names_group(sentence: str, group: str) -> bool:
    """Tell whether a sentence naming a head names this group: a word of its name, or a group's noun."""
    words = set(fold_words(sentence))
    named = [w for w in fold_words(group) if w not in ("the", "a", "an", "of")]
    return any(has_word(words, w) for w in named) or bool(words & _GROUP_NOUNS)


def _heading(description: str, group: str) -> str | None:
    return next((s for s in sentences(description) if _HEAD.search(s) and _names_group(s, group)), None)


async def heads_of(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the members of the group a "who leads" question names whose descriptions name them its head, when
    canon gives the group no leader; as matches found by the group's words. None otherwise."""
    group = asks_head(question)
    if group is None:
        return []
    asked = set(fold_words(group))
    have = {m.entity_id for m in named}
    for match in named:
        if not set(fold_words(match.window)) <= asked:
            continue
        entity = (await reader.entities([match.entity_id])).get(match.entity_id)
        if entity is None or not reader.ontology.is_a(entity.type, ["Faction"]):
            continue
        if await reader.statements(predicates=["LEADS"], object_ids=[entity.id], with_evidence=False):
            return []  # the relation answers
        members = [
            s.subject_id
            for s in await reader.statements(
                predicates=["MEMBER_OF"], object_ids=[entity.id], with_evidence=False
            )
            if s.subject_id not in have
        ][:_MEMBERS]
        described = await reader.statements(
            predicates=["description"], subject_ids=members, with_evidence=False
        )
        return [
            EntityMatch(entity_id=s.subject_id, matched=match.window, window=match.window, score=_SCORE)
            for s in described
            if s.subject_id in members and _heading(s.value or "", entity.name)
        ]
    return []


def head_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who heads the group asked as their description says it ("Gerrit Vane is a grim old soldier who
    heads the Iron Host …"), of a group canon gives no leader; or None."""
    group = asks_head(question)
    if group is None:
        return None
    asked = set(fold_words(group))
    found = next(
        (
            f
            for f in facts
            if (f.tied("MEMBER_OF") or f.typed(_LEADER_FACTS)) and set(fold_words(f.matched)) <= asked
        ),
        None,
    )
    if found is None:
        return None
    number = facts.index(found) + 1
    leaders = found.tied("LEADS")
    if leaders:  # "who is in charge of the Reed Clans": the relation, in its words
        return (
            f"{relation_sentence('LEADS', names_in_prose(leaders, opens=True), found.entity_name)}. [{number}]",
            number,
        )
    typed = found.typed(_LEADER_FACTS)
    if typed:  # "leader: Gerrit Vane", typed rather than told
        return (
            f"{possessive(found.entity_name)} {attribute_words(typed[0])} is {typed[1]}. [{number}]",
            number,
        )
    members = {m.casefold() for m in found.tied("MEMBER_OF")}
    said: list[str] = []
    first = 0
    for number, fact in enumerate(facts, 1):
        if fact.entity_name.casefold() not in members:
            continue
        sentence = _heading(fact.description or attribute_value(fact, "description") or "", found.entity_name)
        if sentence:
            said.append(f"{told_sentence(fact.entity_name, sentence)}. [{number}]")
            first = first or number
    return (" ".join(said), first) if said else None
