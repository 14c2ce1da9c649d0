"""Who led, ruled or held something over time, answered from the spans (`retrieval.tenures`): a faction's leaders
one after another ("who led the Gullwardens before Ilse Brannoc?", "who leads the Gullwardens now?", "who was leader
of the Gullwardens in 430?", "how long did Tobin Aske lead the Gullwardens?"), an item's holders ("who had the
Saltglass Lantern before Ilse Brannoc?", "who has held it?", "who owned it first?") and a place's lords ("who rules
Corvel Keep?", "who ruled Corvel Keep in 440?").

What is held is the card the question names that is no person: its ties held for a span (`CanonFact.holds`), and
the titles held for a span that name it on the other cards ("Lady of Corvel Keep"); a place no title names is
ruled by whoever led the group seated there. Dates are the calendar's words, as the spans say them. A card holds
only what the asker may see, so a holder kept for the GM reads to a player as never written: nothing is said of the
years between two holders. Answered only when canon dates one holder at least (else the graph's other answers
say who leads or has it). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, title_phrase
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_offices import office_answer
from memory.knowledge.retrieval.event_times import event_time
from memory.knowledge.retrieval.offices import last_key
from memory.knowledge.retrieval.tenure_terms import VERBS, Held, asks, target, titled, who_named

__all__ = ["held_answer", "tenure_answer"]

_SUCCEEDING = frozenset({"after", "succeeded", "successor", "followed"})
_YEAR = re.compile(r"\bin\s+(?:the\s+)?(?:year\s+)?(?P<year>-?\d+)\b")
_NEIGHBOUR = re.compile(r"\b(?P<dir>before|after|preceded|succeeded|followed)\s+(?P<who>.+)$")
_WHOSE = re.compile(r"\b(?:is|was)\s+(?P<who>.+?)(?:'s|s'|')\s+(?P<dir>successor|predecessor)\b")
_HOW_LONG = re.compile(
    r"^how\s+long\s+(?:did|has|had|have|was|is)\s+(?P<who>.+?)\s+(?:been\s+)?(?P<verb>\w+)\b"
)
_ALL = re.compile(
    r"\b(?:has|have)\s+(?:\w+\s+)?(?:held|had|owned|led|ruled)\b|\ball\b|\bever\b|\bover\s+the\s+years\b"
)
_FIRST = re.compile(r"\bfirst\b")
#: Words asking who holds it today: read before any other form ("who has the Lamp of First Light now?").
_NOW = re.compile(r"\b(?:now|today|current|currently|nowadays|presently|these\s+days|at\s+present)\b")


def _folded(question: str) -> str:
    return " ".join(question.casefold().replace("’", "'").replace("?", " ").split())


def _neighbour(held: Held, who: str, after: bool) -> tuple[str, int]:
    """Return who held it just before or after the one named."""
    own = [t for t in held.terms if t.holder == who]
    if not own:
        number = held.terms[0].number
        return f"Nothing the table knows says {who} {held.past()}. [{number}]", number
    mine = own[0] if not after else own[-1]
    others = [t for t in held.terms if t.holder != who]
    if mine.start is not None:
        if after:
            chosen = next((t for t in others if t.start is not None and t.start > mine.start), None)
        else:
            earlier = [t for t in others if t.start is not None and t.start < mine.start]
            chosen = earlier[-1] if earlier else None
    elif not after and mine.current:  # held today, since a date not said: the last whose span ended
        over = sorted((t for t in others if t.ended and t.end is not None), key=lambda t: t.end or 0)
        chosen = over[-1] if over else None
    else:
        chosen = None
    if chosen is None:
        way = "after" if after else "before"
        text = f"Nothing the table knows says who {held.past()} {way} {who}"
        if mine.span:
            text += f"; {held.clause(mine, now=mine.current, span=False)} {mine.span}"
        return f"{text}. [{mine.number}]", mine.number
    where = "After" if after else "Before"
    return f"{where} {who}, {held.clause(chosen, now=chosen.current)}. [{chosen.number}]", chosen.number


def _in_time(held: Held, lo: int, hi: int, when: str) -> tuple[str, int]:
    """Return who held it at some time between two world keys (`when`: that time in words, "in year 430"): those
    whose span (a start known) covers some of it."""
    found = [
        t
        for t in held.terms
        if t.start is not None
        and t.start <= hi
        and (t.end is None or last_key(t.end) >= lo)
        and (t.end is not None or not t.ended)
    ]
    if not found:
        number = held.terms[0].number
        return f"Nothing the table knows says who {held.past()} {when}. [{number}]", number
    said = "; ".join(held.clause(t, now=False) for t in found)
    when = when[:1].upper() + when[1:]
    return (
        f"{when}, {said[0].lower() + said[1:] if said.startswith('The ') else said}. [{found[0].number}]",
        found[0].number,
    )


def _how_long(held: Held, who: str) -> tuple[str, int]:
    """Return how long the one named held it: the years between the span's ends, or since when."""
    own = [t for t in held.terms if t.holder == who]
    if not own:
        number = held.terms[0].number
        return f"Nothing the table knows says {who} {held.past()}. [{number}]", number
    said: list[str] = []
    for t in own:
        if t.start is not None and t.end is not None and t.ended:
            years = t.end // 10000 - t.start // 10000
            length = f"for {years} year{'s' if years != 1 else ''}" if years else "for less than a year"
            said.append(f"{held.clause(t, now=False, span=False)} {length}, {t.span}")
        elif t.start is not None and t.current:
            verbs = VERBS[held.predicate]
            now = f"has been {title_phrase(t.title)}" if t.title else f"has {verbs[1]} {in_prose(held.name)}"
            said.append(f"{who} {now} {t.span}")
        else:
            said.append(f"Nothing the table knows says how long {who} {held.past()}")
    return "; ".join(said) + f". [{own[0].number}]", own[0].number


