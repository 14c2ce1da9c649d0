"""Who died in an event or at a place, as canon says it: never those who merely took part.

"Who died in the Battle of X?", "who was killed at X?", "did anyone die at X?", "how many fell in X?": the cards
of those who took part are read (`happenings.the_fallen`), and one died there when
- their death is dated the event's day and canon ties it to the event ("Osk Venner died on 12 Highsun, …, in the
  Battle of Thistle Bridge"), or their description says a death at the event or its place ("He fell at Otter
  Ford, …"), or they are a member of a group that took part and died that very day (both dated to the day:
  "Bran Tull, a member of the Tideguard, died that day");
- the event's description says it with a death's verb ("Maudlin Crae was cut down on the crown of the bridge";
  "Hale Brannock slew Osk Venner": the one slain).
The answer names them, then how each died where canon tells it. Where canon tells no death, it says that nothing
known says who died there, and who took part (of a place: which events canon tells of there). Only the cards the
asker may read are read: a GM-only death is no death of a player's, and reads as one canon never told.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.counts import in_words
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_outcomes import said_of
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, sentences
from memory.knowledge.retrieval.death_places import died_here, listed_dead
from memory.knowledge.retrieval.happenings import EVENT_NOUNS, asks_who_died

__all__ = ["deaths_answer"]

#: A death said of the one named before it: "X died", "X was cut down", "X drowned in …", "X fell at …".
_DIED = re.compile(
    r"\b(?:died|perished|starved|froze\s+to\s+death|bled\s+to\s+death|burned\s+to\s+death|(?:was|were)\s+"
    r"(?:killed|slain|cut\s+down|struck\s+down|hanged|hung|executed|beheaded|murdered|drowned|shot|stabbed|"
    r"poisoned|strangled|trampled|crushed|burned|burnt|lost|mauled)|drowned(?!\s+(?:the|a|an|his|her|their)\b)|"
    r"fell\s+(?:at|in(?!\s+love)|on|during|defending|fighting|beside|before|under|to\s+(?:his|her|their)\s+death)|"
    r"lost\s+(?:his|her|their)\s+li(?:fe|ves)|met\s+(?:his|her|their)\s+(?:death|end))\b",
    re.IGNORECASE,
)
#: A death said of the one named after it: "X slew Y", "Y was killed by X" is `_DIED`'s.
_KILLED = re.compile(
    r"\b(?:killed|slew|murdered|cut\s+down|struck\s+down|shot|stabbed|beheaded|hanged|executed|drowned|"
    r"poisoned|strangled|assassinated)\s+(?:[a-z]+\s+){0,2}(?=[A-Z])",
)
_YES_NO = re.compile(r"^\s*(?:did|was|were|has|had)\b", re.IGNORECASE)


def _own_words(name: str, event: CanonFact) -> list[str]:
    """Return the words of a name that tell its bearer apart in a sentence (not the event's own words)."""
    theirs = set(fold_words(event.entity_name))
    return [w for w in re.findall(r"[^\W\d_]+", name) if len(w) > 2 and w.casefold() not in theirs]


def _named_at(sentence: str, words: Sequence[str]) -> int | None:
    """Return where a sentence first names one by a word of their name (in its case), or None."""
    found = [m.start() for w in words if (m := re.search(rf"\b{re.escape(w)}\b", sentence))]
    return min(found) if found else None


def _dies_in(sentence: str, at: int) -> bool:
    """Tell whether a sentence says the death of the one it names at `at`: a death's verb after the name, with no
    other deed between ("Maudlin Crae was cut down"), or a killing's verb just before it ("… slew Osk Venner")."""
    died = _DIED.search(sentence, at)
    if died is not None and not _KILLED.search(sentence[at : died.start()]):
        return not re.search(r"\b(?:and|but|while|when|who|which|then)\b", sentence[at : died.start()])
    killed = [k for k in _KILLED.finditer(sentence) if k.end() <= at]
    return bool(killed) and not re.search(r"[,;]", sentence[killed[-1].end() : at])


def _ties(sentence: str, event: CanonFact, places: Sequence[str]) -> bool:
    """Tell whether a sentence names the event (a word of its name beyond its kind) or a place it took place at."""
    said = set(fold_words(sentence))
    own = [w for w in fold_words(event.entity_name) if w not in EVENT_NOUNS and len(w) > 3]
    return any(w in said for w in own) or any(
        all(w in said for w in fold_words(p) if w != "the") for p in places
    )


def _places(event: CanonFact) -> list[str]:
    me = event.entity_name.casefold()
    return [
        r.object
        for r in event.relations
        if r.predicate.upper() == "OCCURRED_AT" and r.subject.casefold() == me
    ]


def _dead_in(event: CanonFact, facts: Sequence[CanonFact]) -> tuple[list[str], list[str]]:
    """Return who died in an event as canon tells it, and the sentences telling how, each said of its subject."""
    cards = {f.entity_name.casefold(): f for f in facts if f is not event}
    places = _places(event)
    dead: list[str] = listed_dead(event)  # the event's `deaths`, as its file lists them
    how: list[str] = []
    told = sentences(_description(event))
    # Those who took part, then those found by a description telling a death there (`happenings.the_fallen`).
    others = [
        f.entity_name for f in facts if f is not event and not is_event(f) and f.matched == event.matched
    ]
    for who in dict.fromkeys([*event.tied("PARTICIPATED_IN"), *others]):
        if who in dead:
            continue
        words = _own_words(who, event)
        for sentence in told:  # the event's own description: "Maudlin Crae was cut down on …"
            at = _named_at(sentence, words)
            if at is not None and _dies_in(sentence, at):
                dead.append(who)
                how.append(sentence)
                break
        card = cards.get(who.casefold())
        if card is None or who in dead:
            continue
        died_there = next(
            (
                line
                for line in card.facts
                if line.startswith(f"{who} died ") and line.casefold().endswith(event.entity_name.casefold())
            ),
            None,
        )
        own = sentences(card.description or attribute_value(card, "description") or "")
        telling = next(
            (s for s in own if _DIED.search(s) and _ties(s, event, places)),
            None,
        )
        group = None if died_there or telling else _of_a_group_that_day(card, event)
        if died_there or telling or group:
            dead.append(who)
            if telling:
                how.append(told_sentence(who, telling))
            elif group:
                how.append(f"{who}, a member of {in_prose(group)}, died that day")
    return dead, how


_DAY = re.compile(r" took place (?:at .+? )?on (?P<day>\d+ .+)$")


def _of_a_group_that_day(card: CanonFact, event: CanonFact) -> str | None:
    """Return the group that took part in an event whose member died on its very day (canon dates both to the
    day), as the member's card says it; None when there is none."""
    day = next((m["day"] for line in event.facts if (m := _DAY.search(line))), None)
    if day is None or f"{card.entity_name} died on {day}" not in card.facts:
        return None
    took_part = {p.casefold(): p for p in event.tied("PARTICIPATED_IN")}
    me = card.entity_name.casefold()
    return next(
        (
            took_part[r.object.casefold()]
            for r in card.relations
            if r.predicate.upper() == "MEMBER_OF"
            and r.subject.casefold() == me
            and r.object.casefold() in took_part
        ),
        None,
    )


def _description(fact: CanonFact) -> str:
    return fact.description or attribute_value(fact, "description") or ""


def _event_sentence(
    event: CanonFact, dead: Sequence[str], how: Sequence[str], *, yes: bool, many: bool
) -> str:
    named = in_prose(event.entity_name, "Event")
    lead = f"{names_list(dead, opens=True)} died in {named}"
    if many:  # "how many died in …": canon's count, then the names
        lead = f"Canon names {in_words(len(dead))} who died in {named}: {names_list(dead)}"
    told = [h for h in how if h.rstrip(".") != lead]
    text = f"{'Yes: ' if yes else ''}{lead}."
    return " ".join([text, *(f"{h.rstrip('.')}." for h in told)])


def deaths_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who died in the event or at the place a question asks about (see the module docstring), or None
    when it asks no such thing or names no event canon holds."""
    if not asks_who_died(question):
        return None
    here = died_here(question, facts)  # a place asked about, and those its file says died there (`died_at`)
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f)]
    named = [(n, f) for n, f in events if not set(fold_words(f.matched)) <= EVENT_NOUNS] or events
    if not named:
        if here is None:
            return None
        dead_here, spot, number = here
        opening = "Yes: " if _YES_NO.match(question) else ""
        return f"{opening}{died_here_sentence(dead_here, spot)}. [{number}]", number
    first_number, first = named[0]
    asked_words = set(fold_words(question))
    if here is not None and any(
        set(fold_words(f.entity_name)) - {"the", "of"} <= asked_words for _, f in named
    ):
        here = None  # an event is asked about ("the Battle of Ember Ford"), not the place its name holds
    place = next(
        (
            (n, f)
            for n, f in enumerate(facts, 1)
            if not is_event(f) and f.matched == first.matched and first.entity_name in _places_of(f)
        ),
        None,
    )
    asked = [(n, f) for n, f in named if f.matched == first.matched] if place else [named[0]]
    yes = bool(_YES_NO.match(question))
    many = bool(re.match(r"^\s*how\s+many\b", question, re.IGNORECASE))
    said: list[str] = []
    for number, event in asked:
        dead, how = _dead_in(event, facts)
        if dead:
            said.append(f"{_event_sentence(event, dead, how, yes=yes and not said, many=many)} [{number}]")
            continue
        # Deaths told of no one canon names ("the toll-men starved behind its doors"): the sentence, of the event.
        unnamed = [s for s in sentences(_description(event)) if _DIED.search(s)][:2]
        if unnamed:
            told = " ".join(f"{said_of(event.entity_name, s, 'In')}." for s in unnamed)
            said.append(f"{'Yes: ' if yes and not said else ''}{told} [{number}]")
    if here is not None:  # those a file says died at the place, beyond those its events name
        told = " ".join(said)
        more = [who for who in here[0] if who not in told]
        if more:
            said.append(
                f"{'Yes: ' if yes and not said else ''}{died_here_sentence(more, here[1])}. [{here[2]}]"
            )
    if said:
        return " ".join(said), first_number
    anyone = "anyone died" if yes else "how many died" if many else "who died"
    if place is not None:
        number, there = place
        others = names_list([f.entity_name for _, f in asked], "Event")
        return (
            f"Nothing the table knows says {anyone} at {in_prose(there.entity_name)}; canon tells of {others} "
            f"there. [{number}]",
            number,
        )
    took_part = first.tied("PARTICIPATED_IN")
    who = f"; canon names {names_list(took_part)} as taking part" if took_part else ""
    return (
        f"Nothing the table knows says {anyone} in {in_prose(first.entity_name, 'Event')}{who}. [{first_number}]",
        first_number,
    )


def _places_of(place: CanonFact) -> list[str]:
    """Return the events a place's card says took place there."""
    me = place.entity_name.casefold()
    return [
        r.subject
        for r in place.relations
        if r.predicate.upper() == "OCCURRED_AT" and r.object.casefold() == me
    ]


def died_here_sentence(dead: Sequence[str], place: str) -> str:
    """Return "Garrick Thorne died at Ember Ford" of those a file says died at a place (`died_at`)."""
    return f"{names_list(list(dead), opens=True)} died at {in_prose(place, 'Location')}"
