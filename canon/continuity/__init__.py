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

The modules: `findings` (what a check reports, world keys), `intervals` (the clocks), `base` (a check's state and
names), the rules in `lives`, `relations`, `claims` and
`attributes` (one value at a time, by the ontology's declarations), and `checker` (the one pass that runs them).
"""

from canon.continuity.checker import Checker, check
from canon.continuity.findings import (
    ALIVE,
    DEEDS,
    OCCURRED_DURING,
    PARENT_OF,
    PART_OF,
    PARTICIPATION,
    SUB_ERA_OF,
    ConflictKind,
    Finding,
    Side,
    Snapshot,
    fingerprint,
    key_span,
    world_key,
)

__all__ = [
    "ALIVE",
    "DEEDS",
    "OCCURRED_DURING",
    "PARENT_OF",
    "PARTICIPATION",
    "PART_OF",
    "SUB_ERA_OF",
    "Checker",
    "ConflictKind",
    "Finding",
    "Side",
    "Snapshot",
    "check",
    "fingerprint",
    "key_span",
    "world_key",
]
