"""Questions about what happened, answered from the canon graph's events and places.

An event's card holds those who took part in it ("Orrin Vaske took part in Battle of Gull Rock"), where and
when it took place; a place's card the events that took place there. So:
- "Who took part in the Battle of Gull Rock?", "Who fought at Gull Rock?": those who took part, all of them, with
  what the event's description says of it (who died there is `answer_deaths`'s: taking part is no death);
- "Who crowned Tamsin?": an event the person named took part in, whose description says the question's verb
  ("given the salt crown"), answers with the others who took part in it;
- "What happened in 871?": the events of that year, each where (if canon says) and when, then what it was (as at a
  place) when they are few (`happenings.TOLD_AT`);
- "What happened at Gull Rock?", "… at Gull Rock in 870?": the events that took place there (that year), each on
  its day, then what it was (its description's first sentence, else its outcome) of each whose card was found (the
  few at the place named: `happenings.told_at`); in a region, those at the places within it too
  (`places.around`), place by place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, names_in_prose, opening, relation_sentence
from canon.wording.counts import in_words, listed
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_event_told import event_era, event_told, shared_event
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sentences
from memory.knowledge.retrieval.happenings import (
    EVENT_NOUNS,
    TOLD_AT,
    asked_when,
    asks_who_was_there,
    does_deed,
)
from memory.knowledge.retrieval.places import found_around
from memory.knowledge.retrieval.taken_in_year import taken_in_told

__all__ = ["TAKING_PART", "event_names", "goal_answer", "happening_answer", "is_event", "names_list"]

_WANTS = re.compile(r"\b(?:want|wants|wanted|goal|goals|aim|aims|seek|seeks|after)\b")

#: Words asking who was at an event, beside its name ("who *fought at* …", "who *attended* …").
TAKING_PART = frozenset(
    {
        *("took", "take", "part", "participated", "participants", "involved", "present", "there", "fought"),
        *("attended", "attend", "joined", "join", "marched", "sailed", "battled", "witnessed", "saw"),
        *("survived", "signed", "sign", "signatories", "sealed"),
    }
)
_WHAT_HAPPENED = re.compile(r"^\s*(?:what (?:happened|took place|went on|occurred|events?)|which events?)\b")


def is_event(fact: CanonFact) -> bool:
    """Return whether a card is an event's: of type Event, or saying where or when it took place."""
    return fact.entity_type == "Event" or any(
        line.startswith(fact.entity_name + " took place ") for line in fact.facts
    )


#: Relations whose subject is an event, and those whose object is.
_EVENT_FIRST = frozenset({"OCCURRED_AT", "OCCURRED_DURING"})
_EVENT_LAST = frozenset({"PARTICIPATED_IN", "WITNESSED", "CAUSED", "WON"})


def event_names(facts: Sequence[CanonFact]) -> list[str]:
    """Return the names of the events the cards are of or tie to ("took part in …", "… took place at")."""
    events = [f.entity_name for f in facts if is_event(f)]
    for relation in (r for f in facts for r in f.relations):
        predicate = relation.predicate.upper()
        events += [relation.subject] if predicate in _EVENT_FIRST else []
        events += [relation.object] if predicate in _EVENT_LAST else []
    return events


def names_list(
    names: Sequence[str], kind: str | None = None, *, opens: bool = False, either: bool = False
) -> str:
    """Return names as a list in words inside a sentence: "A", "A and B", "A, B and the Ash Brotherhood"
    (`canon.wording.names_in_prose`; `opens`: the list starts the sentence; `either`: "A, B or C")."""
    return names_in_prose(names, kind, opens=opens, either=either)


def _what_happened(fact: CanonFact) -> str:
    """Return what an event was, after where and when it took place: its description's first sentence, else its
    outcome ("" when canon says neither)."""
    what = _what_it_was(fact)
    outcome = (attribute_value(fact, "outcome") or "").strip().rstrip(".")
    if what:
        return f" {what}."
    return f" Its outcome: {outcome}." if outcome else ""


def _what_it_was(fact: CanonFact) -> str:
    said = sentences(fact.description or attribute_value(fact, "description") or "")[:1]
    return said[0].rstrip(".") if said else ""


#: A year a question asks of a place ("what happened at Greyfen in 212", "… in year 212").
_YEAR_ASKED = re.compile(r"\bin\s+(?:the\s+)?(?:year\s+)?(?P<year>\d+)\b")


