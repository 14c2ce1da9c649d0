"""The consistent background of the synthetic continuity world: entities first, then statements queued as
units that never overrun the budget."""

from __future__ import annotations

from collections.abc import Callable

from bench.continuity_builder import _AUTHORITIES, _COLOURS, _MOODS, _RANKS, ERAS, PRESENT, _Builder, _era
from canon.models import (
    Authority,
    Validity,
)

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
