"""Write a large canon graph straight into a migrated SQLite file, for the canon and branch benchmarks.

The world is `bench.continuity_data`'s: eras, a gazetteer, people with births, deaths, parents and moves,
alliances that turn, events inside their eras, items changing hands, play in scenes, attributes from several
authorities, retconned facts with their replacements and retconned minor characters, dependencies, and a
few planted continuity conflicts (three per kind), which the whole-graph check must find, and nothing else.
Here every fifth entity also gets an alias, every changeset its real time (a minute apart, so "as we
believed at T" has history to cut), and every retcon its status change. Rows go in through sqlite3's
executemany: the benchmarks measure queries, not the generator.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench.continuity_data import make_snapshot
from canon.models import CanonLevel, Entity, Statement

ALIAS_EVERY = 5
RETCON_DELAY = dt.timedelta(days=30)


@dataclass(frozen=True)
class Generated:
    """What was generated: counts, the span of the world's clocks, and some names (and aliases) to query."""

    campaign_id: int
    entities: int
    statements: int
    changesets: int
    sample_names: list[str]
    sample_aliases: list[str]
    names_by_type: dict[str, list[str]]
    retcons: int
    aliases: int
    planted: int
    years: tuple[int, int]
    scenes: int
    recorded: tuple[dt.datetime, dt.datetime]


def alias_of(name: str) -> str:
    """Return the alias generated for an entity's name."""
    return f"Old {name}"


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _next_id(cur: sqlite3.Cursor, table: str) -> int:
    cur.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}")
    return int(cur.fetchone()[0])


