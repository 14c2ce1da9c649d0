"""Offices held over time, answered from the spans on the cards (`retrieval.offices`): "who was High Steward before
Wynna Brack", "who succeeded Aldous Brack", "who held High Steward in 702", "who was High Steward when the Siege of
Carrow began", "what titles has Wynna Brack held", and "who is the High Steward" (`current_holder`: the one holding
it today; the dead and those whose span ended are past). Dates in the calendar's words, as the spans say them.

Only what the asker may see is on a card: a span kept for the GM is on none of a player's, so the answer reads as
it would if canon had never said it. Pure.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from canon.wording import title_phrase
from canon.wording.counts import in_words, plural_of
from memory.knowledge.answer_models import Office
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.event_times import event_time
from memory.knowledge.retrieval.offices import (
    asked_office,
    bare_title,
    last_key,
    office_stem,
    possessed_title,
    titles_meant,
)

__all__ = ["asks_title", "current_holder", "office_answer", "offices_held"]

_AFTER = frozenset({"after", "succeeded", "came after", "successor"})
#: How close a name or a title typed must be to one canon says, when not the same (rapidfuzz ratio).
_CLOSE = 80


@dataclass(frozen=True, slots=True)
class _Held:
    """One span of an office, with the card (and its number) of the one who held it."""

    number: int
    fact: CanonFact
    office: Office

    @property
    def said(self) -> str:
        """Return the holder with the span: "Aldous Brack (from year 690 to 731 of the Lantern Age)"."""
        return f"{self.fact.entity_name} ({self.office.span})" if self.office.span else self.fact.entity_name


def _holdings(facts: Sequence[CanonFact], title: str | None = None) -> list[_Held]:
    """Return every span on the cards (of one title, when given), in the order they began."""
    bare = bare_title(title) if title else None
    meant = [bare] if bare is not None else []
    if bare is not None:  # "Warden" of the titles starting so ("Warden of the Ember Gate")
        meant = titles_meant(bare, [o.title for f in facts for o in f.offices]) or meant
    held = [
        _Held(n, f, o)
        for n, f in enumerate(facts, 1)
        for o in f.offices
        if bare is None or bare_title(o.title) in meant
    ]
    return sorted(held, key=lambda h: (h.office.start_key is None, h.office.start_key or 0))


def _named(facts: Sequence[CanonFact], who: str) -> tuple[int, CanonFact] | None:
    """Return the card of the one a question names (`who`: the words naming them), the longest name first; else
    the one holder of an office whose name holds every word typed ("Ebba" of Ebba Thane), or whose name is
    close to them (a typo: "Reeve Holis")."""
    words = set(fold_words(who))
    named = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if fold_words(f.matched)
        and set(fold_words(f.matched)) <= words
        and not any(bare_title(o.title) == bare_title(f.matched) for o in f.offices)  # found by the title
    ]
    if named:
        return max(named, key=lambda nf: len(nf[1].matched))
    holders = [(n, f) for n, f in enumerate(facts, 1) if f.offices]
    inside = [(n, f) for n, f in holders if words and words <= set(fold_words(f.entity_name))]
    if len(inside) == 1:
        return inside[0]
    typed = " ".join(fold_words(who))
    close = [
        (n, f)
        for n, f in holders
        if typed and fuzz.ratio(typed, " ".join(fold_words(f.entity_name))) >= _CLOSE
    ]
    return close[0] if len(close) == 1 else None


def _office_named(offices: Sequence[Office], title: str | None) -> list[Office]:
    """Return the offices of a person a question's title names: the same words, else the one closest to them (a
    typo: "high reve"); all of them when no title is asked."""
    if title is None:
        return list(offices)
    same = [o for o in offices if bare_title(o.title) == bare_title(title)]
    inside = [o for o in offices if set(bare_title(title).split()) <= set(bare_title(o.title).split())]
    if same or len(inside) == 1:
        return same or inside  # "Reeve" of one who held "Reeve of the Marsh Gate" alone
    scored = sorted(
        ((fuzz.ratio(bare_title(o.title), bare_title(title)), o) for o in offices), key=lambda x: -x[0]
    )
    return [scored[0][1]] if scored and scored[0][0] >= _CLOSE else []


def _title_of(office: Office) -> str:
    return title_phrase(office.title)


def _when(held: _Held) -> str:
    """Return a span after the title it is of: " (from year 690 to 731 of the Lantern Age)"."""
    return f" ({held.office.span})" if held.office.span else ""


def _before(held: _Held) -> str:
    """Return who held an office before the one named first: "; before, Aldous Brack held it, from year 690 …"."""
    return f"; before, {held.fact.entity_name} held it" + (
        f", {held.office.span}" if held.office.span else ""
    )


def _neighbour(form: str, parts: dict[str, str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who held an office the one named held just before or just after them."""
    found = _named(facts, parts.get("who", ""))
    if found is None:
        return None
    number, person = found
    after = form == "after" or (form != "before" and parts.get("dir", "") in _AFTER)
    title = parts.get("title") or None
    own = _office_named(person.offices, title)
    said: list[tuple[str, int]] = []
    for office in own:
        if office.start_key is None:
            continue
        others = [
            h
            for h in _holdings(facts, office.title)
            if h.fact.entity_id != person.entity_id and h.office.start_key is not None
        ]
        if after:
            next_ones = [h for h in others if (h.office.start_key or 0) > office.start_key]
            chosen = next_ones[0] if next_ones else None
        else:
            earlier = [h for h in others if (h.office.start_key or 0) < office.start_key]
            chosen = earlier[-1] if earlier else None
        if chosen is None:
            continue
        verb = "is" if chosen.office.current else "was"
        where = "After" if after else "Before"
        who = chosen.fact.entity_name
        said.append(
            (f"{where} {person.entity_name}, {who} {verb} {_title_of(office)}{_when(chosen)}", chosen.number)
        )
    if said:
        return "; ".join(s for s, _ in said) + f". [{said[0][1]}]", said[0][1]
    if not own:
        return None
    office = own[0]
    holds = "has held it" if office.current else "held it"
    way = "after" if after else "before"
    text = (
        f"Nothing the table knows says who was {_title_of(office)} {way} {person.entity_name}; "
        f"{person.entity_name} {holds} {office.span}".rstrip("; ")
    )
    dated = [h for h in _holdings(facts, office.title) if h.office.start_key is not None]
    if (
        not after
        and len({h.fact.entity_id for h in dated}) > 1
        and dated[0].fact.entity_id == person.entity_id
    ):
        bare = re.sub(r"^the\s+", "", _title_of(office))
        text += f", the first {bare} the table knows of"  # no earlier holder is known
    return f"{text}. [{number}]", number


