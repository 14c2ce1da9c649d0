"""/lore keeps the chunks its rerank reads between questions only while nothing shown was written
(`kept_chunks`): a source re-imported, edited in another process or deleted is read afresh by the next question,
and the chunks come back as the database gives them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.models import Viewer
from canon.storage import Database
from canon.write_marks import WriteMarks
from memory.knowledge import repository
from memory.knowledge.repository import ChunkLite, chunk_ids_of, chunks_by_id
from memory.knowledge.retrieval import kept_chunks
from memory.knowledge.retrieval.kept_chunks import KeptChunks
from memory.knowledge.service import KnowledgeService
from memory.knowledge.tables import KnowledgeChunkRow
from tests.conftest import DatabaseTarget
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

QUESTION = "how many hit points does a mire hound have?"
HOUND = "# Mire Hound\n\nA mire hound has {hp} hit points and bays at the moon.\n"
EELS = "# Bog Eel\n\nA bog eel has 9 hit points.\n\n# Reed Cat\n\nA reed cat has 14 hit points.\n\n# Fen Owl\n\nA fen owl has 3 hit points.\n"


async def _world(db: Database, tmp_path: Path) -> tuple[KnowledgeService, int, int]:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Kept chunks")
    report = await service.import_bytes(campaign, "hounds.md", HOUND.format(hp=31).encode())
    return service, campaign, report.source.id


async def _reply(service: KnowledgeService, campaign: int) -> str:
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, record=False)
    assert answer.reply is not None
    return answer.reply.text


async def test_a_source_imported_again_is_read_by_the_next_question(db: Database, tmp_path: Path) -> None:
    service, campaign, _ = await _world(db, tmp_path)
    assert "31" in await _reply(service, campaign)
    assert "31" in await _reply(service, campaign)  # kept: nothing written
    await service.import_bytes(campaign, "hounds.md", HOUND.format(hp=44).encode())
    said = await _reply(service, campaign)
    assert "44" in said and "31" not in said


async def test_a_chunk_edited_by_another_process_is_read_by_the_next_question(
    db: Database, db_target: DatabaseTarget, tmp_path: Path
) -> None:
    service, campaign, source = await _world(db, tmp_path)
    assert "31" in await _reply(service, campaign)
    other = db_target.open()  # the bot's other process: its own engines and connections
    try:

        async def edit(session: AsyncSession) -> None:
            text = HOUND.format(hp=57).split("\n\n", 1)[1].strip()
            rows = update(KnowledgeChunkRow).where(KnowledgeChunkRow.source_id == source).values(text=text)
            await session.execute(rows)

        await other.run(edit)
    finally:
        await other.dispose()
    assert "57" in await _reply(service, campaign)


async def test_a_deleted_source_is_not_quoted_by_the_next_question(db: Database, tmp_path: Path) -> None:
    service, campaign, source = await _world(db, tmp_path)
    assert "31" in await _reply(service, campaign)
    await service.delete_source(campaign, source)
    assert "31" not in await _reply(service, campaign)


class _Counting:
    """`chunks_by_id`, counting the ids it reads."""

    def __init__(self) -> None:
        self.read: list[int] = []

    async def __call__(self, session: AsyncSession, ids: Sequence[int]) -> dict[int, ChunkLite]:
        self.read += ids
        return await chunks_by_id(session, ids)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _Counting:
    reader = _Counting()
    monkeypatch.setattr(kept_chunks, "chunks_by_id", reader)
    return reader


async def _chunks(db: Database, tmp_path: Path) -> list[int]:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Fen")
    source = (await service.import_bytes(campaign, "fen.md", EELS.encode())).source.id
    async with db.session() as session:
        ids = await chunk_ids_of(session, [source])
    assert len(ids) >= 3
    return ids


async def test_chunks_are_read_once_under_a_mark_and_again_under_another(
    db: Database, tmp_path: Path, counting: _Counting
) -> None:
    ids = await _chunks(db, tmp_path)
    kept = KeptChunks()
    asked = [ids[2], ids[0], 999_999, ids[1], ids[0]]
    async with db.session() as session:
        plain = await chunks_by_id(session, asked)
        first = await kept.rows(session, asked, 1)
        assert counting.read == [ids[2], ids[0], 999_999, ids[1]]
        again = await kept.rows(session, asked, 1)
        assert counting.read == [ids[2], ids[0], 999_999, ids[1], 999_999]  # only the missing id again
        # The same chunks in the same order as the database gives them, the missing id left out.
        assert list(first.items()) == list(again.items()) == list(plain.items())
        counting.read.clear()
        await kept.rows(session, [ids[0]], 2)  # a write since: read afresh
        assert counting.read == [ids[0]]
        counting.read.clear()
        await kept.rows(session, [ids[0]], None)
        await kept.rows(session, [ids[0]], None)
        assert counting.read == [ids[0], ids[0]]  # no mark: nothing kept


async def test_a_kept_chunk_changed_by_its_reader_is_given_as_read(
    db: Database, tmp_path: Path, counting: _Counting
) -> None:
    ids = await _chunks(db, tmp_path)
    kept = KeptChunks()
    async with db.session() as session:
        row = (await kept.rows(session, [ids[0]], 1))[ids[0]]
        heading = list(row.heading_path)
        row.heading_path.append("Changed")
        assert (await kept.rows(session, [ids[0]], 1))[ids[0]].heading_path == heading


async def test_only_the_last_chunks_read_are_kept(db: Database, tmp_path: Path, counting: _Counting) -> None:
    ids = await _chunks(db, tmp_path)
    kept = KeptChunks(size=2)
    async with db.session() as session:
        await kept.rows(session, ids[:3], 1)
        counting.read.clear()
        await kept.rows(session, ids[:3], 1)
        assert counting.read == [ids[0]]  # the oldest of the three was dropped


async def test_chunks_by_id_gives_each_batch_by_id(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = await _chunks(db, tmp_path)
    monkeypatch.setattr(repository, "_BATCH", 2)
    monkeypatch.setattr(kept_chunks, "CHUNK_BATCH", 2)
    asked = [ids[2], ids[1], ids[0]]
    async with db.session() as session:
        plain = await chunks_by_id(session, asked)
        assert list(plain) == [ids[1], ids[2], ids[0]]
        assert list(await KeptChunks().rows(session, asked, 1)) == list(plain)


async def test_the_retriever_keeps_chunks_under_the_questions_mark(db: Database, tmp_path: Path) -> None:
    service, campaign, _ = await _world(db, tmp_path)
    await _reply(service, campaign)
    mark = await WriteMarks(db).mark()
    assert mark is not None
    assert service.retriever.kept_chunks._mark == mark
