"""The GM's tools on NPC memories: list with filters, search, edit, delete by criteria, scope info, scopes.

`NpcMemoryDesk` is what `/npc memories`, `/npc memory ...` and `lorekeeper memory ...` call: it turns names into
ids (the NPC by name, a scene by its number) and criteria into a `memory.memory_ops.MemoryQuery`, then calls
the one store (`memory.npc_memory.NpcMemoryStore`). Every method is the GM's (the callers check it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from bot.services.canon_access import CanonAccess
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.models import Viewer
from memory.memory_ops import MemoryPage, MemoryQuery, ScopeInfo, clean_categories
from memory.npc_memory import MemoryRecord, NpcMemoryStore, scope_path

META_FORM = "key=value pairs separated by commas, like mood=angry, source=rumour"


def parse_meta(text: str | None) -> dict[str, str | int | float | bool]:
    """Return `key=value, key=value` as metadata (numbers and true/false read as such), or `InvalidInput`."""
    found: dict[str, str | int | float | bool] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value or len(key) > 40 or len(value) > 200:
            raise InvalidInput(f"“{part.strip()[:60]}” is not metadata; use {META_FORM}.")
        found[key] = _value(value)
    return found


def _value(text: str) -> str | int | float | bool:
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


class NpcMemoryDesk:
    """The GM's operations on a campaign's NPC memories."""

    def __init__(self, memories: NpcMemoryStore, access: CanonAccess) -> None:
        self.memories = memories
        self.access = access

    async def npc(self, campaign: Campaign, name: str) -> tuple[int, str]:
        """Return an NPC's id and name."""
        async with self.memories.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            entity = await reader.resolve(name)
            return entity.id, entity.name

    async def query(
        self,
        campaign: Campaign,
        *,
        npc: str | None = None,
        scope: str | None = None,
        categories: str | Sequence[str] | None = None,
        meta: str | Mapping[str, Any] | None = None,
        older_than_days: float | None = None,
        include_private: bool = True,
    ) -> MemoryQuery:
        """Return the criteria as a query: an NPC by name, a scope path (or `npc`/`npc/scene/N` under the
        NPC's own path), categories, metadata, an age."""
        npc_id = (await self.npc(campaign, npc))[0] if npc else None
        prefix = None
        if scope:
            prefix = scope if scope.startswith("/") else f"{scope_path(campaign.id)}/{scope.strip('/')}"
            if not prefix.startswith(scope_path(campaign.id)):
                raise InvalidInput(f"A scope of this campaign starts with {scope_path(campaign.id)}.")
        if older_than_days is not None and older_than_days < 0:
            raise InvalidInput("An age is 0 days or more.")
        before = (
            dt.datetime.now(dt.UTC) - dt.timedelta(days=older_than_days)
            if older_than_days is not None
            else None
        )
        return MemoryQuery(
            npc_id=npc_id,
            scope_prefix=prefix,
            categories=clean_categories(categories),
            meta=parse_meta(meta) if isinstance(meta, str) or meta is None else dict(meta),
            created_before=before,
            include_private=include_private,
        )

    async def find(
        self,
        campaign: Campaign,
        query: MemoryQuery,
        *,
        text: str | None = None,
        min_score: float | None = None,
        page: int = 1,
    ) -> MemoryPage:
        """Return a page of memories meeting the query (the most similar to `text` first, when given)."""
        return await self.memories.find(campaign.id, query, text=text, min_score=min_score, page=page)

    async def edit(
        self,
        campaign: Campaign,
        memory_id: int,
        *,
        text: str | None = None,
        importance: float | None = None,
        categories: str | None = None,
        private: bool | None = None,
        meta: str | None = None,
    ) -> MemoryRecord:
        """Change a memory (its vector follows a new text)."""
        if all(v is None for v in (text, importance, categories, private, meta)):
            raise InvalidInput("Say what to change: the text, importance, categories, private or metadata.")
        record: MemoryRecord = await self.memories.update(
            campaign.id,
            memory_id,
            content=text,
            importance=importance,
            categories=categories,
            private=private,
            meta=parse_meta(meta) if meta is not None else None,
        )
        return record

    async def delete(self, campaign: Campaign, query: MemoryQuery) -> list[int]:
        """Forget every memory meeting the query (at least one criterion)."""
        return await self.memories.delete(campaign.id, query)

    async def scope_info(
        self, campaign: Campaign, scope: str | None = None, npc: str | None = None
    ) -> ScopeInfo:
        """Return what a scope holds: the NPC's own when `npc` is given, else the path, else the campaign."""
        if npc:
            path = scope_path(campaign.id, (await self.npc(campaign, npc))[0])
        elif scope:
            path = (await self.query(campaign, scope=scope)).scope_prefix or scope_path(campaign.id)
        else:
            path = scope_path(campaign.id)
        return await self.memories.scope_info(campaign.id, path)

    async def scopes(self, campaign: Campaign) -> dict[str, int]:
        """Return every scope holding memories (with its ancestors) and how many it holds."""
        return await self.memories.scopes(campaign.id)

    async def scope_names(self, campaign: Campaign, scopes: Sequence[str]) -> dict[str, str]:
        """Return each scope path in words: "the whole campaign", "Mira", "Mira in scene 3"."""
        parsed: dict[str, tuple[int | None, int | None]] = {}
        for scope in scopes:
            parts = scope.strip("/").split("/")
            npc = int(parts[3]) if len(parts) >= 4 and parts[2] == "npc" and parts[3].isdigit() else None
            scene = int(parts[5]) if len(parts) >= 6 and parts[4] == "scene" and parts[5].isdigit() else None
            parsed[scope] = (npc, scene)
        npc_ids = {n for n, _ in parsed.values() if n}
        async with self.memories.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            entities = await reader.entities(npc_ids, include_retconned=True) if npc_ids else {}
        names: dict[str, str] = {}
        for scope, (npc, scene) in parsed.items():
            if npc is None:
                names[scope] = "the whole campaign"
                continue
            who = entities[npc].name if npc in entities else "an NPC no longer in canon"
            names[scope] = who if scene is None else f"{who}, in one scene"
        return names
