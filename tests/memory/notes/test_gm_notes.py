"""The GM's notes on a real database: kept, searched by words, tag and entity, closed; bad input refused.

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import pytest

from bot.app import build_canon
from bot.services.canon_access import CanonAccess
from bot.services.canon_service import CanonService
from bot.services.gm_notes import GmNoteDesk
from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import InvalidInput, NotFound
from canon.proposals import EntityContent
from canon.storage import Database
from memory.notes import GmNoteService
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="Gina", is_gm=True)


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


@pytest.fixture
def desk(db: Database) -> GmNoteDesk:
    scenes = SceneService(db)
    return GmNoteDesk(GmNoteService(db), CanonAccess(), scenes)


@pytest.fixture
def canon(db: Database, desk: GmNoteDesk) -> CanonService:
    return build_canon(db, desk.scenes, access=desk.access).canon


async def test_notes_are_kept_found_by_words_tags_and_entities_and_closed(
    db: Database, desk: GmNoteDesk, campaign: Campaign, canon: CanonService
) -> None:
    for name in ("Varek the Red", "Sister Ilse"):
        await canon.add_direct(
            campaign, EntityContent(name=name, entity_type="NPC"), GM, command="/canon add"
        )
    first = await desk.add(
        campaign, "Varek escapes at the full moon", GM, tags="Plot, #pact", about="Varek the Red"
    )
    (note,) = first.page.notes
    assert note.tags == ("plot", "pact") and first.entities[note.entity_ids[0]] == "Varek the Red"
    await desk.add(
        campaign, "Ilse knows 100% of the secret_word", GM, tags="secret", about="Sister Ilse, Varek the Red"
    )
    await desk.add(campaign, "Buy more dice", GM)
    assert (await desk.search(campaign, words="FULL moon")).page.total == 1
    assert (await desk.search(campaign, words="100%")).page.total == 1
    assert (await desk.search(campaign, words="secret_word")).page.total == 1
    assert (await desk.search(campaign, words="secret word")).page.total == 1  # every word, anywhere
    assert (await desk.search(campaign, words="10_%")).page.total == 0  # wildcards are literal
    assert (await desk.search(campaign, tag="pact")).page.total == 1
    assert (await desk.search(campaign, tag="pac")).page.total == 0  # a whole tag, not part of one
    about = await desk.search(campaign, about="Varek the Red")
    assert about.page.total == 2 and {n.text[:4] for n in about.page.notes} == {"Vare", "Ilse"}
    varek = next(iter(about.entities)) if len(about.entities) == 1 else None
    assert varek is None or about.entities[varek] == "Varek the Red"
    done = await desk.mark_done(campaign, note.id)
    assert done.page.notes[0].done
    assert (await desk.search(campaign)).page.total == 2
    assert (await desk.search(campaign, include_done=True)).page.total == 3
    on_card = await desk.about(campaign, note.entity_ids[0])
    assert [n.text for n in on_card] == ["Ilse knows 100% of the secret_word"]  # open notes only
    reopened = await desk.mark_done(campaign, note.id, done=False)
    assert not reopened.page.notes[0].done


async def test_bad_notes_are_refused_clearly_and_nothing_is_kept(
    db: Database, desk: GmNoteDesk, campaign: Campaign
) -> None:
    for text, tags, about, message in [
        ("   ", None, None, "needs some text"),
        ("x" * 2001, None, None, "at most 2,000 characters"),
        ("fine", "a" * 41, None, "at most 40 characters"),
        ("fine", ", ".join(f"t{i}" for i in range(11)), None, "at most 10 tags"),
        ("fine", None, ", ".join(f"n{i}" for i in range(11)), "at most 10 entities"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            await desk.add(campaign, text, GM, tags=tags, about=about)
    with pytest.raises(NotFound):
        await desk.add(campaign, "about nobody", GM, about="Nobody At All Whatsoever")
    with pytest.raises(NotFound, match="no scene in this channel"):
        await desk.add(campaign, "this scene", GM, channel_id=999)
    assert (await desk.search(campaign, include_done=True)).page.total == 0
    with pytest.raises(NotFound, match="no note #5"):
        await desk.mark_done(campaign, 5)
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=21))
    kept = await desk.add(other, "another campaign's", GM)
    with pytest.raises(NotFound):  # a note of another campaign is nobody's here
        await desk.mark_done(campaign, kept.page.notes[0].id)
    assert (await desk.search(campaign, include_done=True)).page.total == 0
    with pytest.raises(InvalidInput, match="Pages start at 1"):
        await desk.search(campaign, page=0)


async def test_many_notes_come_in_pages(db: Database, desk: GmNoteDesk, campaign: Campaign) -> None:
    for i in range(23):
        await desk.add(campaign, f"note {i}", GM)
    first = await desk.search(campaign)
    assert first.page.total == 23 and first.page.pages == 3 and len(first.page.notes) == 10
    assert first.page.notes[0].text == "note 22"  # newest first
    last = await desk.search(campaign, page=3)
    assert [n.text for n in last.page.notes] == ["note 2", "note 1", "note 0"]
