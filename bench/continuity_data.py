"""Generate a realistic synthetic canon snapshot, with planted continuity conflicts, for the continuity benchmark.

`make_snapshot(entities, statements, seed)` returns a `Snapshot` of exactly that many entities and statements
and the number of conflicts planted per `ConflictKind`; `canon.continuity.check` should find exactly those.
The background is a consistent world: eras with bounds (one a sub-era), a gazetteer of regions, cities and
sites (PART_OF), people with births, deaths and parents, moves over time (LOCATED_IN, open-ended and closed,
some nested), alliances that turn into enmities, events dated inside their era with participants alive at
the time, items changing hands, factions, attributes from several authorities (restated, or changing over
time), play in scenes (moves, wounds, resurrections, events), retconned facts with their replacements and
retconned minor characters, and dependencies. Each planted conflict uses entities of its own, so planted
conflicts never interact.

Run it directly to time the generator and `check()`:  `.venv/bin/python bench/continuity_data.py 100000 1000000`
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from canon.continuity import ConflictKind, Snapshot, check
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


# -- the consistent background ---------------------------------------------------------------------------

Unit = tuple[int, Callable[[], None]]


class _World:
    """A consistent world: entities first, then statements queued as units that never overrun the budget."""

    def __init__(self, b: _Builder, entity_budget: int) -> None:
        self.b = b
        self.rng = b.rng
        self.entity_budget = entity_budget
        self.units: list[Unit] = []
        self.scenes = 10

    def add_unit(self, size: int, action: Callable[[], None]) -> None:
        self.units.append((size, action))

    def create_entities(self, statement_budget: int) -> None:
        """Create every background entity (and the gazetteer and era tree) and queue the statements about them."""
        n = self.entity_budget
        self.scenes = max(10, statement_budget // 200)
        counts = {
            "Location": max(30, n * 8 // 100),
            "Faction": max(5, n * 2 // 100),
            "Item": max(5, n * 6 // 100),
            "Event": max(10, n * 14 // 100),
            "Creature": max(2, n // 100),
        }
        ghosts = max(1, n // 500)
        people = n - sum(counts.values()) - ghosts - len(ERAS)
        if people < 50:
            raise ValueError("too few entities for a world; ask for at least 500")
        self.locations(counts["Location"])
        self.factions = [self.b.entity("Faction", f"House {self.b.name()}") for _ in range(counts["Faction"])]
        self.people(people)
        self.creatures(counts["Creature"])
        self.items(counts["Item"])
        self.events(counts["Event"])
        self.faction_ties()
        self.retconned(ghosts)

    def fill(self, total_statements: int) -> None:
        """Run queued units while they fit, then pad to exactly `total_statements` statements."""
        budget = total_statements - len(self.b.statements)
        if budget < 0:
            raise ValueError("too few statements for this many entities")
        self.rng.shuffle(self.units)
        for size, action in self.units:
            if size <= budget:
                budget -= size
                action()
        self.pad(budget)

    def locations(self, count: int) -> None:
        b, rng = self.b, self.rng
        self.era_ids: dict[str, int] = {}
        for era, name, lo, hi, _ in ERAS:
            bounds = b.validity((lo, 0, 0), (hi, 0, 0) if hi is not None else None)
            self.era_ids[era] = b.entity("Era", name, key=era, validity=bounds)
        for era, _, _, _, parent in ERAS:
            if parent:
                b.relation(self.era_ids[era], "SUB_ERA_OF", self.era_ids[parent], file="timeline.yaml")
        regions = [b.entity("Region", f"Region {b.name()}") for _ in range(max(3, count // 20))]
        self.cities: list[int] = []
        self.sites: list[int] = []
        self.region_of: dict[int, int] = {}
        self.sites_of: dict[int, list[int]] = {}
        for _ in range(max(5, count // 4)):
            city = b.entity("Location", f"City {b.name()}")
            self.cities.append(city)
            self.region_of[city] = rng.choice(regions)
            self.sites_of[city] = []
            b.relation(city, "PART_OF", self.region_of[city], file="gazetteer.yaml")
        for place in [*regions, *self.cities]:
            self.add_unit(2, self.place_attributes(place))
        while len(regions) + len(self.cities) + len(self.sites) < count:
            site = b.entity("Location", f"Site {b.name()}")
            city = rng.choice(self.cities)
            self.sites.append(site)
            self.sites_of[city].append(site)
            b.relation(site, "PART_OF", city, file="gazetteer.yaml")
            self.add_unit(2, self.place_attributes(site))

    def place_attributes(self, place: int) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            b.attribute(place, "population", str(rng.randint(10, 90000)), file="gazetteer.yaml")
            b.attribute(
                place, "climate", rng.choice(("temperate", "arid", "cold", "wet")), file="gazetteer.yaml"
            )

        return run

    def people(self, count: int) -> None:
        b, rng = self.b, self.rng
        self.persons: list[tuple[int, int, int | None]] = []  # (id, birth year, death year)
        self.players: list[int] = []
        self.death: dict[int, int | None] = {}
        by_year: dict[int, list[int]] = {}
        for born in sorted(rng.randint(0, PRESENT - 20) for _ in range(count)):
            person = b.entity("PC" if rng.random() < 0.01 else "NPC", b.name())
            died: int | None = born + rng.randint(25, 90) if rng.random() < 0.5 else None
            if died is not None and died >= PRESENT:
                died = None
            self.persons.append((person, born, died))
            self.death[person] = died
            by_year.setdefault(born, []).append(person)
            if died is None and rng.random() < 0.08:
                self.players.append(person)
        for person, born, died in self.persons:
            line = rng.randint(1, 50000)
            self.add_unit(2 if died is not None else 1, self.life(person, born, died, line))
            parents = self.pick_parents(born, by_year)
            if parents:
                self.add_unit(len(parents), self.parenthood(parents, person, line))
            self.add_unit(3, self.moves(person, born, died))
            self.add_unit(5, self.person_attributes(person, born))
        for person in self.players:
            self.add_unit(5, self.play(person))
        pairs: set[tuple[int, int]] = set()
        for _ in range(len(self.persons) // 5):
            (a, born_a, died_a), (c, born_c, died_c) = rng.sample(self.persons, 2)
            pair = (min(a, c), max(a, c))
            start = max(born_a, born_c) + rng.randint(15, 20)
            if any(died is not None and died <= start + 5 for died in (died_a, died_c)):
                continue  # the dead make no alliances (`ConflictKind.DEAD_ACTING`)
            if pair not in pairs:
                pairs.add(pair)
                self.add_unit(2, self.rivalry(a, c, start))

    def pick_parents(self, born: int, by_year: dict[int, list[int]]) -> list[int]:
        rng = self.rng
        if rng.random() < 0.2:
            return []
        chosen: list[int] = []
        for _ in range(8):
            pool = by_year.get(born - rng.randint(18, 50))
            if pool:
                candidate = rng.choice(pool)
                if candidate not in chosen:
                    chosen.append(candidate)
                if len(chosen) == 2:
                    break
        # A child may be born after one parent's death, never after all of them.
        outliving = [p for p in chosen if (died := self.death[p]) is None or died >= born]
        if not outliving:
            return []
        return chosen if rng.random() < 0.9 else outliving[:1]

    def life(self, person: int, born: int, died: int | None, line: int) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            month, day = (rng.randint(1, 12), rng.randint(1, 28)) if rng.random() < 0.3 else (0, 0)
            b.state(
                person, "alive", validity=b.validity((born, month, day)), file="family_tree.yaml", line=line
            )
            if died is not None:
                b.state(
                    person, "dead", validity=b.validity((died, 0, 0)), file="family_tree.yaml", line=line + 1
                )

        return run

    def parenthood(self, parents: list[int], child: int, line: int) -> Callable[[], None]:
        def run() -> None:
            for parent in parents:
                self.b.relation(
                    parent,
                    "PARENT_OF",
                    child,
                    file="family_tree.yaml",
                    line=line + 2,
                    depends_on=[("entity", parent), ("entity", child)],
                )

        return run

    def moves(self, person: int, born: int, died: int | None) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            end = died if died is not None else PRESENT
            year = born + rng.randint(0, 10)
            style = rng.random()
            if style < 0.5:  # open-ended moves: each lasts until the next
                for _ in range(3):
                    place = rng.choice(self.sites) if rng.random() < 0.7 else rng.choice(self.cities)
                    b.relation(
                        person, "LOCATED_IN", place, validity=b.validity((year, 0, 0)), file="gazetteer.yaml"
                    )
                    year += rng.randint(1, max(1, (end - year) // 3))
            elif style < 0.8:  # a city, a site within it, and its region, at overlapping times (PART_OF)
                city = rng.choice(self.cities)
                site = rng.choice(self.sites_of[city] or [city])
                b.relation(person, "LOCATED_IN", city, validity=b.validity((year, 0, 0), (year + 20, 0, 0)))
                b.relation(
                    person, "LOCATED_IN", site, validity=b.validity((year + 2, 0, 0), (year + 8, 0, 0))
                )
                region = self.region_of[city]
                b.relation(
                    person, "LOCATED_IN", region, validity=b.validity((year + 5, 0, 0), (year + 6, 0, 0))
                )
            else:  # closed stays that touch but never overlap (all begun while alive: died >= born + 25)
                for _ in range(3):
                    stay = rng.randint(1, 5 if died is not None else 10)
                    place = rng.choice(self.cities)
                    b.relation(
                        person, "LOCATED_IN", place, validity=b.validity((year, 0, 0), (year + stay, 0, 0))
                    )
                    year += stay

        return run

    def person_attributes(self, person: int, born: int) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            colour = rng.choice(_COLOURS)
            b.attribute(person, "eye_colour", colour, authority=Authority.SOURCE, file="people.yaml")
            # The same value restated by another authority, spelled differently: not a contradiction.
            b.attribute(person, "eye_colour", colour.title(), authority=rng.choice(_AUTHORITIES[1:]))
            first, second = rng.sample(_RANKS, 2)  # a rank that changes: the second holds from its start on
            b.attribute(person, "rank", first, authority=Authority.GM, validity=b.validity((born + 18, 0, 0)))
            b.attribute(
                person, "rank", second, authority=Authority.SOURCE, validity=b.validity((born + 25, 0, 0))
            )
            b.attribute(person, "epithet", f"the {rng.choice(_MOODS)}", authority=rng.choice(_AUTHORITIES))

        return run

    def play(self, person: int) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            s0, s1, s2, s3 = sorted(rng.sample(range(1, self.scenes + 1), 4))
            player = Authority.PLAYER
            b.relation(
                person, "LOCATED_IN", rng.choice(self.sites), validity=b.validity(sf=s0), authority=player
            )
            b.state(person, "wounded", validity=b.validity(sf=s1), authority=player)
            if rng.random() < 0.3:  # dies and is brought back the next scene: legal through resurrection
                b.state(person, "dead", validity=b.validity(sf=s2), authority=player)
                b.state(
                    person,
                    "alive",
                    via="resurrection",
                    validity=b.validity(sf=s2 + 1),
                    authority=Authority.GM,
                )
            else:
                b.state(person, "alive", validity=b.validity(sf=s2), authority=player)
                b.attribute(
                    person, "mood", rng.choice(_MOODS), validity=b.validity(sf=s2 + 1), authority=player
                )
            b.relation(
                person, "LOCATED_IN", rng.choice(self.cities), validity=b.validity(sf=s3), authority=player
            )

        return run

    def rivalry(self, a: int, c: int, start: int) -> Callable[[], None]:
        b, rng = self.b, self.rng

        def run() -> None:
            first, second = (a, c) if rng.random() < 0.5 else (c, a)
            if rng.random() < 0.5:  # allies, until they became enemies
                b.relation(first, "ALLY_OF", second, validity=b.validity((start, 0, 0)))
                b.relation(second, "ENEMY_OF", first, validity=b.validity((start + rng.randint(1, 5), 0, 0)))
            else:  # a closed alliance, then enmity from the day it ended
                end = start + rng.randint(1, 5)
                b.relation(first, "ALLY_OF", second, validity=b.validity((start, 0, 0), (end, 0, 0)))
                b.relation(first, "ENEMY_OF", second, validity=b.validity((end, 0, 0)))

        return run

    def creatures(self, count: int) -> None:
        b = self.b
        for _ in range(count):
            creature = b.entity("Creature", f"Wyrm {b.name()}")

            def run(creature: int = creature) -> None:
                b.state(creature, "alive", file="bestiary.yaml")
                b.relation(creature, "LOCATED_IN", self.rng.choice(self.sites), file="bestiary.yaml")

            self.add_unit(2, run)

    def items(self, count: int) -> None:
        b, rng = self.b, self.rng
        for _ in range(count):
            item = b.entity("Item", f"Blade {b.name()}")
            holders = rng.randint(1, 3)

            def run(item: int = item, holders: int = holders) -> None:
                b.state(item, "intact", file="items.yaml")
                year = rng.randint(0, 900)
                for _ in range(holders):  # changes hands: each holder until the next, each alive then
                    living = [
                        p for p, born, died in self.persons if born <= year and (died is None or died > year)
                    ]
                    if not living:
                        holder, born, _ = rng.choice([p for p in self.persons if p[2] is None])
                        year = max(year, born)
                    else:
                        holder = rng.choice(living)
                    b.relation(
                        holder, "POSSESSES", item, validity=b.validity((year, 0, 0)), file="items.yaml"
                    )
                    year += rng.randint(1, 60)
                b.attribute(item, "forged_by", "an unknown smith", file="items.yaml")

            self.add_unit(holders + 2, run)

    def events(self, count: int) -> None:
        b, rng = self.b, self.rng
        for index in range(count):
            in_play = bool(self.players) and index % 10 == 0
            if in_play:
                year = PRESENT
                validity = b.validity((year, 0, 0), sf=rng.randint(1, self.scenes))
            else:
                year = rng.randint(0, PRESENT - 1)
                month, day = (rng.randint(1, 12), rng.randint(1, 28)) if rng.random() < 0.5 else (0, 0)
                validity = b.validity((year, month, day))
            kind = "Skirmish" if in_play else "Battle"
            event = b.entity("Event", f"The {kind} of {b.name()}", validity=validity)

            def run(
                event: int = event, year: int = year, in_play: bool = in_play, v: Validity = validity
            ) -> None:
                b.relation(event, "OCCURRED_DURING", self.era_ids[_era(year)], file="timeline.yaml")
                b.relation(event, "OCCURRED_AT", rng.choice(self.sites), file="timeline.yaml")
                for _ in range(4):
                    if in_play:
                        b.relation(
                            rng.choice(self.players),
                            "PARTICIPATED_IN",
                            event,
                            validity=b.validity(sf=v.story_from),
                            authority=Authority.PLAYER,
                            depends_on=[("entity", event)],
                        )
                        continue
                    for _ in range(10):  # someone alive that year (years apart, so never a guess)
                        person, born, died = rng.choice(self.persons)
                        if born < year and (died is None or year < died):
                            b.relation(
                                person,
                                "PARTICIPATED_IN",
                                event,
                                file="timeline.yaml",
                                depends_on=[("entity", event)],
                            )
                            break
                    else:
                        b.attribute(event, "chronicler", "unknown", file="timeline.yaml")

            self.add_unit(6, run)

    def faction_ties(self) -> None:
        b, rng = self.b, self.rng
        for faction in self.factions:

            def run(faction: int = faction) -> None:
                b.state(faction, "intact", file="factions.yaml")
                member, born, _ = rng.choice(self.persons)
                b.relation(
                    member, "MEMBER_OF", faction, validity=b.validity((born + 16, 0, 0)), file="factions.yaml"
                )
                b.attribute(
                    faction, "motto", f"By {rng.choice(_COLOURS)} and steel", authority=Authority.SOURCE
                )

            self.add_unit(3, run)

    def retconned(self, count: int) -> None:
        """Queue retconned minor characters (with all their statements) and fixed mistakes with replacements."""
        b, rng = self.b, self.rng
        self.ghosts: set[int] = set()
        for _ in range(count):
            ghost = b.entity("NPC", f"Cut character {b.name()}", retconned=True)
            self.ghosts.add(ghost)

            def run(ghost: int = ghost) -> None:
                b.state(ghost, "alive", validity=b.validity((rng.randint(0, 900), 0, 0)), retconned=True)
                b.relation(ghost, "LOCATED_IN", rng.choice(self.cities), retconned=True)
                b.attribute(ghost, "eye_colour", "violet", retconned=True)

            self.add_unit(3, run)
        for _ in range(count * 4):
            person = rng.choice(self.persons)[0]

            def fix(person: int = person) -> None:
                old = b.attribute(person, "home_town", "Oldvale", retconned=True, authority=Authority.PLAYER)
                new = b.attribute(person, "home_town", "Newvale", authority=Authority.GM, replaces=old.id)
                b.attribute(person, "accent", "western", depends_on=[("statement", new.id)])

            self.add_unit(3, fix)

    def pad(self, count: int) -> None:
        """Add `count` harmless attributes (a predicate each) on standing entities."""
        b, rng = self.b, self.rng
        standing = [e for e in b.entities if e not in self.ghosts]
        for index in range(count):
            b.attribute(rng.choice(standing), f"note_{index}", f"a remark #{index}", file="notes.yaml")


def make_snapshot(
    entities: int, statements: int, seed: int, *, per_kind: int = PLANTED_PER_KIND
) -> tuple[Snapshot, dict[ConflictKind, int]]:
    """Return a snapshot of exactly `entities` entities and `statements` statements, and the conflicts planted."""
    collecting = gc.isenabled()
    gc.disable()  # millions of new objects, no cycles: the collector would only rescan them over and over
    try:
        return _make_snapshot(entities, statements, seed, per_kind)
    finally:
        if collecting:
            gc.enable()


def make_planted_snapshot(
    entities: int, statements: int, seed: int, *, per_kind: int = PLANTED_PER_KIND
) -> tuple[Snapshot, dict[ConflictKind, list[frozenset[int]]]]:
    """Return a snapshot as `make_snapshot` does, and the entities of each planted conflict, by kind (a finding
    of that kind about one of them finds it; any other finding is a false alarm)."""
    planted: dict[ConflictKind, list[frozenset[int]]] = {}
    collecting = gc.isenabled()
    gc.disable()
    try:
        snapshot, _ = _make_snapshot(entities, statements, seed, per_kind, planted)
    finally:
        if collecting:
            gc.enable()
    return snapshot, planted


def _make_snapshot(
    entities: int,
    statements: int,
    seed: int,
    per_kind: int,
    planted: dict[ConflictKind, list[frozenset[int]]] | None = None,
) -> tuple[Snapshot, dict[ConflictKind, int]]:
    staging = _Builder(seed)
    staging_eras = {era: 0 for era, *_ in ERAS}
    for kind in ConflictKind:
        for copy in range(per_kind):
            _plant(staging, kind, copy, staging_eras)
    b = _Builder(seed)
    world = _World(b, entities - len(staging.entities))
    world.create_entities(statements - len(staging.statements))
    for kind in ConflictKind:
        for copy in range(per_kind):
            first = b.next_entity
            _plant(b, kind, copy, world.era_ids)
            if planted is not None:
                planted.setdefault(kind, []).append(frozenset(range(first, b.next_entity)))
    world.fill(statements)
    if len(b.entities) != entities or len(b.statements) != statements:
        raise AssertionError(f"built {len(b.entities)} entities and {len(b.statements)} statements")
    snapshot = Snapshot(
        entities=b.entities, statements=b.statements, dependencies=b.dependencies, ontology=base_ontology()
    )
    return snapshot, {kind: per_kind for kind in ConflictKind}


def main() -> None:
    """Time the generator and `check()` (wall and CPU seconds); print one JSON line."""
    entities = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    statements = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    wall, cpu = time.perf_counter(), time.process_time()
    snapshot, planted = make_snapshot(entities, statements, seed=1)
    generate = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    findings = check(snapshot)
    checked = (time.perf_counter() - wall, time.process_time() - cpu)
    found: dict[str, int] = {}
    for finding in findings:
        found[finding.kind] = found.get(finding.kind, 0) + 1
    print(
        json.dumps(
            {
                "bench": "continuity",
                "entities": entities,
                "statements": statements,
                "generate_s": round(generate[0], 2),
                "generate_cpu_s": round(generate[1], 2),
                "check_s": round(checked[0], 2),
                "check_cpu_s": round(checked[1], 2),
                "findings": len(findings),
                "planted": sum(planted.values()),
                "found_matches_planted": found == {str(k): v for k, v in planted.items()},
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
