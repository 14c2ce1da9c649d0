"""The rules about life dates: one birth and one death each, and no death before the birth.

A life's dates are read wherever canon keeps them: the states that begin and end a life (`alive` from a birth,
`dead` from a death, as a family tree or a GM's "born" writes them), and the birth and death dates typed as plain
attributes (`born`, `birth`, `date of birth`, `died`, `death`, `date of death`, ...), which are the same events.
Two birth dates (or two dates of one death) that cannot both be true are `LIFE_DATED_TWICE`; two that agree
(the same year, or a year and a day inside it) are one event told twice. A death dated before the birth is
`DEAD_BEFORE_BORN`. A revival starts a new life's span, not a second birth.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from canon.calendar import DateError, parse_date
from canon.continuity.base import CheckerBase
from canon.continuity.findings import ALIVE, ConflictKind, key_span, make_finding, world_key
from canon.continuity.intervals import WORLD_CLOCK, Moment, moment_text
from canon.models import Statement, StatementKind

#: The attribute names (as stored: lowercase, underscores) that say when a life began or ended.
BIRTH_WORDS = frozenset(
    {"born", "birth", "birth_date", "birth_year", "date_of_birth", "year_of_birth", "birthday", "birthdate"}
)
DEATH_WORDS = frozenset(
    {"died", "death", "death_date", "death_year", "date_of_death", "year_of_death", "deceased", "died_on"}
)


@functools.lru_cache(maxsize=4096)  # the checks ask it for every attribute fact; a few names recur
def life_state(attribute: str) -> str | None:
    """Return the state a life-date attribute stands for (`alive` for a birth, `dead` for a death), or None."""
    key = "_".join(attribute.casefold().replace("-", " ").split())
    if key in BIRTH_WORDS:
        return ALIVE
    if key in DEATH_WORDS:
        return "dead"
    return None


def dated_moment(s: Statement) -> Moment | None:
    """Return when a life date says the event happened: a state's start, or an attribute's date value."""
    if s.kind == StatementKind.STATE:
        v = s.validity
        return Moment(v.world_from_key, None, v.world_from) if v.world_from_key is not None else None
    try:
        date = parse_date((s.value or "").strip())
    except DateError:
        return None
    key = world_key(date)
    return Moment(key, None, str(date)) if key is not None else None


def _agree(a: Moment, b: Moment) -> bool:
    """Tell whether two dates may name the same moment (one's span holds the other's)."""
    assert a.world is not None and b.world is not None
    lo_a, hi_a = key_span(a.world)
    lo_b, hi_b = key_span(b.world)
    return lo_a <= hi_b and lo_b <= hi_a


class LifeDateRules(CheckerBase):
    """Born twice, died twice, dead before being born (rule 13)."""

    def _life_dates(
        self,
        states: Mapping[int, list[Statement]],
        attributes: Mapping[tuple[int, str], list[Statement]],
    ) -> None:
        births: dict[int, list[tuple[Statement, Moment]]] = {}
        deaths: dict[int, list[tuple[Statement, Moment]]] = {}
        for (subject, predicate), group in attributes.items():
            state = life_state(predicate)
            if state is None:
                continue
            for s in group:
                if (moment := dated_moment(s)) is not None:
                    (births if state == ALIVE else deaths).setdefault(subject, []).append((s, moment))
        tags = self.tags
        for subject, group in states.items():
            alive = sorted(
                (
                    (s, m)
                    for s in group
                    if s.value == ALIVE and s.via is None and (m := dated_moment(s)) is not None
                ),
                key=lambda item: item[1].world or 0,
            )
            ends = [
                m.world
                for s in group
                if (s.value or "") in tags
                and tags[s.value or ""].terminal
                and (m := dated_moment(s)) is not None
            ]
            # Births come before the life's first end; an `alive` after it is a return, which the transition
            # rules judge. A death dated before every birth is still a death (and dead before born).
            first_end = min(
                (e for e in ends if alive and e is not None and e >= (alive[0][1].world or 0)), default=None
            )
            for s, moment in alive:
                if first_end is None or (moment.world or 0) < first_end:
                    births.setdefault(subject, []).append((s, moment))
            for s in group:
                if s.value == "dead" and (moment := dated_moment(s)) is not None:
                    deaths.setdefault(subject, []).append((s, moment))
        for subject, dated in births.items():
            self._twice(subject, dated, "born")
        for subject, dated in deaths.items():
            self._twice(subject, dated, "died")
            for death, died in dated:
                for birth, born in births.get(subject, ()):
                    if (
                        died.world is not None
                        and born.world is not None
                        and key_span(died.world)[1] < born.world
                    ):
                        self._dead_before_born(subject, birth, born, death, died)

    def _twice(self, subject: int, dated: list[tuple[Statement, Moment]], verb: str) -> None:
        ordered = sorted(dated, key=lambda item: item[0].id)
        for index, (first, at_first) in enumerate(ordered):
            for second, at_second in ordered[index + 1 :]:
                if (
                    first.replaces_id == second.id
                    or second.replaces_id == first.id
                    or _agree(at_first, at_second)
                ):
                    continue
                said = "is born" if verb == "born" else "dies"
                message = (
                    f"{self.name(subject)} {said} twice: in {moment_text(at_first, WORLD_CLOCK)} and in "
                    f"{moment_text(at_second, WORLD_CLOCK)}; a life has one {'birth' if verb == 'born' else 'death'}."
                )
                sides = (self.side(first), self.side(second))
                self.add(make_finding(ConflictKind.LIFE_DATED_TWICE, message, sides, {subject}))

    def _dead_before_born(
        self, subject: int, birth: Statement, born: Moment, death: Statement, died: Moment
    ) -> None:
        message = (
            f"{self.name(subject)} dies ({moment_text(died, WORLD_CLOCK)}) before being born "
            f"({moment_text(born, WORLD_CLOCK)})."
        )
        sides = (self.side(birth), self.side(death))
        self.add(make_finding(ConflictKind.DEAD_BEFORE_BORN, message, sides, {subject}))
