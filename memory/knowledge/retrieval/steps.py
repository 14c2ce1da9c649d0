"""Two-step questions: the inner part is resolved first, on the canon graph, as the asker may see it.

"Who leads the faction Ilin belongs to?" asks of the faction Ilin Sarr is a member of; "Where did the Ember Queen's
father die?" of the parent of whoever is the Ember Queen. The inner part (someone named by a name, a nickname or a
title, and a relation word) is read from that one's card: the entities at the relation's other end are found as if
the question named them, each with the step in words ("Ilin Sarr is a member of The Lantern Guild") and the words
of the question it stands for, so the answer can say both steps in one go (`answer_graph`). A relation the asker
may not see is no step: the question then reads as one about someone with no such relative. A chain of kin
("Tove's dad's brother's wife") is read one tie at a time, each from the one before, and stops, saying so, at a
tie that names no one or several. "The mother of Mara" names a relative as "Mara's mother" does, when the question
asks something else of her ("who killed the mother of Mara").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canon.graph import CanonReader
from canon.graph.reader import titles_naming
from canon.wording import PLAIN
from canon.wording.relations import possessive, relation_sentence, title_phrase
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import ASKING, tie_said
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.kin import KIN_WORDS, kin_of
from memory.knowledge.retrieval.kin_far_words import joined_kin, typed_kin
from memory.knowledge.retrieval.kin_hop import kin_hop

__all__ = ["Step", "inner_step", "owner_of", "stepped"]

_GROUPS = ("Faction", "Lineage")
#: A relation word after a possessive: the relation, the end the owner is at, and the types found (any: empty).
_RELATIVES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    **dict.fromkeys(("father", "mother", "parent", "parents"), ("PARENT_OF", "object", ())),
    **dict.fromkeys(("husband", "wife", "spouse"), ("SPOUSE_OF", "either", ())),
    **dict.fromkeys(
        ("son", "sons", "daughter", "daughters", "child", "children", "kid", "kids"),
        ("PARENT_OF", "subject", ()),
    ),
    **dict.fromkeys(("leader", "ruler", "head"), ("LEADS", "object", ())),
    **dict.fromkeys(("faction", "guild", "order", "group", "house"), ("MEMBER_OF", "subject", _GROUPS)),
    "home": ("LIVES_IN", "subject", ()),
}
#: What those found are called, by relation and the owner's end.
_NOUNS = {
    ("PARENT_OF", "object"): ("parent", "parents"),
    ("PARENT_OF", "subject"): ("child", "children"),
    ("SPOUSE_OF", "either"): ("spouse", "spouses"),
    ("LEADS", "object"): ("leader", "leaders"),
    ("MEMBER_OF", "subject"): ("faction", "factions"),
    ("LIVES_IN", "subject"): ("home", "homes"),
}
_WORDS = "|".join(sorted(_RELATIVES, key=len, reverse=True))
_OWNED = re.compile(rf"(?P<owner>[\w' -]+?)(?:'s|s')\s+(?P<word>{_WORDS})\b")
_GROUP_OF = re.compile(
    r"\bthe\s+(?P<word>faction|guild|order|group|house)\s+(?P<owner>[\w' -]+?)\s+"
    r"(?:belongs\s+to|is\s+(?:in|part\s+of|a\s+member\s+of)|serves|joined)\b"
)
#: Kin words the relations above do not read: ties two steps out ("uncle"), and words as the table types them.
_KIN = "|".join(sorted((w for w in KIN_WORDS if w not in _RELATIVES), key=len, reverse=True))
_KIN_OWNED = re.compile(
    rf"(?P<owner>[\w' -]+?)(?:'s|s')\s+(?P<word>{_KIN})\b(?!-in-law)"
)  # not a brother-in-law
_ALL_KIN = "|".join(sorted(KIN_WORDS, key=len, reverse=True))
#: Kin words read in a chain of possessives: "Tove's brother's wife", "Tove's mum's sister".
_CHAIN = re.compile(
    rf"(?P<owner>[\w' -]+?)(?:'s|s')\s+(?P<chain>(?:(?:{_ALL_KIN})(?:'s|s')\s+)+(?:{_ALL_KIN}))\b(?!-in-law)"
)
#: A relative named as "the mother of Mara", asked something else of ("who killed the mother of Mara").
_KIN_OF = re.compile(
    r"\bthe\s+(?P<word>father|mother|parents?|husband|wife|spouse|sons?|daughters?|child|children)\s+of\s+"
    r"(?P<owner>[\w' -]+?)\s*$"
)
_ARTICLES = frozenset({"the", "a", "an"})
_LONGEST = 5


@dataclass(frozen=True, slots=True)
class Step:
    """The inner part of a question resolved: the words it stands for, it in words, and the entities found."""

    span: str
    said: str
    found: tuple[int, ...]


def _bare(text: str) -> str:
    return " ".join(w for w in fold_words(text) if w not in _ARTICLES)


async def owner_of(
    reader: CanonReader, text: str, named: Sequence[EntityMatch]
) -> tuple[int, str, str] | None:
    """Return whom the words before a possessive name (the longest run of last words that is a name found or a
    title), the words that name them, and the title as an answer says it ("the Ember Queen"; "" for a name)."""
    words = text.split()
    for size in range(min(_LONGEST, len(words)), 0, -1):
        run = " ".join(words[-size:])
        bare = _bare(run)
        if not bare:
            continue
        for match in named:
            if bare in (_bare(match.window), _bare(match.matched)):
                return match.entity_id, run, ""
        first, _, rest = run.partition(" ")
        for statement in await titles_naming(reader, rest if rest and first in _ARTICLES else run):
            title = next((t for t in (statement.value or "").split(", ") if _bare(t) == bare), None)
            if title is not None:
                return statement.subject_id, run, title_phrase(title)
    return None


async def inner_step(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> Step | None:
    """Return the inner part of a two-step question resolved (see the module docstring), or None."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    chain = _CHAIN.search(folded)
    if chain is not None:
        return await _chain_step(reader, chain, named)
    hop = await kin_hop(reader, folded, named, owner_of)  # "how old is corins mum": of whom canon says is
    if hop is not None:
        return Step(span=hop.span, said=hop.said, found=hop.found)
    joined = joined_kin(folded)  # "tove's great-grandmother", "nessa's father-in-law": one word each
    match = _GROUP_OF.search(folded) or _OWNED.search(joined)
    if match is None and (kin_of_match := _kin_of(folded)) is not None:
        return await _kin_of_step(reader, kin_of_match, named)
    if match is None:
        kin = _KIN_OWNED.search(joined)
        return await _kin_step(reader, joined, kin, named, folded) if kin is not None else None
    owner = await owner_of(reader, match["owner"], named)
    if owner is None:
        return None
    owner_id, words, title = owner
    card = await reader.card(owner_id, with_evidence=False)
    relation, end, types = _RELATIVES[match["word"]]
    me = card.entity.id
    found: dict[int, str] = {}
    for view in card.relations:
        s, other = view.statement, None
        if s.predicate.upper() != relation or view.object is None:
            continue
        if view.subject.id == me and end in ("subject", "either"):
            other = view.object
        elif view.object.id == me and end in ("object", "either"):
            other = view.subject
        if other is not None and (not types or other.type in types):
            found.setdefault(other.id, other.name)
    if not found:
        return None
    name = card.entity.name
    singular, plural = _NOUNS[(relation, end)]
    said = (
        f"{possessive(name)} {singular if len(found) == 1 else plural} {'is' if len(found) == 1 else 'are'} "
    )
    said += names_list(list(found.values()))
    if relation in ("MEMBER_OF", "SPOUSE_OF"):  # "Maren Dray is married to Quell Amberly"
        said = relation_sentence(relation, name, names_list(list(found.values())))
    if match["word"] in ("father", "mother") and len(found) > 1:
        said += f" (canon does not say which is the {match['word']})"
    if title and said.startswith(name + " "):  # "Maren Dray, the Ember Queen, is married to Quell Amberly"
        said = f"{name}, {title}, {said[len(name) + 1 :]}"
    elif title:  # "Maren Dray is the Ember Queen; Maren Dray's parents are …"
        said = f"{name} is {title}; {said}"
    span = match.group(0) if match.re is _GROUP_OF else f"{words}'s {match['word']}"
    return Step(span=span, said=said, found=tuple(found))


