"""A card's life in sentences: its state as the table asks it, its birth and death, and how it died.

A life's state is canon's (`alive` from a birth, `dead` from a death, either from a date written `unknown`), or
the status a roster or a family tree gives ("imprisoned", "dead") when that is another state of the ontology: a
`status: dead` with no date is dead all the same. A death's day and cause are what canon says: the event taken
part in on that day ("in Battle of Gull Rock"), and a description's clause saying how ("drowned at sea").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlalchemy import column, select, table
from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar import UNKNOWN
from canon.forks import LineageStep
from canon.graph.reads import LineageReader
from canon.graph.reads import story_date as story_date_of
from canon.models import EntityCard, EntityRef
from canon.ontology import Ontology
from canon.wording import PLAIN, Wording, in_prose
from canon.wording.relations import possessive, relation_sentence, sex_of
from memory.knowledge.answer_models import Life
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.named_in import name_words, names_one

#: The scenes' columns the story's date is read from (`memory.scene_tables.SceneRow`'s): a question that reads them
#: needs no ORM row, whose partial index would load the PostgreSQL dialect on SQLite too.
_SCENES = table("scenes", column("campaign_id"), column("world_date"), column("story_order"))

__all__ = [
    "birth_line",
    "card_life",
    "card_status",
    "death_cause",
    "death_event",
    "died_in",
    "held_at",
    "last_placed",
    "pronoun",
    "story_date",
    "told_death",
    "typed_death",
    "typed_held",
]

#: How a description says someone died: "drowned in the Weeping Sound", "was slain at the ford".
_DEATH_CAUSE = re.compile(
    r"\b(?:who\s+)?((?:was\s+|were\s+)?(?:drowned|died|perished|starved|froze|burned|burnt|hanged|hung|"
    r"succumbed|choked|suffocated|carried\s+off\b|bled\s+to\s+death|fell\s+(?:at|in(?!\s+love)|on|during|defending|fighting|beside|before|"
    r"under|to\s+(?:his|her|their)\s+death|from)\b|"
    r"(?:killed|slain|poisoned|murdered|executed|beheaded|stabbed|strangled|smothered|crushed|lost|shot|"
    r"assassinated|cut\s+down|struck\s+down|trampled|mauled|devoured|sacrificed|torn\s+apart|gored|impaled|bludgeoned|throttled|garrott?ed)\b)"
    r"[^.;!?]*)",
    re.IGNORECASE,
)
#: How a description says where someone is held: "held in the Glass Gaol", "kept in the tower".
_HELD = re.compile(
    r"\b(?:who\s+is\s+|is\s+)?((?:(?:has|have|had)\s+been\s+)?(?:(?:held|kept|imprisoned|jailed|locked(?:\s+up)?|"
    r"chained|caged|confined|detained|incarcerated|shackled|shut\s+up|languish(?:es|ing)?|rots|rotting)"
    r"(?:\s+(?:captive|prisoner|hostage|in\s+chains|under\s+guard))?|(?:an?\s+)?(?:prisoner|captive|hostage))"
    r"\s+(?:in|at|on|inside|beneath|under|within|of)\b[^.;!?]*)",
    re.IGNORECASE,
)
#: Deeds done to others are no cause of one's own death ("She poisoned Lord Orrin's wine", "who killed the wyrm").
_ACTIVE = re.compile(
    r"\b(?:she|he|they|who)\s+(?:poisoned|killed|murdered|slew|stabbed|strangled|shot|assassinated|cut\s+down)\b",
    re.I,
)


def _said(description: str | None, pattern: re.Pattern[str]) -> str | None:
    """Return the first clause of a description the pattern finds, without its final stop."""
    if not description:
        return None
    for sentence in re.split(r"(?<=[.!?])\s+", description):
        if pattern is _DEATH_CAUSE and _ACTIVE.search(sentence):
            continue
        for found in pattern.finditer(sentence):
            said = found.group(1).strip().rstrip(",")
            if found.start(1) > 0 and said[:1].isupper():
                continue  # a name's word ("kept in the Drowned Cells"), not a verb
            return said[:1].lower() + said[1:] if found.start(1) == 0 else said  # "Kept in …" opening it
    return None


#: Verbs a death is done by: bare after a comma ("…'s daughter, poisoned in secret") they are passive.
_DONE_BY = re.compile(
    r"^(?:killed|slain|poisoned|murdered|executed|beheaded|stabbed|strangled|smothered|crushed|hanged|hung|"
    r"shot|assassinated|cut\s+down|struck\s+down|trampled|mauled|devoured|sacrificed|torn\s+apart|gored|impaled|bludgeoned|throttled|garrott?ed|carried\s+off)\b",
    re.IGNORECASE,
)


def death_cause(name: str, description: str | None) -> str | None:
    """Return how a description says someone died, as a sentence about them ("Corran Vaske drowned at sea";
    "Ysa Dray was poisoned in secret" for a description's "…, poisoned in secret"), or None."""
    said = _said(description, _DEATH_CAUSE)
    if said and _DONE_BY.match(said):
        said = f"was {said}"
    return f"{name} {said}" if said else None


def own_death(name: str, description: str | None) -> str | None:
    """Return how a description says its own subject died, as `death_cause` says it, only where the sentence's
    subject is theirs: the clause opens the sentence ("Mauled by the serpent …"), or follows only a pronoun or a
    word of their name ("He was drowned in …"). Read where canon holds no death, so that "whose father drowned"
    is no death of theirs; None when no sentence says it so."""
    if not description:
        return None
    own = {w.casefold() for w in re.findall(r"[^\W\d_]+", name)}
    for sentence in re.split(r"(?<=[.!?])\s+", description):
        if _ACTIVE.search(sentence):
            continue
        for found in _DEATH_CAUSE.finditer(sentence):
            subject = sentence[: found.start()].strip().casefold().split()
            if not subject or subject in (["he"], ["she"], ["they"]) or own.issuperset(subject):
                return death_cause(name, sentence[found.start(1) :])
    return None


#: Typed facts telling how someone died ("cause of death: a poisoned arrow", "killed by: …", "died of: …").
_DEATH_FACTS = re.compile(
    r"(?:cause|manner|means|way)[\s_]+of[\s_]+death|death[\s_]+cause|cause|killed[\s_]+by|slain[\s_]+by|"
    r"murdered[\s_]+by|died[\s_]+(?:of|from|by|in)|death",
    re.IGNORECASE,
)
#: Typed facts telling where someone is held ("prison: the Salt Tower", "held at: …", "captor: …").
_HELD_FACTS = re.compile(
    r"prison|gaol|jail|cell|captors?|captivity|place[\s_]+of[\s_]+(?:imprisonment|captivity)|"
    r"(?:held|kept|imprisoned|jailed|locked[\s_]+up|confined|detained|prisoner)(?:[\s_]+(?:at|in|by|of|inside))?",
    re.IGNORECASE,
)
#: A typed fact's attribute that reads as a verb after the name ("held at", "killed by", "died of").
_VERB_LED = re.compile(
    r"^(?:held|kept|imprisoned|jailed|locked|confined|detained|killed|slain|murdered|died)\b"
)


def _typed(fact: CanonFact, pattern: re.Pattern[str], tense: str) -> str | None:
    """Return a typed fact of the card the pattern names, as a sentence about its subject: "Cato Venn is held at
    the Counting House" (an attribute led by a verb), "Tamsin Rook's cause of death was a poisoned arrow"."""
    found = fact.typed(pattern)
    if found is None:
        return None
    attribute, value = found[0].replace("_", " "), found[1]
    name = fact.entity_name
    if _VERB_LED.match(attribute.casefold()):
        lead = "" if attribute.casefold().startswith("died") else ("is " if tense == "is" else "was ")
        return f"{name} {lead}{attribute} {value}"
    if pattern is _DEATH_FACTS and (_DEATH_CAUSE.match(value) or _DONE_BY.match(value)):
        return death_cause(
            name, value
        )  # "cause of death: drowned in the Hythe" reads as a verb after the name
    return f"{possessive(name)} {attribute} {tense} {value}"


def typed_death(fact: CanonFact) -> str | None:
    """Return how a typed fact says someone died ("Tamsin Rook's cause of death was a poisoned arrow"), or None."""
    return _typed(fact, _DEATH_FACTS, "was")


def typed_held(fact: CanonFact) -> str | None:
    """Return where canon holds someone, as a sentence ("Cato Venn is held at the Counting House"): the place it
    holds them at (HELD_AT, a file's `held_at`), else a typed fact saying where, or None."""
    places = fact.tied("HELD_AT", to_me=False)
    if places:
        return relation_sentence("HELD_AT", fact.entity_name, places[-1])
    return _typed(fact, _HELD_FACTS, "is")


def held_at(description: str | None) -> str | None:
    """Return where a description says someone is held ("held in the Glass Gaol since the revolt"), or None."""
    return _said(description, _HELD)


#: Where canon puts someone, most telling first: where they are (play moves them), else where they live.
_PLACING = ("LOCATED_IN", "LIVES_IN")


def last_placed(fact: CanonFact) -> str | None:
    """Return the last place canon puts someone, as it reads after "the last place canon puts them is" ("the
    last place canon puts him is Saltcombe"): where they were last (a location play gave them), else their
    home; who they are said by the card's sex when it has one ("him", "her"), else "them". None when canon
    places them nowhere. It says where canon last put them, not that they are held there."""
    me = fact.entity_name.casefold()
    for predicate in _PLACING:
        places = [
            r.object
            for r in fact.relations
            if r.predicate.upper() == predicate and r.subject.casefold() == me
        ]
        if places:
            return f"the last place canon puts {pronoun(fact, 'them')} is {in_prose(places[-1])}"
    return None


#: A person's pronouns by the sex their card gives: as a subject, then as an object.
_PRONOUNS = {"male": ("he", "him"), "female": ("she", "her"), None: ("they", "them")}


def pronoun(fact: CanonFact, form: str = "they") -> str:
    """Return the pronoun an answer says someone by: "he" or "she" ("him", "her" when `form` is "them") by the sex,
    gender or pronouns their card gives, as the asker may read it; else "they" ("them")."""
    said = next(
        (
            line.split(": ", 1)[1]
            for line in fact.facts
            if re.match(rf"^{re.escape(fact.entity_name)}'s? (?:sex|gender|pronouns): ", line)
        ),
        "",
    )
    subject, obj = _PRONOUNS[sex_of(said)]
    return obj if form == "them" else subject


def death_event(card: EntityCard) -> EntityRef | None:
    """Return the event a dead entity took part in on the day it died, or None."""
    state = card.state
    if state is None or str(state.statement.value).casefold() != "dead":
        return None
    day = state.statement.validity.world_from
    for view in card.relations if day and day != UNKNOWN else ():
        s = view.statement
        mine = view.subject.id == card.entity.id and view.object is not None
        if mine and s.predicate.upper() == "PARTICIPATED_IN" and s.validity.world_from == day:
            return view.object
    return None


def died_in(card: EntityCard) -> str | None:
    """Return the name of the event a dead entity took part in on the day it died ("… died on 3 Sunmoon, …, in
    Battle of Gull Rock"), or None."""
    event = death_event(card)
    return event.name if event is not None else None


_DESCRIPTION = re.compile("description")


def told_death(name: str, events: Sequence[CanonFact]) -> str | None:
    """Return the sentence of an event's description telling how someone died in it ("Old Oswin Tarr drowned
    in the shallows …"): a death's verb and a word of their name (not the event's) in one sentence; or None."""
    words = name_words(name)
    for event in events:
        typed = event.typed(_DESCRIPTION)
        told = event.description or (typed[1] if typed else "")
        for sentence in re.split(r"(?<=[.!?])\s+", told):
            own = [w for w in words if w.casefold() not in event.entity_name.casefold()]
            named = names_one(sentence, name, own)
            if named and _DEATH_CAUSE.search(sentence) and not _ACTIVE.search(sentence):
                return sentence.strip().rstrip(".")
    return None


def _dated(text: str | None) -> str | None:
    return text if text and text != UNKNOWN else None


async def story_date(
    session: AsyncSession, steps: Sequence[LineageStep], reader: LineageReader
) -> str | None:
    """Return the story's date the reader's viewer reads: the in-world date of the latest scene that has one, of
    the campaign or else of the campaigns it branched from (up to where it branched); the calendar's `today` (the
    campaign's present, as canon stores dates) where no scene is dated, or where it is later than that scene; else
    None. A date in an era hidden from the viewer is None too (`canon.graph.reads.story_date`)."""
    scene: str | None = None
    for step in steps:
        scenes = _SCENES.c
        query = select(scenes.world_date).where(
            scenes.campaign_id == step.campaign_id, scenes.world_date.is_not(None)
        )
        if step.up_to_scene_order is not None:
            query = query.where(scenes.story_order <= step.up_to_scene_order)
        found = await session.scalar(query.order_by(scenes.story_order.desc()).limit(1))
        if found and found != UNKNOWN:
            scene = found
            break
    return await story_date_of(reader, scene)


def card_life(card: EntityCard, words: Wording = PLAIN, now: str | None = None) -> Life | None:
    """Return when an entity was born and died (the first dated alive state and the dead one), or None; a date
    written `unknown` is no date here. `now`: the story's date, ages count to."""
    born = next(
        (v.statement.validity for v in card.states if str(v.statement.value).casefold() == "alive"), None
    )
    died = next(
        (v.statement.validity for v in card.states if str(v.statement.value).casefold() == "dead"), None
    )
    # A date hidden from the reader (in a GM-only era) is no date here, as one written `unknown` is.
    born_at = _dated(words.seen(born.world_from)) if born else None
    died_at = _dated(words.seen(died.world_from)) if died else None
    if born_at is None and died_at is None:
        return None
    return Life(
        born=born_at,
        born_key=born.world_from_key if born and born_at else None,
        born_words=words.when(born_at) if born_at else None,
        died=died_at,
        died_key=died.world_from_key if died and died_at else None,
        died_words=words.when(died_at) if died_at else None,
        now=now,
        now_words=words.date(now) if now else None,
    )


def birth_line(card: EntityCard, words: Wording = PLAIN) -> str | None:
    """Return when an entity was born as a sentence where its state line does not say it: a dead one's ("Hild
    Dray was born in year 700 of …", "Hild Dray's date of birth is not known"), a living one's born nobody
    knows when ("Corwen Dray's date of birth is not known"). None otherwise."""
    state = card.state
    born = next((v for v in card.states if str(v.statement.value).casefold() == "alive"), None)
    if state is None or born is None or born.statement.validity.world_from is None:
        return None
    start = words.seen(born.statement.validity.world_from)  # one hidden from the reader is one nobody knows
    if str(state.statement.value).casefold() != "dead" and start != UNKNOWN:
        return None  # a living one's state line says the birth
    name = words.name(card.entity.name)
    if start == UNKNOWN:
        return f"{name}'s date of birth is not known"
    return f"{name} was born {words.when(start)}"


def card_status(card: EntityCard, ontology: Ontology | None) -> str | None:
    """Return the state an entity's status attribute names when it is another state of the ontology than its
    life's ("missing", "undead", "imprisoned": a birth recorded only says alive; "dead" with no death date), or
    None. A death canon records is never undone by a status."""
    current = str(card.state.statement.value).casefold() if card.state is not None else None
    if ontology is None or current not in (None, "alive"):
        return None
    values = [
        str(v.statement.value).strip().casefold() for v in card.facts if v.statement.predicate == "status"
    ]
    if not values or values[-1] == "alive" or values[-1] not in ontology.states.tags:
        return None
    return values[-1]
