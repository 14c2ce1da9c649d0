"""Generate a large canon graph straight into a migrated SQLite file, for the canon and branch benchmarks.

Rows go in through sqlite3's executemany (the benchmarks measure queries, not the generator). The graph is
shaped like play: people with births and some deaths, parents, places over time, alliances and enmities,
events with participants, attributes with mixed authority, every statement with one evidence row.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path

TYPES = ["NPC", "Person", "Location", "Faction", "Item", "Creature", "Event"]
ATTRIBUTES = ["title", "eye_colour", "occupation", "motto", "weapon", "rank"]


@dataclass(frozen=True)
class Generated:
    """What was generated: the campaign id, counts, and some entity names to query."""

    campaign_id: int
    entities: int
    statements: int
    changesets: int
    sample_names: list[str]


def generate(
    path: Path, *, entities: int, statements: int, seed: int = 7, campaign: str = "Big"
) -> Generated:
    """Fill a migrated SQLite file with one campaign of the given size."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    stamp = "2026-01-01 00:00:00.000000"
    cur = conn.cursor()
    cur.execute(
        "INSERT INTO campaigns (name, guild_id, status, settings, created_at) VALUES (?, NULL, 'active', '{}', ?)",
        (campaign, stamp),
    )
    campaign_id = int(cur.lastrowid or 0)
    changesets = max(1, statements // 1000)
    first_cs = None
    for _ in range(changesets):
        cur.execute(
            "INSERT INTO changesets (campaign_id, kind, actor_name, recorded_at) VALUES (?, 'scene_commit', 'gen', ?)",
            (campaign_id, stamp),
        )
        first_cs = first_cs or int(cur.lastrowid or 0)
    assert first_cs is not None
    cur.execute("SELECT coalesce(max(id), 0) FROM entities")
    base_entity = int(cur.fetchone()[0]) + 1
    entity_rows = []
    names = []
    for i in range(entities):
        etype = TYPES[i % len(TYPES)]
        name = f"{etype} {i:06d}"
        names.append(name)
        entity_rows.append(
            (
                campaign_id,
                first_cs + (i * changesets) // entities,
                stamp,
                etype,
                name,
                name.casefold(),
                "concrete",
                "public" if i % 50 else "gm_only",
                "{}",
                "source" if i % 3 == 0 else "gm",
                1.0,
                None if etype != "Event" else 1000 + i % 500,
                i % 300 if etype == "Event" else None,
            )
        )
    conn.executemany(
        "INSERT INTO entities (campaign_id, changeset_id, recorded_at, type, name, name_folded, kind, visibility,"
        " attributes, authority, confidence, world_from_key, story_from) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        entity_rows,
    )
    people = [base_entity + i for i in range(entities) if TYPES[i % len(TYPES)] in {"NPC", "Person"}]
    places = [base_entity + i for i in range(entities) if TYPES[i % len(TYPES)] == "Location"]
    events = [base_entity + i for i in range(entities) if TYPES[i % len(TYPES)] == "Event"]
    factions = [base_entity + i for i in range(entities) if TYPES[i % len(TYPES)] == "Faction"]
    statement_rows = []
    for n in range(statements):
        cs = first_cs + (n * changesets) // statements
        roll = n % 10
        if roll < 2:  # a life: born, sometimes dead
            who = people[rng.randrange(len(people))]
            born = 1000 + rng.randrange(400)
            value = "alive" if roll == 0 else "dead"
            key = born * 10000 if roll == 0 else (born + 30 + rng.randrange(60)) * 10000
            statement_rows.append(
                (campaign_id, cs, stamp, "state", who, "state", None, value, key, None, None)
            )
        elif roll < 4:
            who = people[rng.randrange(len(people))]
            where = places[rng.randrange(len(places))]
            start = 1000 + rng.randrange(500)
            statement_rows.append(
                (
                    campaign_id,
                    cs,
                    stamp,
                    "relation",
                    who,
                    "LOCATED_IN",
                    where,
                    None,
                    start * 10000,
                    (start + 5) * 10000,
                    None,
                )
            )
        elif roll < 6:
            a, b = people[rng.randrange(len(people))], factions[rng.randrange(len(factions))]
            pred = "MEMBER_OF"
            statement_rows.append((campaign_id, cs, stamp, "relation", a, pred, b, None, None, None, None))
        elif roll < 8:
            who = people[rng.randrange(len(people))]
            ev = events[rng.randrange(len(events))]
            statement_rows.append(
                (campaign_id, cs, stamp, "relation", who, "PARTICIPATED_IN", ev, None, None, None, None)
            )
        else:
            who = base_entity + rng.randrange(entities)
            attr = ATTRIBUTES[rng.randrange(len(ATTRIBUTES))]
            statement_rows.append(
                (
                    campaign_id,
                    cs,
                    stamp,
                    "attribute",
                    who,
                    attr,
                    None,
                    f"value {rng.randrange(1000)}",
                    None,
                    None,
                    n % 300,
                )
            )
    conn.executemany(
        "INSERT INTO statements (campaign_id, changeset_id, recorded_at, kind, subject_id, predicate, object_id, value,"
        " world_from_key, world_until_key, story_from, authority, confidence, visibility)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,'gm',1.0,'public')",
        statement_rows,
    )
    cur.execute("SELECT min(id) FROM statements WHERE campaign_id = ?", (campaign_id,))
    first_statement = int(cur.fetchone()[0])
    conn.executemany(
        "INSERT INTO evidence (campaign_id, changeset_id, recorded_at, target_kind, target_id, kind, scene_id,"
        " turn_from, turn_to) VALUES (?,?,?,'statement',?,'turns',?,?,?)",
        (
            (campaign_id, row[1], stamp, first_statement + i, 1 + i % 300, 1 + i % 40, 2 + i % 40)
            for i, row in enumerate(statement_rows)
        ),
    )
    conn.commit()
    conn.execute("ANALYZE")
    conn.close()
    picks = [names[i] for i in rng.sample(range(entities), min(200, entities)) if i % 50]
    return Generated(campaign_id, entities, statements, changesets, picks)
