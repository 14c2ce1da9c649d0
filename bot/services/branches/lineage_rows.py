"""The rows a campaign sees, table by table, its ancestors' included up to its fork points (for export).

A branch's export must stand alone: besides the rows it wrote, it carries what it inherits, cut exactly as the
branch sees it. Canon rows go through the lineage filter (changeset, scene order, world date) and then follow
the rows they hang off (aliases their entity, evidence and retcons their target). Narrative rows follow the
ancestors' scenes within reach (`memory.lineage`); imported sources their import time; rows without a campaign
of their own (turn revisions, source versions, scene casts) their parent row. An ancestor's bookkeeping (its
proposals, review cards, recorded conflicts, answered questions, token use) is its own business and stays
out; the asking campaign's own bookkeeping is in. Of the YAML import records, each file's version the campaign
compares a re-import with (its own latest, else the nearest ancestor's latest before the fork) is in, so a
restored archive still knows what each file produced.

For a root campaign this is simply every row it owns.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import CampaignRow, lineage
from canon.forks import LineageStep
from canon.graph import lineage_filter
from canon.visibility import source_stored_hidden, source_visibility_of
from memory.knowledge.repository import kept_flags
from memory.lineage import Reach, reaches_of

__all__ = ["NOT_INHERITED", "lineage_row_sets", "lineage_tables"]

#: Tables holding an ancestor's own bookkeeping: a branch inherits none of their rows.
NOT_INHERITED = frozenset(
    {
        "proposals",
        "review_cards",
        "conflicts",
        "knowledge_retrievals",
        "knowledge_index_state",
        "llm_usage",
    }
)
#: Discord and scheduler bookkeeping: never part of a campaign's rows.
NOT_EXPORTED = frozenset({"channel_bindings", "ops_idle_reminders"})
# Canon tables in the order their rows depend on each other (targets before what points at them).
_CANON_ORDER = (
    "changesets",
    "entities",
    "statements",
    "entity_aliases",
    "dependencies",
    "status_changes",
    "evidence",
)
_CHUNK = 500


def _tables() -> list[Table]:
    from bot.schema.database import metadata

    ordered = [t for t in metadata().sorted_tables if t.name != CampaignRow.__tablename__]
    canon = sorted((t for t in ordered if t.name in _CANON_ORDER), key=lambda t: _CANON_ORDER.index(t.name))
    return canon + [t for t in ordered if t.name not in _CANON_ORDER and t.name not in NOT_EXPORTED]


def _visible(
    table: str,
    row: dict[str, Any],
    reach: Reach,
    step: LineageStep,
    kept: dict[str, set[int]],
) -> bool:
    """Return whether a row of a lineage campaign belongs to what the asking campaign sees."""
    if table == "entity_aliases":
        return row["entity_id"] in kept["entities"]
    if table == "dependencies":
        return row["statement_id"] in kept["statements"]
    if table in {"evidence", "status_changes"}:
        target = "entities" if row["target_kind"] == "entity" else "statements"
        return row["target_id"] in kept[target]
    if not reach.inherited:
        return True
    if table in NOT_INHERITED:
        return False
    if table == "changesets":
        return bool(row["id"] <= step.up_to_changeset)
    if table in {"entities", "statements"}:
        return True  # cut in SQL by the lineage filter
    if table == "scenes":
        return reach.sees_scene(row["id"])
    if table == "knowledge_sources":
        return step.up_to_time is None or row["imported_at"] <= step.up_to_time
    if table == "knowledge_chunks":
        return row["source_id"] in kept.get("knowledge_sources", set())
    if row.get("scene_id") is not None:
        return row["scene_id"] in kept.get("scenes", set())
    when = row.get("created_at") or row.get("recorded_at")
    return when is None or reach.sees_time(when)


def _current_file_versions(
    rows: list[dict[str, Any]], lineage_ids: list[int], kept: dict[str, set[int]]
) -> list[dict[str, Any]]:
    """Keep, per YAML file, the record a re-import compares with: the nearest campaign's latest version.

    The record's links to entities and facts the campaign does not see (an at-date fork cuts later-dated
    ones) are left out with them: what the archive does not hold, a re-import writes again.
    """
    distance = {cid: index for index, cid in enumerate(lineage_ids)}
    current: dict[str, dict[str, Any]] = {}
    for row in rows:
        best = current.get(row["file"])
        if best is None or (distance[row["campaign_id"]], -row["changeset_id"]) < (
            distance[best["campaign_id"]],
            -best["changeset_id"],
        ):
            current[row["file"]] = row
    entities, statements = kept.get("entities", set()), kept.get("statements", set())
    out = []
    for row in sorted(current.values(), key=lambda r: r["id"]):
        entries = {
            key: entry
            for key, entry in (row["entries"] or {}).items()
            if entry.get("e") is None or entry["e"] in entities
        }
        slots = {slot: pair for slot, pair in (row["statements"] or {}).items() if int(pair[0]) in statements}
        out.append(row | {"entries": entries, "statements": slots})
    return out


def _nearest_by_filename(rows: list[dict[str, Any]], lineage_ids: list[int]) -> list[dict[str, Any]]:
    """Keep, per file name, the source of the nearest campaign (a branch's file shadows its parent's)."""
    distance = {cid: index for index, cid in enumerate(lineage_ids)}
    nearest: dict[str, dict[str, Any]] = {}
    for row in rows:
        current = nearest.get(row["filename"])
        if current is None or distance[row["campaign_id"]] < distance[current["campaign_id"]]:
            nearest[row["filename"]] = row
    return sorted(nearest.values(), key=lambda r: r["id"])


def _with_kept_flags(row: dict[str, Any], steps: Sequence[LineageStep]) -> dict[str, Any]:
    """Return a source's row with its flags as the campaign sees them (hidden or disabled at a fork, kept so)."""
    hidden, enabled = kept_flags(
        row["id"], row["campaign_id"], source_stored_hidden(row["visibility"]), row["enabled"], steps
    )
    return row | {
        "visibility": source_visibility_of(True).value if hidden else row["visibility"],
        "enabled": enabled,
    }


