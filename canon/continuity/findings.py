"""What a continuity check reports (`Finding`, each side in words) and what it looks at (`Snapshot`).

World keys are here too: the sortable form of an in-world date that the rules compare, which the writers store.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from canon.calendar import WorldDate
from canon.models import Entity, Statement
from canon.models import Side as Side  # its home is canon.models, beside a proposal's warnings
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
    SINGLE_VALUED = "single_valued"
    RELIES_ON_RETCONNED = "relies_on_retconned"
    FORBIDDEN_TRANSITION = "forbidden_transition"
    CAUSE_AFTER_EFFECT = "cause_after_effect"
    PARTICIPANT_NOT_BORN = "participant_not_born"
    AXIOM_FROM_PLAYER = "axiom_from_player"
    LIFE_DATED_TWICE = "life_dated_twice"
    DEAD_BEFORE_BORN = "dead_before_born"


KIND_ORDER = {kind: index for index, kind in enumerate(ConflictKind)}

# Relations read by name: the rules are stated in these terms.
PARTICIPATION = frozenset({"PARTICIPATED_IN", "WITNESSED"})
DEEDS = frozenset({"KILLED", "DEFEATED", "CAUSED", "FOUNDED"})
PARENT_OF = "PARENT_OF"
PART_OF = "PART_OF"
OCCURRED_DURING = "OCCURRED_DURING"
OCCURRED_AT = "OCCURRED_AT"
#: The attribute a place or a group keeps its founding date under (a gazetteer's, a faction's `founded`).
FOUNDED_ON = "founded"
SUB_ERA_OF = "SUB_ERA_OF"
CAUSED = "CAUSED"
PRECEDED = "PRECEDED"
ALIVE = "alive"


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


def key_hi(key: int) -> int:
    rest = key % 10000
    if rest == 0:
        return key + 9999
    if rest % 100 == 0:
        return key + 99
    return key


def format_key(key: int) -> str:
    year, rest = divmod(key, 10000)
    month, day = divmod(rest, 100)
    if month == 0:
        return f"year {year}"
    if day == 0:
        return f"year {year}, month {month}"
    return f"year {year}, month {month}, day {day}"


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


def make_finding(
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


def join_names(names: Sequence[str]) -> str:
    """Return names as a list in words: "a", "a and b", "a, b and c"."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
