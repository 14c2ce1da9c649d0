"""What a question asks who led, ruled or held, with its holders over time, as `answer_tenures` reads them: the
card it names that is no person, its ties held for a span (`CanonFact.holds`) and the titles held for a span that
name it on the other cards ("Lady of Corvel Keep"); of a faction no title names, the title its leader holds for a
span ("Grand Master"), held by its members one after another; of a place no title names, the leaders of the group
seated there. Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from canon.wording import in_prose, relation_sentence, title_phrase
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.offices import bare_title

__all__ = ["VERBS", "Held", "Term", "asks", "target", "titled", "who_named"]

_PEOPLE = frozenset({"Person", "PC", "NPC", "Deity", "Creature"})
#: The words asking each tie, and how it is said now and in the past.
VERBS: dict[str, tuple[str, str, str]] = {
    "LEADS": ("leads", "led", "lead"),
    "RULES": ("rules", "ruled", "rule"),
    "POSSESSES": ("has", "had", "have"),
}
_ASKED: dict[str, frozenset[str]] = {
    "LEADS": frozenset(
        [
            "lead",
            "leads",
            "led",
            "leader",
            "leaders",
            "leading",
            "head",
            "heads",
            "headed",
            "commands",
            "commanded",
            "command",
            "chief",
        ]
    ),
    "RULES": frozenset(
        [
            "rule",
            "rules",
            "ruled",
            "ruler",
            "rulers",
            "reign",
            "reigns",
            "reigned",
            "govern",
            "governs",
            "governed",
            "lord",
            "lady",
            "lords",
            "ladies",
            "holds",
            "held",
            "hold",
            "controls",
            "controlled",
        ]
    ),
    "POSSESSES": frozenset(
        [
            "has",
            "had",
            "have",
            "holds",
            "held",
            "hold",
            "owns",
            "owned",
            "own",
            "owner",
            "owners",
            "possess",
            "possesses",
            "possessed",
            "carries",
            "carried",
            "wields",
            "wielded",
            "keeps",
            "kept",
            "holder",
            "holders",
            "got",
        ]
    ),
}
_TYPO = 80


@dataclass(frozen=True, slots=True)
class Term:
    """One who held what is asked for a span: by a tie (its `predicate`) or a title (`title`)."""

    holder: str
    number: int
    start: int | None
    end: int | None
    span: str
    current: bool
    ended: bool
    title: str | None = None


def _names(title: str, bare: str) -> bool:
    """Return whether a title names what is held ("Lady of Corvel Keep" names "corvel keep")."""
    return bool(bare) and f" {bare} " in f" {bare_title(title)} "


def _terms(held: CanonFact, number: int, facts: Sequence[CanonFact]) -> list[Term]:
    """Return who held it, by its ties and by the titles naming it (of a group no title names, by the title its
    leader holds: `_led_as`), in the order they began; one held by a tie without dates, or over the same
    span as a title, and by that title is said once, by the title."""
    terms = [Term(h.holder, number, h.start_key, h.end_key, h.span, h.current, h.ended) for h in held.holds]
    bare = bare_title(held.entity_name)
    for n, fact in enumerate(facts, 1):
        for o in fact.offices:
            if fact.entity_id != held.entity_id and _names(o.title, bare):
                terms.append(
                    Term(fact.entity_name, n, o.start_key, o.end_key, o.span, o.current, o.ended, o.title)
                )
    dated_holds = any(t.start is not None or t.end is not None for t in terms)
    if not any(t.title for t in terms) and held.entity_type in ("Faction", "Lineage") and not dated_holds:
        terms += _led_as(held, facts)  # its leaders dated by a title, when its own ties date none
    dated = {t.holder for t in terms if t.start is not None or t.end is not None}
    kept = [t for t in terms if t.start is not None or t.end is not None or t.holder not in dated]
    # A faction's `leaders:` span and a title naming it over the same years are one tenure: said once, by title.
    titled = {(t.holder, t.start, t.end) for t in kept if t.title}
    kept = [t for t in kept if t.title or (t.holder, t.start, t.end) not in titled]
    unique = list({(t.holder, t.start, t.title): t for t in kept}.values())
    return sorted(unique, key=lambda t: (t.start is None, t.start or 0, t.end or 0))


def _led_as(group: CanonFact, facts: Sequence[CanonFact]) -> list[Term]:
    """Return the group's leaders over time by the title its leader holds today for a span ("Grand Master"): each
    of its members (or its leader) who held that title, as leading it (the title names no group: its holders of
    other groups are not this one's leaders)."""
    leaders = group.tied("LEADS")
    ours = {*leaders, *group.tied("MEMBER_OF")}
    cards = [(n, f) for n, f in enumerate(facts, 1) if f.entity_name in ours]
    titles = {  # "Grand Master"; never a title of another's ("Mayor of Redgulch")
        bare_title(o.title)
        for _, f in cards
        if f.entity_name in leaders
        for o in f.offices
        if o.current and " of " not in f" {bare_title(o.title)} "
    }
    if len(titles) != 1:
        return []
    (title,) = titles
    return [
        Term(f.entity_name, n, o.start_key, o.end_key, o.span, o.current, o.ended)
        for n, f in cards
        for o in f.offices
        if bare_title(o.title) == title
    ]


def _seated(place: CanonFact, facts: Sequence[CanonFact]) -> tuple[CanonFact, int] | None:
    """Return the card of the group seated at a place, when among the facts."""
    me = place.entity_name.casefold()
    for r in place.relations:
        if r.predicate.upper() == "SEAT_OF" and r.subject.casefold() == me:
            for n, f in enumerate(facts, 1):
                if f.entity_name.casefold() == r.object.casefold():
                    return f, n
    return None


@dataclass(frozen=True, slots=True)
class Held:
    """What a question asks who held, with its holders over time and how holding it is said."""

    name: str
    predicate: str
    terms: list[Term]
    #: A place's seat of a group, said beside who rules it now ("Corvel Keep is the seat of the Gullwardens"); or,
    #: `first`, before every answer of a place ruled by whoever led the group seated there.
    seat: str = ""
    first: bool = False

    def opened(self, answer: tuple[str, int]) -> tuple[str, int]:
        """Return an answer after the seat it is asked through: "Fenholt is the seat of the Ashen Choir; …"."""
        if not self.first or not self.seat:
            return answer
        text = answer[0]
        if text.startswith(("Nothing ", "In ", "Before ", "After ")):
            text = text[0].lower() + text[1:]
        return f"{self.seat}; {text}", answer[1]

    def clause(self, term: Term, *, now: bool, span: bool = True) -> str:
        """Return "Ilse Brannoc leads the Gullwardens (since …)", "Maud Corvel was Lady of Corvel Keep (…)"."""
        if term.title:
            said = f"{term.holder} {'is' if now else 'was'} {title_phrase(term.title)}"
        else:
            past = f"{term.holder} {VERBS[self.predicate][1]} {in_prose(self.name)}"
            said = relation_sentence(self.predicate, term.holder, self.name) if now else past
        return f"{said} ({term.span})" if span and term.span else said

    def past(self) -> str:
        """Return how holding it is asked in the past: "led the Gullwardens", "had the Saltglass Lantern"."""
        return f"{VERBS[self.predicate][1]} {in_prose(self.name)}"


def target(question: str, facts: Sequence[CanonFact]) -> tuple[Held, int] | None:
    """Return what the question asks who held (a card it names that is no person), with its holders."""
    words = set(fold_words(question.replace("’", "'")))
    for number, fact in enumerate(facts, 1):
        if fact.entity_type in _PEOPLE or not fact.matched or not set(fold_words(fact.matched)) <= words:
            continue
        predicate = "POSSESSES" if fact.entity_type == "Item" else "LEADS"
        terms = _terms(fact, number, facts)
        seat = _seated(fact, facts)
        if fact.holds:
            predicate = fact.holds[0].predicate
        elif not terms and seat is not None:  # a place ruled by whoever led the group seated there
            terms = _terms(seat[0], seat[1], facts)
            if any(t.start is not None or t.end is not None for t in terms):
                said = relation_sentence("SEAT_OF", fact.entity_name, seat[0].entity_name)
                return Held(seat[0].entity_name, "LEADS", terms, said, first=True), number
        elif terms and fact.entity_type not in ("Faction", "Lineage", "Item"):
            predicate = "RULES"
        if any(t.start is not None or t.end is not None for t in terms):
            seats = fact.tied("SEAT_OF", to_me=False)
            said = relation_sentence("SEAT_OF", fact.entity_name, seats[0]) if seats else ""
            return Held(fact.entity_name, predicate, terms, said if predicate == "RULES" else ""), number
    return None


#: A title's word of one sex, as the other's: a Lady and a Lord of one place hold one office.
_ONE_OFFICE = {
    **dict.fromkeys(("lady", "lords", "ladies"), "lord"),
    **dict.fromkeys(("queen", "queens", "kings"), "king"),
    **{"duchess": "duke", "princess": "prince", "baroness": "baron", "countess": "count"},
    **{"empress": "emperor", "mistress": "master", "abbess": "abbot", "priestess": "priest"},
}


def titled(folded: str, held: Held) -> Held:
    """Return what is held with only the holders of the title a question names, when its holders hold several
    ("who was Mayor of Redgulch in 100" of a town with a Mayor and a Sheriff); else as it is."""
    typed = {_ONE_OFFICE.get(w, w) for w in fold_words(folded)}
    own = set(fold_words(held.name)) | {"of", "the"}

    def office(title: str) -> set[str]:  # "Lady of Corvel Keep" and "Lord of Corvel Keep" are one office
        return {_ONE_OFFICE.get(w, w) for w in fold_words(title)} - own

    asked = [t for t in held.terms if t.title and office(t.title) & typed]
    if len({frozenset(office(t.title)) for t in held.terms if t.title}) > 1 and asked:
        return dataclasses.replace(held, terms=asked)
    return held


def asks(folded: str, held: Held) -> bool:
    """Return whether the question asks who held it: a word of the tie, or of a title held."""
    typed = set(fold_words(folded))
    titles = {w for t in held.terms if t.title for w in fold_words(t.title)} - set(fold_words(held.name))
    asked = _ASKED[held.predicate] | (_ASKED["RULES"] if held.first else frozenset())
    return bool(typed & (asked | titles - {"of", "the"}))


def who_named(text: str, terms: Sequence[Term], facts: Sequence[CanonFact]) -> str | None:
    """Return the holder a question names in `text`, by a card found by its words, else by a name close to it."""
    words = set(fold_words(text))
    holders = {t.holder for t in terms}
    for fact in sorted(facts, key=lambda f: -len(f.matched)):
        if fact.entity_name in holders and fact.matched and set(fold_words(fact.matched)) <= words:
            return fact.entity_name
    said = " ".join(fold_words(text))
    best = max(holders, key=lambda h: fuzz.partial_ratio(" ".join(fold_words(h)), said), default=None)
    if best is not None and fuzz.partial_ratio(" ".join(fold_words(best)), said) >= _TYPO:
        return best
    for fact in facts:  # one named who held nothing of it
        if fact.entity_type in _PEOPLE and fact.matched and set(fold_words(fact.matched)) <= words:
            return fact.entity_name
    return None
