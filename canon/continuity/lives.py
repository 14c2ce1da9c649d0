"""The rules about lives: births, deaths, the dead acting, parents, and the changes of state the ontology allows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from canon.continuity.base import CheckerBase
from canon.continuity.findings import (
    ALIVE,
    PARTICIPATION,
    ConflictKind,
    Side,
    format_key,
    join_names,
    make_finding,
)
from canon.continuity.intervals import WORLD_CLOCK, Moment, before, moment_text, start_of, when_text
from canon.graph import statement_sort_key
from canon.models import Entity, Statement, Validity

_PARTICIPATION_VERBS = {"PARTICIPATED_IN": "takes part in", "WITNESSED": "witnesses"}


@dataclass
class Life:
    """An entity's life as the rules read it: its birth (dated in the world) and its deaths."""

    birth: Statement | None  # with a world date, or None
    deaths: list[tuple[Statement, Moment, Moment | None]]  # (terminal state, its moment, when it ended)


class LifeRules(CheckerBase):
    """States, the dead acting and births (rules 9, 1 and 5)."""

    # -- 9. states: birth, deaths, transitions ---------------------------------------------------------

    def _life(self, entity_id: int, group: list[Statement]) -> Life:
        tags = self.tags
        known = [s for s in group if s.value in tags]
        if len(known) > 1 and all(s.validity.world_from_key is not None for s in known):
            # Every state says when it happened in the world: the life runs in that order, whenever it was told.
            known.sort(key=lambda s: (s.validity.world_from_key or 0, statement_sort_key(s)))
        elif len(known) > 1:
            known.sort(key=statement_sort_key)
        birth: Statement | None = None
        for s in known:
            v = s.validity
            if v.story_from is None and v.world_from_key is None:
                continue  # undated static canon: its place in the order is unknown
            birth = s if s.value == ALIVE and v.world_from_key is not None else None
            break
        deaths: list[tuple[Statement, Moment, Moment | None]] = []
        dead_since: Statement | None = None
        previous: Statement | None = None
        for s in known:
            value = s.value or ""
            terminal = tags[value].terminal
            if previous is not None and self._ordered(previous, s):
                old = previous.value or ""
                if not self.ontology.transition_allowed(old, value, via=s.via):
                    self._forbidden(entity_id, previous, s)
            if terminal and dead_since is None:
                dead_since = s
            elif not terminal and dead_since is not None:
                deaths.append((dead_since, start_of(dead_since.validity), start_of(s.validity)))
                dead_since = None
            previous = s
        if dead_since is not None:
            deaths.append((dead_since, start_of(dead_since.validity), None))
        return Life(birth, deaths)

    @staticmethod
    def _ordered(a: Statement, b: Statement) -> bool:
        """Tell whether two consecutive states have a known order (two static ones need world keys)."""
        va, vb = a.validity, b.validity
        if va.story_from is None and vb.story_from is None:
            return va.world_from_key is not None and vb.world_from_key is not None
        return True

    def _forbidden(self, entity_id: int, old: Statement, new: Statement) -> None:
        name = self.name(entity_id)
        needs = [
            via
            for via, spec in self.ontology.states.via.items()
            if old.value in spec.from_states and new.value in spec.to_states
        ]
        lead = f"{name} died" if old.value == "dead" else f"{name} became {old.value}"
        change = "bringing them back" if old.value == "dead" else f"becoming {new.value}"
        message = f"{lead}{_at(old.validity)}; {change}{_at(new.validity)}"
        if needs:
            message += " needs " + " or ".join(_a(via) for via in needs)
            if new.via:
                message += f" ({_a(new.via)} is not enough)"
        else:
            message += " is not possible in this world"
            if new.via:
                message += f", not even through {_a(new.via)}"
        self.add(
            make_finding(
                ConflictKind.FORBIDDEN_TRANSITION,
                message + ".",
                (self.side(old), self.side(new)),
                {entity_id},
            )
        )

    # -- 1. the dead acting ----------------------------------------------------------------------------

    def _dead_acting(self, lives: Mapping[int, Life], acts: Mapping[int, list[Statement]]) -> None:
        for entity_id, life in lives.items():
            if not life.deaths or entity_id not in acts:
                continue
            for act in acts[entity_id]:
                event: Entity | None = None
                if act.predicate in PARTICIPATION:
                    event = self.entities.get(act.object_id) if act.object_id is not None else None
                    if event is None:
                        continue
                    moment = start_of(event.validity)
                else:
                    moment = start_of(act.validity)
                for death, death_moment, revival in life.deaths:
                    clock = before(death_moment, moment)
                    if clock is None:
                        continue
                    if revival is not None and before(moment, revival) is None:
                        continue
                    self._report_dead_act(entity_id, death, act, event, moment, death_moment, clock)
                    break

    def _report_dead_act(
        self,
        entity_id: int,
        death: Statement,
        act: Statement,
        event: Entity | None,
        moment: Moment,
        death_moment: Moment,
        clock: str,
    ) -> None:
        name = self.name(entity_id)
        dying = "dying" if death.value == "dead" else f"being {death.value}"
        sides = [self.side(death), self.side(act)]
        if event is not None:
            verb = _PARTICIPATION_VERBS.get(act.predicate, "acts in")
            message = f"{name} {verb} “{event.name}” ({moment_text(moment, clock)}) after {dying} ({moment_text(death_moment, clock)})."
            sides.append(
                self.entity_side(event.id, f"“{event.name}” takes place ({when_text(event.validity)})")
            )
        else:
            message = (
                f"{name} acts after {dying} ({moment_text(death_moment, clock)}): "
                f"“{self.sentence(act)}” ({moment_text(moment, clock)})."
            )
        entity_ids = {entity_id} | ({act.object_id} if act.object_id is not None else set())
        self.add(make_finding(ConflictKind.DEAD_ACTING, message, sides, entity_ids))

    # -- 5. births -------------------------------------------------------------------------------------

    def _births(self, lives: Mapping[int, Life]) -> None:
        for child, relations in self.parents.items():
            life = lives.get(child)
            if life is None or life.birth is None:
                continue
            birth = life.birth
            born = Moment(birth.validity.world_from_key, None, birth.validity.world_from)  # world only
            deaths_before: list[tuple[Statement, Statement, str]] = []
            parent_ids: list[int] = []
            for relation in sorted(relations, key=lambda s: s.id) if len(relations) > 1 else relations:
                parent = relation.subject_id
                if parent == child or parent in parent_ids:
                    continue
                parent_ids.append(parent)
                parent_life = lives.get(parent)
                if parent_life is None:
                    continue
                parent_birth = parent_life.birth
                if parent_birth is not None:
                    parent_born = Moment(
                        parent_birth.validity.world_from_key, None, parent_birth.validity.world_from
                    )
                    clock = before(born, parent_born)
                    if clock is not None:
                        self._report_born_before(child, birth, parent, parent_birth, relation, clock)
                for death, death_moment, revival in parent_life.deaths:
                    clock = before(death_moment, born)
                    if clock is None:
                        continue
                    if revival is not None and before(born, revival) is None:
                        continue
                    deaths_before.append((relation, death, clock))
                    break
            orphaned = {relation.subject_id for relation, _, _ in deaths_before}
            if len(parent_ids) >= 2 and orphaned == set(parent_ids):
                self._report_born_after(child, birth, deaths_before)

    def _report_born_before(
        self,
        child: int,
        birth: Statement,
        parent: int,
        parent_birth: Statement,
        relation: Statement,
        clock: str,
    ) -> None:
        born, parent_born = start_of(birth.validity), start_of(parent_birth.validity)
        message = (
            f"{self.name(child)} is born ({moment_text(born, clock)}) before their parent {self.name(parent)} "
            f"({moment_text(parent_born, clock)})."
        )
        sides = (self.side(birth), self.side(parent_birth), self.side(relation))
        self.add(make_finding(ConflictKind.BORN_BEFORE_PARENT, message, sides, {child, parent}))

    def _report_born_after(
        self, child: int, birth: Statement, deaths: list[tuple[Statement, Statement, str]]
    ) -> None:
        born = start_of(birth.validity)
        died = join_names(
            [f"{self.name(r.subject_id)} ({moment_text(start_of(d.validity), c)})" for r, d, c in deaths]
        )
        message = f"{self.name(child)} is born ({moment_text(born, WORLD_CLOCK)}) after the deaths of all their parents: {died}."
        sides: list[Side] = [self.side(birth)]
        for relation, death, _ in deaths:
            sides += [self.side(death), self.side(relation)]
        ids = {child} | {r.subject_id for r, _, _ in deaths}
        self.add(make_finding(ConflictKind.BORN_AFTER_PARENTS_DEATH, message, sides, ids))


def _at(v: Validity) -> str:
    """Return when a state began, as " in 3rd_age.year_352" or " in scene 4" (nothing when unknown)."""
    start = v.world_from or (format_key(v.world_from_key) if v.world_from_key is not None else None)
    if start:
        return f" in {start}"
    return f" in scene {v.story_from}" if v.story_from is not None else ""


def _a(word: str) -> str:
    """Return a word with its indefinite article: "a resurrection", "an ascension"."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word