def generate(
    path: Path, *, entities: int, statements: int, seed: int = 7, campaign: str = "Big"
) -> Generated:
    """Fill a migrated SQLite file with one campaign of exactly this many entities and statements."""
    snapshot, planted = make_snapshot(entities, statements, seed)
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    cur = conn.cursor()
    moments = sorted(
        {e.provenance.recorded_at for e in snapshot.entities.values()}
        | {s.provenance.recorded_at for s in snapshot.statements}
    )
    retcon_time = moments[-1] + RETCON_DELAY
    cur.execute(
        "INSERT INTO campaigns (name, guild_id, status, settings, created_at) VALUES (?, NULL, 'active', '{}', ?)",
        (campaign, _stamp(moments[0])),
    )
    campaign_id = int(cur.lastrowid or 0)
    # The snapshot's changesets, in time order, then the one that retconned.
    first_changeset = _next_id(cur, "changesets")
    changeset_of = {moment: first_changeset + i for i, moment in enumerate(moments)}
    retcon_changeset = first_changeset + len(moments)
    conn.executemany(
        "INSERT INTO changesets (id, campaign_id, kind, actor_name, recorded_at) VALUES (?, ?, ?, 'gen', ?)",
        [(changeset_of[m], campaign_id, "scene_commit", _stamp(m)) for m in moments]
        + [(retcon_changeset, campaign_id, "retcon", _stamp(retcon_time))],
    )

    entity_base = _next_id(cur, "entities") - 1
    statement_base = _next_id(cur, "statements") - 1
    ordered = sorted(snapshot.entities.values(), key=lambda e: e.id)
    conn.executemany(
        "INSERT INTO entities (id, campaign_id, changeset_id, recorded_at, type, name, name_folded, key, kind,"
        " visibility, attributes, authority, confidence, world_from, world_from_key, world_until,"
        " world_until_key, story_from, story_until) VALUES (?,?,?,?,?,?,?,?,?,?,'{}',?,?,?,?,?,?,?,?)",
        (_entity_row(e, entity_base, campaign_id, changeset_of) for e in ordered),
    )
    aliases = [e for i, e in enumerate(ordered) if i % ALIAS_EVERY == 0]
    conn.executemany(
        "INSERT INTO entity_aliases (campaign_id, changeset_id, recorded_at, entity_id, alias, alias_folded)"
        " VALUES (?,?,?,?,?,?)",
        (
            (
                campaign_id,
                changeset_of[e.provenance.recorded_at],
                _stamp(e.provenance.recorded_at),
                entity_base + e.id,
                alias_of(e.name),
                alias_of(e.name).casefold(),
            )
            for e in aliases
        ),
    )
    conn.executemany(
        "INSERT INTO statements (id, campaign_id, changeset_id, recorded_at, kind, subject_id, predicate,"
        " object_id, value, via, authority, confidence, visibility, replaces_id, world_from, world_from_key,"
        " world_until, world_until_key, story_from, story_until)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            _statement_row(s, entity_base, statement_base, campaign_id, changeset_of)
            for s in snapshot.statements
        ),
    )
    replacement = {s.replaces_id: s.id for s in snapshot.statements if s.replaces_id is not None}
    retconned = [
        ("statement", s.id) for s in snapshot.statements if s.provenance.level == CanonLevel.RETCONNED
    ]
    retconned += [("entity", e.id) for e in ordered if e.provenance.level == CanonLevel.RETCONNED]
    conn.executemany(
        "INSERT INTO status_changes (campaign_id, changeset_id, recorded_at, target_kind, target_id, level,"
        " replacement_id, rationale) VALUES (?,?,?,?,?,'retconned',?,'generated retcon')",
        (
            (
                campaign_id,
                retcon_changeset,
                _stamp(retcon_time),
                kind,
                (statement_base if kind == "statement" else entity_base) + target,
                statement_base + replacement[target]
                if kind == "statement" and target in replacement
                else None,
            )
            for kind, target in retconned
        ),
    )
    conn.executemany(
        "INSERT INTO evidence (campaign_id, changeset_id, recorded_at, target_kind, target_id, kind, scene_id,"
        " turn_from, turn_to, file, line) VALUES (?,?,?,'statement',?,?,?,?,?,?,?)",
        _evidence_rows(snapshot.statements, statement_base, campaign_id, changeset_of),
    )
    by_id = {s.id: s for s in snapshot.statements}
    conn.executemany(
        "INSERT INTO dependencies (campaign_id, changeset_id, recorded_at, statement_id, depends_on_kind,"
        " depends_on_id) VALUES (?,?,?,?,?,?)",
        (
            (
                campaign_id,
                changeset_of[by_id[sid].provenance.recorded_at],
                _stamp(by_id[sid].provenance.recorded_at),
                statement_base + sid,
                kind,
                (statement_base if kind == "statement" else entity_base) + target,
            )
            for sid, targets in snapshot.dependencies.items()
            for kind, target in targets
        ),
    )
    conn.commit()
    conn.execute("ANALYZE")
    conn.close()

    standing = [e for e in ordered if e.provenance.level == CanonLevel.CANON and e.type != "Era"]
    picks = [e.name for e in rng.sample(standing, min(200, len(standing)))]
    by_type: dict[str, list[str]] = {}
    for e in standing:
        by_type.setdefault(e.type, []).append(e.name)
    aliased = [
        alias_of(e.name) for e in aliases if e.provenance.level == CanonLevel.CANON and e.type != "Era"
    ]
    keys = [s.validity.world_from_key for s in snapshot.statements if s.validity.world_from_key is not None]
    scenes = [s.validity.story_from for s in snapshot.statements if s.validity.story_from is not None]
    return Generated(
        campaign_id=campaign_id,
        entities=len(ordered),
        statements=len(snapshot.statements),
        changesets=len(moments) + 1,
        sample_names=picks,
        retcons=len(retconned),
        aliases=len(aliases),
        planted=sum(planted.values()),
        sample_aliases=rng.sample(aliased, min(50, len(aliased))),
        names_by_type=by_type,
        years=(min(keys) // 10000, max(keys) // 10000),
        scenes=max(scenes, default=0),
        recorded=(moments[0], retcon_time),
    )


def _entity_row(
    e: Entity, base: int, campaign_id: int, changeset_of: dict[dt.datetime, int]
) -> tuple[object, ...]:
    v, p = e.validity, e.provenance
    return (
        base + e.id,
        campaign_id,
        changeset_of[p.recorded_at],
        _stamp(p.recorded_at),
        e.type,
        e.name,
        e.name.casefold(),
        e.key,
        e.kind,
        e.visibility.value,
        p.authority.value,
        p.confidence,
        v.world_from,
        v.world_from_key,
        v.world_until,
        v.world_until_key,
        v.story_from,
        v.story_until,
    )


def _statement_row(
    s: Statement, entity_base: int, base: int, campaign_id: int, changeset_of: dict[dt.datetime, int]
) -> tuple[object, ...]:
    v, p = s.validity, s.provenance
    return (
        base + s.id,
        campaign_id,
        changeset_of[p.recorded_at],
        _stamp(p.recorded_at),
        s.kind.value,
        entity_base + s.subject_id,
        s.predicate,
        entity_base + s.object_id if s.object_id is not None else None,
        s.value,
        s.via,
        p.authority.value,
        p.confidence,
        s.visibility.value,
        base + s.replaces_id if s.replaces_id is not None else None,
        v.world_from,
        v.world_from_key,
        v.world_until,
        v.world_until_key,
        v.story_from,
        v.story_until,
    )


def _evidence_rows(
    statements: Iterable[Statement], base: int, campaign_id: int, changeset_of: dict[dt.datetime, int]
) -> Iterable[tuple[object, ...]]:
    for s in statements:
        p = s.provenance
        for e in s.evidence:
            yield (
                campaign_id,
                changeset_of[p.recorded_at],
                _stamp(p.recorded_at),
                base + s.id,
                e.kind.value,
                e.scene_id,
                e.turn_from,
                e.turn_to,
                e.file,
                e.line,
            )