def _at_place(
    fact: CanonFact, number: int, cards: Sequence[CanonFact] = (), year: re.Match[str] | None = None
) -> tuple[str, int] | None:
    """Return the events that took place at a place (in the `year` asked, when one is), each on its day, as the
    place's card says it or as the event's card found (`cards`) does, then what the event was when its card was
    found; or None when neither says any."""
    there = re.compile(rf" took place (?:at|in) (?i:{re.escape(fact.entity_name)})")  # "at the Saltmarch"
    if year is not None:
        there = re.compile(rf"{there.pattern}\b.*\byear {year['year']}\b")
    events = [r.subject for r in fact.relations if r.predicate.upper() == "OCCURRED_AT"]
    own = [
        (line, next((e for e in events if line.startswith(e + " ")), None))
        for line in fact.facts
        if there.search(line) and not line.startswith(fact.entity_name + " ")
    ]
    said = {e for _, e in own}
    carded = {
        n: f
        for n, f in enumerate(cards, 1)
        if is_event(f)
        and f.entity_name not in said
        and any(r.predicate.upper() == "OCCURRED_AT" and r.object == fact.entity_name for r in f.relations)
    }
    told: list[str] = []
    for line, event in own:
        card = next((f for f in cards if event and f.entity_name == event and is_event(f)), None)
        told.append(
            (opening(line, event, "Event") if event else line) + "." + (_what_happened(card) if card else "")
        )
    lines = [f"{' '.join(told)} [{number}]"] if told else []
    for n, card in carded.items():
        placed = _took_place(card)
        if placed and there.search(placed):
            lines.append(f"{opening(placed, card.entity_name, 'Event')}.{_what_happened(card)} [{n}]")
    if not lines:
        return None
    return " ".join(lines), number if told else int(lines[0].rsplit("[", 1)[1].rstrip("]"))


def _at_places(facts: Sequence[CanonFact], question: str = "") -> tuple[str, int] | None:
    """Return the events at the first place with any, and at the places within it that `places.around` found
    after it (a region's towns, nearest first), each once; or None when no place's card has any."""
    told: list[str] = []
    first = None
    year = _YEAR_ASKED.search(question.casefold())
    for number, fact in enumerate(facts, 1):
        if is_event(fact) or (first is not None and not found_around(fact)):
            continue
        found = _at_place(fact, number, facts, year)
        if found is None:
            continue
        first = found if first is None else first
        told += [s for s in re.split(r"(?<=\]) ", found[0]) if s not in told]
    if (
        first is None and year is not None
    ):  # "what happened at Greyfen in 212" of a place whose events are other years
        for number, fact in enumerate(facts, 1):
            if not is_event(fact) and _at_place(fact, number, facts) is not None:
                said = f"Nothing the table knows says what happened at {in_prose(fact.entity_name)} in year {year['year']}"
                return f"{said}. [{number}]", number
    return (" ".join(told), first[1]) if first is not None else None


def _took_place(fact: CanonFact) -> str | None:
    """Return an event card's sentence saying where and when it took place, or when alone without a place."""
    head = fact.entity_name + " took place "
    placed = [line for line in fact.facts if line.startswith(head) and "during" not in line]
    return next((line for line in placed if line.startswith(head + "at ")), placed[0] if placed else None)


