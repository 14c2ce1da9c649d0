"""Insert an archive's rows into a new campaign, in reference order, remapping every id; one transaction.

Each family is restored by its own method, in the order references need: the narrative (scenes, turns, edit
history), the canon graph (changesets first: their order is the graph's clock), the review (proposals, whose
ids evidence needs; references between proposals in a second pass), structured lore bookkeeping, the voice.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import bindparam

from bot.archive.remap import Ids, evidence_json, finding_json, refs_json, scope_path, statement_fp
from bot.archive.tables import BATCH, MODELS, Tables, load_row
from canon.storage import Base
from canon.tables import ProposalRow, StatementRow
from canon.wording.counts import counted
from memory.journal import JournalEntryRow
from memory.scene_tables import SceneRow, TurnRow
from memory.voice_tables import NpcMemoryRow, SceneDigestRow


async def restore_rows(
    session: AsyncSession,
    campaign_id: int,
    tables: Tables,
    ids: Ids,
    chunks: dict[int, int],
    warnings: list[str],
) -> None:
    """Insert every archived row into the new campaign (`ids` gains each table's old -> new map)."""
    restorer = _Restorer(session, campaign_id, tables, ids, chunks, warnings)
    await restorer.narrative()
    statements = await restorer.canon()
    await restorer.review()
    await restorer.structured(statements)
    await restorer.voice()
    await restorer.journal()
    await restorer.notes()
    await session.flush()


class _Restorer:
    def __init__(
        self,
        session: AsyncSession,
        campaign_id: int,
        tables: Tables,
        ids: Ids,
        chunks: dict[int, int],
        warnings: list[str],
    ) -> None:
        self.session = session
        self.campaign_id = campaign_id
        self.tables = tables
        self.ids = ids
        self.chunks = chunks
        self.warnings = warnings

    def rows_of(self, name: str) -> list[dict[str, Any]]:
        return [load_row(MODELS[name], r) for r in self.tables.get(name, [])]

    async def put(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows (their archived ids left out) and remember each one's new id."""
        new = await _insert(self.session, MODELS[name], [_without_id(r) for r in rows])
        self.ids.put(name, [r["id"] for r in rows], new)

    def written(self, row: dict[str, Any], what: str) -> None:
        """Move a row the canon graph wrote into the new campaign and its remapped changeset."""
        row["campaign_id"] = self.campaign_id
        row["changeset_id"] = self.ids.need("changesets", row["changeset_id"], what)

    # -- narrative: scenes, turns, edit history

    async def narrative(self) -> None:
        ids = self.ids
        scenes = self.rows_of("scenes")
        open_channels = set(
            (
                await self.session.execute(select(SceneRow.channel_id).where(SceneRow.status != "completed"))
            ).scalars()
        )
        detached = 0
        for row in scenes:
            row["campaign_id"], row["guild_id"] = self.campaign_id, None
            if row["status"] != "completed":
                if row["channel_id"] in open_channels:
                    row["channel_id"] = -1 - secrets.randbelow(2**62)  # no Discord channel has this id
                    detached += 1
                open_channels.add(row["channel_id"])
        if detached:
            self.warnings.append(
                f"{counted(detached, 'open scene')} played in a channel that already has an open scene; they are kept "
                "but no longer tied to a channel."
            )
        await self.put("scenes", scenes)

        turns = self.rows_of("turns")
        taken = await self._taken_messages([r["discord_message_id"] for r in turns])
        for row in turns:
            row["campaign_id"] = self.campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], f"turn #{row['id']}")
            if row["discord_message_id"] in taken:
                row["discord_message_id"] = None  # the live message belongs to the campaign that has it
        await self.put("turns", turns)
        revisions = self.rows_of("turn_revisions")
        for row in revisions:
            row["turn_id"] = ids.need("turns", row["turn_id"], f"turn revision #{row['id']}")
        await self.put("turn_revisions", revisions)

    async def _taken_messages(self, message_ids: list[int | None]) -> set[int]:
        """Return which of these Discord message ids another campaign's turns already have."""
        wanted = [m for m in message_ids if m is not None]
        taken: set[int] = set()
        for start in range(0, len(wanted), BATCH):
            found = await self.session.execute(
                select(TurnRow.discord_message_id).where(
                    TurnRow.discord_message_id.in_(wanted[start : start + BATCH])
                )
            )
            taken |= {m for m in found.scalars() if m is not None}
        return taken

    # -- canon: changesets first (their order is the graph's clock), then what they wrote

    async def canon(self) -> dict[int, dict[str, Any]]:
        """Restore the canon graph; return the archived statements by old id (structured lore needs them)."""
        ids = self.ids
        changesets = self.rows_of("changesets")
        for row in changesets:
            row["campaign_id"] = self.campaign_id
            row["scene_id"] = ids.get("scenes", row["scene_id"])
        await self.put("changesets", changesets)

        entities = self.rows_of("entities")
        for row in entities:
            self.written(row, f"entity #{row['id']}")
        await self.put("entities", entities)
        aliases = self.rows_of("entity_aliases")
        for row in aliases:
            self.written(row, f"alias #{row['id']}")
            row["entity_id"] = ids.need("entities", row["entity_id"], f"alias #{row['id']}")
        await self.put("entity_aliases", aliases)

        statements = self.rows_of("statements")
        archived = {int(r["id"]): dict(r) for r in statements}
        replaces = {int(r["id"]): r["replaces_id"] for r in statements if r["replaces_id"] is not None}
        for row in statements:
            what = f"fact #{row['id']}"
            self.written(row, what)
            row["subject_id"] = ids.need("entities", row["subject_id"], what)
            if row["object_id"] is not None:
                row["object_id"] = ids.need("entities", row["object_id"], what)
            row["replaces_id"] = None  # set below, once every statement has its new id
        await self.put("statements", statements)
        await _update(
            self.session,
            StatementRow,
            "replaces_id",
            [
                (ids.need("statements", old, "a retcon"), ids.need("statements", target, f"fact #{old}"))
                for old, target in replaces.items()
            ],
        )

        changes = self.rows_of("status_changes")
        for row in changes:
            what = f"status change #{row['id']}"
            self.written(row, what)
            row["target_id"] = ids.target(row["target_kind"], row["target_id"], what)
            row["replacement_id"] = ids.target(
                row["target_kind"], row["replacement_id"], what, required=False
            )
        await self.put("status_changes", changes)
        return archived

    # -- review: proposals (their ids are needed by evidence), evidence, dependencies, conflicts

    async def review(self) -> None:
        await self._proposals()
        ids, chunks = self.ids, self.chunks
        evidence = self.rows_of("evidence")
        for row in evidence:
            what = f"evidence #{row['id']}"
            self.written(row, what)
            row["target_id"] = ids.target(row["target_kind"], row["target_id"], what)
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["source_id"] = ids.get("knowledge_sources", row["source_id"])
            row["chunk_id"] = chunks.get(int(row["chunk_id"])) if row["chunk_id"] is not None else None
            row["proposal_id"] = ids.get("proposals", row["proposal_id"])
        await self.put("evidence", evidence)
        dependencies = self.rows_of("dependencies")
        for row in dependencies:
            what = f"dependency #{row['id']}"
            self.written(row, what)
            row["statement_id"] = ids.need("statements", row["statement_id"], what)
            row["depends_on_id"] = ids.target(row["depends_on_kind"], row["depends_on_id"], what)
        await self.put("dependencies", dependencies)

        conflicts, seen = [], set()
        for row in self.rows_of("conflicts"):
            row["campaign_id"] = self.campaign_id
            details = finding_json(dict(row["details"] or {}), ids, chunks)
            row["details"] = details
            row["fingerprint"] = details.get("fingerprint", row["fingerprint"])
            if row["fingerprint"] in seen:
                continue
            seen.add(row["fingerprint"])
            conflicts.append(row)
        await self.put("conflicts", conflicts)

    async def _proposals(self) -> None:
        """Restore the proposals; references between proposals in a second pass, once all have new ids."""
        ids, chunks = self.ids, self.chunks
        proposals = self.rows_of("proposals")
        pending_refs: dict[int, Any] = {}
        for row in proposals:
            row["campaign_id"] = self.campaign_id
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["content"] = refs_json(row["content"], ids, proposals=False)
            pending_refs[int(row["id"])] = row["content"]
            row["evidence"] = [evidence_json(e, ids, chunks) for e in row["evidence"] or []]
            row["warnings"] = [finding_json(w, ids, chunks) for w in row["warnings"] or []]
            row["committed_changeset_id"] = ids.get("changesets", row["committed_changeset_id"])
        await self.put("proposals", proposals)
        content_updates = []
        for old, content in pending_refs.items():
            remapped = refs_json(content, ids, proposals=True)
            if remapped != content:
                content_updates.append((ids.need("proposals", old, "a proposal"), remapped))
        await _update(self.session, ProposalRow, "content", content_updates)

    # -- structured lore bookkeeping: entity and statement ids, and the fingerprints built on them

    async def structured(self, archived_statements: dict[int, dict[str, Any]]) -> None:
        ids = self.ids
        files = self.rows_of("structured_files")
        for row in files:
            what = f"the YAML file {row['file']}"
            row["campaign_id"] = self.campaign_id
            row["changeset_id"] = ids.need("changesets", row["changeset_id"], what)
            entries = {}
            for key, entry in (row["entries"] or {}).items():
                new = dict(entry)
                if entry.get("e") is not None:
                    new["e"] = ids.need("entities", entry["e"], what)
                entries[key] = new
            row["entries"] = entries
            row["statements"] = {
                slot: _statement_slot(pair, archived_statements, self.ids, what)
                for slot, pair in (row["statements"] or {}).items()
            }
        await self.put("structured_files", files)

    # -- the voice: NPC memories (links between them in a second pass), digests, casts, narrations

    async def voice(self) -> None:
        ids, campaign_id = self.ids, self.campaign_id
        memories = self.rows_of("npc_memories")
        links = {int(r["id"]): list(r["memory_ids"] or []) for r in memories if r["memory_ids"]}
        for row in memories:
            what = f"NPC memory #{row['id']}"
            row["campaign_id"] = campaign_id
            row["npc_entity_id"] = ids.need("entities", row["npc_entity_id"], what)
            row["scene_id"] = ids.get("scenes", row["scene_id"])
            row["scope"] = scope_path(row["scope"], campaign_id, ids)
            row["memory_ids"] = []
        await self.put("npc_memories", memories)
        await _update(
            self.session,
            NpcMemoryRow,
            "memory_ids",
            [
                (
                    ids.need("npc_memories", old, "an NPC memory"),
                    [ids.get("npc_memories", m) or 0 for m in linked],
                )
                for old, linked in links.items()
            ],
        )
        digests = self.rows_of("scene_digests")
        for row in digests:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], "a scene digest")
            row["npc_ids"] = [n for n in (ids.get("entities", i) for i in row["npc_ids"] or []) if n]
        if digests:
            await self.session.execute(insert(SceneDigestRow), digests)
        ids.put("scene_digests", [r["scene_id"] for r in digests], [r["scene_id"] for r in digests])
        casts = self.rows_of("scene_cast")
        for row in casts:
            row["scene_id"] = ids.need("scenes", row["scene_id"], "a scene's cast")
            row["entity_id"] = ids.need("entities", row["entity_id"], "a scene's cast")
        await self.put("scene_cast", casts)
        narrations = self.rows_of("narrations")
        for row in narrations:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.need("scenes", row["scene_id"], f"narration #{row['id']}")
        await self.put("narrations", narrations)

    # -- the campaign journal: each recap keyed by its restored scene

    async def journal(self) -> None:
        entries = self.rows_of("journal_entries")
        for row in entries:
            row["campaign_id"] = self.campaign_id
            row["scene_id"] = self.ids.need("scenes", row["scene_id"], "a recap of the journal")
        if entries:
            await self.session.execute(insert(JournalEntryRow), entries)
        self.ids.put("journal_entries", [r["scene_id"] for r in entries], [r["scene_id"] for r in entries])

    # -- the GM's notes, and the entities each is about

    async def notes(self) -> None:
        ids, campaign_id = self.ids, self.campaign_id
        notes = self.rows_of("gm_notes")
        for row in notes:
            row["campaign_id"] = campaign_id
            row["scene_id"] = ids.get("scenes", row["scene_id"])
        await self.put("gm_notes", notes)
        links = self.rows_of("gm_note_entities")
        for row in links:
            row["campaign_id"] = campaign_id
            row["note_id"] = ids.need("gm_notes", row["note_id"], "a GM note's entity")
            row["entity_id"] = ids.need("entities", row["entity_id"], "a GM note's entity")
        await self.put("gm_note_entities", links)


