"""The words a question holds that no readable source holds are looked up in one statement
(`fulltext.words_existing`), with what a look-up word by word (`fulltext.word_exists`) finds: stems, hidden sources
and other campaigns left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.models import Viewer
from canon.storage import Database
from memory import fulltext
from memory.knowledge.repository import chunk_ids_of
from memory.knowledge.retrieval import words as words_module
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

MARSH = "# Marsh Lore\n\nThe wolves of the fen hunt eels by lantern light. Bogmoths gather where peat smoulders.\n"
SECRET = "# Vault\n\nThe quexling sleeps under the tithe barn.\n"
OTHER = "# Elsewhere\n\nThe zorblax nests in the bell tower.\n"
ASKED = ["hunting", "eels", "lantern", "quexling", "zorblax", "glimmerkin", "smoulder", "peat's"]


async def _world(db: Database, tmp_path: Path) -> tuple[int, list[int], int]:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Fen")
    other = await new_campaign(db, "Far")
    marsh = await service.import_bytes(campaign, "marsh.md", MARSH.encode())
    secret = await service.import_bytes(campaign, "vault.md", SECRET.encode(), hidden=True)
    await service.import_bytes(other, "elsewhere.md", OTHER.encode())
    return campaign, [marsh.source.id, secret.source.id], secret.source.id


async def test_words_looked_up_together_are_found_as_one_by_one(db: Database, tmp_path: Path) -> None:
    campaign, sources, secret = await _world(db, tmp_path)
    async with db.session() as session:
        for readable in (sources, [s for s in sources if s != secret]):
            one_by_one = {
                w for w in ASKED if await fulltext.word_exists(session, w, readable, campaigns=[campaign])
            }
            together = await fulltext.words_existing(session, ASKED, readable, campaigns=[campaign])
            assert together == one_by_one
        # The hidden source's word is found only where it may be read; other campaigns' words never.
        assert "quexling" in await fulltext.words_existing(session, ASKED, sources, campaigns=[campaign])
        assert "hunting" in one_by_one and "quexling" not in one_by_one and "zorblax" not in one_by_one
        # A chunk left out (a GM-only section) is not read either.
        hidden = await chunk_ids_of(session, [secret])
        assert "quexling" not in await fulltext.words_existing(
            session, ASKED, sources, campaigns=[campaign], without=hidden
        )
        assert await fulltext.words_existing(session, [], sources, campaigns=[campaign]) == set()
        assert await fulltext.words_existing(session, ASKED, [], campaigns=[campaign]) == set()


async def test_a_questions_unknown_words_are_looked_up_in_one_statement(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign, _, _ = await _world(db, tmp_path)
    service = knowledge_service(db, tmp_path, semantic=False)
    looked: list[list[str]] = []
    singly: list[str] = []
    together, alone = fulltext.words_existing, fulltext.word_exists

    async def counted_together(session, words, *args, **options):  # type: ignore[no-untyped-def]
        looked.append(list(words))
        return await together(session, words, *args, **options)

    async def counted_alone(session, word, *args, **options):  # type: ignore[no-untyped-def]
        singly.append(word)
        return await alone(session, word, *args, **options)

    monkeypatch.setattr(words_module.fulltext, "words_existing", counted_together)
    monkeypatch.setattr(words_module.fulltext, "word_exists", counted_alone)
    question = "do glimmerkins or bogmoths or wolves haunt the quexling's lantern"
    answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, record=False)
    assert set(answer.trace.unknown_words) == {
        "glimmerkins",
        "haunt",
        "quexling",
    }  # the hidden source's word too
    assert len(looked) == 1 and {"glimmerkins", "quexling", "wolves"} <= set(looked[0])
    assert not set(looked[0]) & set(singly)
    # Asked again: every word is known already, nothing is looked up.
    looked.clear()
    again = await service.ask(campaign, question, viewer=Viewer.PLAYER, record=False)
    assert again.trace.unknown_words == answer.trace.unknown_words and looked == []
