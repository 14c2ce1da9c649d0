"""Places asked about: who lives in one, what lies in one, where one is.

The cards given are the place named first, then the places around it that `places.around` found (within it
for who lives there and what is there, holding it for where it is), each card holding only what the asker may
see:

- "who lives in Millbrook" names everyone living there, and in a region every place's people, place by place
  ("Ada Thorne and Wren Ashby live in Millbrook. Jory Thorne lives in Eelford."); "how many" counts them; the
  dead are no residents ("Old Hobb lived there and is dead");
- "what is in the Low Fens" / "what towns are in …" names the places within, each container's in a sentence,
  nearest first, with their kind when canon gives one ("Millbrook (a town) and Eelford (a village) are in the
  Low Fens."); a kind asked ("towns") that some of them have narrows the list to those;
- "where is the Cutting" says the places holding it, nearest first ("The Cutting is in Scarp End, in the
  Quarry Hills, in the Greywater Vale."); "which region is the Cutting in" says those of that kind, when canon
  gives any ("The Cutting is in the Greywater Vale.").
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.counts import plural_of
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.creature_words import asks_creatures
from memory.knowledge.retrieval.places import asks_around, asks_residents, asks_where, kind_where

__all__ = ["places_answer"]

_PLACES = frozenset({"Location", "Region"})
_COUNTS = ("No one", "One person", "Two people", "Three people", "Four people", "Five people", "Six people")


def _opens(name: str) -> str:
    return name[:1].upper() + name[1:]


def _within(facts: Sequence[CanonFact]) -> list[tuple[CanonFact, list[str]]]:
    """Return each place the cards hold, nearest first, with the places directly within it."""
    by_name = {f.entity_name.casefold(): f for f in facts}
    order: list[tuple[CanonFact, list[str]]] = []
    queue, seen = [facts[0]], {facts[0].entity_name.casefold()}
    while queue:
        place = queue.pop(0)
        inside = place.tied("PART_OF")
        order.append((place, inside))
        for name in inside:
            if name.casefold() not in seen and name.casefold() in by_name:
                seen.add(name.casefold())
                queue.append(by_name[name.casefold()])
    return order


def _kind(facts: Sequence[CanonFact], name: str) -> str | None:
    """Return a place's kind as its card gives it ("town"), or None."""
    fact = next((f for f in facts if f.entity_name.casefold() == name.casefold()), None)
    if fact is None:
        return None
    head = f"{possessive(fact.entity_name)} type: "
    return next((line[len(head) :] for line in fact.facts if line.startswith(head)), None)


def _a(kind: str) -> str:
    """Return a kind with its article: "a town", "an island"."""
    return f"{'an' if kind[:1].casefold() in 'aeiou' else 'a'} {kind}"


def _kind_asked(kind: str, asked: set[str]) -> str | None:
    """Return the word a question asks places of a kind by, when it does: the kind's last word, or its plural
    ("towns" asks a "harbour town", "cities" a "port city"); None otherwise."""
    words = fold_words(kind)
    last = words[-1] if words else ""
    return last if last and (last in asked or plural_of(last) in asked) else None


def _residents(question: str, facts: Sequence[CanonFact]) -> str | None:
    """Return who lives in the place and the places within it, place by place; the dead, whose cards say so,
    as those who lived there."""
    dead = {f.entity_name for f in facts if f.state_terminal or f.state == "dead"}
    said: list[str] = []
    everyone: list[str] = []
    gone: list[str] = []
    for place, _ in _within(facts):
        here = [n for n in place.tied("LIVES_IN") if n not in everyone and n not in gone]
        living = [n for n in here if n not in dead]
        gone += [n for n in here if n in dead]
        if living:
            everyone += living
            verb = "lives" if len(living) == 1 else "live"
            said.append(f"{names_list(living, opens=True)} {verb} in {in_prose(place.entity_name)}")
    if not said and not gone:
        return None
    name = in_prose(facts[0].entity_name)
    if question.casefold().lstrip().startswith("how many"):
        count = _COUNTS[len(everyone)] if len(everyone) < len(_COUNTS) else f"{len(everyone)} people"
        verb = "lives" if len(everyone) == 1 else "live"
        said = [f"{count} {verb} in {name}" + (f": {names_list(everyone)}" if everyone else "")]
    if gone:
        said.append(
            f"{names_list(gone, opens=True)} lived there and {'is' if len(gone) == 1 else 'are'} dead"
        )
    return " ".join(f"{s}." for s in said) + " [1]"


