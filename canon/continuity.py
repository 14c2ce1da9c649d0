"""Find continuity problems in a campaign's canon graph: deterministic rules over a snapshot, no I/O.

`check(snapshot)` runs every rule over a `Snapshot` (entities, statements, dependencies, ontology) and returns
`Finding`s: what is wrong, in a plain sentence, with the facts and evidence on both sides and a stable
fingerprint. With `focus` (ids of new or proposed statements) it keeps only the findings those statements take
part in, which is what proposal review and scene commit ask.

How canon is read here (the encoding decisions; keep them in step with the writers):

- Standing: a statement or entity whose `provenance.level` is not `retconned` (proposed rows count, so that a
  hypothetical statement can be checked). Rules other than RELIES_ON_RETCONNED ignore statements that are
  retconned or touch a retconned entity; that rule reports the latter.
- Clocks: two moments or intervals are compared on the world clock (`world_*_key`) when both sides have a world
  key, else on the story clock (scene order) when both have one; otherwise their order is unknown and no
  conflict is raised. A world key keeps its precision (`world_key`): year 300 is the whole of year 300, so it
  is neither before nor after 300.3.17. Story intervals are read as [from, until): a fact that ends in the
  scene another begins does not overlap it.
- Timeless: a statement with no date on either clock, or a relation whose type is `temporal: false`, holds
  always, so two of them always overlap.
- Open ends: a statement with no recorded end lasts until the same slot is next filled, when a later statement
  of the same slot starts strictly later (the entity's next LOCATED_IN, the next ALLY_OF/ENEMY_OF between the
  pair, the item's next POSSESSES holder, the next value of the attribute). Moving, changing sides and changing
  hands are not conflicts; two open statements that start at the same moment, or an explicit end after the
  next start, are. Cardinality limits above 1 have no slot to supersede, so their open ends are unbounded.
- Birth: the entity's first state in `statement_sort_key` order, when it is `alive`; undated static states
  (no world key, no scene) are skipped because their place in that order is unknown. Its `world_from` is the
  birth date (a scene alone is when a character was introduced, not born, so it is not a birth date).
- Death: a state whose tag is `terminal` in the ontology (dead, destroyed, dissolved). The entity stays dead
  until its next non-terminal state (legal through `via`, or reported as FORBIDDEN_TRANSITION).
- Acting: being the subject of PARTICIPATED_IN or WITNESSED (at the event's date: the Event entity's
  `world_from_key` and/or `story_from`), or, from play (`story_from` set), being the subject of any other
  relation that is not passive. Passive: the ontology's timeless relations (PARENT_OF, SIBLING_OF, PART_OF,
  SPEAKS, MADE_OF ...) except the deeds KILLED, DEFEATED and CAUSED, and predicates the ontology does not
  know. Being the object of a relation (killed, worshipped, remembered), attributes and states are not acts.
- PART_OF: two places are not in conflict when one lies within the other through standing PART_OF relations,
  followed transitively.
"""

from __future__ import annotations

import gc
import hashlib
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, model_validator

from canon.calendar import WorldDate
from canon.domain import (
    AUTHORITY_RANK,
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    Statement,
    StatementKind,
    Validity,
)
from canon.graph import statement_sort_key
from canon.ontology import Ontology


class ConflictKind(StrEnum):
    """What kind of continuity problem a finding reports."""

    DEAD_ACTING = "dead_acting"
    TWO_PLACES = "two_places"
    EXCLUSIVE_RELATIONS = "exclusive_relations"
    CARDINALITY = "cardinality"
    BORN_BEFORE_PARENT = "born_before_parent"
    BORN_AFTER_PARENTS_DEATH = "born_after_parents_death"
    EVENT_OUTSIDE_ERA = "event_outside_era"
    CONTRADICTS_HIGHER_AUTHORITY = "contradicts_higher_authority"
    RELIES_ON_RETCONNED = "relies_on_retconned"
    FORBIDDEN_TRANSITION = "forbidden_transition"


_KIND_ORDER = {kind: index for index, kind in enumerate(ConflictKind)}

# Relations read by name: the rules are stated in these terms.
PARTICIPATION = frozenset({"PARTICIPATED_IN", "WITNESSED"})
DEEDS = frozenset({"KILLED", "DEFEATED", "CAUSED"})
PARENT_OF = "PARENT_OF"
PART_OF = "PART_OF"
OCCURRED_DURING = "OCCURRED_DURING"
SUB_ERA_OF = "SUB_ERA_OF"
ALIVE = "alive"

_PARTICIPATION_VERBS = {"PARTICIPATED_IN": "takes part in", "WITNESSED": "witnesses"}
_AUTHORITY_WORDS = {
    Authority.GM: "the GM",
    Authority.SOURCE: "an imported source",
    Authority.PLAYER: "play",
    Authority.SYSTEM: "an inference",
}

_LO = -(2**62)
_HI = 2**62

# Clocks a comparison was made on.
_ALWAYS = "always"
_WORLD = "world"
_STORY = "story"


def world_key(date: WorldDate) -> int | None:
    """Return the sortable key of a date (`year*10000 + month*100 + day`), or None when its year is unknown."""
    if date.year is None:
        return None
    month = date.month or 0
    day = date.day or 0
    if month > 99 or day > 99:
        raise ValueError(f"{date} cannot be keyed: months and days above 99 do not fit a world key")
    return date.year * 10000 + month * 100 + day


