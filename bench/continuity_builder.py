"""The pieces of the synthetic continuity world: its eras and names, dates, the builder of entities and
statements, and the planted conflicts (each on entities of its own)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from canon.continuity import ConflictKind
from canon.models import (
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    Validity,
)
from canon.ontology import base_ontology

PLANTED_PER_KIND = 3
PRESENT = 1195  # the world year play happens in
_T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)

# (era id, name, first year, last year or None, parent era id)
ERAS = (
    ("1st_age", "The First Age", -1000, -1, None),
    ("2nd_age", "The Second Age", 0, 499, None),
    ("3rd_age", "The Third Age", 500, 999, None),
    ("age_of_kings", "The Age of Kings", 700, 850, "3rd_age"),
    ("4th_age", "The Fourth Age", 1000, None, None),
)
_ERA_OF_YEAR = (
    (700, 850, "age_of_kings"),
    (0, 499, "2nd_age"),
    (500, 999, "3rd_age"),
    (1000, 10**6, "4th_age"),
)

_AUTHORITIES = (Authority.SOURCE, Authority.GM, Authority.PLAYER, Authority.SYSTEM)
_KINDS = {name: spec.kind.value for name, spec in base_ontology().entity_types.items()}
_FIRST = (
    "Al",
    "Bra",
    "Cor",
    "Da",
    "El",
    "Fen",
    "Gar",
    "Hal",
    "Isa",
    "Jor",
    "Ka",
    "Lio",
    "Mi",
    "Nor",
    "Os",
    "Per",
)
_LAST = ("dric", "n", "wen", "ra", "mir", "ith", "as", "ek", "lyn", "or", "ia", "ard", "ven", "os", "ul", "e")
_COLOURS = ("blue", "green", "grey", "brown", "amber", "black")
_RANKS = ("squire", "knight", "captain", "commander", "marshal")
_MOODS = ("calm", "wary", "angry", "hopeful", "grim")


def _era(year: int) -> str:
    return next(era for lo, hi, era in _ERA_OF_YEAR if lo <= year <= hi) if year >= 0 else "1st_age"


def _key(year: int, month: int = 0, day: int = 0) -> int:
    return year * 10000 + month * 100 + day


def _text(year: int, month: int = 0, day: int = 0) -> str:
    text = f"{_era(year)}.year_{year}"
    if month:
        text += f".month_{month}"
        if day:
            text += f".day_{day}"
    return text


class _Builder:
    """Accumulate entities and statements with shared value objects (validity, provenance, evidence)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.entities: dict[int, Entity] = {}
        self.statements: list[Statement] = []
        self.dependencies: dict[int, list[tuple[str, int]]] = {}
        self._validity: dict[tuple[object, ...], Validity] = {}
        self._provenance: dict[tuple[object, ...], Provenance] = {}
        self._evidence: dict[tuple[object, ...], tuple[Evidence, ...]] = {}
        self.next_statement = 1
        self.next_entity = 1

    # -- shared value objects ----------------------------------------------------------------------

    def validity(
        self,
        wf: tuple[int, int, int] | None = None,
        wu: tuple[int, int, int] | None = None,
        sf: int | None = None,
        su: int | None = None,
    ) -> Validity:
        key = (wf, wu, sf, su)
        found = self._validity.get(key)
        if found is None:
            found = Validity(
                world_from=_text(*wf) if wf else None,
                world_from_key=_key(*wf) if wf else None,
                world_until=_text(*wu) if wu else None,
                world_until_key=_key(*wu) if wu else None,
                story_from=sf,
                story_until=su,
            )
            self._validity[key] = found
        return found

    def provenance(self, authority: Authority, changeset: int, retconned: bool = False) -> Provenance:
        key = (authority, changeset, retconned)
        found = self._provenance.get(key)
        if found is None:
            found = Provenance(
                campaign_id=1,
                changeset_id=changeset,
                recorded_at=_T0 + dt.timedelta(minutes=changeset),
                authority=authority,
                confidence=1.0 if authority != Authority.SYSTEM else 0.6,
                level=CanonLevel.RETCONNED if retconned else CanonLevel.CANON,
                retconned_at=_T0 + dt.timedelta(days=30) if retconned else None,
            )
            self._provenance[key] = found
        return found

    def evidence(self, file: str | None, line: int, scene: int | None = None) -> tuple[Evidence, ...]:
        key = (file, line, scene)
        found = self._evidence.get(key)
        if found is None:
            if scene is not None:
                found = (Evidence(kind=EvidenceKind.TURNS, scene_id=scene, turn_from=line, turn_to=line + 1),)
            else:
                found = (Evidence(kind=EvidenceKind.YAML, file=file, line=line),)
            self._evidence[key] = found
        return found

    # -- rows --------------------------------------------------------------------------------------

    def entity(
        self,
        type_: str,
        name: str,
        *,
        key: str | None = None,
        validity: Validity | None = None,
        retconned: bool = False,
        authority: Authority = Authority.SOURCE,
    ) -> int:
        entity_id = self.next_entity
        self.next_entity += 1
        self.entities[entity_id] = Entity(
            id=entity_id,
            type=type_,
            name=name,
            key=key,
            kind=_KINDS[type_],
            validity=validity or Validity(),
            provenance=self.provenance(authority, 1, retconned),
        )
        return entity_id

    def statement(
        self,
        kind: StatementKind,
        subject: int,
        predicate: str,
        *,
        obj: int | None = None,
        value: str | None = None,
        via: str | None = None,
        validity: Validity | None = None,
        authority: Authority = Authority.SOURCE,
        file: str = "lore.yaml",
        line: int | None = None,
        retconned: bool = False,
        replaces: int | None = None,
        depends_on: Sequence[tuple[str, int]] = (),
    ) -> Statement:
        v = validity or Validity()
        scene = v.story_from
        changeset = 100 + scene if scene is not None else 1 + _AUTHORITIES.index(authority)
        statement = Statement(
            id=self.next_statement,
            kind=kind,
            subject_id=subject,
            predicate=predicate,
            object_id=obj,
            value=value,
            via=via,
            validity=v,
            replaces_id=replaces,
            provenance=self.provenance(authority, changeset, retconned),
            evidence=self.evidence(file, line if line is not None else self.next_statement % 2000 + 1, scene),
        )
        self.next_statement += 1
        self.statements.append(statement)
        if depends_on:
            self.dependencies[statement.id] = list(depends_on)
        return statement

    def state(self, subject: int, value: str, **kw: object) -> Statement:
        return self.statement(StatementKind.STATE, subject, "state", value=value, **kw)  # type: ignore[arg-type]

    def relation(self, subject: int, predicate: str, obj: int, **kw: object) -> Statement:
        return self.statement(StatementKind.RELATION, subject, predicate, obj=obj, **kw)  # type: ignore[arg-type]

    def attribute(self, subject: int, predicate: str, value: str, **kw: object) -> Statement:
        return self.statement(StatementKind.ATTRIBUTE, subject, predicate, value=value, **kw)  # type: ignore[arg-type]

    def name(self) -> str:
        return self.rng.choice(_FIRST) + self.rng.choice(_LAST) + f" {self.next_entity}"