def _statement_slot(
    pair: list[Any], archived_statements: dict[int, dict[str, Any]], ids: Ids, what: str
) -> list[Any]:
    """Return a file's `[statement id, fingerprint]` in the new campaign (the fingerprint holds ids)."""
    old_id, old_fp = int(pair[0]), pair[1]
    new_id = ids.need("statements", old_id, what)
    fp = old_fp
    archived_row = archived_statements.get(old_id)
    if archived_row is not None:
        subject, obj = archived_row["subject_id"], archived_row["object_id"]
        if statement_fp(archived_row, subject, obj) == old_fp:
            fp = statement_fp(
                archived_row,
                ids.need("entities", subject, what),
                ids.need("entities", obj, what) if obj is not None else None,
            )
    return [new_id, fp]


def _without_id(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "id"}


async def _insert(session: AsyncSession, model: type[Base], rows: list[dict[str, Any]]) -> list[int]:
    """Insert rows in batches and return their new ids, in the order given."""
    if not rows:
        return []
    table: Any = model.__table__
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    new: list[int] = []
    for start in range(0, len(rows), BATCH):
        result = await session.execute(statement, rows[start : start + BATCH])
        new += [int(r[0]) for r in result]
    return new


async def _update(
    session: AsyncSession, model: type[Base], column: str, pairs: list[tuple[int, Any]]
) -> None:
    """Set one column of rows by new id: (id, value) pairs."""
    if not pairs:
        return
    table: Any = model.__table__
    statement = update(table).where(table.c.id == bindparam("b_id")).values({column: bindparam("b_value")})
    for start in range(0, len(pairs), BATCH):
        await session.execute(statement, [{"b_id": i, "b_value": v} for i, v in pairs[start : start + BATCH]])
