"""Shared libraries: imported once, attached read-only to many campaigns, no chunk or vector copied, and nothing
else crossing between campaigns (real SQLite and PostgreSQL, real Chroma, the real embedding model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from canon import campaigns, forks
from canon.errors import Conflict, InvalidInput, NotFound
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow
from tests.helpers.knowledge_helpers import knowledge_service

RULES = b"""# Basic Rules

## Cover

Half cover gives a +2 bonus to AC and Dexterity saving throws. Three-quarters cover gives +5.

## Grappling

A grappled creature's speed becomes 0 until the grapple ends.
"""
MONSTERS = b"# Monsters\n\n## Gelatinous Cube\n\nA transparent cube of acid that fills a dungeon corridor.\n"
WESTHAVEN = b"# Westhaven\n\n## The Crown\n\nKing Aldric rules Westhaven from the Gull Throne.\n"
SALTMARSH = (
    b"# Saltmarsh\n\n## The Council\n\nThe Council of Three rules Saltmarsh; Eliza Crane keeps the harbour.\n"
)


async def campaign(db: Database, name: str, guild_id: int | None) -> int:
    created = await db.run(lambda s: campaigns.create_campaign(s, name, guild_id=guild_id))
    return created.id


def texts(answer: object) -> str:
    return "\n".join(f"{r.source_title}: {r.text}" for r in answer.results)  # type: ignore[attr-defined]


async def chunk_count(db: Database, campaign_id: int) -> int:
    async with db.session() as session:
        q = (
            select(func.count())
            .select_from(KnowledgeChunkRow)
            .where(KnowledgeChunkRow.campaign_id == campaign_id)
        )
        return int(await session.scalar(q) or 0)


@pytest.fixture
def service(db: Database, tmp_path: Path) -> KnowledgeService:
    return knowledge_service(db, tmp_path)


async def test_a_library_attached_to_two_campaigns_answers_both_and_nothing_else_crosses(
    db: Database, service: KnowledgeService
) -> None:
    west, salt = await campaign(db, "Westhaven", 1), await campaign(db, "Saltmarsh", 2)
    await service.import_bytes(west, "westhaven.md", WESTHAVEN)
    await service.import_bytes(salt, "saltmarsh.md", SALTMARSH)
    imported = await service.library.import_bytes("basic-rules.md", RULES, guild_id=None)
    rules = imported.source
    assert rules.knowledge_class == KnowledgeClass.REFERENCE and not rules.hidden
    holder = rules.campaign_id
    assert holder not in (west, salt)
    async with db.session() as session:  # the holder is no story: never listed
        assert [c.name for c in await campaigns.list_campaigns(session)] == ["Westhaven", "Saltmarsh"]

    question = "how much AC does half cover give?"
    assert "Half cover" not in texts(await service.ask(west, question))  # not attached yet
    for target in (west, salt):
        attached = await service.library.attach(target, "Basic Rules", by="Gina")
        assert attached.attached and attached.source.id == rules.id
    with pytest.raises(Conflict):
        await service.library.attach(west, "basic-rules.md")

    for target in (west, salt):
        answer = await service.ask(target, question, viewer=Viewer.PLAYER)
        assert answer.results[0].source_id == rules.id and "Half cover" in answer.results[0].text
        assert answer.trace.semantic_status == "ok"  # the shared collection answered, not words alone
    # No copy: the chunks are the holder's alone, one set; each campaign keeps only its own.
    assert await chunk_count(db, holder) == rules.chunk_count
    assert await chunk_count(db, west) == (await service.list_sources(west))[0].chunk_count
    assert service.vectors is not None
    own = (await service.list_sources(west))[0].chunk_count
    views = (
        await service.vectors.count(holder) // rules.chunk_count
    )  # each chunk's views, once, in one collection
    assert views >= 2 and await service.vectors.count(holder) == views * rules.chunk_count
    assert await service.vectors.count(west) == views * own  # Westhaven's collection holds its own alone

    # Everything else stays home: Westhaven's king never reaches Saltmarsh, nor Saltmarsh's council Westhaven.
    for viewer in (Viewer.PLAYER, Viewer.GM):
        assert "Aldric" not in texts(
            await service.ask(salt, "who rules from the Gull Throne?", viewer=viewer)
        )
        assert "Council of Three" not in texts(await service.ask(west, "who rules Saltmarsh?", viewer=viewer))
    assert [s.filename for s in await service.list_sources(salt)] == ["saltmarsh.md"]

    # Detaching is instant, for that campaign alone.
    await service.library.detach(salt, "basic-rules.md")
    assert "Half cover" not in texts(await service.ask(salt, question))
    assert "Half cover" in texts(await service.ask(west, question))
    listed = {s.source.filename: s for s in await service.library.available(salt)}
    assert not listed["basic-rules.md"].attached and listed["basic-rules.md"].campaigns == 1


async def test_a_server_library_is_never_another_servers(db: Database, service: KnowledgeService) -> None:
    west, salt = await campaign(db, "Westhaven", 1), await campaign(db, "Saltmarsh", 2)
    await service.library.import_bytes("house-rules.md", RULES, guild_id=1)
    assert [s.source.filename for s in await service.library.available(west)] == ["house-rules.md"]
    assert await service.library.available(salt) == []
    with pytest.raises(NotFound) as refused:
        await service.library.attach(salt, "house-rules.md")
    assert refused.value.message.endswith("Library sources: none yet.")  # another server's is not even listed
    await service.library.import_bytes("monsters.md", MONSTERS, guild_id=1)
    await service.library.attach(west, "house-rules.md")
    # Only what is attached is read: the library's other source stays out, by words and by meaning.
    for question in ("what is a gelatinous cube?", "transparent cube dungeon corridor acid"):
        assert "Gelatinous" not in texts(await service.ask(west, question, viewer=Viewer.GM))
    parent = await db.run(lambda s: campaigns.get_campaign(s, west))
    point = forks.ForkPoint(changeset_id=forks.OPEN_END, up_to_time=campaigns.utc_now())
    branch = await db.run(
        lambda s: campaigns.create_branch(s, parent, "Westhaven what if", point, guild_id=1)
    )
    answer = await service.ask(branch.id, "how much AC does half cover give?")
    assert "Half cover" in texts(answer)  # a branch reads what its story attached


async def test_a_shared_source_holds_no_secrets_and_no_canon(db: Database, service: KnowledgeService) -> None:
    secret = RULES + b"\n## The Lich's Phylactery (GM only)\n\nIt is hidden in the lighthouse.\n"
    with pytest.raises(InvalidInput, match="marks sections as GM-only"):
        await service.library.import_bytes("rules.md", secret, guild_id=None)
    with pytest.raises(InvalidInput, match="Reference or Inspiration"):
        await service.library.import_bytes(
            "rules.md", RULES, guild_id=None, knowledge_class=KnowledgeClass.CANON
        )
    assert await service.library.everything() == []  # nothing half-written
    report = await service.library.import_bytes(
        "rules.md", RULES, guild_id=None, knowledge_class=KnowledgeClass.INSPIRATION
    )
    again = await service.library.import_bytes("copy-of-rules.md", RULES, guild_id=None)
    assert again.duplicate_of == report.source.id  # imported once