# -- planted conflicts: each on entities of its own ------------------------------------------------------


def _plant(b: _Builder, kind: ConflictKind, copy: int, eras: dict[str, int]) -> None:
    """Add one conflict of a kind (variant by `copy`) on fresh entities; it must yield exactly one finding."""
    v = b.validity
    year = 600 + copy * 7
    scene = 5 + copy
    if kind == ConflictKind.DEAD_ACTING:
        person = b.entity("NPC", f"Ghost {copy}")
        b.state(person, "alive", validity=v((year, 0, 0)), file="family_tree.yaml")
        if copy % 2 == 0:  # died in play, acts in a later scene
            event = b.entity("Event", f"The late order {copy}", validity=v(sf=scene + 2))
            b.state(person, "dead", validity=v(sf=scene), authority=Authority.PLAYER)
            b.relation(person, "PARTICIPATED_IN", event, validity=v(sf=scene + 2), authority=Authority.PLAYER)
        else:  # died in the timeline, takes part in a later dated event
            event = b.entity("Event", f"The late battle {copy}", validity=v((year + 50, 3, 1)))
            b.state(person, "dead", validity=v((year + 40, 0, 0)), file="timeline.yaml")
            b.relation(person, "PARTICIPATED_IN", event, file="timeline.yaml")
    elif kind == ConflictKind.TWO_PLACES:
        person = b.entity("NPC", f"Wanderer {copy}")
        keep = b.entity("Location", f"Lone Keep {copy}")
        tower = b.entity("Location", f"Lone Tower {copy}")
        b.state(person, "alive", validity=v((year, 0, 0)))
        b.relation(
            person,
            "LOCATED_IN",
            keep,
            validity=v((year + 20, 0, 0), (year + 30, 0, 0)),
            file="gazetteer.yaml",
        )
        b.relation(person, "LOCATED_IN", tower, validity=v((year + 25, 0, 0)), authority=Authority.PLAYER)
    elif kind == ConflictKind.EXCLUSIVE_RELATIONS:
        a = b.entity("NPC", f"Friend {copy}")
        c = b.entity("Faction", f"House Turncoat {copy}")
        b.relation(a, "ALLY_OF", c, validity=v((year, 0, 0), (year + 10, 0, 0)))
        b.relation(c, "ENEMY_OF", a, validity=v((year + 5, 0, 0)), authority=Authority.GM)
    elif kind == ConflictKind.CARDINALITY:
        child = b.entity("NPC", f"Foundling {copy}")
        b.state(child, "alive", validity=v((year + 40, 0, 0)))
        for n in range(3):
            parent = b.entity("NPC", f"Claimant {copy}.{n}")
            b.state(parent, "alive", validity=v((year + n, 0, 0)))
            b.relation(parent, "PARENT_OF", child, file="family_tree.yaml")
    elif kind == ConflictKind.BORN_BEFORE_PARENT:
        parent = b.entity("NPC", f"Young parent {copy}")
        child = b.entity("NPC", f"Old child {copy}")
        b.state(parent, "alive", validity=v((year + 30, 0, 0)))
        b.state(child, "alive", validity=v((year, 2, 14)))
        b.relation(parent, "PARENT_OF", child, file="family_tree.yaml")
    elif kind == ConflictKind.BORN_AFTER_PARENTS_DEATH:
        child = b.entity("NPC", f"Late child {copy}")
        b.state(child, "alive", validity=v((year + 60, 0, 0)))
        for n in range(2):
            parent = b.entity("NPC", f"Early parent {copy}.{n}")
            b.state(parent, "alive", validity=v((year + n, 0, 0)))
            b.state(parent, "dead", validity=v((year + 40 + n, 0, 0)))
            b.relation(parent, "PARENT_OF", child, file="family_tree.yaml")
    elif kind == ConflictKind.EVENT_OUTSIDE_ERA:
        event = b.entity("Event", f"Misplaced siege {copy}", validity=v((300 + copy, 0, 0)))
        b.relation(event, "OCCURRED_DURING", eras["3rd_age"], file="timeline.yaml")
    elif kind == ConflictKind.CONTRADICTS_HIGHER_AUTHORITY:
        person = b.entity("NPC", f"Disputed {copy}")
        b.attribute(person, "eye_colour", "blue", authority=Authority.GM)
        b.attribute(person, "eye_colour", "green", authority=Authority.PLAYER, validity=None)
    elif kind == ConflictKind.SINGLE_VALUED:
        # The world bible's title (undated) and another from play, dated only by its scene: both at once.
        person = b.entity("NPC", f"Twice titled {copy}")
        b.attribute(
            person, "titles", "Harbourmaster of Greyhaven", authority=Authority.SOURCE, file="people.yaml"
        )
        b.attribute(person, "title", "Pirate Queen", authority=Authority.SOURCE, validity=v(sf=scene))
    elif kind == ConflictKind.CAUSE_AFTER_EFFECT:
        # An event said to cause (or precede) one that happened years before it.
        cause = b.entity("Event", f"The late spark {copy}", validity=v((year + 40, 0, 0)))
        effect = b.entity("Event", f"The early fire {copy}", validity=v((year + 10, 6, 1)))
        b.relation(cause, "CAUSED" if copy % 2 == 0 else "PRECEDED", effect, file="timeline.yaml")
    elif kind == ConflictKind.PARTICIPANT_NOT_BORN:
        person = b.entity("NPC", f"Unborn witness {copy}")
        b.state(person, "alive", validity=v((year + 30, 0, 0)), file="family_tree.yaml")
        event = b.entity("Event", f"The old battle {copy}", validity=v((year + 5, 0, 0)))
        b.relation(person, "PARTICIPATED_IN" if copy % 2 == 0 else "WITNESSED", event, file="timeline.yaml")
    elif kind == ConflictKind.AXIOM_FROM_PLAYER:
        # A law of the world a player made up (the entity itself, or a fact about the GM's own).
        if copy % 2 == 0:
            b.entity("MagicSystem", f"Wild magic {copy}", authority=Authority.PLAYER)
        else:
            law = b.entity("Concept", f"The law of tides {copy}")
            b.attribute(law, "rule", "the sea never freezes", authority=Authority.PLAYER)
    elif kind == ConflictKind.RELIES_ON_RETCONNED:
        person = b.entity("NPC", f"Heir {copy}")
        old = b.attribute(person, "title", "Heir of the North", retconned=True)
        b.attribute(person, "claim", "the northern throne", depends_on=[("statement", old.id)])
    elif kind == ConflictKind.LIFE_DATED_TWICE:
        # The family tree's birth, and a birth year typed as a plain fact that disagrees with it.
        person = b.entity("NPC", f"Twice born {copy}")
        b.state(person, "alive", validity=v((year, 0, 0)), file="family_tree.yaml")
        b.attribute(
            person, "born" if copy % 2 == 0 else "date_of_birth", _text(year + 1), authority=Authority.GM
        )
    elif kind == ConflictKind.DEAD_BEFORE_BORN:
        person = b.entity("NPC", f"Early ghost {copy}")
        b.state(person, "alive", validity=v((year + 20, 0, 0)), file="family_tree.yaml")
        b.attribute(person, "died", _text(year), authority=Authority.GM)
    elif kind == ConflictKind.FORBIDDEN_TRANSITION:
        person = b.entity("NPC", f"Returned {copy}")
        b.state(person, "alive", validity=v((year, 0, 0)))
        b.state(person, "dead", validity=v(sf=scene), authority=Authority.PLAYER)
        b.state(person, "alive", validity=v(sf=scene + 3), authority=Authority.PLAYER)
