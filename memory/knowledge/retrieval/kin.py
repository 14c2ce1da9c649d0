"""A person's family two steps out, read from the canon graph as the asker may see it.

Canon holds the near ties (PARENT_OF, SPOUSE_OF, SIBLING_OF), and the farther ones a file says outright
(`kin_declared`: an aunt, a cousin, a grandchild); the rest are walked from them: siblings are those a
tie says, and those who share a parent; grandparents the parents' parents; uncles and aunts the parents' siblings;
cousins their children; nephews and nieces the siblings' children; grandchildren the children's children. Every
card is read through the asker's reader, so a tie the asker may not see (a GM-only parent, a GM-only child) walks
nowhere: two people whose only shared parent is GM-only are no siblings to a player. Nothing is inferred beyond
the ties (no sibling from a shared family name, no heir from birth order).

The words a table types for each tie are here too (`KIN_WORDS`): "dad", "mum", "grandma", "kids", ….
"""

from __future__ import annotations

import re

from canon.calendar import UNKNOWN
from canon.errors import GameError
from canon.graph import CanonReader
from canon.models import EntityCard
from canon.visibility import view_hidden
from canon.wording import Wording, in_prose
from canon.wording.dates import PLAIN_CALENDAR
from canon.wording.relations import SEX_ATTRIBUTES, sex_of
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.card_deaths import card_death, died_words
from memory.knowledge.retrieval.kin_declared import declared_kin
from memory.knowledge.retrieval.kin_far import far_kin
from memory.knowledge.retrieval.kin_far_words import FAR_WORDS, joined_kin

__all__ = ["FAMILY", "KIN_WORDS", "MARRIAGE", "TIES", "asks_kin", "kin_of", "kin_words"]

#: The ties a family is told by, nearest first.
TIES = (
    "spouses",
    "parents",
    "children",
    "siblings",
    "grandparents",
    "grandchildren",
    "uncles and aunts",
    "nephews and nieces",
    "cousins",
)

_PERSON_TYPES = frozenset({"Person", "NPC", "PC", "Deity"})


def _words(tie: str, sex: str | None, *words: str) -> dict[str, tuple[str, str | None]]:
    return dict.fromkeys(words, (tie, sex))


#: A kin word as the table types it -> the tie it asks and the sex it names (None: either).
KIN_WORDS: dict[str, tuple[str, str | None]] = {
    **_words("parents", None, "parent", "parents"),
    **_words(
        "parents", "male", "father", "fathers", "dad", "da", "daddy", "pa", "papa", "pop", "sire", "oldman"
    ),
    **_words("parents", "female", "mother", "mothers", "mum", "mom", "mam", "ma", "mommy", "mummy", "mama"),
    **_words("children", None, "child", "children", "kid", "kids", "offspring", "bairn", "bairns"),
    **_words("children", "male", "son", "sons"),
    **_words("children", "female", "daughter", "daughters"),
    **_words("siblings", None, "sibling", "siblings"),
    **_words("siblings", "male", "brother", "brothers"),
    **_words("siblings", "female", "sister", "sisters"),
    **_words("spouses", None, "spouse", "spouses", "consort", "partner"),
    **_words("spouses", "male", "husband", "husbands", "hubby"),
    **_words("spouses", "female", "wife", "wives", "missus", "missis", "wifey"),
    **_words("grandparents", None, "grandparent", "grandparents"),
    **_words(
        "grandparents", "male", "grandfather", "grandfathers", "grandpa", "granddad", "grandad", "gramps"
    ),
    **_words("grandparents", "female", "grandmother", "grandmothers", "grandma", "granny", "gran", "nan"),
    **_words("grandchildren", None, "grandchild", "grandchildren", "grandkid", "grandkids"),
    **_words("grandchildren", "male", "grandson", "grandsons"),
    **_words("grandchildren", "female", "granddaughter", "granddaughters"),
    **_words("uncles and aunts", "male", "uncle", "uncles"),
    **_words("uncles and aunts", "female", "aunt", "aunts", "auntie", "aunty"),
    **_words("nephews and nieces", "male", "nephew", "nephews"),
    **_words("nephews and nieces", "female", "niece", "nieces"),
    **_words("cousins", None, "cousin", "cousins"),
    # "half-brother", "full sister" and "old man" as one word (`kin_words`).
    **_words("half-siblings", None, "halfsibling", "halfsiblings"),
    **_words("half-siblings", "male", "halfbrother", "halfbrothers"),
    **_words("half-siblings", "female", "halfsister", "halfsisters"),
    # "full brother": of the same two parents (`answer_halves`).
    **_words("full-siblings", None, "fullsibling", "fullsiblings"),
    **_words("full-siblings", "male", "fullbrother", "fullbrothers"),
    **_words("full-siblings", "female", "fullsister", "fullsisters"),
    # "great-grandmother", "stepmother", "father-in-law" (`kin_far`), joined by `kin_words`.
    **FAR_WORDS,
}
#: What a wedding or a marriage is called in a question or an event's name ("when did A and B get married").
MARRIAGE = re.compile(
    r"\b(?:marr(?:y|ied|ies|iage|ying)|wed|weds|wedded|wedding|handfast(?:ed|ing)?)\b", re.I
)
#: A question of a whole family, or of how two people are kin: "Tove's family", "how is Wren related to Tove".
FAMILY = re.compile(r"\b(?:family|relatives|kin|kinfolk|kindred|related)\b", re.I)
#: A birth set against a marriage: "born out of wedlock", "illegitimate" (`answer_born_wed`).
_WEDLOCK = re.compile(r"\b(?:wedlock|illegitimate|legitimate|bastard)\b", re.I)
#: One's in-laws as a whole: "who are Bram's in-laws" (`kin_in_laws`).
_IN_LAWS = re.compile(r"\bin[\s-]*laws\b")
_WORD = re.compile(r"[^\W_]+")
#: The first words of a kin word of two: "half-brother", "old man".
_JOINED = frozenset({"half", "old", "full"})