def _kin_of(folded: str) -> re.Match[str] | None:
    """Return a relative named "the mother of Mara" when the question asks something else of them ("who killed
    the mother of Mara"); "who is the mother of Mara" is the kin answers', as it always was."""
    match = _KIN_OF.search(folded)
    if match is None or re.search(r"\bof\b", match["owner"]):
        return None  # "the father of the husband of Alys": a chain of that form is not read
    if all(w in ASKING for w in fold_words(folded.replace(match.group(0), " "))):
        return None
    return match


async def _kin_of_step(
    reader: CanonReader, match: re.Match[str], named: Sequence[EntityMatch]
) -> Step | None:
    """Return the relative "the mother of Mara" names, as the asker may see them and of the sex the word names
    where canon says one's (`answer_kin.tie_said`), or None."""
    owner = await owner_of(reader, match["owner"], named)
    if owner is None:
        return None
    owner_id, _, title = owner
    return await _told_kin(reader, owner_id, title, match["word"], match.group(0))


async def _kin_step(
    reader: CanonReader, folded: str, match: re.Match[str], named: Sequence[EntityMatch], typed: str
) -> Step | None:
    """Return the kin a word two steps out or as the table types it asks ("Tove's grandmother", "Bram's dad"), as
    the asker may see them (`retrieval.kin`), or None. A question asking the kin alone ("who is Tove's uncle") is
    answered from the family (`answer_kin`), unless a title names whose kin they are ("the Ember Queen's
    brother": no name of hers is found otherwise)."""
    owner = await owner_of(reader, match["owner"], named)
    if owner is None:
        return None
    owner_id, words, title = owner
    rest = fold_words(
        folded.replace(f"{words}'s {match['word']}", " ").replace(f"{words}' {match['word']}", " ")
    )
    if not title and all(w in ASKING for w in rest):
        return None
    # The words as typed ("great-grandmother"), which the answer puts the relative's name in place of.
    span = re.search(rf"{re.escape(words)}(?:'s|s'|')\s+{typed_kin(match['word'])}", typed)
    said = span.group(0) if span else f"{words}'s {match['word']}"
    return await _told_kin(reader, owner_id, title, match["word"], said)


