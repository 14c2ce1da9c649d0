"""NPC memory operations on the one store: categories, metadata, private records, scopes with ancestors,
search by scope, category, metadata and a minimum score, edits re-embedded, deletion by combined criteria,
paging, scope info and the list of scopes. Real database, real Chroma, the real embedding model.

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Services
from canon.errors import InvalidInput, NotFound
from memory.memory_ops import MemoryQuery, scope_ancestors
from memory.npc_memory import NewMemory, ScopeKind
from tests.conftest import DatabaseTarget
from tests.helpers.voice_fixtures import World, open_services, seed, settings_for


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[Services]:
    services = await open_services(db_target, settings_for(tmp_path))
    try:
        yield services
    finally:
        await services.close()


async def remember(services: Services, world: World) -> dict[str, int]:
    store = services.voice.memories
    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    records = await store.add(
        world.campaign.id,
        [
            NewMemory(
                npc_id=world.mira,
                npc_name="Mira",
                scope_kind=ScopeKind.NPC,
                content="The knight Aldric paid for the cellar room with a silver ring.",
                categories=("debts", "aldric"),
                meta={"source": "ledger", "trust": 2},
            ),
            NewMemory(
                npc_id=world.mira,
                npc_name="Mira",
                scope_kind=ScopeKind.NPC,
                content="A storm sank three fishing boats off the harbour mouth.",
                categories=("harbour",),
                created_at=old,
            ),
            NewMemory(
                npc_id=world.mira,
                npc_name="Mira",
                scope_kind=ScopeKind.NPC,
                content="Mira poisons the ale of anyone who asks about the ledger.",
                categories=("secret",),
                private=True,
            ),
            NewMemory(
                npc_id=world.aldric,
                npc_name="Aldric",
                scope_kind=ScopeKind.NPC,
                content="Aldric owes Mira for a room and a ring.",
                categories=("debts",),
                meta={"source": "rumour"},
            ),
        ],
    )
    return {r.content.split()[1]: r.id for r in records}


async def test_filters_search_scopes_and_paging(services: Services) -> None:
    world = await seed(services)
    ids = await remember(services, world)
    store, campaign = services.voice.memories, world.campaign
    mira_scope = f"/campaign/{campaign.id}/npc/{world.mira}"
    assert scope_ancestors(f"{mira_scope}/scene/7") == [
        f"/campaign/{campaign.id}",
        mira_scope,
        f"{mira_scope}/scene/7",
    ]
    debts = await store.find(campaign.id, MemoryQuery(categories=("debts",)))
    assert debts.total == 2
    by_meta = await store.find(campaign.id, MemoryQuery(meta={"source": "ledger", "trust": 2}))
    assert [f.memory.id for f in by_meta.found] == [ids["knight"]]
    assert (await store.find(campaign.id, MemoryQuery(meta={"trust": "2"}))).total == 0  # typed values
    mira = await store.find(campaign.id, MemoryQuery(scope_prefix=mira_scope))
    assert mira.total == 3
    assert (
        await store.find(campaign.id, MemoryQuery(scope_prefix=f"/campaign/{campaign.id}/np"))
    ).total == 0  # whole segments
    public = await store.find(campaign.id, MemoryQuery(scope_prefix=mira_scope, include_private=False))
    assert public.total == 2
    # By meaning, with a minimum score: the storm, not the debts.
    found = await store.find(
        campaign.id, MemoryQuery(), text="shipwreck at sea during a storm", min_score=0.3
    )
    assert found.found and found.found[0].memory.id == ids["storm"]
    assert all((f.score or 0) >= 0.3 for f in found.found)
    # Paging.
    first = await store.find(campaign.id, MemoryQuery(), per_page=3)
    second = await store.find(campaign.id, MemoryQuery(), page=2, per_page=3)
    assert first.total == 4 and first.pages == 2 and len(second.found) == 1
    # Scope info and the list of scopes with their ancestors.
    info = await store.scope_info(campaign.id, mira_scope)
    assert info.count == 3 and info.private == 1
    assert info.per_category == {"aldric": 1, "debts": 1, "harbour": 1, "secret": 1}
    assert info.oldest is not None and info.oldest.year == 2026 and info.oldest.month == 1
    scopes = await store.scopes(campaign.id)
    assert scopes[f"/campaign/{campaign.id}"] == 4 and scopes[mira_scope] == 3
    # A private memory is never recalled for the NPC to speak from.
    recalled = await store.recall(campaign.id, world.mira, "who asks about the ledger and the ale?", limit=5)
    assert ids["poisons"] not in {r.memory.id for r in recalled}


async def test_an_edit_is_found_by_its_new_text_and_bad_edits_are_refused(services: Services) -> None:
    world = await seed(services)
    ids = await remember(services, world)
    store, campaign = services.voice.memories, world.campaign
    edited = await store.update(
        campaign.id,
        ids["storm"],
        content="A kraken dragged three fishing boats under.",
        importance=0.9,
        categories="harbour, monsters",
    )
    assert edited.categories == ("harbour", "monsters") and edited.importance == 0.9
    found = await store.find(campaign.id, MemoryQuery(), text="sea monster with tentacles", min_score=0.2)
    assert found.found[0].memory.id == ids["storm"]
    recalled = await store.recall(campaign.id, world.mira, "a sea monster with tentacles", limit=1)
    assert recalled[0].memory.content.startswith("A kraken")
    for kwargs, message in [
        ({"content": " "}, "1 to 4,000"),
        ({"importance": 1.5}, "0 to 1"),
        ({"categories": ",".join(f"c{i}" for i in range(11))}, "at most 10"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            await store.update(campaign.id, ids["storm"], **kwargs)  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        await store.update(campaign.id, 999_999, content="nothing")
    assert (await store.find(campaign.id, MemoryQuery(), text="kraken")).found[0].memory.importance == 0.9


async def test_delete_by_combined_criteria_forgets_only_what_meets_them_all(services: Services) -> None:
    world = await seed(services)
    ids = await remember(services, world)
    store, campaign = services.voice.memories, world.campaign
    with pytest.raises(InvalidInput, match="Say which memories"):
        await store.delete(campaign.id, MemoryQuery())
    gone = await store.delete(campaign.id, MemoryQuery(npc_id=world.mira, categories=("debts",)))
    assert gone == [ids["knight"]]  # Aldric's debt memory stays: another NPC
    old = await store.delete(
        campaign.id,
        MemoryQuery(
            scope_prefix=f"/campaign/{campaign.id}", created_before=dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
        ),
    )
    assert old == [ids["storm"]]
    left = await store.find(campaign.id, MemoryQuery())
    assert {f.memory.id for f in left.found} == {ids["poisons"], ids["owes"]}
    assert await store.delete(campaign.id, MemoryQuery(categories=("nothing-such",))) == []
