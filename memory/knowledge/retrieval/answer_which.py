"""A name given in part that several share: the answer names them all and asks which one is meant.

"How old is Brann?" where canon knows Brann Moss and Brann Tally is answered by neither alone: choosing one
silently would answer another question than the one asked. The cards found by one window of the question that
begins each of their names ("Brann"), of one type, are those the answer names (`which_answer`).

A part that several names hold and begins none of them (a family name, "Orrow" of Maelis Orrow, Cassel Orrow and
House Orrow; a group's word, "corsairs" of the Ashen Corsairs and the Corsairs' Rest) found them alike
(`candidates.EntityMatch.shared`): of those of the kind the question's form asks, the one the question fits
answers ("who leads the corsairs": the Corsairs lead, a tavern does not), else the answer names them all and asks
which (`which_meant`). Only what the asker may see was found, so a GM-only namesake is never named nor hinted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from canon.wording.counts import in_words
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_members import GROUPS, asks_members
from memory.knowledge.retrieval.answer_words import AGE_ASKING, fold_words

__all__ = ["renumbered", "which_answer", "which_meant"]

#: An answer from the graph on some cards: its sentence (citing them by number) and the card it comes from.
Answer = Callable[[str, Sequence[CanonFact]], tuple[str, int] | None]

_PEOPLE = frozenset({"Person", "NPC", "PC"})
_ARTICLES = frozenset({"the", "a", "an"})
#: Words that ask, not name: a window of them alone ("old" of "how old", matching "Old Agnes") names no one.
_ASKING = AGE_ASKING | {"who"}


def _begins(window: list[str], name: str) -> bool:
    words = fold_words(name)
    words = words[1:] if len(words) > 1 and words[0] in _ARTICLES else words
    return len(words) > len(window) and words[: len(window)] == window


def which_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the names a part of a name given in the question stands for, when it stands for several of one type
    ("Two people are called Brann: Brann Moss and Brann Tally; which one do you mean?"), or None."""
    shared: dict[tuple[str, str], list[tuple[int, CanonFact]]] = {}
    for number, fact in enumerate(facts, 1):
        window = fold_words(fact.matched)
        if fact.step_span or not window or not _begins(window, fact.entity_name):
            continue
        kind = (
            "people" if fact.entity_type in _PEOPLE else fact.entity_type
        )  # a PC and an NPC are both people
        shared.setdefault((" ".join(window), kind), []).append((number, fact))
    dated = re.match(r"^\s*(?:when|where)\b", question.casefold()) is not None
    for (typed, kind), found in shared.items():
        if len(found) < 2 or (dated and kind == "Event"):
            continue  # "when was the coronation": each one's day answers (`answer_happenings`), no question back
        if set(typed.split()) <= _ASKING and len(found) < len(facts):
            continue  # "old" of "how old was Linnet": the words asking, beside a name asked of
        number, first = found[0]
        return f"{_ask(first.matched, [f for _, f in found])} [{number}]", number
    return None


def _ask(typed: str, cards: Sequence[CanonFact]) -> str:
    """Return the question back: which of the cards the words typed mean, all named ("Two people are called
    Brann: Brann Moss and Brann Tally; which one do you mean?"; "Orrow may be House Orrow, Maelis Orrow or
    Cassel Orrow; which one do you mean?" of several kinds), the words as the first name writes them."""
    written = re.search(re.escape(typed), cards[0].entity_name, re.IGNORECASE)
    words = written[0] if written else typed
    kinds = {"people" if c.entity_type in _PEOPLE else c.entity_type for c in cards}
    if len(kinds) == 1:
        count = in_words(len(cards)).capitalize()
        who = f"{count} people are" if kinds == {"people"} else f"{count} are"
        return f"{who} called {words}: {names_list(sorted(c.entity_name for c in cards))}; which one do you mean?"
    names = names_list([c.entity_name for c in cards], either=True)
    return f"{words} may be {names}; which one do you mean?"


def renumbered(found: tuple[str, int], numbers: Sequence[int]) -> tuple[str, int]:
    """Return an answer given on some of the facts with its citations as the whole list numbers them."""
    text, number = found
    return re.sub(r"\[(\d+)\]", lambda m: f"[{numbers[int(m[1]) - 1]}]", text), numbers[number - 1]


def which_meant(question: str, facts: Sequence[CanonFact], answer: Answer) -> tuple[str, int] | None:
    """Return the answer when the words that found the first card found as a shared part found others alike (a part of their names
    they share and begin none of: "orrow" of Maelis Orrow, Cassel Orrow and House Orrow): of those of the kind
    the question's form asks (`_of_kind_asked`), the one answer (by `answer`) when the question fits one of them alone ("who
    leads the corsairs": the Corsairs, not the Corsairs' Rest), else which of them is meant, all named; never one
    picked in silence. None when no such words found the first, or the question fits none of them."""
    first = next((f for f in facts if f.shared), None)  # "is vaske married to idris": Idris found for sure
    if first is None:
        return None
    typed = first.matched
    found = [n for n, f in enumerate(facts, 1) if f.shared and f.matched == typed]
    if len(found) < 2 or (set(fold_words(typed)) <= _ASKING and len(found) < len(facts)):
        return None
    alike = _of_kind_asked(question, facts, found)
    rest = [n for n in range(1, len(facts) + 1) if n not in found]
    fits = []
    for n in alike:
        numbers = [n, *rest]
        found_one = answer(question, [facts[k - 1] for k in numbers])
        if found_one is not None:
            fits.append(renumbered(found_one, numbers))
    # Answers alike whichever is meant ("when did the corsairs burn the harbour lights": the Burning's day) answer.
    said = {re.sub(r"\s*\[\d+\]", "", text) for text, _ in fits}
    if len(fits) < 2 or len(said) == 1:
        return fits[0] if fits else None
    if re.match(r"^\s*(?:when|where)\b", question.casefold()) and all(is_event(facts[n - 1]) for n in alike):
        return None  # each event's day and place answer it ("Two events fit: …", `answer_happenings`)
    return f"{_ask(typed, [facts[n - 1] for n in alike])} [{alike[0]}]", alike[0]


def _of_kind_asked(question: str, facts: Sequence[CanonFact], found: Sequence[int]) -> list[int]:
    """Return the cards among those found that are of the kind the question's form asks: a group for its
    members, an event for a when, a person or a group for a who ("who is in the lamplighters": the Lamplighters'
    Guild, not their Vigil); all of them when none is, or the form asks no kind."""
    folded = question.casefold()
    if asks_members(question):
        kinds = [n for n in found if facts[n - 1].entity_type in GROUPS]
    elif re.match(r"^\s*(?:when|what happened)\b", folded):
        kinds = [n for n in found if is_event(facts[n - 1])]
    elif re.match(r"^\s*who\b", folded):
        kinds = [n for n in found if not is_event(facts[n - 1])]
    else:
        kinds = []
    return kinds or list(found)