async def _children(
    session: AsyncSession, table: Table, kept: dict[str, set[int]]
) -> list[dict[str, Any]] | None:
    """Return the rows of a table without a campaign column whose parent row was kept (None: no such parent)."""
    for fk in table.foreign_keys:
        parent = fk.column.table.name
        if parent in kept and fk.column.name == "id":
            ids = sorted(kept[parent])
            rows: list[dict[str, Any]] = []
            for start in range(0, len(ids), _CHUNK):
                query = select(table).where(fk.parent.in_(ids[start : start + _CHUNK]))
                rows += [dict(r._mapping) for r in (await session.execute(query)).all()]
            return rows
    return None


async def lineage_row_sets(
    session: AsyncSession, campaign_id: int, *, tables: Sequence[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Return, by table name, the rows `campaign_id` sees (its own and its inherited ones), plus its lineage's
    campaign rows under "campaigns". `tables` limits the result (the tables they depend on are still read)."""
    steps = await lineage(session, campaign_id)
    reaches = {r.campaign_id: r for r in await reaches_of(session, steps)}
    step_of = {s.campaign_id: s for s in steps}
    ids = list(step_of)
    sets: dict[str, list[dict[str, Any]]] = {}
    kept: dict[str, set[int]] = {}
    for table in _tables():
        columns = table.c
        if "campaign_id" in columns:
            if "changeset_id" in columns:
                query = select(table).where(lineage_filter(columns, steps))
            else:
                query = select(table).where(columns.campaign_id.in_(ids))
            rows = [
                row
                for row in (dict(r._mapping) for r in (await session.execute(query)).all())
                if row["campaign_id"] in reaches
                and _visible(table.name, row, reaches[row["campaign_id"]], step_of[row["campaign_id"]], kept)
            ]
        else:
            found = await _children(session, table, kept)
            if found is None:
                continue
            rows = found
        if table.name == "knowledge_sources":
            rows = [_with_kept_flags(row, steps) for row in _nearest_by_filename(rows, ids)]
        elif table.name == "structured_files":
            rows = _current_file_versions(rows, ids, kept)
        sets[table.name] = rows
        if "id" in columns:
            kept[table.name] = {row["id"] for row in rows}
    campaigns = CampaignRow.__table__
    sets["campaigns"] = [
        dict(r._mapping)
        for r in (await session.execute(select(campaigns).where(campaigns.c.id.in_(ids)))).all()
    ]
    if tables is not None:
        wanted = set(tables)
        sets = {name: rows for name, rows in sets.items() if name in wanted}
    return sets


async def lineage_tables(
    session: AsyncSession,
    campaign_id: int,
    names: Sequence[str],
    *,
    columns: dict[str, Sequence[str]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Return `lineage_row_sets` for the tables named, as an export writes them: JSON-ready values (datetimes
    in ISO 8601), rows in id order, and only the `columns` given for a table when some are."""
    sets = await lineage_row_sets(session, campaign_id)
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        only = (columns or {}).get(name)
        rows = []
        for row in sets.get(name, []):
            kept = {k: v for k, v in row.items() if only is None or k in only}
            rows.append({k: v.isoformat() if isinstance(v, dt.datetime) else v for k, v in kept.items()})
        key = "id" if rows and "id" in rows[0] else ("scene_id" if rows and "scene_id" in rows[0] else None)
        out[name] = sorted(rows, key=lambda r: r[key]) if key else rows
    return out