def _contents(question: str, facts: Sequence[CanonFact]) -> str | None:
    order = _within(facts)
    every = [name for _, inside in order for name in inside]
    if not every:
        return None
    # The kind asked ("towns"), not a word of the place's own name ("the Quarry Hills" asks no quarry).
    asked = set(fold_words(question)) - set(fold_words(f"{facts[0].matched} {facts[0].entity_name}"))
    kinds = {name: _kind(facts, name) for name in every}
    wanted = [n for n in every if (k := kinds[n]) and _kind_asked(k, asked)]
    region = in_prose(facts[0].entity_name)
    if wanted:
        word = _kind_asked(kinds[wanted[0]] or "", asked) or ""
        if len(wanted) == 1:
            return f"{_opens(names_list(wanted, opens=True))} is the only {word} in {region}. [1]"
        return f"{names_list(wanted, opens=True)} are {plural_of(word)} in {region}. [1]"
    said = []
    for place, inside in order:
        if not inside:
            continue
        named = [f"{n} ({_a(k)})" if (k := kinds[n]) else n for n in inside]
        verb = "is" if len(inside) == 1 else "are"
        said.append(f"{_opens(names_list(named, opens=True))} {verb} in {in_prose(place.entity_name)}")
    return " ".join(f"{s}." for s in said) + " [1]"


def _where(facts: Sequence[CanonFact], kind: str | None) -> str | None:
    by_name = {f.entity_name.casefold(): f for f in facts}
    chain: list[str] = []
    place: CanonFact | None = facts[0]
    while place is not None:
        holders = [h for h in place.tied("PART_OF", to_me=False) if h not in chain]
        if not holders:
            break
        chain.append(holders[0])
        place = by_name.get(holders[0].casefold())
    if not chain:
        return None
    # "Which region is it in": the holders of that kind, when canon gives any (else all of them, nearest first).
    of_kind = [c for c in chain if kind is not None and _of_kind(by_name.get(c.casefold()), facts, c, kind)]
    chain = of_kind or chain
    name = facts[0].entity_name
    return f"{_opens(name)} is in " + ", in ".join(in_prose(c) for c in chain) + ". [1]"


def _of_kind(fact: CanonFact | None, facts: Sequence[CanonFact], name: str, kind: str) -> bool:
    """Return whether a place is of the kind asked: its type ("region"), or its card's kind's last word."""
    own = _kind(facts, name)
    return (fact is not None and fact.entity_type.casefold() == kind) or (
        own is not None and _kind_asked(own, {kind}) is not None
    )


def places_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who lives in, what lies in, or where the place asked about is (see the module docstring)."""
    if not facts or not _is_place(facts[0]) or asks_creatures(question):
        return None  # the beasts of a place are `answer_creatures`'
    if asks_around(question):
        said = _residents(question, facts) if asks_residents(question) else _contents(question, facts)
    elif asks_where(question):
        said = _where(facts, kind_where(question))
    else:
        return None
    return (said, 1) if said is not None else None


def _is_place(fact: CanonFact) -> bool:
    """Return whether a card is a place's: of a place's type, or one that something lies in or someone lives in
    (a campaign's own kind of place)."""
    held = {"PART_OF", "LIVES_IN"}
    me = fact.entity_name.casefold()
    return fact.entity_type in _PLACES or any(
        r.predicate.upper() in held and r.object.casefold() == me for r in fact.relations
    )