def kin_words(question: str) -> list[str]:
    """Return a question's words with a kin word of two as one ("half-brother": "halfbrother", "old man":
    "oldman")."""
    joined: list[str] = []
    for word in _WORD.findall(joined_kin(question.casefold().replace("’", "'"))):
        if joined and joined[-1] in _JOINED and f"{joined[-1]}{word}" in KIN_WORDS:
            joined[-1] = f"{joined[-1]}{word}"
        else:
            joined.append(word)
    return joined


def asks_kin(question: str) -> bool:
    """Return whether a question names a tie of kin or a marriage."""
    folded = question.casefold()
    return (
        any(w in KIN_WORDS for w in kin_words(folded))
        or MARRIAGE.search(folded) is not None
        or FAMILY.search(folded) is not None
        or _WEDLOCK.search(folded) is not None
        or _IN_LAWS.search(folded) is not None
    )


class _Cards:
    """The cards read for one person's family, each read once, as the asker may see them."""

    def __init__(self, reader: CanonReader) -> None:
        self.reader = reader
        self.cards: dict[int, EntityCard | None] = {}
        self.names: dict[int, str] = {}
        #: (parent, child) ties the table believes and canon does not say true, as the asker walks them.
        self.reputed: set[tuple[int, int]] = set()
        #: A child's reputed parents the asker reads beside the truth (the GM), not walked.
        self.story: dict[int, list[int]] = {}
        #: A parent's reputed children the asker reads beside the truth (the GM), not walked.
        self.story_children: dict[int, list[int]] = {}

    async def card(self, entity_id: int) -> EntityCard | None:
        if entity_id not in self.cards:
            try:
                self.cards[entity_id] = await self.reader.card(entity_id, with_evidence=False)
            except GameError:  # hidden from this asker, or retconned
                self.cards[entity_id] = None
        return self.cards[entity_id]

    async def ties(self, entity_id: int, predicate: str, end: str) -> list[int]:
        """Return those at the other end of a relation: `end` "object" (those the entity is subject of: its
        children), "subject" (those that are subject of it: its parents) or "either"."""
        card = await self.card(entity_id)
        found: list[int] = []
        for view in card.relations if card is not None else ():
            if view.statement.predicate.upper() != predicate or view.object is None:
                continue
            if view.subject.id == entity_id and end in ("object", "either"):
                other = view.object
            elif view.object.id == entity_id and end in ("subject", "either"):
                other = view.subject
            else:
                continue
            self.names[other.id] = other.name
            found.append(other.id)
        return list(dict.fromkeys(found))

    async def parents(self, entity_id: int) -> list[int]:
        """Return the parents the asker may see, and those the table believes are (REPUTED_PARENT_OF) unless the
        asker sees a parent kept for the GM: the GM walks the truth, the story is told beside it."""
        found = await self.ties(entity_id, "PARENT_OF", "subject")
        reputed = [p for p in await self.ties(entity_id, "REPUTED_PARENT_OF", "subject") if p not in found]
        if reputed and await self.secret_parent(entity_id):
            self.story.setdefault(entity_id, reputed)
            return found
        self.reputed |= {(p, entity_id) for p in reputed}
        return [*found, *reputed]

    async def children(self, entity_id: int) -> list[int]:
        found = await self.ties(entity_id, "PARENT_OF", "object")
        for child in await self.ties(entity_id, "REPUTED_PARENT_OF", "object"):
            if child not in found and entity_id in await self.parents(child):
                found.append(child)
            elif child not in found:
                self.story_children.setdefault(entity_id, []).append(child)
        return found

    async def secret_parent(self, entity_id: int) -> bool:
        """Return whether the asker sees a parent of the entity kept for the GM (a player never does)."""
        card = await self.card(entity_id)
        return any(
            view.statement.predicate.upper() == "PARENT_OF"
            and view.object is not None
            and view.object.id == entity_id
            and view_hidden(view)
            for view in (card.relations if card is not None else ())
        )

    async def siblings(self, entity_id: int) -> list[int]:
        """Return those a tie calls siblings, and those who share a parent the asker may see."""
        found = await self.ties(entity_id, "SIBLING_OF", "either")
        for parent in await self.parents(entity_id):
            found += await self.children(parent)
        return [s for s in dict.fromkeys(found) if s != entity_id]

    async def of_each(self, ids: list[int], step: str) -> list[int]:
        found: list[int] = []
        for entity_id in ids:
            found += await getattr(self, step)(entity_id)
        return list(dict.fromkeys(found))


