"""The wiki's pages over HTTP, as a player and as the GM, on a shared campaign (read-only tests)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from sqlalchemy import event

from bot.wiki.pages.entity import ABOVE
from bot.wiki.tokens import read_token
from canon.campaigns import get_campaign
from canon.graph.fact_pages import facts_page
from canon.models import NOW, Viewer
from canon.visibility import visible_views
from tests.bot.wiki.conftest import CHRONICLE_FACTS, World
from tests.e2e.jargon import jargon_in

pytestmark = pytest.mark.asyncio(loop_scope="package")


async def test_the_journal_lists_both_scenes_newest_first_with_their_recaps(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.player_token}/")
    assert status == 200
    assert body.index("Scene 2: The Return") < body.index("Scene 1: The Ride")
    assert "Greyhaven" in body


async def test_a_player_sees_aldric_without_the_gm_only_secret(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert status == 200
    assert "a knight of the Watch" in body and "knight-commander" in body
    assert "gate codes" not in body and "🔒" not in body
    assert "Aldric leads the Watch" in body  # the relation, mid-sentence; its link follows
    assert f'href="/t/{world.player_token}/e/The_Watch"' in body


async def test_the_gm_sees_the_secret_marked(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.gm_token}/e/Aldric")
    assert status == 200
    assert "sold the gate codes" in body and "🔒" in body


async def test_evidence_from_a_scene_links_to_its_transcript_at_the_turn(world: World) -> None:
    _, body, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert f'href="/t/{world.player_token}/scenes/1#turn-' in body
    assert "from the scene at Greyhaven, said by Pat" in body  # the scene as a person calls it


async def test_an_entitys_facts_are_paged(world: World) -> None:
    base = f"/t/{world.player_token}/e/The_Chronicle"
    _, first, _ = await world.get(base)
    assert first.count("entry ") == 60 and "Page 1 of 3" in first
    assert f'href="{base}?page=2"' in first
    _, last, _ = await world.get(base + "?page=3")
    assert last.count("entry ") == CHRONICLE_FACTS - 120 and "line 130" in last
    for beyond in ("?page=999999999", "?page=-4", "?page=x"):
        status, body, _ = await world.get(base + beyond)
        assert status == 200 and "Page " in body


async def test_a_branch_is_a_world_of_its_own(world: World) -> None:
    _, branch, _ = await world.get(f"/t/{world.branch_token}/e/Aldric")
    _, root, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert "fell at the gate" in branch and "knight-commander" in branch  # inherited up to the fork
    assert "fell at the gate" not in root


async def test_links_follow_a_reverse_proxys_prefix_and_head_answers(world: World) -> None:
    _, body, _ = await world.get(f"/t/{world.player_token}/e/Aldric", **{"X-Forwarded-Prefix": "/lore/wiki"})
    assert f'href="/lore/wiki/t/{world.player_token}/e/The_Watch"' in body
    assert 'href="/lore/wiki/static/wiki.css"' in body
    _, odd, _ = await world.get(f"/t/{world.player_token}/", **{"X-Forwarded-Prefix": '/"><b>x'})
    assert "<b>x" not in odd and f'href="/t/{world.player_token}/entities"' in odd
    response = await world.client.head(f"/t/{world.player_token}/e/Aldric")
    assert response.status == 200 and await response.read() == b""


async def test_the_journal_shows_the_recap_and_the_scene_page_what_became_canon(world: World) -> None:
    _, journal, _ = await world.get(f"/t/{world.player_token}/")
    assert "Who was there" in journal
    _, scene, _ = await world.get(f"/t/{world.player_token}/scenes/2")
    assert "What became canon" in scene and "Aldric returns wounded." in scene


async def test_an_imported_fact_names_its_source_and_place_as_the_reader_may_read_them(world: World) -> None:
    _, player, _ = await world.get(f"/t/{world.player_token}/e/The_Watch")
    assert "from Annals of the Watch › Founding" in player
    _, gm_watch, _ = await world.get(f"/t/{world.gm_token}/e/The_Watch")
    assert f'href="/t/{world.gm_token}/sources#source-' in gm_watch
    _, gm_aldric, _ = await world.get(f"/t/{world.gm_token}/e/Aldric")
    assert "from " in gm_aldric and "Ledger" in gm_aldric and "🔒" in gm_aldric
    _, player_aldric, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert "Ledger" not in player_aldric and "Bribes" not in player_aldric


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def visible_text(body: str) -> str:
    parser = _Text()
    parser.feed(body)
    return " ".join(parser.parts)


async def test_no_page_shows_a_player_or_the_gm_ids_constants_or_keys(world: World) -> None:
    pages = [
        "",
        "entities",
        "entities?kind=NPC",
        "e/Aldric",
        "e/The_Watch",
        "e/The_Chronicle",
        "scenes/1",
        "scenes/2",
    ]
    pages += ["search?q=Who+leads+the+Watch", "e/Nobody"]
    for token, extra in ((world.player_token, []), (world.gm_token, ["sources", "gm", "e/Vell"])):
        for path in pages + extra:
            _, body, _ = await world.get(f"/t/{token}/{path}")
            found = jargon_in(visible_text(body))
            assert not found, (path, found)


async def test_a_player_whose_character_learned_a_secret_reads_it_and_no_one_else_does(world: World) -> None:
    _, quinn, _ = await world.get(f"/t/{world.quinn_token}/e/Aldric")
    assert "sold the gate codes" in quinn and "🔒" not in quinn
    assert "Ledger" not in quinn  # the fact was revealed, not its hidden source
    _, pat, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert "sold the gate codes" not in pat
    hidden = await world.get(f"/t/{world.quinn_token}/e/Vell")
    assert hidden[0] == 404


async def test_a_page_of_facts_read_in_the_database_is_that_page_of_the_whole_card(world: World) -> None:
    services = world.services
    key = await services.wiki.links.key()
    for token in (world.gm_token, world.player_token, world.quinn_token, world.branch_token):
        grant = read_token(token, key)
        async with services.db.session() as session:
            campaign = await get_campaign(session, grant.campaign_id)
        viewer = Viewer.GM if grant.gm else Viewer.PLAYER
        lens = None if grant.gm else await services.reveals.lens(campaign, grant.user_id)
        async with services.db.session() as session:
            reader = await services.access.reader(session, campaign, viewer, lens)
            for name in ("Aldric", "The Chronicle", "The Watch"):
                (entity,) = await reader.find_exact(name)
                card = await reader.card(entity)
                whole = [
                    v.statement.id
                    for v in visible_views(card.facts, viewer, lens)
                    if v.statement.predicate not in ABOVE
                ]
                for offset, limit in ((0, 60), (60, 60), (120, 60), (0, 1), (5, 3)):
                    shown, total = await facts_page(
                        reader, entity, NOW, leave_out=ABOVE, offset=offset, limit=limit
                    )
                    assert total == len(whole), (token, name)
                    assert [v.statement.id for v in shown] == whole[offset : offset + limit], (token, name)


async def test_an_entity_page_reads_canon_in_one_session(world: World) -> None:
    db = world.services.db
    transactions: list[list[str]] = []

    def began(_connection: object) -> None:
        transactions.append([])

    def ran(_c: object, _cursor: object, statement: str, *_rest: object) -> None:
        if transactions:
            transactions[-1].append(statement)

    engines = {db.engine.sync_engine, db.read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "begin", began)
        event.listen(engine, "before_cursor_execute", ran)
    try:
        for token in (world.gm_token, world.quinn_token):
            transactions.clear()
            status, body, _ = await world.get(f"/t/{token}/e/Aldric?n=1")  # an address no other test keeps
            assert status == 200 and "knight-commander" in body
            # The link's check, the campaign, the lens and the page: one transaction (the content mark aside).
            reads = [t for t in transactions if not all("content_marks" in s or "BEGIN" in s for s in t)]
            assert len(reads) == 1
    finally:
        for engine in engines:
            event.remove(engine, "begin", began)
            event.remove(engine, "before_cursor_execute", ran)
