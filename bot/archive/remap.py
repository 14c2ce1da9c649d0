"""Old ids to new ones: an archive restores into a new campaign, so every reference is remapped.

Columns are remapped where the rows are restored (`bot.archive.restore`); this module remaps the ids inside
JSON (proposal content and evidence, continuity findings, NPC memory scopes) and recomputes the fingerprints
of structured lore built on ids. A reference to something the archive does not hold becomes empty rather than
pointing at another campaign's row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bot.archive.file import ArchiveError
from canon.continuity import ConflictKind, fingerprint
from canon.models import Validity
from canon.structured.facts import statement_fingerprint


class Ids:
    """Old id -> new id, per table; a required reference that is missing makes the archive inconsistent."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[int, int]] = {}

    def put(self, table: str, old: Iterable[int], new: Iterable[int]) -> None:
        self.maps.setdefault(table, {}).update(zip(old, new, strict=True))

    def get(self, table: str, old: Any) -> int | None:
        if old is None:
            return None
        return self.maps.get(table, {}).get(int(old))

    def need(self, table: str, old: Any, what: str) -> int:
        found = self.get(table, old)
        if found is None:
            raise ArchiveError(
                f"The archive is inconsistent: {what} refers to {table} #{old}, which it does not contain."
            )
        return found

    def target(self, kind: str, old: Any, what: str, *, required: bool = True) -> int | None:
        """Map the id of an `entity` or a `statement` (columns named target_kind/target_id and the like)."""
        table = {"entity": "entities", "statement": "statements"}.get(kind)
        if table is None:
            raise ArchiveError(f"The archive is inconsistent: {what} has an unknown target kind {kind!r}.")
        return self.need(table, old, what) if required else self.get(table, old)


def evidence_json(item: dict[str, Any], ids: Ids, chunks: dict[int, int]) -> dict[str, Any]:
    """Return one evidence dict (in proposals and findings) with its ids remapped (unknown ones emptied)."""
    out = dict(item)
    if out.get("scene_id") is not None:
        out["scene_id"] = ids.get("scenes", out["scene_id"])
    if out.get("source_id") is not None:
        out["source_id"] = ids.get("knowledge_sources", out["source_id"])
    if out.get("chunk_id") is not None:
        out["chunk_id"] = chunks.get(int(out["chunk_id"]))
    if out.get("proposal_id") is not None:
        out["proposal_id"] = ids.get("proposals", out["proposal_id"])
    return out


def finding_json(item: dict[str, Any], ids: Ids, chunks: dict[int, int]) -> dict[str, Any]:
    """Return a continuity finding (a conflict's details, a proposal's warning) with its ids remapped.

    Unknown ids (a warning about a statement that was only simulated) are left out of the id lists; a side
    about one keeps its sentence with id 0, which no row has.
    """
    out = dict(item)
    out["entity_ids"] = [n for n in (ids.get("entities", i) for i in item.get("entity_ids") or []) if n]
    out["statement_ids"] = [
        n for n in (ids.get("statements", i) for i in item.get("statement_ids") or []) if n
    ]
    if item.get("prevailing_id") is not None:
        out["prevailing_id"] = ids.get("statements", item["prevailing_id"])
    sides = []
    for side in item.get("sides") or []:
        new = dict(side)
        if side.get("statement_id") is not None:
            new["statement_id"] = ids.get("statements", side["statement_id"]) or 0
        if side.get("entity_id") is not None:
            new["entity_id"] = ids.get("entities", side["entity_id"]) or 0
        new["evidence"] = [evidence_json(e, ids, chunks) for e in side.get("evidence") or []]
        sides.append(new)
    if "sides" in item:
        out["sides"] = sides
    kind = item.get("kind")
    if "fingerprint" in item and kind in ConflictKind._value2member_map_:
        out["fingerprint"] = fingerprint(ConflictKind(str(kind)), out["statement_ids"], out["entity_ids"])
    return out


def refs_json(value: Any, ids: Ids, *, proposals: bool) -> Any:
    """Return proposal content with every entity reference (`{name, entity_id, proposal_id}`) remapped.

    With `proposals=False` references to other proposals are left for the second pass (their new ids are not
    known yet).
    """
    if isinstance(value, list):
        return [refs_json(v, ids, proposals=proposals) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: refs_json(v, ids, proposals=proposals) for k, v in value.items()}
    if "name" in value and ("entity_id" in value or "proposal_id" in value):
        if value.get("entity_id") is not None and not proposals:
            out["entity_id"] = ids.get("entities", value["entity_id"])
        if value.get("proposal_id") is not None and proposals:
            out["proposal_id"] = ids.get("proposals", value["proposal_id"])
    return out


_SCOPE = re.compile(r"^/campaign/\d+(?:/npc/(?P<npc>\d+)(?:/scene/(?P<scene>\d+))?)?$")


def scope_path(scope: str, campaign_id: int, ids: Ids) -> str:
    """Return an NPC memory scope path in the new campaign, its NPC and scene remapped."""
    match = _SCOPE.fullmatch(scope)
    if match is None:
        return scope
    out = f"/campaign/{campaign_id}"
    if match["npc"] is not None:
        out += f"/npc/{ids.need('entities', match['npc'], 'an NPC memory scope')}"
    if match["scene"] is not None:
        out += f"/scene/{ids.need('scenes', match['scene'], 'an NPC memory scope')}"
    return out


def statement_fp(row: dict[str, Any], subject: int, obj: int | None) -> str:
    validity = Validity(world_from=row.get("world_from"), world_until=row.get("world_until"))
    return statement_fingerprint(
        str(row["kind"]),
        subject,
        str(row["predicate"]),
        obj,
        row.get("value"),
        validity,
        str(row.get("visibility") or "public"),
    )