def _at(title: str, lo: int, hi: int, facts: Sequence[CanonFact]) -> list[_Held]:
    """Return the spans of a title that were held at some time between two world keys (a start known)."""
    return [
        h
        for h in _holdings(facts, title)
        if h.office.start_key is not None
        and h.office.start_key <= hi
        and (h.office.end_key is None or last_key(h.office.end_key) >= lo)
        and (h.office.end_key is not None or not h.office.ended or h.office.start_key >= lo)
    ]


def _in_time(form: str, parts: dict[str, str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who held the office asked in a year, or when an event named took place."""
    title = parts.get("title", "")
    every = _holdings(facts, title)
    if not title or not every:
        return None
    office = title_phrase(every[0].office.title)
    if form == "year":
        year = int(parts["year"])
        lo, hi, when = year * 10000, year * 10000 + 9999, f"in year {year}"
    else:
        time = event_time(f"when {parts.get('event', '')}", facts)
        if time is None:
            return None
        lo, hi, when = time.lo, time.hi, time.said
    held = _at(title, lo, hi, facts)
    if not held:
        return f"Nothing the table knows says who was {office} {when}. [{every[0].number}]", every[0].number
    if len(held) == 1 and form == "year":
        text = f"{held[0].fact.entity_name} was {office} {when}{_when(held[0])}"
    elif (
        len(held) == 1
    ):  # "When the Siege took place, on 3 Thaw, year 702 …, Wynna Brack was High Steward (…)"
        text = f"{when[:1].upper()}{when[1:]}, {held[0].fact.entity_name} was {office}{_when(held[0])}"
    else:
        text = f"{names_list([h.said for h in held], opens=True)} were {office} {when}"
    return f"{text}. [{held[0].number}]", held[0].number


def _in_order(first: bool, title: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the first (or last) holder of an office canon dates, as far as the asker may see: "The first Warden
    of the Ford the table knows of is Aldous Brannock (from year 300 to year 331)"."""
    dated = [h for h in _holdings(facts, title) if h.office.start_key is not None]
    if not dated:
        return None
    held = dated[0] if first else dated[-1]
    office = title_phrase(held.office.title)
    text = f"The {'first' if first else 'last'} {office} the table knows of is {held.fact.entity_name}{_when(held)}"
    return f"{text}. [{held.number}]", held.number


def _all_held(title: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return everyone who held an office, in the order they took it, each with their span."""
    held = _holdings(facts, title)
    if not held:
        return None
    office = title_phrase(held[0].office.title)
    text = f"{office[:1].upper()}{office[1:]} was held by {names_list([h.said for h in held])}"
    return f"{text}. [{held[0].number}]", held[0].number


def offices_held(fact: CanonFact, plain: Sequence[str], *, ever: bool) -> str | None:
    """Return the titles a person holds (or, `ever`, has held) with their spans, beside the titles written with
    none (`plain`, as their card says them), as one sentence; None when the card holds no span."""
    if not fact.offices:
        return None
    spans = [o for o in fact.offices if ever or o.current]
    said = [
        *plain,
        *(f"{title_phrase(o.title)} ({o.span})" if o.span else title_phrase(o.title) for o in spans),
    ]
    if not said:
        return None
    verb = "was" if fact.state == "dead" else "has been" if ever else "is"
    return f"{fact.entity_name} {verb} {names_list(said)}"


def current_holder(typed: Sequence[str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who holds the office a "who is the High Steward" names today, with the one before them; or that no
    one the table knows holds it now, with the last who did. A short title several offices start with ("who is the
    High Warden": of the North and of the South) is answered for each (`_each_said`). None when no card holds a
    span of that office."""
    every = _holdings(facts)
    asked = [h for h in every if asks_title(typed, fold_words(h.office.title))]
    if asked:
        return _holder_now(typed, asked[0].office.title, facts)
    head = list(itertools.takewhile(lambda w: w in _ASKING_WHO, typed))
    short = " ".join(w for w in typed[len(head) :] if w not in ("the", "a", "an"))
    if not head or typed[:1] != ["who"] or not short:
        return None
    titles = _titles(short, facts)
    said = [_holder_now(typed, t, facts) for t in titles]
    return _each_said(short, titles, said) if len(titles) > 1 else said[0] if said else None


def _holder_now(typed: Sequence[str], title: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    held = _holdings(facts, title)
    office = title_phrase(title)
    now = [h for h in held if h.office.current]
    past = sorted(
        (h for h in held if h.office.ended), key=lambda h: h.office.end_key or h.office.start_key or 0
    )
    if now:
        first = now[-1]
        text = f"{first.fact.entity_name} is {office}{_when(first)}"
        before = [h for h in past if h.fact.entity_id != first.fact.entity_id]
        if before:
            text += _before(before[-1])
        return f"{text}. [{first.number}]", first.number
    if not past:
        return None
    last = past[-1]
    if typed[1:2] == ["was"]:  # "who was the Lady Regent": the last who was, and the one before them
        text = f"{last.fact.entity_name} was {office}{_when(last)}"
        before = [h for h in past[:-1] if h.fact.entity_id != last.fact.entity_id]
        if before:
            text += _before(before[-1])
        return f"{text}. [{last.number}]", last.number
    text = (
        f"Nothing the table knows says who is {office} now; the last was {last.fact.entity_name}{_when(last)}"
    )
    return f"{text}. [{last.number}]", last.number


#: The words "who is the High Warden" asks in before the title.
_ASKING_WHO = frozenset({"who", "whos", "is", "was", "the", "current", "present"})


def _titles(typed: str, facts: Sequence[CanonFact]) -> list[str]:
    """Return the titles (as canon writes them) a typed one means (`offices.titles_meant`), in the order first held."""
    held = [o.title for f in facts for o in sorted(f.offices, key=lambda o: o.start_key or 0)]
    meant = titles_meant(bare_title(typed), held)
    return list(dict.fromkeys(t for t in held if bare_title(t) in meant))


def _each_said(
    typed: str, titles: Sequence[str], said: Sequence[tuple[str, int] | None]
) -> tuple[str, int] | None:
    """Return the answers for each of the offices a short title means, after how many it means ("There are two
    High Wardens."): never one of them chosen silently. They are called as canon writes the words typed."""
    found = [a for a in said if a is not None]
    if not found:
        return None
    asked = bare_title(typed).split()
    asked = [office_stem(asked[0]) or asked[0]] if len(asked) == 1 else asked  # "the keepership": Keepers
    lead = " ".join(titles[0].split()[: len(asked)])
    name = lead if bare_title(lead).split() == asked else typed
    head = f"There are {in_words(len(titles))} {plural_of(name)}."
    return " ".join([head, *(a[0] for a in found)]), found[0][1]


def _each_office(form: str, parts: dict[str, str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer of a question asking an office in a year, at an event, first or last, or all its holders,
    for each office its short title means when it means several ("High Warden": of the North, of the South)."""
    typed = parts.get("title", "")
    titles = _titles(typed, facts) if typed else []
    if len(titles) < 2:
        return None
    said = [_by_title(form, {**parts, "title": t}, facts) for t in titles]
    return _each_said(typed, titles, said)


def _by_title(form: str, parts: dict[str, str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    if form in ("year", "event"):
        return _in_time(form, parts, facts)
    if form == "order":
        return _in_order(parts["order"] in ("first", "earliest"), parts["title"], facts)
    return _all_held(parts["title"], facts)


def asks_title(typed: Sequence[str], title: Sequence[str]) -> bool:
    """Return whether a question asks who holds a title and nothing more: "who is the High Steward"."""
    head = typed[: len(typed) - len(title)]
    return (
        bool(title)
        and list(typed[len(head) :]) == list(title)
        and set(head) <= {"who", "whos", "is", "was", "the", "current", "present"}
    )


def office_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to an office asked over time (see the module docstring), or None."""
    if not any(f.offices for f in facts):
        return None
    asked = asked_office(question)
    if asked is None:
        typed = fold_words(question.replace("’", "'"))
        return current_holder(typed, facts) if re.match(r"^\s*who\b", question.casefold()) else None
    form, parts = asked
    title = parts.get("title", "")
    if title and not _holdings(facts, title) and (mine := possessed_title(title)) is not None:
        parts = {**parts, "title": mine}  # "redgulch's mayor": the Mayor of Redgulch
    if form == "now":  # "who holds the office of Provost", "who is the current Provost"
        return current_holder(fold_words(f"who is the {parts['title']}"), facts)
    if form == "held":
        return None  # the titles a person has held: `answer_titles`, beside those written with no span
    if form in ("year", "event", "order", "all"):
        return _each_office(form, parts, facts) or _by_title(form, parts, facts)
    return _neighbour(form, parts, facts)