def key_span(key: int) -> tuple[int, int]:
    """Return the first and last key a world key may stand for (a year key covers the whole year)."""
    rest = key % 10000
    if rest == 0:
        return key, key + 9999
    if rest % 100 == 0:
        return key, key + 99
    return key, key


def _key_hi(key: int) -> int:
    rest = key % 10000
    if rest == 0:
        return key + 9999
    if rest % 100 == 0:
        return key + 99
    return key


def _format_key(key: int) -> str:
    year, rest = divmod(key, 10000)
    month, day = divmod(rest, 100)
    if month == 0:
        return f"year {year}"
    if day == 0:
        return f"year {year}, month {month}"
    return f"year {year}, month {month}, day {day}"


class Side(BaseModel):
    """One fact a finding rests on: a statement or an entity, in words, with its evidence."""

    model_config = ConfigDict(frozen=True)

    statement_id: int | None = None
    entity_id: int | None = None
    sentence: str
    evidence: tuple[Evidence, ...] = ()

    @model_validator(mode="after")
    def _one_target(self) -> Side:
        if (self.statement_id is None) == (self.entity_id is None):
            raise ValueError("a side is about exactly one statement or one entity")
        return self


class Finding(BaseModel):
    """One continuity problem: its kind, a plain sentence, the facts on every side and a stable fingerprint."""

    model_config = ConfigDict(frozen=True)

    kind: ConflictKind
    message: str
    sides: tuple[Side, ...]
    entity_ids: tuple[int, ...]
    statement_ids: tuple[int, ...]
    prevailing_id: int | None = None
    fingerprint: str


