"""Events a question asks about without naming them: by a year in the calendar's words, by a place, by a deed.

Players ask of events as they speak, not by the names canon gives them:
- "What happened in 212 RL?", "… in year 305 of the Long Dusk?": the year is read on the campaign's calendar
  (`canon.date_reading`, the same words the answers write; the question's glossary never takes the calendar's
  words, `memory.knowledge.glossary.merged`), and the events that took place in it are found, with a place or
  without one;
- "Who fought at Fenwatch?", "Who was at the battle of Saltcombe?": the events that took place at the place
  named (`at_place`), so that those who took part in them can be named;
- "When were the harbour lights burned?", "When was the queen crowned?": an event named for a deed ("The
  Burning of the Harbour Lights", "The Coronation of Queen Maelis") is found by the deed's verb and the other
  words of its name (`by_deed`).
Only what the reader's viewer may see is read, so a GM-only event is never found for a player.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from canon.errors import GameError
from canon.graph.reader import CanonReader, facts_holding, happened_in_year
from canon.models import Entity, EntityCard, EntityRef, Statement
from canon.tables import StatementRow
from canon.wording import CalendarWords
from memory.knowledge.retrieval.answer_lives import asks_how_died
from memory.knowledge.retrieval.answer_words import fold_words, has_word
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.era_years import year_read
from memory.knowledge.retrieval.lives import card_status, death_event
from memory.knowledge.retrieval.taken_in_year import taken_in_year

__all__ = [
    "EVENT_NOUNS",
    "TOLD_AT",
    "asked_when",
    "asks_culprit",
    "asks_who_died",
    "asks_who_was_there",
    "asks_who_won",
    "at_place",
    "by_deed",
    "death_events",
    "deed_of",
    "does_deed",
    "in_year",
    "the_fallen",
    "told_at",
]

#: "What happened in 212 RL?", "which events took place during …", "events of LR 500": the words after say when.
_IN_WHEN = re.compile(
    r"^\s*(?:(?:what\s+(?:happened|took place|went on|occurred|events?\s+(?:were there|took place|happened))|"
    r"which\s+events?\s+(?:were there|took place|happened))\s+(?:in|during)|"
    r"(?:(?:list|name)\s+(?:all\s+)?)?(?:the\s+)?events\s+(?:of|in|during))\s+"
    r"(?P<when>.+?)\s*[?.!]*\s*$"
)
_YEAR_SCORE = 80.0
#: The most people named whose deaths' events are looked up.
_DYING = 2
#: Found by the place they took place at: below the place itself, named.
_PLACE_SCORE = 84.0

#: "Who fought at Fenwatch?", "Who was at the battle of Saltcombe?", "Who took part in …": who was there (not
#: who died there: taking part is no death).
_WHO_WAS_THERE = re.compile(
    r"^\s*who\s+(?:(?:was|were)\s+(?:at|in|on|there|present|involved)|fought|battled|took\s+part|"
    r"participated|marched|sailed|attended|joined\s+in)\b"
)
#: "Who won the battle of Fenwatch?", "who won at Fenwatch?", "who lost …": how an event ended.
_WHO_WON = re.compile(
    r"^\s*(?:who|which\s+(?:side|army|host|faction|clan|house))\s+(?:won|lost|prevailed|triumphed|"
    r"(?:was|were|is)\s+(?:victorious|the\s+(?:victors?|winners?|losers?)|defeated|beaten)|came\s+out\s+on\s+top|"
    r"carried\s+the\s+day)\b"
)
#: "Who died in the battle of Fenwatch?", "who was killed at Fenwatch?", "did anyone die at …", "how many fell
#: …": who died in an event or at a place (not how someone named died).
_WHO_DIED = re.compile(
    r"^\s*(?:who|which\s+\w+|how\s+many(?:\s+(?!died|fell|perished)\w+)?|(?:did|was|were|has|had)(?:\s+any(?:one|body|"
    r"\s+(?:of\s+\w+|people|men|folk|soldiers))?)?)\s+(?:(?:die|died|dies|perish|perished|fell|fall|"
    r"lost\s+(?:their|his|her)\s+li(?:fe|ves)|drowned(?=\s+(?:in|at|on|off|near|during|when|while)\b|\s*\??$))|"
    r"(?:was|were|got|has\s+been|had\s+been|have\s+been)\s+(?:killed|slain|murdered|drowned|cut\s+down|"
    r"struck\s+down|lost))\b"
)
#: "Was anyone killed at …", "were any slain in …": the passive asked yes or no.
_ANY_KILLED = re.compile(
    r"^\s*(?:was|were|has|have|had)(?:\s+any(?:one|body|\s+\w+)?)?\s+(?:been\s+)?(?:killed|slain|murdered|drowned|"
    r"cut\s+down|struck\s+down|lost)\b"
)
#: Asked by the dead's nouns: "were there any casualties at …", "who were the dead of …", "how many deaths …".
_THE_DEAD = re.compile(
    r"^\s*(?:who|what|how\s+many|were\s+there|was\s+there|any|list)\b.*?\b(?:casualt(?:y|ies)|deaths|fatalit(?:y|ies)|"
    r"the\s+(?:dead|fallen|slain))\b"
)
#: The most who took part in an event asked of whose deaths are read.
_TAKING_PART_READ = 12
#: Found as one who took part in the event asked: below the event itself.
_FALLEN_SCORE = 70.0
#: Words naming an event by its kind, not its name ("the *battle* of Saltcombe" of the Rout at Saltcombe).
EVENT_NOUNS = frozenset(
    {
        *("battle", "battles", "fight", "fighting", "siege", "war", "skirmish", "raid", "clash", "attack"),
        *("event", "events", "happening", "fray", "assault", "sack", "uprising", "revolt", "rebellion"),
    }
)


def asked_when(question: str) -> str | None:
    """Return the words of a "What happened in …?" after "in" ("212 rl", "year 212 of the reign of lamps"; "events
    of …" alike), or
    None: the events found by them are answered each on its day (`answer_happenings`)."""
    asked = _IN_WHEN.match(" ".join(question.casefold().replace("’", "'").split()))
    return asked["when"] if asked else None


async def in_year(reader: CanonReader, question: str) -> list[EntityMatch]:
    """Return the events that took place in the year a question asks about ("What happened in 212 RL?"), or in
    the era ("… during the Long Dusk?"), read on the campaign's calendar, as matches found by the words that say
    it; none when those words are no date of the calendar."""
    when = asked_when(question)
    if when is None:
        return []
    calendar = await reader.calendar()
    date = await year_read(reader, when, calendar)  # "452" of eras one within another: one reading
    if date is None or (date.year is None and date.era is None):
        return []
    if date.year is None:  # "What happened during the Long Dusk?": the events of the era
        eras = await reader.all_entities(types=["Era"])
        era = [e.id for e in eras.values() if e.key == date.era]
        placed = await reader.statements(predicates=["OCCURRED_DURING"], object_ids=era, with_evidence=False)
    else:
        placed = await happened_in_year(reader, date.year)
        taken = await taken_in_year(reader, date.year)  # found by the child taken in
        placed += [replace(s, subject_id=s.object_id) for s in taken if s.object_id is not None]
    placed = seen_dated(placed, calendar.words())
    found: dict[int, EntityMatch] = {}
    # In the calendar's order, the undated last.
    for statement in sorted(
        placed, key=lambda s: (s.validity.world_from_key is None, s.validity.world_from_key or 0)
    ):
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=when, window=when, score=_YEAR_SCORE),
        )
    return list(found.values())


def seen_dated(statements: Sequence[Statement], words: CalendarWords) -> list[Statement]:
    """Return the statements whose date the asker may read: one dated in an era hidden from them (a GM-only era)
    is no date for them, so it is never found by the year it falls in."""
    return [s for s in statements if words.seen(s.validity.world_from) == s.validity.world_from]


def asks_who_was_there(question: str) -> bool:
    """Tell whether a question asks who was at an event or a place ("Who fought at Fenwatch?")."""
    return bool(_WHO_WAS_THERE.match(" ".join(question.casefold().replace("’", "'").split())))


async def death_events(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return, when a question asks how someone named died, the event they took part in on the day they died
    (its description may tell how), as a match found by their words; none otherwise."""
    if not asks_how_died(question):
        return []
    have = {m.entity_id for m in named}
    found: list[EntityMatch] = []
    for match in named[:_DYING]:
        try:
            card = await reader.card(match.entity_id, with_evidence=False)
        except GameError:  # hidden from this asker, or retconned
            continue
        event = death_event(card)
        events = [event] if event is not None else _undated_dying(card, reader)
        events += [  # the event a file says they died in (`deaths:`): it may tell how
            v.object
            for v in card.relations
            if v.subject.id == card.entity.id
            and v.object is not None
            and v.statement.predicate.upper() == "DIED_IN"
        ][:_DYING]
        told = [] if events else await _telling_events(reader, card.entity.name)
        for event in [*events, *told]:
            if event.id in have:
                continue
            have.add(event.id)
            found.append(
                EntityMatch(entity_id=event.id, matched=match.window, window=match.window, score=_PLACE_SCORE)
            )
    return found


async def _telling_events(reader: CanonReader, name: str) -> list[EntityRef]:
    """Return the events (at most `_DYING`) whose description names someone by their whole name, for one canon
    ties to no event of their death: "… Nella Tamsin was carried off by the cough" may tell how they died."""
    said = await reader.statements(
        predicates=["description"], where=[StatementRow.value.contains(name)], with_evidence=False
    )
    found: list[EntityRef] = []
    for statement in said:
        try:
            card = await reader.card(statement.subject_id, with_evidence=False)
        except GameError:  # hidden from this asker, or retconned
            continue
        entity = card.entity
        if entity.type == "Event" and all(e.id != entity.id for e in found):
            found.append(EntityRef(id=entity.id, name=entity.name, type=entity.type))
        if len(found) == _DYING:
            break
    return found


def _undated_dying(card: EntityCard, reader: CanonReader) -> list[EntityRef]:
    """Return the events one canon has dead took part in (at most `_DYING`) when none was on the day of the death:
    a description of one may tell how they died ("Maudlin Crae was cut down on the crown of the bridge")."""
    state = card_status(card, reader.ontology) or (str(card.state.statement.value) if card.state else "")
    if state.casefold() != "dead":
        return []
    me = card.entity.id
    return [
        view.object
        for view in card.relations
        if view.subject.id == me
        and view.object is not None
        and view.statement.predicate.upper() == "PARTICIPATED_IN"
    ][:_DYING]


#: Deeds the question's verb is read as: any deed of its kind; "behind", "caused", "responsible": any kind.
_CULPRIT_ASKED = re.compile(
    r"^\s*who(?:'s|\s+is|\s+was|\s+were)?\s+(?:(?P<behind>behind|responsible\s+for|to\s+blame\s+for|guilty\s+of|"
    r"caused|cause[sd]?|the\s+culprit\s+(?:of|in|behind)|at\s+fault\s+for)|(?P<verb>set|lit|started|starts?|began|"
    r"begun|burned|burnt|burns?|fired|torched|poisoned|sank|sunk|scuttled|drowned|destroyed|razed|sacked|wrecked|"
    r"sabotaged|stole|looted|robbed|murdered|betrayed|instigated|incited|provoked|sparked|stirred\s+up|"
    r"flooded|breached|broke|plotted|ordered|planned|did))\b\s*(?P<rest>.*?)\s*\??$",
    re.IGNORECASE,
)


def asks_culprit(question: str) -> re.Match[str] | None:
    """Return the question's form when it asks who did a deed ("who set the fire"), else None."""
    return _CULPRIT_ASKED.match(" ".join(question.replace("’", "'").split()))


def asks_who_died(question: str) -> bool:
    """Tell whether a question asks who died in an event or at a place ("Who was killed at Fenwatch?")."""
    folded = " ".join(question.casefold().replace("’", "'").split())
    return bool(_WHO_DIED.match(folded) or _ANY_KILLED.match(folded) or _THE_DEAD.match(folded))


async def the_fallen(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return those who took part in the events found, and the members of the groups that did, when a question
    asks who died there, as matches found by the event's words: their cards say whether they died that day
    (`answer_deaths`). None otherwise."""
    if not named or not asks_who_died(question):
        return []
    have = {m.entity_id for m in named}
    entities = await reader.entities(list(have))
    events = {
        i: m.window
        for m in named
        if (i := m.entity_id) in entities and reader.ontology.is_a(entities[i].type, ["Event"])
    }
    found: dict[int, EntityMatch] = {}
    for statement in await reader.statements(
        predicates=["PARTICIPATED_IN"], object_ids=list(events), with_evidence=False
    ):
        if statement.subject_id in have or statement.object_id not in events:
            continue
        window = events[statement.object_id]
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=window, window=window, score=_FALLEN_SCORE),
        )
    taking_part = list(found.values())[:_TAKING_PART_READ]
    # The members of a group that took part: a death that day is theirs to tell (`answer_deaths`).
    members: dict[int, EntityMatch] = {}
    for st in await reader.statements(predicates=["MEMBER_OF"], object_ids=list(found), with_evidence=False):
        if st.subject_id not in have and st.subject_id not in found and st.object_id in found:
            members[st.subject_id] = found[st.object_id].model_copy(update={"entity_id": st.subject_id})
    taking_part += list(members.values())[:_TAKING_PART_READ]
    found |= members
    return taking_part + await _told_dying(reader, entities, events, {*have, *found})


#: A description telling a death, of someone canon does not list as taking part ("fell at Thistle Bridge").
_TOLD_DEATH = re.compile(
    r"\b(?:died|fell|slain|killed|perished|drowned|cut\s+down|struck\s+down|lost\s+(?:his|her|their)\s+li)"
)
_TOLD_READ = 40


async def _told_dying(
    reader: CanonReader, entities: dict[int, Entity], events: dict[int, str], have: set[int]
) -> list[EntityMatch]:
    """Return those whose description (as the asker may read it) tells a death at an event found or at the place it
    took place at, by the rarest word naming it, as matches found by the event's words (`answer_deaths` reads
    whether the sentence ties the death to the event)."""
    places = await reader.statements(
        predicates=["OCCURRED_AT"], subject_ids=list(events), with_evidence=False
    )
    named = await reader.entities([p.object_id for p in places if p.object_id is not None])
    found: list[EntityMatch] = []
    for event_id, window in events.items():
        names = [
            entities[event_id].name,
            *(named[p.object_id].name for p in places if p.object_id in named and p.subject_id == event_id),
        ]
        words = [w for n in names for w in fold_words(n) if w not in EVENT_NOUNS and len(w) > 3]
        if not words:
            continue
        for statement in (await facts_holding(reader, ("description",), [max(words, key=len)]))[:_TOLD_READ]:
            if statement.subject_id in have or not _TOLD_DEATH.search(statement.value or ""):
                continue
            have.add(statement.subject_id)
            found.append(
                EntityMatch(
                    entity_id=statement.subject_id, matched=window, window=window, score=_FALLEN_SCORE
                )
            )
    return found


def asks_who_won(question: str) -> bool:
    """Tell whether a question asks who won or lost an event, or at a place ("Who won at Fenwatch?")."""
    return bool(_WHO_WON.match(" ".join(question.casefold().replace("’", "'").split())))


async def at_place(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the events that took place at a place the question names, when it asks who was there or who won
    ("Who fought at Fenwatch?": the Siege of Fenwatch), as matches found by the place's words; none otherwise."""
    asked = asks_who_was_there(question) or asks_who_won(question) or asks_who_died(question)
    if not named or not (asked or asks_culprit(question)):  # "who burned Greyfen": the deeds done there
        return []
    return await _there(reader, named)


#: "What happened at Fenwatch?", "what went on in Greyfen in 212": what the events there were is asked.
_WHAT_AT = re.compile(r"^\s*what\s+(?:happened|took\s+place|went\s+on|occurred)\s+(?:at|in|on|near)\b")
#: The most events at a place, or in a year, whose cards are read to say what each was (more are only listed).
TOLD_AT = 3


async def told_at(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the events at the place a "what happened at …" question names, so that what each was is said, when
    there are few (`TOLD_AT`); none otherwise (a question of a year or an era is `in_year`'s)."""
    folded = " ".join(question.casefold().replace("’", "'").split())
    if not named or not _WHAT_AT.match(folded) or asked_when(question) is not None:
        return []
    found = await _there(reader, named[:1])
    return found if len(found) <= TOLD_AT else []


async def _there(reader: CanonReader, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the events that took place at the places named, as matches found by the place's words."""
    have = {m.entity_id for m in named}
    windows = {m.entity_id: m.window for m in named}
    found: dict[int, EntityMatch] = {}
    for statement in await reader.statements(
        predicates=["OCCURRED_AT"], object_ids=list(have), with_evidence=False
    ):
        if statement.subject_id in have or statement.object_id is None:
            continue
        window = windows[statement.object_id]
        found.setdefault(
            statement.subject_id,
            EntityMatch(entity_id=statement.subject_id, matched=window, window=window, score=_PLACE_SCORE),
        )
    return list(found.values())


#: Deeds whose noun is no ending away from their verb ("coronation" of "crowned"): the verb's stem, by noun.
_DEED_NOUNS = {
    **dict.fromkeys(("coronation", "crowning"), "crown"),
    **dict.fromkeys(("siege",), "besieg"),
    **dict.fromkeys(("sinking", "sank", "sunk"), "sink"),
    **dict.fromkeys(("fall", "fell", "fallen"), "fall"),
    **dict.fromkeys(("marriage", "wedding", "wed", "married", "marry"), "marry"),
    **dict.fromkeys(("death", "died", "dead", "die"), "die"),
    **dict.fromkeys(("birth", "born"), "born"),
    **dict.fromkeys(("destruction", "destroyed", "destroy"), "destroy"),
    **dict.fromkeys(("conquest", "conquered", "conquer"), "conquer"),
    **dict.fromkeys(("burning", "burnt", "burned", "burn"), "burn"),
    **dict.fromkeys(("invasion", "invaded", "invade"), "invad"),
    **dict.fromkeys(("founding", "foundation", "founded", "found"), "found"),
    **dict.fromkeys(("building", "built", "build"), "build"),
    **dict.fromkeys(("flight", "fled", "flee"), "flee"),
    **dict.fromkeys(("theft", "stole", "stolen", "steal"), "steal"),
    **dict.fromkeys(("loss", "lost", "lose"), "lose"),
    **dict.fromkeys(("defence", "defense", "defended", "defend"), "defend"),
}
#: A founding asked in other words ("who started the Wardens"): read so of an event named for a founding only
#: ("who started the riot" asks the riot's doer).
_FOUNDED = dict.fromkeys(("started", "start", "established", "establish", "formed"), "found")
_ENDINGS = ("ation", "ition", "iture", "ment", "ings", "ing", "ion", "ied", "ed", "al", "es", "s", "d", "e")
#: Words of an event's name that say nothing of it ("The Burning *of the* Harbour Lights").
_LINKS = frozenset(
    {"the", "a", "an", "of", "at", "in", "on", "by", "to", "for", "and", "from", "upon", "over"}
)
#: Found by a deed: below a name typed.
_DEED_SCORE = 83.0
_ASKS_OF_EVENT = re.compile(r"^\s*(?:when|where|what\s+(?:year|day|date)|how\s+long\s+ago|who)\b")


def deed_of(word: str) -> str:
    """Return the stem a deed's noun and its verb share: "burn" of "burning", "burned" and "burnt"; "crown" of
    "coronation" and "crowned"; a word of no deed as it is, an ending off."""
    if word in _DEED_NOUNS:
        return _DEED_NOUNS[word]
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            if len(stem) > 3 and stem[-1] == stem[-2]:
                stem = stem[:-1]  # "planned", "plan"
            return stem
    return word


def does_deed(word: str, name: str) -> bool:
    """Tell whether a question's word is the deed an event's name is led by ("burned" of "The Burning of the
    Harbour Lights", "crowned" of "Coronation of Queen Maelis")."""
    words = [w for w in fold_words(name) if w not in _LINKS]
    return bool(words) and len(words) > 1 and deed_of(word) == deed_of(words[0])


def _deed_named(name: str, asked: Sequence[str]) -> int:
    """Return how many other words of an event's name a question says when it says the deed the name is led
    by ("when were the harbour lights burned": 2 of "The Burning of the Harbour Lights"), else 0."""
    words = [w for w in fold_words(name) if w not in _LINKS]
    if len(words) < 2:
        return 0
    head, rest = words[0], words[1:]
    verbs = [
        w for w in asked if (deed_of(w) == deed_of(head) or _FOUNDED.get(w) == deed_of(head)) and w != head
    ]
    if not verbs:
        return 0
    said = set(asked)
    return sum(1 for w in rest if has_word(said, w))


async def by_deed(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the events named for a deed the question asks by its verb ("When was the queen crowned?": the
    Coronation of Queen Maelis), those saying most of the other words of their names, as matches found by the
    question's words (an event found by a part of its name too: "harbour lights" is found by those words, and
    asked by the deed); none when no event's deed is asked."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    if not _ASKS_OF_EVENT.match(folded):
        return []
    events = await reader.all_entities(types=["Event"])
    asked = fold_words(folded)
    scored = [(n, event) for event in events.values() if (n := _deed_named(event.name, asked))]
    if not scored:
        return []
    best = max(n for n, _ in scored)
    window = " ".join(asked[1:])
    return [
        EntityMatch(entity_id=e.id, matched=window, window=window, score=_DEED_SCORE)
        for n, e in scored
        if n == best
    ]
