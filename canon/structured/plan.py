"""Ingest stage 2: the entity each entry will be (kept, adopted from canon, created, or replacing an old one),
and the edges checked against the ontology before anything is written.

An entry whose name, type, visibility or (Era/Event) dates changed gets a new entity with the same key, which
replaces the old one. An entry whose id is new but whose name and type match exactly one standing keyless
entity (made in play or from prose) adopts it instead of duplicating it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from canon.errors import InvalidInput
from canon.graph import fold, lineage_filter
from canon.structured.facts import clean_name, entity_fingerprint, entity_validity
from canon.structured.planned import Planned
from canon.structured.resolve import Index
from canon.structured.state import IngestState
from canon.structured.versions import CHUNK
from canon.tables import EntityRow
from canon.visibility import entity_hidden

# Entity types whose validity is their data (bounds, date): a change there replaces the entity.
DATED_TYPES = frozenset({"Era", "Event"})
NAME_LIMIT = 200


async def plan_entities(state: IngestState, index: Index) -> dict[str, Planned]:
    """Decide for every entry: keep its entity, adopt one from canon, create one, or replace one."""
    planned: dict[str, Planned] = {}
    adopt_by_name: dict[str, list[str]] = {}
    for key, (loaded, entry) in index.defined.items():
        name = clean_name(entry.name)
        if len(name) > NAME_LIMIT:
            state.error(
                loaded.name, entry.line, entry.column, f'"name" is longer than {NAME_LIMIT} characters'
            )
            continue
        validity = entity_validity(entry)
        fp = entity_fingerprint(entry.entity_type, name, entry.visibility, validity)
        plan = Planned(entry, loaded.name, fp, validity, "create", type=entry.entity_type, name=name)
        planned[key] = plan
        old = index.old_entries.get(key)
        if old is not None:
            info = old[1]
            plan.old_id = int(info["e"])
            plan.type = str(info.get("t") or entry.entity_type)
            plan.action = "keep" if info.get("f") == fp else "replace"
            continue
        row = index.canon_keys.get(key)
        if row is not None:
            _adopt(state, plan, row)
            continue
        plan.folded = fold(name)
        adopt_by_name.setdefault(plan.folded, []).append(key)
    if adopt_by_name:
        await _adopt_by_name(state, index, planned, adopt_by_name)
    retconned = await state.retconned(
        "entity", [p.old_id for p in planned.values() if p.old_id is not None and p.action == "keep"]
    )
    for plan in planned.values():
        if plan.action == "keep" and plan.old_id in retconned:
            plan.action = "replace"  # retconned meanwhile (by a GM): the file says it exists, so it does
    for plan in planned.values():
        if plan.action in ("keep", "adopt"):
            plan.entity_id = plan.old_id
    return planned


def _adopt(state: IngestState, plan: Planned, row: Any) -> None:
    """Take over an existing entity: as it is when it matches the entry, else through a replacement."""
    plan.old_id = row.id
    entry = plan.entry
    wanted = entry.entity_type
    same_type = row.type == wanted or state.ontology.is_a(row.type, [wanted])
    plan.type = row.type if same_type else wanted
    same = (
        same_type
        and row.name == plan.name
        and entity_hidden(row.visibility) == entity_hidden(entry.visibility)
        and (
            wanted not in DATED_TYPES
            or (row.world_from, row.world_until) == (plan.validity.world_from, plan.validity.world_until)
        )
    )
    plan.action = "adopt" if same else "replace"


async def _adopt_by_name(
    state: IngestState, index: Index, planned: dict[str, Planned], candidates: dict[str, list[str]]
) -> None:
    """Adopt standing keyless entities whose name (and a compatible type) is exactly an entry's."""
    names = sorted(candidates)
    table = EntityRow.__table__
    for start in range(0, len(names), CHUNK):
        chunk = names[start : start + CHUNK]
        query = select(table).where(
            table.c.name_folded.in_(chunk), table.c.key.is_(None), lineage_filter(table.c, state.steps)
        )
        rows = [r for r in (await state.session.execute(query)).all() if r.id not in index.owned_entities]
        retconned = await state.retconned("entity", [r.id for r in rows])
        by_name: dict[str, list[Any]] = {}
        for row in rows:
            if row.id not in retconned:
                by_name.setdefault(row.name_folded, []).append(row)
        for folded, found in by_name.items():
            keys = candidates.get(folded, [])
            if len(keys) != 1:
                continue  # two entries share the name: adopting one would be a guess
            plan = planned[keys[0]]
            wanted = plan.entry.entity_type
            fitting = [r for r in found if r.type == wanted or state.ontology.is_a(r.type, [wanted])]
            if len(fitting) == 1:
                _adopt(state, plan, fitting[0])


def check_endpoints(state: IngestState, index: Index, planned: dict[str, Planned]) -> None:
    """Report relations the ontology does not allow between the types at their ends (before any write)."""
    allowed: dict[tuple[str, str, str], str | None] = {}
    # The type of every key (a planned entry's, else the known entity's), in one map: a big tree asks it
    # for tens of thousands of ends.
    types = {key: known.type for key, known in index.known.items()}
    types.update((key, plan.type) for key, plan in planned.items())
    for loaded in state.changed:
        assert loaded.result is not None
        for relation in loaded.result.relations:
            ends = (relation.type, types[relation.source_id], types[relation.target_id])
            if ends not in allowed:
                try:
                    state.ontology.check_endpoints(*ends)
                    allowed[ends] = None
                except InvalidInput as error:
                    allowed[ends] = error.message
            problem = allowed[ends]
            if problem is not None:
                state.error(
                    loaded.name,
                    relation.line,
                    relation.column,
                    f'"{relation.field}" cannot be written: {problem}',
                )


def entity_ids(index: Index, planned: dict[str, Planned]) -> dict[str, int]:
    """Return the entity id of every key the files define or use (every entity exists by now)."""
    ids = {key: known.entity_id for key, known in index.known.items() if known.entity_id is not None}
    for key, plan in planned.items():
        assert plan.entity_id is not None
        ids[key] = plan.entity_id
    return ids
