"""/lore: what one question reads once for all its searches (`Reads`), and for the next questions only while nothing
shown was written since (`KeptReads`): a source hidden or removed, a calendar or glossary set, canon written, by this
process or another, is read afresh by the next question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import memory.knowledge.retrieval.retriever as retriever_module
from canon.graph import CanonReader
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.models import Answer
from memory.knowledge.retrieval import Retriever
from memory.knowledge.service import KnowledgeService
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

OGRES = "# Ogre\n\nAn ogre has 59 hit points and swings a greatclub.\n"
TROLLS = "# Troll\n\nA troll has 84 hit points and regenerates each turn.\n"
COMPARED = "which has more hit points, an ogre or a troll?"


def said(answer: Answer) -> str:
    assert answer.reply is not None
    return answer.reply.text + "\n" + "\n".join(r.text for r in answer.results)


async def _world(db: Database, tmp_path: Path) -> tuple[KnowledgeService, int, int]:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Reads")
    await service.import_bytes(campaign, "ogres.md", OGRES.encode())
    trolls = await service.import_bytes(campaign, "trolls.md", TROLLS.encode())
    return service, campaign, trolls.source.id


def _counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(owner, name)

    async def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return await original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


async def test_a_comparison_lists_the_readable_sources_and_reads_the_calendar_once(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, campaign, _ = await _world(db, tmp_path)
    searches = _counted(monkeypatch, Retriever, "search")
    listings = _counted(monkeypatch, retriever_module, "split_lineage_sources")
    calendars = _counted(monkeypatch, CanonReader, "calendar")

    answer = await service.ask(campaign, COMPARED, viewer=Viewer.PLAYER, record=False)

    assert "84" in said(answer) and "59" in said(answer)
    # The whole question, then each part on its own; no line holds "hit points" as a field, so each part is asked
    # on its own too (`ask_compared`), and both are said, each cited.
    assert answer.reply is not None and answer.reply.known
    assert "59 hit points" in answer.reply.text and "84 hit points" in answer.reply.text
    assert len(searches) == 5
    assert len(listings) == 1 and len(calendars) == 1
    # The next question, nothing written since, reads neither again; the GM's reads are theirs.
    await service.ask(campaign, COMPARED, viewer=Viewer.PLAYER, record=False)
    assert len(listings) == 1 and len(calendars) == 1
    await service.ask(campaign, COMPARED, viewer=Viewer.GM, record=False)
    assert len(listings) == 2 and len(calendars) == 2
    # Something shown written (a source imported): the next question reads afresh.
    await service.import_bytes(campaign, "goblins.md", b"# Goblin\n\nA goblin has 7 hit points.\n")
    await service.ask(campaign, COMPARED, viewer=Viewer.PLAYER, record=False)
    assert len(listings) == 3 and len(calendars) == 3


async def test_a_source_hidden_between_two_questions_is_not_used_by_the_second(
    db: Database, tmp_path: Path
) -> None:
    service, campaign, trolls = await _world(db, tmp_path)
    before = await service.ask(campaign, COMPARED, viewer=Viewer.PLAYER, record=False)
    assert any(r.source_id == trolls for r in before.results) and "84" in said(before)

    await service.set_source(campaign, trolls, hidden=True)
    after = await service.ask(campaign, COMPARED, viewer=Viewer.PLAYER, record=False)

    assert all(r.source_id != trolls for r in after.results)
    assert "84" not in said(after) and "regenerates" not in said(after)
    gm = await service.ask(campaign, COMPARED, viewer=Viewer.GM, record=False)
    assert any(r.source_id == trolls and r.hidden for r in gm.results)


async def test_a_source_removed_between_two_questions_is_not_used_by_the_second(
    db: Database, tmp_path: Path
) -> None:
    service, campaign, trolls = await _world(db, tmp_path)
    assert "84" in said(await service.ask(campaign, COMPARED, viewer=Viewer.GM, record=False))

    await service.delete_source(campaign, trolls)
    after = await service.ask(campaign, COMPARED, viewer=Viewer.GM, record=False)

    assert all(r.source_id != trolls for r in after.results) and "84" not in said(after)