async def _told_kin(reader: CanonReader, owner_id: int, title: str, word: str, span: str) -> Step | None:
    """Return the step to the owner's kin the word names, as the asker may see them and of the sex the word names
    where canon says one's (`answer_kin.tie_said`), said after the owner's title where one named them; or None."""
    entity = await reader.entity(owner_id)
    kin = await kin_of(reader, owner_id, PLAIN)
    told = tie_said(entity.name, kin, word)
    if told is None:
        return None
    said, names = told
    tie = KIN_WORDS[word][0]
    ids = dict(zip(kin.ties[tie], kin.ids[tie], strict=True))
    said = f"{entity.name} is {title}; {said}" if title else said
    return Step(span=span, said=said, found=tuple(ids[n] for n in names))


async def _chain_step(reader: CanonReader, match: re.Match[str], named: Sequence[EntityMatch]) -> Step | None:
    """Return a chain of kin read one tie at a time from whom the question names, as the asker may see each
    ("Tove Moss's father is Bram Moss; Bram Moss's brother is Cole Moss"), finding the chain's end; or, where a
    tie names no one or several, the chain said up to there and that (a whole answer, ending in a full stop or a
    question mark: `answer_graph`). None when no one the question names owns the chain."""
    owner = await owner_of(reader, match["owner"], named)
    if owner is None:
        return None
    owner_id, words, title = owner
    links = re.split(r"(?:'s|s')\s+", match["chain"])
    span = f"{words}'s {match['chain']}"
    entity = await reader.entity(owner_id)
    current, name = owner_id, entity.name
    said: list[str] = [f"{name} is {title}"] if title else []
    for n, word in enumerate(links):
        told = tie_said(name, await kin_of(reader, current, PLAIN), word)
        if told is None:
            said.append(f"nothing the table knows says who {possessive(name)} {word} is")
            return Step(span=span, said=_opened("; ".join(said)) + ".", found=(current,))
        sentence, names = told
        said.append(sentence)
        kin = await kin_of(reader, current, PLAIN)
        tie = KIN_WORDS[word][0]
        ids = dict(zip(kin.ties[tie], kin.ids[tie], strict=True))
        if n == len(links) - 1:
            return Step(span=span, said=_opened("; ".join(said)), found=tuple(ids[m] for m in names))
        if len(names) > 1:
            said.append(f"whose {' '.join(links[n + 1 :])} do you mean?")
            return Step(span=span, said=_opened("; ".join(said)), found=tuple(ids[m] for m in names))
        current, name = ids[names[0]], names[0]
    return None


def _opened(text: str) -> str:
    return text[:1].upper() + text[1:]


def stepped(ranked: Sequence[EntityMatch], step: Step | None) -> list[EntityMatch]:
    """Return the matches with those a step found first (as named by the words the step stands for)."""
    if step is None:
        return list(ranked)
    first = [EntityMatch(entity_id=e, matched=step.span, window=step.span, score=100.5) for e in step.found]
    return first + [m for m in ranked if m.entity_id not in step.found]
