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

__all__ = ["HEAD_VERB", "asks_head", "head_answer", "heads_of"]

_ASKS = re.compile(
    r"^\s*who\s+(?:(?:leads|led|heads|headed|runs|ran|commands|commanded|is\s+in\s+charge\s+of|"
    r"was\s+in\s+charge\s+of)|(?:is|was|s)\s+(?:the\s+)?(?:current\s+|present\s+)?(?:leader|head|chief|boss|"
    r"master|mistress|captain|"
    r"commander)\s+of)\s+(?P<group>.+?)\s*\??$"
    r"|^\s*who\s+(?:is|was|s)\s+(?P<owner>.+?)(?:'s|s'|')\s+(?:current\s+|present\s+|new\s+)?"
    r"(?:leader|head|chief|boss|captain|commander)\s*\??$"
)
#: A sentence naming its subject the head of a group.
HEAD_VERB = _HEAD = re.compile(
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
#: A group's own description saying who leads it.
_LED_BY = re.compile(
    r"\b(?:led|headed|ruled|commanded|run|governed|captained)\s+by\b|\bunder\s+(?:the\s+)?(?:command|leadership|"
    r"rule)\s+of\b|\b(?:its|their)\s+(?:leader|head|chief|captain|master|mistress)\s+(?:is|was)\b",
    re.IGNORECASE,
)
#: A title naming its holder a group's head ("Guildmaster", "Captain", "Matriarch").
_LEADER_TITLE = re.compile(
    r"\b(?:leader|head|chief|chieftain|captain|commander|guild\s*master|guild\s*mistress|grand\s*master|"
    r"warlord|matriarch|patriarch|abbot|abbess|prior|prioress|marshal|general|boss|master|mistress)\b",
    re.IGNORECASE,
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


def _names_all(fact: CanonFact, asked: set[str]) -> bool:
    """Tell whether every word of the group asked names this one ("the dusk lanterns" is no Lantern Watch)."""
    named = set(fold_words(fact.entity_name)) | set(fold_words(fact.matched))
    return all(has_word(named, w) for w in asked if w not in ("the", "a", "an", "of"))


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
        told = await reader.statements(
            predicates=["description", "title", "titles"], subject_ids=members, with_evidence=False
        )
        heads = [
            s.subject_id
            for s in told
            if s.subject_id in members
            and (
                _heading(s.value or "", entity.name)
                if s.predicate == "description"
                else _LEADER_TITLE.search(s.value or "")
            )
        ]
        return [
            EntityMatch(entity_id=head, matched=match.window, window=match.window, score=_SCORE)
            for head in dict.fromkeys(heads)
        ]
    return []


def _titled_head(fact: CanonFact) -> str | None:
    """Return a member's title that names a head ("Bran Holt is Guildmaster"), as the card says it, or None."""
    return next(
        (
            line
            for line in fact.facts
            if re.match(rf"^{re.escape(fact.entity_name)} (?:is|was) (?!a member\b|an? )", line)
            and _LEADER_TITLE.search(line[len(fact.entity_name) :])
            and ":" not in line
        ),
        None,
    )


def _led_by(fact: CanonFact) -> str | None:
    """Return the sentence of a group's own description saying who leads it ("… led by Master Orrin"), or None."""
    described = fact.description or attribute_value(fact, "description") or ""
    return next((s for s in sentences(described) if _LED_BY.search(s)), None)


def _heads_by_noun(asked: set[str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the sentence of one found by their own description saying they lead a group no entity is
    ("who leads the dock smugglers": "Vessa Crane is a sharp-eyed widow who leads the dock smugglers …",
    `nouns.common_nouns`), or None."""
    for number, fact in enumerate(facts, 1):
        if fact.matched != (fact.description or ""):
            continue
        for sentence in sentences(fact.matched):
            said = set(fold_words(sentence))
            if _HEAD.search(sentence) and all(
                has_word(said, w) for w in asked if w not in ("the", "a", "an")
            ):
                return f"{told_sentence(fact.entity_name, sentence)}. [{number}]", number
    return None


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
            if (f.tied("MEMBER_OF") or f.typed(_LEADER_FACTS) or _led_by(f))
            and set(fold_words(f.matched)) <= asked
            and _names_all(f, asked)
        ),
        None,
    )
    if found is None:
        return _heads_by_noun(asked, facts)
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
    own = _led_by(found)
    if own:  # "The Lamplighters are a guild led by Master Orrin Vell"
        return f"{told_sentence(found.entity_name, own)}. [{number}]", number
    members = {m.casefold() for m in found.tied("MEMBER_OF")}
    said: list[str] = []
    first = 0
    for number, fact in enumerate(facts, 1):
        if fact.entity_name.casefold() not in members:
            continue
        sentence = _heading(fact.description or attribute_value(fact, "description") or "", found.entity_name)
        told = told_sentence(fact.entity_name, sentence) if sentence else _titled_head(fact)
        if told:
            said.append(f"{told}. [{number}]")
            first = first or number
    return (" ".join(said), first) if said else None
