"""Who is in a group: "Who is in the Ashen Corsairs?", "Who belongs to House Orrow?", "How many people are in …?".

A member named on the group and a person naming the group are one `MEMBER_OF` relation (docs/structured-lore.md),
so the group's card holds every member the asker may see, and only those: a GM-only member, or a membership the GM
keeps to themself, is not on a player's card, is not named and is not counted. The answer names them all in one
sentence ("Ysra Dunmore, Kell Varrow and Bram Tulley are members of the Ashen Corsairs of Morrow"), with their
number when it is asked (of its people: "how many boats are in the Heron Fleet" asks no member's count); a group
with no member the asker may see reads as one canon names none of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import members_sentence, names_in_prose, possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, same_word, sentences

__all__ = [
    "asks_members",
    "group_said",
    "members_answer",
]

#: The kinds of entity that have members (the ontology's `MEMBER_OF` targets).
GROUPS = frozenset({"Faction", "Lineage", "Culture"})
_MEMBERS = re.compile(
    r"^\s*(?:who|which\s+\w+)\s+(?:is|are|was|were)\s+(?:in|part\s+of|with|among|members?\s+of|a\s+member\s+of)\s"
    r"|^\s*who\s+(?:belongs?|belonged)\s+(?:to|in|with)\s|^\s*who\s+(?:serves?|served)\s"
    r"|\bmembers?\b|\bmembership\b|\bwho\s+makes?\s+up\b"
    r"|^\s*how\s+many\s+(?:\w+\s+){0,2}?(?:are|is|were|was|belong|serve)\s+(?:in|part\s+of|with|to|among)\s"
)
#: A yes/no question ("Is Nessa a member of …?") asks of one member, not who they are (`answer_graph._between`).
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b")
#: Words that make "who is in …" ask something else ("who is in charge of the Corsairs": a leader).
_NOT_MEMBERS = re.compile(r"\b(?:charge|command|lead|leads|led|rule|rules)\b")


#: A number in words or figures: how a description counts a group ("some forty of them", "a band of 12").
_NUMBER = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|dozens?|score)\b",
    re.IGNORECASE,
)


def _counted(group: CanonFact) -> str | None:
    """Return the sentence of a group's description counting it, said of the group by name: its "them" or
    "they" the group ("Some forty of the Lantern Watch keep …"), a noun phrase what it is ("The Gulls is a band
    of twelve outlaws"); None when no sentence counts it."""
    described = group.description or attribute_value(group, "description") or ""
    said = next((s for s in sentences(described) if _NUMBER.search(s)), None)
    if said is None:
        return None
    named = in_prose(group.entity_name)
    text = said.strip().rstrip(".")
    if group.entity_name.casefold() in text.casefold():
        return text
    if re.search(r"\b(?:them|they)\b", text):
        return re.sub(r"\b(?:them|they)\b", named, text, count=1)
    if re.search(r"\b(?:its|their)\b", text):
        return re.sub(r"\b(?:its|their)\b", possessive(named), text, count=1)
    return told_sentence(group.entity_name, text)


#: What a count of a group's members counts: its people, by any of the table's words for them.
_PEOPLE = frozenset(
    {
        *(
            "people",
            "persons",
            "person",
            "folk",
            "folks",
            "ppl",
            "members",
            "member",
            "men",
            "women",
            "souls",
        ),
        *(
            "guys",
            "knights",
            "soldiers",
            "warriors",
            "sailors",
            "guards",
            "agents",
            "spies",
            "priests",
            "monks",
        ),
        *(
            "mages",
            "wizards",
            "fighters",
            "followers",
            "brothers",
            "sisters",
            "recruits",
            "mercenaries",
            "crew",
        ),
        *(
            "pirates",
            "thieves",
            "hunters",
            "riders",
            "witches",
            "wardens",
            "officers",
            "nobles",
            "lords",
            "ladies",
        ),
        *(
            "elders",
            "children",
            "kids",
            "heroes",
            "adventurers",
            "cultists",
            "acolytes",
            "scholars",
            "rangers",
        ),
        *("of", "are", "is", "were", "was", "belong", "serve"),
    }
)
_COUNTED = re.compile(r"^\s*how\s+many\s+(?P<noun>[a-z]+)")


def _counts_people(question: str, group: CanonFact) -> bool:
    """Tell whether "how many N …" of a group counts its people: N is a word for people, or a word of the group's
    name ("how many corsairs are in the Ashen Corsairs"), or the question names none ("how many are in …")."""
    counted = _COUNTED.match(question.casefold())
    if counted is None or counted["noun"] in _PEOPLE:
        return True
    return any(same_word(counted["noun"], w) for w in fold_words(group.entity_name))


def asks_members(question: str) -> bool:
    """Tell whether a question asks who the members of a group are, or how many there are."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split()) + " "
    return bool(_MEMBERS.search(folded)) and not _YES_NO.match(folded) and not _NOT_MEMBERS.search(folded)


def members_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the members of the first group the question names as the asker may see them (see the module
    docstring), counted when "how many" is asked, or None when the question asks no members of a group."""
    if not asks_members(question):
        return None
    found = next(((n, f) for n, f in enumerate(facts, 1) if f.entity_type in GROUPS), None)
    if found is None:
        return None
    number, group = found
    members = group.tied("MEMBER_OF")
    counting = bool(re.match(r"^\s*how\s+many\b", question.casefold()))
    if counting and not _counts_people(question, group):
        return None  # "how many boats are in the Heron Fleet": its members are no count of its boats
    if not members:
        counted = _counted(group) if counting else None
        if counted:  # "Some forty of the Lantern Watch keep the quay lamps lit": the description counts them
            return f"{counted}. [{number}]", number
        return f"Nothing the table knows names a member of {in_prose(group.entity_name)}. [{number}]", number
    return f"{_members_said(group, members, counting=counting)}. [{number}]", number


def _members_said(group: CanonFact, members: Sequence[str], *, counting: bool = False) -> str:
    """Return who is a member of a group as one sentence, the dead (as the asker reads them) said as members once,
    with when they died: "Tomas Reyes and Maggie Doyle are members of the Miners' Union; Jed Hatch (died on 3
    Ashsnow, year 108 of the Lode Years) was a member too"."""
    living = [m for m in members if m not in group.deaths]
    dead = [m for m in members if m in group.deaths]
    late = names_in_prose(
        [f"{m} (died {group.deaths[m]})" if group.deaths[m] else f"the late {m}" for m in dead], opens=True
    )
    were = "was" if len(dead) == 1 else "were"
    if not living and counting:  # "The Quiet Lamp has no living member; Sabel Dunn (died …) was one"
        return f"{group.entity_name} has no living member; {late} {were} {'one' if len(dead) == 1 else 'members'}"
    if not living:
        return f"{late} {were} {'a member' if len(dead) == 1 else 'members'} of {in_prose(group.entity_name)}"
    said = members_sentence(living, group.entity_name, counting=counting)
    if counting and dead:  # "The Miners' Union has two living members: …"
        said = re.sub(r" (members?): ", r" living \1: ", said, count=1)
    if not dead:
        return said
    return f"{said}; {late} {were} {'a member' if len(dead) == 1 else 'members'} too"


#: At most this many members are named after what a group's card says of it (a longer list is its own question).
_NAMED_AFTER = 6


def group_said(fact: CanonFact, number: int, told: str | None = None, question: str = "") -> str | None:
    """Return who a group is by its members: after what its card says (`told`, cited `[number]`) when the question
    asks "who" ("who are the Tideguard": the navy, then who canon names in it), alone for a group whose card says
    nothing else ("who are the Tarrs of Otter Ford": a family tree's name); else `told`."""
    who = question.lstrip().casefold().startswith("who")
    members = fact.tied("MEMBER_OF") if fact.entity_type in GROUPS else []
    if not members:
        return told
    listed = f"{_members_said(fact, members)}."
    if told is None:
        return f"{listed} [{number}]"
    if not who or len(members) > _NAMED_AFTER:
        return told
    return f"{told.removesuffix(f' [{number}]')} {listed} [{number}]"