def fingerprint(kind: ConflictKind, statement_ids: Collection[int], entity_ids: Collection[int]) -> str:
    """Return the stable id of a problem: sha256 of its kind and sorted ids, whatever order they came in."""
    text = "|".join(
        (
            str(kind),
            "s:" + ",".join(str(i) for i in sorted(set(statement_ids))),
            "e:" + ",".join(str(i) for i in sorted(set(entity_ids))),
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _finding(
    kind: ConflictKind,
    message: str,
    sides: Sequence[Side],
    entity_ids: Collection[int],
    *,
    prevailing_id: int | None = None,
) -> Finding:
    statement_ids = tuple(sorted({s.statement_id for s in sides if s.statement_id is not None}))
    entities = set(entity_ids) | {s.entity_id for s in sides if s.entity_id is not None}
    entity_tuple = tuple(sorted(entities))
    return Finding(
        kind=kind,
        message=message,
        sides=tuple(sides),
        entity_ids=entity_tuple,
        statement_ids=statement_ids,
        prevailing_id=prevailing_id,
        fingerprint=fingerprint(kind, statement_ids, entity_tuple),
    )


@dataclass(frozen=True)
class Snapshot:
    """What the rules look at: entities and statements (standing and retconned), dependencies, the ontology.

    `dependencies` maps a statement id to what it relies on, as ("statement", id) or ("entity", id) pairs.
    Retconned entities and statements must be included (marked by `provenance.level`) for RELIES_ON_RETCONNED.
    """

    entities: Mapping[int, Entity]
    statements: Sequence[Statement]
    dependencies: Mapping[int, Sequence[tuple[str, int]]]
    ontology: Ontology


def check(snapshot: Snapshot, *, focus: Collection[int] | None = None) -> list[Finding]:
    """Return the continuity findings of a snapshot, or with `focus` only those involving these statements."""
    # Large snapshots allocate millions of small containers; the cyclic collector would rescan the snapshot's
    # objects many times over for nothing (nothing here makes cycles), so it waits until the check is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        findings = _Checker(snapshot).run()
    finally:
        if collecting:
            gc.enable()
    if focus is not None:
        wanted = set(focus)
        findings = [f for f in findings if not wanted.isdisjoint(f.statement_ids)]
    return findings


# -- moments and intervals -----------------------------------------------------------------------------


class _Moment(NamedTuple):
    world: int | None
    story: int | None
    world_text: str | None


def _start(validity: Validity) -> _Moment:
    return _Moment(validity.world_from_key, validity.story_from, validity.world_from)


def _before(a: _Moment, b: _Moment) -> str | None:
    """Return the clock on which `a` is certainly before `b`, or None when it is not (or cannot be told)."""
    if a.world is not None and b.world is not None:
        return _WORLD if _key_hi(a.world) < b.world else None
    if a.story is not None and b.story is not None:
        return _STORY if a.story < b.story else None
    return None


def _at(moment: _Moment, clock: str) -> str:
    if clock == _WORLD and moment.world is not None:
        return moment.world_text or _format_key(moment.world)
    if moment.story is not None:
        return f"scene {moment.story}"
    return "an unknown time"


def _validity_text(v: Validity) -> str:
    parts: list[str] = []
    start = v.world_from or (_format_key(v.world_from_key) if v.world_from_key is not None else None)
    end = v.world_until or (_format_key(v.world_until_key) if v.world_until_key is not None else None)
    if start and end:
        parts.append(f"{start} – {end}")
    elif start:
        parts.append(f"from {start}")
    elif end:
        parts.append(f"until {end}")
    if v.story_from is not None and v.story_until is not None:
        parts.append(f"scenes {v.story_from}–{v.story_until}")
    elif v.story_from is not None:
        parts.append(f"scene {v.story_from}")
    elif v.story_until is not None:
        parts.append(f"until scene {v.story_until}")
    return ", ".join(parts)


def _when(v: Validity) -> str:
    return _validity_text(v) or "undated"


def _has_world(v: Validity) -> bool:
    return v.world_from_key is not None or v.world_until_key is not None


def _has_story(v: Validity) -> bool:
    return v.story_from is not None or v.story_until is not None


def _sweep(cores: list[tuple[int, int, int]]) -> list[list[int]]:
    """Return the maximal sets of half-open intervals (lo, hi, index) that share a point, two or more each."""
    cores.sort()
    cliques: list[list[int]] = []
    active: list[tuple[int, int, int]] = []
    grown = False
    for core in cores:
        if active:
            still = [a for a in active if a[1] > core[0]]
            if len(still) != len(active):
                if grown and len(active) > 1:
                    cliques.append([a[2] for a in active])
                grown = False
                active = still
        active.append(core)
        grown = True
    if grown and len(active) > 1:
        cliques.append([a[2] for a in active])
    return cliques


def _clock_cliques(members: Sequence[Statement], world: bool, supersede: bool) -> list[list[Statement]]:
    """Return the sets of members that certainly hold together on one clock (all members have that clock)."""
    rows: list[tuple[int, int, int, int | None, Statement]] = []
    for m in members:
        v = m.validity
        if world:
            f, u = v.world_from_key, v.world_until_key
            lo = _LO if f is None else _key_hi(f)
        else:
            f, u = v.story_from, v.story_until
            lo = _LO if f is None else f
        rows.append((_LO if f is None else f, m.id, lo, u, m))
    rows.sort()
    cores: list[tuple[int, int, int]] = []
    next_start = _HI
    i = len(rows) - 1
    while i >= 0:
        start = rows[i][0]
        j = i
        while j >= 0 and rows[j][0] == start:
            _, _, lo, until, _m = rows[j]
            hi = until if until is not None else (next_start if supersede else _HI)
            if lo < hi:
                cores.append((lo, hi, j))
            j -= 1
        next_start = start
        i = j
    return [[rows[k][4] for k in clique] for clique in _sweep(cores)]


def _cliques(
    members: Sequence[Statement], timeless_predicates: Collection[str], *, supersede: bool
) -> list[tuple[str, list[Statement]]]:
    """Return (clock, members that certainly hold together) sets, each of two or more members."""
    timeless: list[Statement] = []
    world: list[Statement] = []
    story: list[Statement] = []
    for m in members:
        v = m.validity
        if m.predicate in timeless_predicates:
            timeless.append(m)
            continue
        hw = v.world_from_key is not None or v.world_until_key is not None
        hs = v.story_from is not None or v.story_until is not None
        if hw:
            world.append(m)
        if hs:
            story.append(m)
        if not hw and not hs:
            timeless.append(m)
    found: list[tuple[str, list[Statement]]] = []
    if len(timeless) > 1:
        found.append((_ALWAYS, timeless))
    if len(world) > 1:
        found += [(_WORLD, c) for c in _clock_cliques(world, True, supersede)]
    if len(story) > 1:
        found += [(_STORY, c) for c in _clock_cliques(story, False, supersede)]
    return found


def _pair_overlaps(a: Statement, b: Statement, timeless_predicates: Collection[str], supersede: bool) -> bool:
    """Tell whether two statements certainly hold at once: `_cliques` for a group of exactly these two."""
    va, vb = a.validity, b.validity
    wa = va.world_from_key is not None or va.world_until_key is not None
    wb = vb.world_from_key is not None or vb.world_until_key is not None
    sa = va.story_from is not None or va.story_until is not None
    sb = vb.story_from is not None or vb.story_until is not None
    timeless_a = a.predicate in timeless_predicates or not (wa or sa)
    timeless_b = b.predicate in timeless_predicates or not (wb or sb)
    if timeless_a or timeless_b:
        return timeless_a and timeless_b
    if wa and wb:
        fa, ua, fb, ub = va.world_from_key, va.world_until_key, vb.world_from_key, vb.world_until_key
        lo_a = _LO if fa is None else _key_hi(fa)
        lo_b = _LO if fb is None else _key_hi(fb)
    elif sa and sb:
        fa, ua, fb, ub = va.story_from, va.story_until, vb.story_from, vb.story_until
        lo_a = _LO if fa is None else fa
        lo_b = _LO if fb is None else fb
    else:
        return False
    start_a = _LO if fa is None else fa
    start_b = _LO if fb is None else fb
    hi_a = ua if ua is not None else (start_b if supersede and start_b > start_a else _HI)
    hi_b = ub if ub is not None else (start_a if supersede and start_a > start_b else _HI)
    return max(lo_a, lo_b) < min(hi_a, hi_b)


def _successive(members: Sequence[Statement], timeless_predicates: Collection[str]) -> bool:
    """Tell whether every member is open-ended with its own start on each clock, so each ends as the next begins."""
    world_starts: set[int] = set()
    story_starts: set[int] = set()
    undated = 0
    for m in members:
        v = m.validity
        if m.predicate in timeless_predicates or v.world_until_key is not None or v.story_until is not None:
            return False
        f, s = v.world_from_key, v.story_from
        if f is None and s is None:
            undated += 1
            continue
        if f is not None:
            if f in world_starts:
                return False
            world_starts.add(f)
        if s is not None:
            if s in story_starts:
                return False
            story_starts.add(s)
    return undated < 2


def _overlapping_pairs(
    members: Sequence[Statement],
    timeless_predicates: Collection[str],
    differs: Callable[[Statement, Statement], bool],
    *,
    supersede: bool = True,
) -> list[tuple[Statement, Statement]]:
    """Return the pairs of members (lower id first) that certainly hold at once and `differ`."""
    if len(members) == 2:
        a, b = members if members[0].id < members[1].id else (members[1], members[0])
        if a.replaces_id == b.id or b.replaces_id == a.id or not differs(a, b):
            return []
        return [(a, b)] if _pair_overlaps(a, b, timeless_predicates, supersede) else []
    if supersede and _successive(members, timeless_predicates):
        return []
    pairs: list[tuple[Statement, Statement]] = []
    seen: set[tuple[int, int]] = set()
    for clock, clique in _cliques(members, timeless_predicates, supersede=supersede):
        for index, a in enumerate(clique):
            for b in clique[index + 1 :]:
                if clock == _STORY and _has_world(a.validity) and _has_world(b.validity):
                    continue  # both dated in the world: the world clock decided
                if a.replaces_id == b.id or b.replaces_id == a.id:
                    continue
                first, second = (a, b) if a.id < b.id else (b, a)
                key = (first.id, second.id)
                if key in seen or not differs(first, second):
                    continue
                seen.add(key)
                pairs.append((first, second))
    return pairs


# -- the checker ---------------------------------------------------------------------------------------


@dataclass
class _Life:
    birth: Statement | None  # with a world date, or None
    deaths: list[tuple[Statement, _Moment, _Moment | None]]  # (terminal state, its moment, when it ended)


_ROLE_SINGLE_PLACE = 1
_ROLE_EXCLUSIVE = 2
_ROLE_MAX_IN = 4
_ROLE_MAX_OUT = 8
_ROLE_ACT = 16
_ROLE_PARTICIPATION = 32
_ROLE_SPECIAL = 64  # PARENT_OF, PART_OF, OCCURRED_DURING, SUB_ERA_OF


class _Checker:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.ontology = snapshot.ontology
        self.entities = snapshot.entities
        self.findings: list[Finding] = []
        relation_types = self.ontology.relation_types
        self.timeless_predicates = frozenset(n for n, r in relation_types.items() if not r.temporal)
        self.roles: dict[str, int] = {}
        for name, rel in relation_types.items():
            role = 0
            if rel.single_place:
                role |= _ROLE_SINGLE_PLACE
            if rel.exclusive_with:
                role |= _ROLE_EXCLUSIVE
            if rel.max_incoming is not None:
                role |= _ROLE_MAX_IN
            if rel.max_outgoing is not None:
                role |= _ROLE_MAX_OUT
            if name in PARTICIPATION:
                role |= _ROLE_PARTICIPATION
            elif rel.temporal or name in DEEDS:
                role |= _ROLE_ACT
            if name in (PARENT_OF, PART_OF, OCCURRED_DURING, SUB_ERA_OF):
                role |= _ROLE_SPECIAL
            self.roles[name] = role
        self.exclusive_component = self._exclusive_components()
        self.tags = self.ontology.states.tags
        self._ancestors: dict[int, frozenset[int]] = {}

    def _exclusive_components(self) -> dict[str, tuple[int, bool]]:
        """Return relation type -> (component id, whether every type of the component is symmetric)."""
        relation_types = self.ontology.relation_types
        components: dict[str, tuple[int, bool]] = {}
        for index, name in enumerate(sorted(relation_types)):
            if name in components or not relation_types[name].exclusive_with:
                continue
            group, stack = {name}, [name]
            while stack:
                for other in relation_types[stack.pop()].exclusive_with:
                    if other not in group and other in relation_types:
                        group.add(other)
                        stack.append(other)
            symmetric = all(relation_types[g].symmetric for g in group)
            for g in group:
                components[g] = (index, symmetric)
        return components

    # -- naming ----------------------------------------------------------------------------------------

    def name(self, entity_id: int | None) -> str:
        if entity_id is None:
            return "?"
        entity = self.entities.get(entity_id)
        return entity.name if entity is not None else f"#{entity_id}"

    def sentence(self, s: Statement) -> str:
        subject = self.name(s.subject_id)
        if s.kind == StatementKind.RELATION:
            return f"{subject} {s.predicate.replace('_', ' ').lower()} {self.name(s.object_id)}"
        if s.kind == StatementKind.STATE:
            return f"{subject} is {s.value}" + (f" (via {s.via})" if s.via else "")
        return f"{subject}: {s.predicate} = {s.value}"

    def side(self, s: Statement) -> Side:
        text = _validity_text(s.validity)
        sentence = self.sentence(s) + (f" ({text})" if text else "")
        return Side(statement_id=s.id, sentence=sentence, evidence=s.evidence)

    def entity_side(self, entity_id: int, sentence: str) -> Side:
        return Side(entity_id=entity_id, sentence=sentence)

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    # -- the run ---------------------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        statements = self.snapshot.statements
        retconned = CanonLevel.RETCONNED
        self.retconned_entities = {i for i, e in self.entities.items() if e.provenance.level == retconned}
        self.retconned_statements: dict[int, Statement] = {}
        dependencies = self.snapshot.dependencies
        with_dependencies: list[Statement] = []

        states: dict[int, list[Statement]] = defaultdict(list)
        attributes: dict[tuple[int, str], list[Statement]] = {}
        places: dict[int, list[Statement]] = {}
        exclusive: dict[tuple[int, int, int], list[Statement]] = {}
        cardinality: dict[tuple[str, int, bool], list[Statement]] = {}
        acts: dict[int, list[Statement]] = defaultdict(list)
        self.parents: dict[int, list[Statement]] = defaultdict(list)
        self.part_of: dict[int, list[int]] = defaultdict(list)
        self.sub_era: dict[int, list[int]] = defaultdict(list)
        occurred: list[Statement] = []
        roles = self.roles
        components = self.exclusive_component
        relation_types = self.ontology.relation_types
        retconned_entities = self.retconned_entities
        state_kind, attribute_kind = StatementKind.STATE, StatementKind.ATTRIBUTE

        for s in statements:
            if s.provenance.level == retconned:
                self.retconned_statements[s.id] = s
                continue
            if dependencies and s.id in dependencies:
                with_dependencies.append(s)
            subject = s.subject_id
            obj = s.object_id
            if retconned_entities and (subject in retconned_entities or obj in retconned_entities):
                self._touches_retconned_entity(s)
                continue
            kind = s.kind
            if kind == state_kind:
                states[subject].append(s)
                continue
            if kind == attribute_kind:
                key = (subject, s.predicate)
                group = attributes.get(key)
                if group is None:
                    attributes[key] = [s]
                else:
                    group.append(s)
                continue
            predicate = s.predicate
            role = roles.get(predicate, 0)
            if not role or obj is None:
                continue
            if role & _ROLE_PARTICIPATION or (role & _ROLE_ACT and s.validity.story_from is not None):
                acts[subject].append(s)
            if role & _ROLE_SINGLE_PLACE:
                group = places.get(subject)
                if group is None:
                    places[subject] = [s]
                else:
                    group.append(s)
            if role & _ROLE_EXCLUSIVE:
                component, all_symmetric = components[predicate]
                if all_symmetric:
                    exclusive.setdefault((component, min(subject, obj), max(subject, obj)), []).append(s)
                else:
                    exclusive.setdefault((component, subject, obj), []).append(s)
                    if relation_types[predicate].symmetric:
                        exclusive.setdefault((component, obj, subject), []).append(s)
            if role & (_ROLE_MAX_IN | _ROLE_MAX_OUT):
                if relation_types[predicate].symmetric:
                    cardinality.setdefault((predicate, subject, True), []).append(s)
                    cardinality.setdefault((predicate, obj, True), []).append(s)
                else:
                    if role & _ROLE_MAX_IN:
                        card_key = (predicate, obj, False)
                        group = cardinality.get(card_key)
                        if group is None:
                            cardinality[card_key] = [s]
                        else:
                            group.append(s)
                    if role & _ROLE_MAX_OUT:
                        cardinality.setdefault((predicate, subject, True), []).append(s)
            if role & _ROLE_SPECIAL:
                if predicate == PARENT_OF:
                    self.parents[obj].append(s)
                elif predicate == PART_OF:
                    self.part_of[subject].append(obj)
                elif predicate == SUB_ERA_OF:
                    self.sub_era[subject].append(obj)
                else:
                    occurred.append(s)

        self._relies_on_retconned(with_dependencies)
        lives = {entity_id: self._life(entity_id, group) for entity_id, group in states.items()}
        self._dead_acting(lives, acts)
        self._two_places(places)
        self._exclusive(exclusive)
        self._cardinality(cardinality)
        self._births(lives)
        self._eras(occurred)
        self._attributes(attributes)

        unique = {f.fingerprint: f for f in self.findings}
        return sorted(unique.values(), key=lambda f: (_KIND_ORDER[f.kind], f.statement_ids, f.entity_ids))

    # -- 8. relies on retconned ------------------------------------------------------------------------

    def _relies_on_retconned(self, statements: list[Statement]) -> None:
        if not self.retconned_statements and not self.retconned_entities:
            return
        for s in statements:
            targets = [
                (kind, target)
                for kind, target in self.snapshot.dependencies[s.id]
                if (kind == "statement" and target in self.retconned_statements)
                or (kind == "entity" and target in self.retconned_entities)
            ]
            self._report_retconned(s, targets)

    def _report_retconned(self, s: Statement, targets: Sequence[tuple[str, int]]) -> None:
        for kind, target in dict.fromkeys(targets):
            if kind == "statement":
                old = self.retconned_statements[target]
                what = f"“{self.sentence(old)}”"
                other = self.side(old)
                entity_ids = {s.subject_id, old.subject_id}
            else:
                what = f"“{self.name(target)}”"
                other = self.entity_side(target, f"{self.name(target)} (retconned)")
                entity_ids = {s.subject_id, target}
            self.add(
                _finding(
                    ConflictKind.RELIES_ON_RETCONNED,
                    f"“{self.sentence(s)}” relies on {what}, which was retconned.",
                    (self.side(s), other),
                    entity_ids,
                )
            )

    def _touches_retconned_entity(self, s: Statement) -> None:
        for target in dict.fromkeys((s.subject_id, s.object_id)):
            if target is None or target not in self.retconned_entities:
                continue
            self.add(
                _finding(
                    ConflictKind.RELIES_ON_RETCONNED,
                    f"“{self.sentence(s)}” still stands, but “{self.name(target)}” was retconned.",
                    (self.side(s), self.entity_side(target, f"{self.name(target)} (retconned)")),
                    {i for i in (s.subject_id, s.object_id) if i is not None},
                )
            )

    # -- 9. states: birth, deaths, transitions ---------------------------------------------------------

    def _life(self, entity_id: int, group: list[Statement]) -> _Life:
        tags = self.tags
        known = [s for s in group if s.value in tags]
        if len(known) > 1:
            known.sort(key=statement_sort_key)
        birth: Statement | None = None
        for s in known:
            v = s.validity
            if v.story_from is None and v.world_from_key is None:
                continue  # undated static canon: its place in the order is unknown
            birth = s if s.value == ALIVE and v.world_from_key is not None else None
            break
        deaths: list[tuple[Statement, _Moment, _Moment | None]] = []
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
                deaths.append((dead_since, _start(dead_since.validity), _start(s.validity)))
                dead_since = None
            previous = s
        if dead_since is not None:
            deaths.append((dead_since, _start(dead_since.validity), None))
        return _Life(birth, deaths)

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
        message = (
            f"{name} changes from {old.value} ({_when(old.validity)}) to {new.value} ({_when(new.validity)}), "
            "a change the ontology does not allow"
        )
        if new.via:
            message += f" (not even via {new.via})"
        if needs:
            message += f"; it would need via {' or '.join(needs)}"
        self.add(
            _finding(
                ConflictKind.FORBIDDEN_TRANSITION,
                message + ".",
                (self.side(old), self.side(new)),
                {entity_id},
            )
        )

    # -- 1. the dead acting ----------------------------------------------------------------------------

    def _dead_acting(self, lives: Mapping[int, _Life], acts: Mapping[int, list[Statement]]) -> None:
        for entity_id, life in lives.items():
            if not life.deaths or entity_id not in acts:
                continue
            for act in acts[entity_id]:
                event: Entity | None = None
                if act.predicate in PARTICIPATION:
                    event = self.entities.get(act.object_id) if act.object_id is not None else None
                    if event is None:
                        continue
                    moment = _start(event.validity)
                else:
                    moment = _start(act.validity)
                for death, death_moment, revival in life.deaths:
                    clock = _before(death_moment, moment)
                    if clock is None:
                        continue
                    if revival is not None and _before(moment, revival) is None:
                        continue
                    self._report_dead_act(entity_id, death, act, event, moment, death_moment, clock)
                    break

    def _report_dead_act(
        self,
        entity_id: int,
        death: Statement,
        act: Statement,
        event: Entity | None,
        moment: _Moment,
        death_moment: _Moment,
        clock: str,
    ) -> None:
        name = self.name(entity_id)
        dying = "dying" if death.value == "dead" else f"being {death.value}"
        sides = [self.side(death), self.side(act)]
        if event is not None:
            verb = _PARTICIPATION_VERBS.get(act.predicate, "acts in")
            message = f"{name} {verb} “{event.name}” ({_at(moment, clock)}) after {dying} ({_at(death_moment, clock)})."
            sides.append(self.entity_side(event.id, f"“{event.name}” takes place ({_when(event.validity)})"))
        else:
            message = (
                f"{name} acts after {dying} ({_at(death_moment, clock)}): "
                f"“{self.sentence(act)}” ({_at(moment, clock)})."
            )
        entity_ids = {entity_id} | ({act.object_id} if act.object_id is not None else set())
        self.add(_finding(ConflictKind.DEAD_ACTING, message, sides, entity_ids))

    # -- 2. two places ---------------------------------------------------------------------------------

    def _ancestors_of(self, place: int) -> frozenset[int]:
        found = self._ancestors.get(place)
        if found is not None:
            return found
        seen: set[int] = set()
        stack = list(self.part_of.get(place, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            known = self._ancestors.get(current)
            if known is not None:
                seen |= known
            else:
                stack.extend(self.part_of.get(current, ()))
        result = frozenset(seen)
        self._ancestors[place] = result
        return result

    def _apart(self, a: Statement, b: Statement) -> bool:
        pa, pb = a.object_id, b.object_id
        if pa == pb or pa is None or pb is None:
            return False
        return pb not in self._ancestors_of(pa) and pa not in self._ancestors_of(pb)

    def _two_places(self, places: Mapping[int, list[Statement]]) -> None:
        for entity_id, group in places.items():
            if len(group) < 2 or len({s.object_id for s in group}) < 2:
                continue
            for a, b in _overlapping_pairs(group, self.timeless_predicates, self._apart):
                name = self.name(entity_id)
                message = (
                    f"{name} is in two places at once: {self.name(a.object_id)} ({_when(a.validity)}) "
                    f"and {self.name(b.object_id)} ({_when(b.validity)}), and neither lies within the other."
                )
                ids = {entity_id, a.object_id or entity_id, b.object_id or entity_id}
                self.add(_finding(ConflictKind.TWO_PLACES, message, (self.side(a), self.side(b)), ids))

    # -- 3. exclusive relations ------------------------------------------------------------------------

    def _exclusive(self, buckets: Mapping[tuple[int, int, int], list[Statement]]) -> None:
        relation_types = self.ontology.relation_types

        def excludes(a: Statement, b: Statement) -> bool:
            return b.predicate in relation_types[a.predicate].exclusive_with

        for group in buckets.values():
            if len(group) < 2 or len({s.predicate for s in group}) < 2:
                continue
            for a, b in _overlapping_pairs(group, self.timeless_predicates, excludes):
                message = (
                    f"“{self.sentence(a)}” ({_when(a.validity)}) and “{self.sentence(b)}” ({_when(b.validity)}) "
                    f"hold at overlapping times, but {a.predicate} and {b.predicate} exclude each other."
                )
                ids = {a.subject_id, b.subject_id} | {i for i in (a.object_id, b.object_id) if i is not None}
                self.add(
                    _finding(ConflictKind.EXCLUSIVE_RELATIONS, message, (self.side(a), self.side(b)), ids)
                )

    # -- 4. cardinality --------------------------------------------------------------------------------

    def _cardinality(self, groups: Mapping[tuple[str, int, bool], list[Statement]]) -> None:
        relation_types = self.ontology.relation_types
        for (predicate, anchor, outgoing), group in groups.items():
            rel = relation_types[predicate]
            if rel.symmetric:
                limits = [x for x in (rel.max_incoming, rel.max_outgoing) if x is not None]
                limit = min(limits)
            else:
                found = rel.max_outgoing if outgoing else rel.max_incoming
                if found is None:
                    continue
                limit = found
            if len(group) <= limit:
                continue
            if len({_counterpart(s, anchor, outgoing, rel.symmetric) for s in group}) <= limit:
                continue
            if limit == 1 and _successive(group, self.timeless_predicates):
                continue
            reported: list[frozenset[int]] = []
            for clock, clique in _cliques(group, self.timeless_predicates, supersede=limit == 1):
                members = self._clock_consistent(clock, clique)
                others = list(
                    dict.fromkeys(_counterpart(s, anchor, outgoing, rel.symmetric) for s in members)
                )
                if len(others) <= limit:
                    continue
                ids = frozenset(s.id for s in members)
                if any(ids <= other for other in reported):
                    continue
                reported = [other for other in reported if not other <= ids] + [ids]
                self._report_cardinality(predicate, anchor, outgoing, limit, members, others)

    @staticmethod
    def _clock_consistent(clock: str, clique: list[Statement]) -> list[Statement]:
        """Keep a story-clock set only where world dates do not already tell its members apart."""
        if clock != _STORY:
            return clique
        dated = [s for s in clique if _has_world(s.validity)]
        if len(dated) == len(clique):
            return []
        undated = [s for s in clique if not _has_world(s.validity)]
        if len(dated) < 2:
            return undated + dated
        together = _clock_cliques(dated, True, False)
        best = max(together, key=len) if together else dated[:1]
        return undated + best

    def _report_cardinality(
        self,
        predicate: str,
        anchor: int,
        outgoing: bool,
        limit: int,
        members: list[Statement],
        others: list[int],
    ) -> None:
        members = sorted(members, key=lambda s: s.id)
        listed = _join([self.name(o) for o in others])
        words = predicate.replace("_", " ").lower()
        if outgoing:
            message = (
                f"{self.name(anchor)} has {len(others)} “{words}” relations at overlapping times ({listed}), "
                f"but {predicate} allows at most {limit}."
            )
        else:
            message = (
                f"{len(others)} “{words}” relations point at {self.name(anchor)} at overlapping times "
                f"(from {listed}), but {predicate} allows at most {limit}."
            )
        sides = [self.side(s) for s in members]
        self.add(_finding(ConflictKind.CARDINALITY, message, sides, {anchor, *others}))

    # -- 5. births -------------------------------------------------------------------------------------

    def _births(self, lives: Mapping[int, _Life]) -> None:
        for child, relations in self.parents.items():
            life = lives.get(child)
            if life is None or life.birth is None:
                continue
            birth = life.birth
            born = _Moment(birth.validity.world_from_key, None, birth.validity.world_from)  # world only
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
                    parent_born = _Moment(
                        parent_birth.validity.world_from_key, None, parent_birth.validity.world_from
                    )
                    clock = _before(born, parent_born)
                    if clock is not None:
                        self._report_born_before(child, birth, parent, parent_birth, relation, clock)
                for death, death_moment, revival in parent_life.deaths:
                    clock = _before(death_moment, born)
                    if clock is None:
                        continue
                    if revival is not None and _before(born, revival) is None:
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
        born, parent_born = _start(birth.validity), _start(parent_birth.validity)
        message = (
            f"{self.name(child)} is born ({_at(born, clock)}) before their parent {self.name(parent)} "
            f"({_at(parent_born, clock)})."
        )
        sides = (self.side(birth), self.side(parent_birth), self.side(relation))
        self.add(_finding(ConflictKind.BORN_BEFORE_PARENT, message, sides, {child, parent}))

    def _report_born_after(
        self, child: int, birth: Statement, deaths: list[tuple[Statement, Statement, str]]
    ) -> None:
        born = _start(birth.validity)
        died = _join([f"{self.name(r.subject_id)} ({_at(_start(d.validity), c)})" for r, d, c in deaths])
        message = (
            f"{self.name(child)} is born ({_at(born, _WORLD)}) after the deaths of all their parents: {died}."
        )
        sides: list[Side] = [self.side(birth)]
        for relation, death, _ in deaths:
            sides += [self.side(death), self.side(relation)]
        ids = {child} | {r.subject_id for r, _, _ in deaths}
        self.add(_finding(ConflictKind.BORN_AFTER_PARENTS_DEATH, message, sides, ids))

    # -- 6. events outside their era -------------------------------------------------------------------

    def _era_bounds(self, era_id: int) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
        start: tuple[int, str] | None = None
        end: tuple[int, str] | None = None
        seen: set[int] = set()
        current: int | None = era_id
        while current is not None and current not in seen and (start is None or end is None):
            seen.add(current)
            era = self.entities.get(current)
            if era is not None:
                v = era.validity
                if start is None and v.world_from_key is not None:
                    start = (v.world_from_key, v.world_from or _format_key(v.world_from_key))
                if end is None and v.world_until_key is not None:
                    end = (v.world_until_key, v.world_until or _format_key(v.world_until_key))
            parents = self.sub_era.get(current)
            current = parents[0] if parents else None
        return start, end

    def _eras(self, occurred: list[Statement]) -> None:
        for relation in occurred:
            event = self.entities.get(relation.subject_id)
            if event is None or relation.object_id is None:
                continue
            key = event.validity.world_from_key
            if key is None:
                continue
            start, end = self._era_bounds(relation.object_id)
            if start is not None and _key_hi(key) < start[0]:
                where = "before it begins"
            elif end is not None and key > _key_hi(end[0]):
                where = "after it ends"
            else:
                continue
            era_id = relation.object_id
            if start and end:
                bounds = f"{start[1]} – {end[1]}"
            elif start:
                bounds = f"from {start[1]}"
            else:
                bounds = f"until {end[1] if end else '?'}"
            date = event.validity.world_from or _format_key(key)
            message = (
                f"“{event.name}” ({date}) is said to occur during {self.name(era_id)} ({bounds}), "
                f"but that date falls {where}."
            )
            sides = (
                self.side(relation),
                self.entity_side(event.id, f"“{event.name}” takes place ({_when(event.validity)})"),
                self.entity_side(era_id, f"{self.name(era_id)} spans {bounds}"),
            )
            self.add(_finding(ConflictKind.EVENT_OUTSIDE_ERA, message, sides, {event.id, era_id}))

    # -- 7. attributes against higher authority --------------------------------------------------------

    def _attributes(self, groups: Mapping[tuple[int, str], list[Statement]]) -> None:
        for (subject, predicate), group in groups.items():
            if len(group) < 2:
                continue
            values = {s.value for s in group}
            if len(values) < 2 or len({_normal(v) for v in values}) < 2:
                continue
            for a, b in _overlapping_pairs(group, (), _different_values):
                rank_a, rank_b = _rank(a), _rank(b)
                high, low = (a, b) if rank_a >= rank_b else (b, a)
                name = self.name(subject)
                if rank_a == rank_b:
                    message = (
                        f"{name}'s {predicate} is both “{a.value}” ({_who(a)}, {_when(a.validity)}) and "
                        f"“{b.value}” ({_who(b)}, {_when(b.validity)}) at overlapping times, and neither "
                        "outranks the other."
                    )
                    prevailing = None
                else:
                    message = (
                        f"{name}'s {predicate} is “{low.value}” according to {_who(low)} ({_when(low.validity)}), "
                        f"contradicting “{high.value}” from {_who(high)} ({_when(high.validity)}); "
                        f"“{high.value}” prevails."
                    )
                    prevailing = high.id
                self.add(
                    _finding(
                        ConflictKind.CONTRADICTS_HIGHER_AUTHORITY,
                        message,
                        (self.side(high), self.side(low)),
                        {subject},
                        prevailing_id=prevailing,
                    )
                )


def _counterpart(s: Statement, anchor: int, outgoing: bool, symmetric: bool) -> int:
    """Return the entity at the other end of a relation from the anchor its cardinality is counted at."""
    if symmetric:
        return (s.object_id or 0) if s.subject_id == anchor else s.subject_id
    return (s.object_id or 0) if outgoing else s.subject_id


def _normal(value: str | None) -> str:
    return " ".join((value or "").casefold().split())


def _different_values(a: Statement, b: Statement) -> bool:
    return _normal(a.value) != _normal(b.value)


def _rank(s: Statement) -> tuple[int, float]:
    return AUTHORITY_RANK[Authority(s.provenance.authority)], s.provenance.confidence


def _who(s: Statement) -> str:
    words = _AUTHORITY_WORDS[Authority(s.provenance.authority)]
    return words if s.provenance.confidence >= 1 else f"{words}, confidence {s.provenance.confidence:g}"


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