def _current(held: Held, folded: str) -> tuple[str, int] | None:
    """Return who holds it today, with the one before; or that no one the table knows does, with the last."""
    now = sorted((t for t in held.terms if t.current), key=lambda t: (t.start is not None, t.start or 0))
    over = sorted((t for t in held.terms if t.ended), key=lambda t: t.end or t.start or 0)
    if now:
        first = now[-1]
        text = held.clause(first, now=True)
        before = [t for t in over if t.holder != first.holder]
        if before:
            last = before[-1]
            text += f"; before, {held.clause(last, now=False)}"
        if held.seat and not held.first:
            text += f"; {held.seat}"
        return f"{text}. [{first.number}]", first.number
    if not over:
        return None
    last = over[-1]
    if re.match(r"^who\s+(?:was|were|led|ruled|had|held|owned)\b", folded) and not _NOW.search(folded):
        return f"{held.clause(last, now=False)}. [{last.number}]", last.number
    verbs = VERBS[held.predicate]
    return (
        f"Nothing the table knows says who {verbs[0]} {in_prose(held.name)} now; the last was "
        f"{last.holder}{f' ({last.span})' if last.span else ''}. [{last.number}]",
        last.number,
    )


def _all(held: Held) -> tuple[str, int]:
    """Return everyone who held it, one after another; those canon gives no dates after, as such."""
    dated = [t for t in held.terms if t.start is not None or t.end is not None]
    first = dated[0]
    said = held.clause(first, now=first.current)
    for t in dated[1:]:
        said += f", then {t.holder}" + (f" ({t.span})" if t.span else "")
    undated = [t.holder for t in held.terms if t not in dated]
    if undated:
        said += f"; {names_list(undated)} also {held.past()}, when is not known"
    return f"{said}. [{first.number}]", first.number


def tenure_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to who led, ruled or held something over time (see the module docstring), or None."""
    folded = _folded(question)
    if not re.match(r"^(?:who|whom|how\s+long)\b", folded):
        return None
    found = target(question, facts)
    if found is None or not asks(folded, found[0]):
        return None
    held = found[0]
    # The words of its name ask no form: "first" of "the Lamp of First Light", a year of "the Treaty of 1066".
    named = _folded(facts[found[1] - 1].matched)
    form = " ".join(f" {folded} ".replace(f" {named} ", " ").split()) if named else folded
    answer = _asked(form, held, facts)
    return None if answer is None else held.opened(answer)


def _asked(folded: str, held: Held, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to the form the question asks in: how long, before or after whom, in a year, first, all
    of them, or who holds it now."""
    if (long := _HOW_LONG.match(folded)) is not None:
        who = who_named(long["who"], held.terms, facts)
        return None if who is None else _how_long(held, who)
    neighbour = _NEIGHBOUR.search(folded) or _WHOSE.search(folded)
    if neighbour is not None:
        who = who_named(neighbour["who"], held.terms, facts)
        return None if who is None else _neighbour(held, who, neighbour["dir"] in _SUCCEEDING)
    if (year := _YEAR.search(folded)) is not None:
        lo = int(year["year"]) * 10000
        return _in_time(titled(folded, held), lo, lo + 9999, f"in year {year['year']}")
    if (time := event_time(folded, facts)) is not None:  # "when the Siege began", "during the Long Strike"
        return _in_time(titled(folded, held), time.lo, time.hi, time.said)
    if _NOW.search(folded) and len(held.terms) > 1:
        return _current(held, folded)
    if _FIRST.search(folded):
        first = held.terms[0]
        return f"{held.clause(first, now=first.current, span=False)} first" + (
            f" ({first.span})" if first.span else ""
        ) + f". [{first.number}]", first.number
    if _ALL.search(folded):
        return _all(held)
    return _current(held, folded) if len(held.terms) > 1 else None  # one holder: the graph's tie says it


def held_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who led, ruled or held something over time (`tenure_answer`), else an office over time
    (`answer_offices`): before or after whom, in a year, at an event."""
    return tenure_answer(question, facts) or office_answer(question, facts)
