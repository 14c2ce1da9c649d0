"""Generate structured-lore YAML for benchmarks and tests: typical files of each kind and big family trees.

Every generator is deterministic (seeded) and returns YAML text. Dates use one era, `age_of_houses`
(years 0 to 3000), defined by `timeline_text`; ingest the timeline first (or in the same batch) so the other
files' dates resolve. Apart from that era, each file only refers to ids it defines.
"""

from __future__ import annotations

import random
from collections.abc import Callable

ERA = "age_of_houses"

_FIRST = [
    "Aldo",
    "Bera",
    "Cato",
    "Dara",
    "Eryn",
    "Fael",
    "Gwen",
    "Hale",
    "Isra",
    "Joss",
    "Kael",
    "Lira",
    "Maro",
    "Nessa",
    "Orin",
    "Pell",
    "Quen",
    "Rhea",
    "Soren",
    "Tamsin",
    "Ulric",
    "Vesna",
    "Wren",
    "Xara",
    "Yorick",
    "Zella",
    "Bram",
    "Cora",
    "Dain",
    "Edda",
    "Finn",
    "Gilda",
    "Hugo",
    "Ilse",
    "Jory",
    "Kira",
    "Loth",
    "Mira",
    "Ned",
    "Oona",
]
_HOUSES = [
    "Vyr",
    "Ashveil",
    "Raventhorne",
    "Duskmere",
    "Holloway",
    "Ironwood",
    "Marchbank",
    "Stormcrow",
    "Thistle",
    "Wyndham",
]


def _people_name(rng: random.Random, index: int) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_HOUSES)} {index}"