async def kin_of(reader: CanonReader, entity_id: int, words: Wording) -> Kin:
    """Return a person's family two steps out and their marriages (see the module docstring)."""
    cards = _Cards(reader)
    parents = await cards.parents(entity_id)
    children = await cards.children(entity_id)
    siblings = await cards.siblings(entity_id)
    spouses = await cards.ties(entity_id, "SPOUSE_OF", "either")
    uncles = [u for u in await cards.of_each(parents, "siblings") if u not in parents]
    ties = {
        "parents": parents,
        "children": children,
        "siblings": siblings,
        "spouses": spouses,
        "grandparents": await cards.of_each(parents, "parents"),
        "grandchildren": await cards.of_each(children, "children"),
        "uncles and aunts": uncles,
        "nephews and nieces": await cards.of_each(siblings, "children"),
        "cousins": [
            c for c in await cards.of_each(uncles, "children") if c != entity_id and c not in siblings
        ],
    }
    shared = await _shared(cards, parents, siblings)
    for tie, count in (("half-siblings", 1), ("full-siblings", 2)):
        ties[tie] = [s for s in siblings if len(shared.get(s, ())) == count]
    for tie, declared in (await declared_kin(cards, entity_id)).items():  # kin a file says outright
        ties[tie] = [i for i in dict.fromkeys([*ties[tie], *declared]) if i != entity_id]
    far = await far_kin(cards, entity_id, ties)
    for tie, ids in far.ties.items():
        near = (*ties.get("siblings", ()), entity_id) if tie == "cousins" else (entity_id,)
        ties[tie] = [i for i in dict.fromkeys([*ties.get(tie, ()), *ids]) if i not in near]
    told = [*cards.story.get(entity_id, ()), *cards.story_children.get(entity_id, ())]
    for other in {i for ids in ties.values() for i in ids} | set(told):
        await cards.card(other)  # the sex of each one named is on their own card
    sexes: dict[str, str] = {}
    for other, card in cards.cards.items():
        said = (
            [sex_of(v.statement.value) for v in card.facts if v.statement.predicate in SEX_ATTRIBUTES]
            if card
            else []
        )
        if said and said[-1] is not None:
            sexes[cards.names.get(other, card.entity.name if card else "")] = said[-1]
    dead = {
        cards.names.get(other, card.entity.name): death
        for other, card in cards.cards.items()
        if card is not None and other != entity_id and (death := card_death(card)) is not None
    }
    # A death in the calendar's words, even where the family is read for a step with none ("Tove's grandmother").
    dated = words
    if dead and words.calendar is PLAIN_CALENDAR:
        dated = Wording(calendar=(await reader.calendar()).words())
    deaths = {name: died_words(dated, death) for name, death in dead.items()}
    married, weddings, _, wedded_at, order = await _marriages(cards, entity_id, spouses, words)
    reputed = {
        "parents": tuple(cards.names[p] for p in parents if (p, entity_id) in cards.reputed),
        "children": tuple(cards.names[c] for c in children if (entity_id, c) in cards.reputed),
    }
    return Kin(
        reputed={tie: names for tie, names in reputed.items() if names},
        story={
            tie: tuple(dict.fromkeys(cards.names[i] for i in ids))
            for tie, ids in (
                ("parents", cards.story.get(entity_id, [])),
                ("children", cards.story_children.get(entity_id, [])),
            )
            if ids
        },
        ties={tie: tuple(cards.names[i] for i in ids) for tie, ids in ties.items() if ids},
        ids={tie: tuple(ids) for tie, ids in ties.items() if ids},
        sexes=sexes,
        married=married,
        weddings=weddings,
        wedded_at=wedded_at,
        married_order=tuple(sorted(order, key=lambda name: order[name])),
        shared={cards.names[s]: tuple(cards.names[p] for p in ps) for s, ps in shared.items()},
        parents_married=await _parents_married(cards, parents, words),
        via={t: {cards.names[i]: how for i, how in said.items()} for t, said in far.via.items()},
        sides={t: {cards.names[i]: cards.names[p] for i, p in by.items()} for t, by in far.sides.items()},
        deaths=deaths,
    )