def _who_took_part(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who took part in the event the question asks about (beside those it names), or None. Events
    found by the place they took place at ("Who fought at Fenwatch?") are each said, in the order found."""
    named = {f.entity_name for f in facts if not is_event(f)}
    there = asks_who_was_there(question)
    # An event found by a word naming any event ("battle") is not the one asked when others were found by words
    # of their own ("the battle of Glassmere": the event at Glassmere, not the Battle of Gull Rock).
    generic = {n for n, f in enumerate(facts, 1) if is_event(f) and set(fold_words(f.matched)) <= EVENT_NOUNS}
    if len(generic) == len([f for f in facts if is_event(f)]):
        generic = set()
    told: list[tuple[int, str, str]] = []
    for number, fact in enumerate(facts, 1):
        if not is_event(fact) or number in generic:
            continue
        own = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
        others = {w for f in facts if f is not fact for w in fold_words(f.matched)}
        asked = [w for w in key_words(question) if not has_word(own, w) and w not in others]
        deed = any(does_deed(w, fact.entity_name) for w in key_words(question))  # "who burned the lights"
        if not asked and not there and not deed:
            continue
        what = _what_it_was(fact)
        said = set(fold_words(what)) | set(fold_words(attribute_value(fact, "significance") or ""))
        if not all(
            w in TAKING_PART or w in EVENT_NOUNS or has_word(said, w) or does_deed(w, fact.entity_name)
            for w in asked
        ):
            continue
        people = [p for p in fact.tied("PARTICIPATED_IN") if p not in named]
        if people:
            text = relation_sentence("PARTICIPATED_IN", names_list(people, opens=True), fact.entity_name)
            told.append((number, text, what))
    if not told:
        return None
    number, text, what = told[0]
    if len(told) == 1:
        return f"{text}{': ' + what if what else ''}. [{number}]", number
    return " ".join(f"{t}. [{n}]" for n, t, _ in told), number


def happening_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what happened at a place, or who took part in an event (see the module docstring), or None."""
    folded = question.casefold()
    when = asked_when(question)
    asks_what = bool(_WHAT_HAPPENED.match(folded))
    if asks_what or when is not None:  # "events of LR 500" asks what happened then, not at a place
        dated = [(n, f) for n, f in enumerate(facts, 1) if is_event(f) and when and f.matched == when]
        if dated or (
            when and taken_in_said(facts, when)
        ):  # "What happened in 212 RL?": the events found by the year, each where (if canon says) and when
            lines = [_took_place(f) for _, f in dated]
            few = len([line for line in lines if line]) <= TOLD_AT  # what each was, of a year's few events
            told = [
                f"{opening(line, f.entity_name, 'Event')}.{_what_happened(f) if few else ''} [{n}]"
                for (n, f), line in zip(dated, lines, strict=True)
                if line
            ]
            # A child taken in that year happened in it too (one mark cited: the answer's, kept on the first).
            told += [t if not told else t.rsplit(" [", 1)[0] for t in taken_in_said(facts, when or "")]
            if told:
                return " ".join(told), dated[0][0] if dated else int(told[0].rsplit("[", 1)[1].rstrip("]"))
        named = [(n, f, _took_place(f)) for n, f in enumerate(facts, 1) if is_event(f)]
        told_of = event_told(question, facts, named) if asks_what else None
        return told_of or (_at_places(facts, question) if asks_what else None)
    if re.match(r"^\s*who\b", folded):
        return _who_took_part(question, facts)
    if re.match(r"^\s*(?:when|where)\b", folded):
        return _which_of(facts) or _ended(question, facts) or shared_event(question, facts)
    return event_era(question, facts)


def taken_in_said(facts: Sequence[CanonFact], when: str) -> list[str]:
    """Return each child found by the year asked who was taken in that year, said with its number."""
    year = re.search(r"\d+", when)
    told = [(n, taken_in_told(f, year.group())) for n, f in enumerate(facts, 1) if year and f.matched == when]
    return [f"{said}. [{n}]" for n, said in told if said]


def _which_of(facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return each event a question's words found alike (two coronations for "when was the queen crowned"),
    where and when it took place: never one of them picked in silence. None when they found one or none."""
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f)]
    alike = [(n, f) for n, f in events if events and f.matched == events[0][1].matched]
    told = [(n, line) for n, f in alike if (line := _took_place(f))]
    if len(told) < 2 or len(alike) != len(told):
        return None
    said = " ".join(
        f"{opening(line, f.entity_name, 'Event')}. [{n}]"
        for (n, line), (_, f) in zip(told, alike, strict=True)
    )
    return f"{in_words(len(told)).capitalize()} events fit: {said}", told[0][0]


_ENDED = re.compile(r"\b(?:end|ended|finish|finished|stop|stopped|conclude|concluded|over|close|closed)\b")


def _ended(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when an event asked the end of took place ("When did the siege of Fenwatch end?"): canon dates an
    event once, so the answer says that day and that canon gives none other for its end, then what it was."""
    if not _ENDED.search(question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        line = _took_place(fact) if is_event(fact) else None
        if line is None or not set(fold_words(fact.entity_name)) & set(fold_words(question)):
            continue
        what = _what_it_was(fact)
        said = f"{opening(line, fact.entity_name, 'Event')}; canon gives no other date for its end"
        return f"{said}.{' ' + what + '.' if what else ''} [{number}]", number
    return None


def _goal(item: str) -> str:
    """Return one goal as it follows "wants": "Take the toll" → "to take the toll"; "Revenge" → "revenge"."""
    said = item.strip().rstrip(".")
    said = said[0].lower() + said[1:] if said[1:2].islower() else said
    return said if re.match(r"^(?:to|a|an|the|more|power|money|revenge)\b", said) else f"to {said}"


def goal_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what the entity asked about wants ("What does House Vaske want?"): its goals, or None."""
    if not _WANTS.search(question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        goals = attribute_value(fact, "goals") or attribute_value(fact, "goal")
        if goals:
            # A list of goals is kept as one value, its items joined by commas, each written as a sentence.
            said = [_goal(item) for item in re.split(r",\s+(?=[A-Z][a-z])", goals) if item.strip()]
            wants = "want" if re.match(r"^The .+s$", fact.entity_name) else "wants"  # "The Tidewardens want"
            return f"{fact.entity_name} {wants} {listed(said)}. [{number}]", number
    return None