def family_tree_text(
    people: int = 10_000, generations: int = 30, *, seed: int = 7, anachronisms: int = 0
) -> str:
    """Return a family tree of `people` members over `generations` generations, couples and parents included.

    Generation g is born around year 100 + 25*g; each member of a later generation has two parents from the
    previous one (a couple). `anachronisms` children are planted born after one of their parents and before
    the other: exactly one `born_before_parent` each (the loader accepts them; the continuity check on ingest
    reports them). A tree too small to hold that many is refused (ValueError).
    """
    rng = random.Random(seed)
    per_generation = max(2, people // generations)
    lines = [
        f"# A generated lineage: {people} people over {generations} generations.",
        "lineage: generated_house",
        "name: The Generated House",
        "founding_ancestor: p0_0",
        "description: A family tree generated for benchmarks.",
        "members:",
    ]
    born: dict[str, int] = {}
    died: dict[str, int] = {}
    previous: list[tuple[str, str]] = []  # couples of the previous generation
    made = 0
    planted = 0
    for generation in range(generations):
        count = per_generation if generation < generations - 1 else people - made
        if count <= 0:
            break
        ids = [f"p{generation}_{i}" for i in range(count)]
        couples = [(ids[i], ids[i + 1]) for i in range(0, count - 1, 2)]
        spouse = {a: b for a, b in couples} | {b: a for a, b in couples}
        for i, person in enumerate(ids):
            parents: tuple[str, str] | None = previous[i % len(previous)] if previous else None
            if parents is not None:
                year = max(born[parents[0]], born[parents[1]]) + rng.randint(20, 30)
                if planted < anachronisms and i % 97 == 5 and born[parents[1]] < born[parents[0]] - 5:
                    year = born[parents[0]] - 5  # born before one parent (after the other): one anachronism
                    planted += 1
            else:
                year = 100 + rng.randint(0, 10)
            born[person] = year
            died[person] = year + rng.randint(55, 80)
            lines.append(f"  - id: {person}")
            lines.append(f"    name: {_people_name(rng, made)}")
            lines.append(f"    born: {ERA}.year_{year}")
            lines.append(f"    died: {ERA}.year_{died[person]}")
            if parents is not None:
                lines.append(f"    parents: [{parents[0]}, {parents[1]}]")
            if person in spouse:
                lines.append(f"    spouse_of: [{spouse[person]}]")
            if made % 10 == 0:
                lines.append(f"    titles: [Heir of the {rng.choice(_HOUSES)} line]")
            if made % 3 == 0:
                lines.append(f"    description: Member {made} of generation {generation}.")
            made += 1
        previous = couples or previous
    if planted < anachronisms:
        raise ValueError(f"only {planted} of {anachronisms} anachronisms fit in a tree of {people} people")
    return "\n".join(lines) + "\n"


def timeline_text(events: int = 100, *, seed: int = 11) -> str:
    """Return a timeline: the era `age_of_houses` with four sub-eras and `events` dated events."""
    rng = random.Random(seed)
    lines = [
        "kind: timeline",
        "eras:",
        f"  - era: {ERA}",
        "    name: The Age of Houses",
        "    start: 0",
        "    end: 3000",
        "    description: The age the generated houses live in.",
    ]
    subs = [
        ("age_of_founding", 0, 749),
        ("age_of_iron", 750, 1499),
        ("age_of_ash", 1500, 2249),
        ("age_of_frost", 2250, 3000),
    ]
    for sub, start, end in subs:
        lines += [
            f"  - era: {sub}",
            f"    name: The {sub.replace('_', ' ').title()}",
            f"    parent_era: {ERA}",
        ]
        lines += [f"    start: {start}", f"    end: {end}"]
    lines.append("events:")
    for i in range(events):
        sub, start, end = subs[i % len(subs)]
        year = rng.randint(start, end)
        lines += [
            f"  - id: event_{i}",
            f"    name: Event number {i}",
            f"    era: {ERA}.{sub}",
            f"    year: {year}",
            f"    month: {rng.randint(1, 12)}",
            f"    day: {rng.randint(1, 28)}",
            f"    description: Something notable happened in year {year}.",
            f"    significance: It mattered to {rng.choice(_HOUSES)}.",
        ]
    return "\n".join(lines) + "\n"


def gazetteer_text(places: int = 100, *, seed: int = 13) -> str:
    """Return a gazetteer: ten regions in a tree and `places - 10` locations inside them."""
    rng = random.Random(seed)
    regions = max(1, min(10, places // 10))
    lines = ["regions:"]
    for r in range(regions):
        lines += [f"  - id: region_{r}", f"    name: Region {r}"]
        if r:
            lines.append(f"    parent_region: region_{(r - 1) // 3}")
        lines.append(f"    description: The {rng.choice(_HOUSES)} lands.")
    lines.append("locations:")
    for i in range(places - regions):
        lines += [
            f"  - id: place_{i}",
            f"    name: Place {i}",
            f"    type: {rng.choice(['town', 'keep', 'village', 'pass', 'harbour'])}",
            f"    part_of: region_{i % regions}",
            f"    coordinates: {{x: {rng.randint(0, 4000)}, y: {rng.randint(0, 4000)}}}",
            f"    description: A place of the {rng.choice(_HOUSES)} lands.",
        ]
    return "\n".join(lines) + "\n"


def bestiary_text(creatures: int = 100, *, seed: int = 17) -> str:
    """Return a bestiary of `creatures` creatures, each first appearing at a date; some defeat others."""
    rng = random.Random(seed)
    lines = ["creatures:"]
    for i in range(creatures):
        lines += [
            f"  - id: creature_{i}",
            f"    name: Creature {i}",
            f"    species: {rng.choice(['dragon', 'worm', 'troll', 'wraith', 'giant'])}",
            f"    alignment: {rng.choice(['chaotic evil', 'lawful good', 'neutral', 'NO', 'yes'])}",
            f"    first_appeared: {ERA}.year_{rng.randint(0, 3000)}",
            f"    description: A creature of the {rng.choice(_HOUSES)} wilds.",
        ]
        if i and i % 5 == 0:
            lines.append(f"    defeated_by: [creature_{i - 1}]")
    return "\n".join(lines) + "\n"


def magic_system_text(entries: int = 100, *, seed: int = 19) -> str:
    """Return a magic system file: ten systems and `entries - 10` spells belonging to them."""
    rng = random.Random(seed)
    systems = max(1, min(10, entries // 10))
    lines = ["systems:"]
    for s in range(systems):
        lines += [f"  - id: system_{s}", f"    name: System {s}", f"    source: {rng.choice(_HOUSES)} lore"]
    lines.append("spells:")
    for i in range(entries - systems):
        lines += [
            f"  - id: spell_{i}",
            f"    name: Spell {i}",
            f"    system: system_{i % systems}",
            f"    level: {rng.randint(0, 9)}",
            f"    school: {rng.choice(['evocation', 'abjuration', 'illusion'])}",
            f"    description: A spell of the {rng.choice(_HOUSES)} school.",
        ]
    return "\n".join(lines) + "\n"


def culture_text(entries: int = 100, *, seed: int = 23) -> str:
    """Return a culture file: cultures, their languages, and deities they worship (about `entries` in all)."""
    rng = random.Random(seed)
    third = max(1, entries // 3)
    lines = ["cultures:"]
    for i in range(third):
        lines += [
            f"  - id: culture_{i}",
            f"    name: Culture {i}",
            f"    language: language_{i}",
            f"    description: The folk of the {rng.choice(_HOUSES)} hills.",
        ]
    lines.append("languages:")
    for i in range(third):
        lines += [
            f"  - id: language_{i}",
            f"    name: Language {i}",
            f"    script: {rng.choice(['runic', 'latin', 'none'])}",
            f"    speakers: [culture_{i}]",
        ]
    lines.append("deities:")
    for i in range(entries - 2 * third):
        lines += [
            f"  - id: deity_{i}",
            f"    name: Deity {i}",
            f"    domain: [{rng.choice(['war', 'harvest', 'sea'])}, {rng.choice(['death', 'winter', 'dawn'])}]",
            f"    alignment: {rng.choice(['neutral good', 'lawful evil'])}",
            f"    worshipped_by: [culture_{i % third}]",
        ]
    return "\n".join(lines) + "\n"


def factions_text(factions: int = 100, *, seed: int = 29) -> str:
    """Return a factions file: great houses with lesser factions as members, allies and rivals among them."""
    rng = random.Random(seed)
    lines = ["factions:"]
    for i in range(factions):
        house = rng.choice(_HOUSES)
        lines += [
            f"  - id: faction_{i}",
            f"    name: The {house} Company {i}",
            f"    aliases: [{house} {i}, The {i}th]",
            f"    goals: [Hold the {rng.choice(['pass', 'river', 'coast'])}, Outlast House {rng.choice(_HOUSES)}]",
            f"    description: A company sworn to {house}.",
        ]
        if i >= 10:
            lines.append(f"    members: [faction_{i - 10}]")
        if i % 3 == 0 and i:
            lines.append(f"    allies: [faction_{i - 1}]")
        if i % 4 == 0 and i > 1:
            lines += [f"    rivals: [faction_{i - 2}]", "    gm_only: [rivals]"]
        if i % 7 == 0:
            lines.append("    gm_notes: Secretly bankrupt.")
    return "\n".join(lines) + "\n"


def characters_text(characters: int = 100, factions: int = 100, *, seed: int = 31) -> str:
    """Return a roster of NPCs and a few PCs, each of a faction of `factions_text`, born in the era."""
    rng = random.Random(seed)
    lines = ["characters:"]
    for i in range(characters):
        first, house = rng.choice(_FIRST), rng.choice(_HOUSES)
        born = rng.randint(0, 2900)
        lines += [
            f"  - id: character_{i}",
            f"    name: {first} {house} {i}",
            f"    aliases: [{first} the {rng.choice(['Bold', 'Grey', 'Quiet'])}]",
            f"    faction: faction_{i % factions}",
            f"    titles: [{rng.choice(['Warden', 'Steward', 'Captain'])} of {house}]",
            f"    status: {rng.choice(['alive', 'missing', 'imprisoned', 'wounded'])}",
            f"    born: {ERA}.year_{born}",
            f"    description: A {rng.choice(['sellsword', 'scholar', 'smith'])} of House {house}.",
        ]
        if i % 10 == 0:
            lines.append("    role: pc")
        if i % 3 == 0:
            lines += [f"    died: {ERA}.year_{born + rng.randint(20, 90)}", "    gm_only: [status]"]
        if i % 5 == 0:
            lines.append("    gm_notes: Owes the Pact a debt.")
    return "\n".join(lines) + "\n"


TYPICAL: dict[str, Callable[[], str]] = {
    "timeline": timeline_text,
    "family_tree": lambda: family_tree_text(100, 5, seed=5),
    "gazetteer": gazetteer_text,
    "bestiary": bestiary_text,
    "magic_system": magic_system_text,
    "culture": culture_text,
    "factions": factions_text,
    "characters": characters_text,
}
# What a kind's typical file refers to, imported before it: the era of its dates, the factions of a roster.
PREREQUISITES: dict[str, tuple[str, ...]] = {
    "timeline": (),
    "factions": (),
    "characters": ("timeline", "factions"),
}
