"""Fields kept with their chunk at import, and used when a question asks one (on SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, update

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.tables import KnowledgeChunkRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

# Three layouts: the SRD's bold-led stat block, plain `Label: value` lines, and a table with a name column.
BOOK = """# Beasts of the Reach

## Owlbear

*Large monstrosity, unaligned*

- **Armor Class** 13 (natural armor)
- **Hit Points** 59 (7d10 + 21)

## Stormcrow

Defense: 14
Vitality: 22 (4d8 + 4)

Stormcrows nest on the cliffs of the Grey Reach.

## Weapons of the Reach

| Weapon | Price | Damage |
|---|---|---|
| Hookblade | 12 crowns | 1d8 slashing |
"""


async def _fields(db: Database) -> dict[str, list[list[str]] | None]:
    async with db.session() as session:
        rows = await session.execute(select(KnowledgeChunkRow.heading_path, KnowledgeChunkRow.fields))
        return {path[-1]: fields for path, fields in rows.all()}


async def test_fields_are_kept_at_import_and_answers_read_the_kept_ones(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reach")
    await service.import_bytes(campaign, "beasts.md", BOOK.encode())
    kept = await _fields(db)
    assert ["Owlbear", "Hit Points", "59 (7d10 + 21)"] in (kept["Owlbear"] or [])
    assert ["Stormcrow", "Vitality", "22 (4d8 + 4)"] in (kept["Stormcrow"] or [])
    assert ["Weapons of the Reach › Hookblade", "Price", "12 crowns"] in (kept["Weapons of the Reach"] or [])

    answer = await service.ask(campaign, "owlbear hp", viewer=Viewer.PLAYER, record=False)
    assert answer.reply is not None and "59 (7d10 + 21)" in answer.reply.text

    # The answer reads the fields kept with the chunk, not the text again: change the kept value, and it says it.
    changed = [["Owlbear", "Hit Points", "61 (8d10 + 17)"]]

    async def tamper(session: object) -> None:
        await session.execute(  # type: ignore[attr-defined]
            update(KnowledgeChunkRow)
            .where(KnowledgeChunkRow.text.contains("59 (7d10 + 21)"))
            .values(fields=changed)
        )

    await db.run(tamper)
    answer = await service.ask(campaign, "owlbear hp", viewer=Viewer.PLAYER, record=False)
    assert answer.reply is not None and "61 (8d10 + 17)" in answer.reply.text


async def test_a_chunk_imported_before_fields_were_kept_is_read_when_asked(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reach")
    await service.import_bytes(campaign, "beasts.md", BOOK.encode())

    async def forget(session: object) -> None:
        await session.execute(update(KnowledgeChunkRow).values(fields=None))  # type: ignore[attr-defined]

    await db.run(forget)
    answer = await service.ask(campaign, "stormcrow vitality", viewer=Viewer.PLAYER, record=False)
    assert answer.reply is not None and "22 (4d8 + 4)" in answer.reply.text
    # A reindex keeps them from then on.
    await service.reindex(campaign, rechunk=True)
    assert ["Stormcrow", "Vitality", "22 (4d8 + 4)"] in ((await _fields(db))["Stormcrow"] or [])