async def _parents_married(cards: _Cards, parents: list[int], words: Wording) -> tuple[str, str] | None:
    """Return when the person's two parents married, as the asker may see it: in the calendar's words and as
    stored (both empty: married, on no date the asker sees); None when the asker sees no two parents or no
    marriage of theirs."""
    if len(parents) != 2:
        return None
    first, second = parents
    spouses = await cards.ties(first, "SPOUSE_OF", "either")
    married, _, stored, _, _ = await _marriages(cards, first, spouses, words)
    name = cards.names.get(second)
    if name in stored:
        return married[name], stored[name]
    return ("", "") if second in spouses else None  # married, nobody says when


async def _shared(cards: _Cards, parents: list[int], siblings: list[int]) -> dict[int, list[int]]:
    """Return the parents each sibling shares with the person, of those canon names both parents of as the asker
    may see them: one shared, a half-sibling; both, a full one. Of one with a parent the asker does not see (not
    named, or the GM's), nothing is said: the parents seen may be half of the truth."""
    if len(parents) != 2:
        return {}
    found: dict[int, list[int]] = {}
    for sibling in siblings:
        theirs = await cards.parents(sibling)
        if len(theirs) == 2 and set(theirs) & set(parents):
            found[sibling] = [p for p in parents if p in theirs]
    return found


async def _marriages(
    cards: _Cards, entity_id: int, spouses: list[int], words: Wording
) -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str], dict[str, int]]:
    """Return when each marriage began (the tie's own start, else the day of a wedding both took part in) in the
    calendar's words, the wedding's name, when as stored, where the wedding took place and when in story order (a
    sort key), by spouse. A wedding the
    person took part in with no spouse of theirs is one with the one other person who took part, when there is
    exactly one (guests name no spouse)."""
    married: dict[str, str] = {}
    weddings: dict[str, str] = {}
    stored: dict[str, str] = {}
    wedded_at: dict[str, str] = {}
    order: dict[str, int] = {}
    me = await cards.card(entity_id)
    if me is None:
        return married, weddings, stored, wedded_at, order
    for view in me.relations:
        other = view.object if view.subject.id == entity_id else view.subject
        start = words.seen(view.statement.validity.world_from)  # hidden from the reader: as if unknown
        tie = view.statement.predicate.upper() == "SPOUSE_OF" and other is not None and other.id in spouses
        if tie and start and start != UNKNOWN and other is not None:
            married[cards.names[other.id]] = words.when(start)
            stored[cards.names[other.id]] = start
            if view.statement.validity.world_from_key is not None:
                order[cards.names[other.id]] = view.statement.validity.world_from_key
    for view in me.relations:
        event = view.object
        if (
            event is None
            or view.subject.id != entity_id
            or view.statement.predicate.upper() != "PARTICIPATED_IN"
        ):
            continue
        told = await cards.card(event.id)
        if told is None or not MARRIAGE.search(f"{event.name} {told.entity.description or ''}"):
            continue
        present = {
            v.subject.id: v.subject.name
            for v in told.relations
            if v.statement.predicate.upper() == "PARTICIPATED_IN"
            and v.subject.id != entity_id
            and v.subject.type in _PERSON_TYPES
        }
        wed = [i for i in present if i in spouses] or (list(present) if len(present) == 1 else [])
        start = words.seen(view.statement.validity.world_from)
        places = [
            v.object.name
            for v in told.relations
            if v.statement.predicate.upper() == "OCCURRED_AT"
            and v.subject.id == event.id
            and v.object is not None
        ]
        for partner in wed:
            name = cards.names.setdefault(partner, present[partner])
            weddings.setdefault(name, in_prose(words.name(event.name), "Event"))
            if places:
                wedded_at.setdefault(name, in_prose(words.name(places[0])))
            if start and start != UNKNOWN:
                married.setdefault(name, words.when(start))
                stored.setdefault(name, start)
                if view.statement.validity.world_from_key is not None:
                    order.setdefault(name, view.statement.validity.world_from_key)
    return married, weddings, stored, wedded_at, order
