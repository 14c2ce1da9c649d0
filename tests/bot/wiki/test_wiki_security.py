"""The wiki's bad input: links expired, tampered, revoked or of another campaign; hidden and foreign names and
numbers in URLs; searches with HTML, 10,000 characters or only stop words; methods that would change anything.

Each answer is a clear page: never a traceback, never a hint of hidden canon. A hidden entity's URL answers a
player exactly as an unknown one does (the same status, the same body).
"""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import func, select

from bot.schema.database import metadata
from bot.wiki.server import RateLimiter, wiki_app
from bot.wiki.tokens import WikiPass, read_token, sign_token
from canon.models import Viewer
from config.settings import WikiSettings
from tests.bot.wiki.conftest import GM, PAT, World

pytestmark = pytest.mark.asyncio(loop_scope="package")

HIDDEN_WORDS = ("Vell", "gate codes", "Traceback", "Morwen")


def assert_clean(body: str) -> None:
    for word in HIDDEN_WORDS:
        assert word not in body


async def test_a_hidden_entity_answers_a_player_exactly_as_an_unknown_one(world: World) -> None:
    hidden = await world.get(f"/t/{world.player_token}/e/Vell")
    unknown = await world.get(f"/t/{world.player_token}/e/Nobody")
    assert hidden[0] == unknown[0] == 404
    assert hidden[1] == unknown[1]
    assert_clean(hidden[1])
    status, body, _ = await world.get(f"/t/{world.gm_token}/e/Vell")
    assert status == 200 and "Vell" in body and "🔒" in body


async def test_another_campaigns_entity_and_scene_are_never_reachable(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.gm_token}/e/Morwen")
    assert status == 404 and "Morwen" not in body
    status, body, _ = await world.get(f"/t/{world.other_token}/e/Aldric")
    assert status == 404 and "knight" not in body
    status, body, _ = await world.get(f"/t/{world.other_token}/scenes/1")
    assert status == 404 and "the ride" not in body.lower()
    for path in ("scenes/0", "scenes/99", "scenes/-1", "scenes/1e9", "e/%00", "e/" + "x" * 400):
        status, body, _ = await world.get(f"/t/{world.player_token}/{path}")
        assert status == 404, path
        assert_clean(body)


async def test_the_gm_pages_answer_a_player_as_unknown_ones(world: World) -> None:
    unknown = await world.get(f"/t/{world.player_token}/e/Nobody")
    for path in ("sources", "gm"):
        status, body, _ = await world.get(f"/t/{world.player_token}/{path}")
        assert (status, body) == unknown[:2]
        status, _, _ = await world.get(f"/t/{world.gm_token}/{path}")
        assert status == 200


async def test_tampered_expired_and_malformed_links_open_nothing(world: World) -> None:
    key = await world.services.wiki.links.key()
    grant = read_token(world.player_token, key)
    as_gm = sign_token(WikiPass(grant.campaign_id, grant.user_id, True, 0, 0, grant.expires), b"guessed key")
    expired = sign_token(WikiPass(grant.campaign_id, grant.user_id, False, 0, 0, int(time.time()) - 1), key)
    payload, signature = world.player_token.split(".")
    flipped = payload[:-1] + ("A" if payload[-1] != "A" else "B") + "." + signature
    for token, words in (
        (as_gm, "not a working wiki link"),
        (flipped, "not a working wiki link"),
        ("nonsense", "not a working wiki link"),
        ("a.b", "not a working wiki link"),
        (expired, "has expired"),
    ):
        status, body, _ = await world.get(f"/t/{token}/e/Aldric")
        assert status == 403, token
        assert words in body and "/wiki" in body
        assert "knight" not in body
        assert_clean(body)


async def test_a_revoked_link_opens_nothing_and_a_new_one_works(world: World) -> None:
    links = world.services.wiki.links
    token = await links.issue(world.campaign.id, 99, gm=False)
    assert (await world.get(f"/t/{token}/"))[0] == 200
    await links.revoke(world.campaign.id, 99)
    status, body, _ = await world.get(f"/t/{token}/")
    assert status == 403 and "revoked" in body
    fresh = await links.issue(world.campaign.id, 99, gm=False)
    assert (await world.get(f"/t/{fresh}/"))[0] == 200
    assert (await world.get(f"/t/{world.player_token}/"))[0] == 200  # another person's link still works


async def test_a_member_who_left_the_server_opens_nothing_through_their_links(world: World) -> None:
    links = world.services.wiki.links
    token = await links.issue(world.campaign.id, 99, gm=False)
    assert (await world.get(f"/t/{token}/"))[0] == 200
    # Left, or was removed: the campaign's journal is theirs no more.
    await links.member_left(world.campaign.guild_id, 99)
    status, body, _ = await world.get(f"/t/{token}/")
    assert status == 403 and "revoked" in body
    assert (await world.get(f"/t/{world.player_token}/"))[0] == 200  # another person's link still works


async def test_every_answer_carries_the_strict_headers_and_only_reads(world: World) -> None:
    for path in (f"/t/{world.player_token}/", f"/t/{world.player_token}/e/Vell", "/t/bad/", "/"):
        _, _, headers = await world.get(path)
        csp = headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Content-Type-Options"] == "nosniff"
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = await world.client.request(method, f"/t/{world.gm_token}/e/Aldric")
        assert response.status == 405
        assert response.headers["Allow"] == "GET, HEAD"


async def test_searches_with_html_huge_text_or_stop_words_are_clear_pages(world: World) -> None:
    for text in ("<script>alert(1)</script> Aldric", "Aldric " * 1500, "the of and a to", "Ald\x00ric\ud800"):
        response = await world.client.get(f"/t/{world.player_token}/search", params={"q": text})
        body = await response.text()
        assert response.status == 200
        assert "<script>" not in body
        assert_clean(body)
    # A hidden name searched reads exactly as a name nobody wrote (the words typed aside).
    hidden = await (await world.client.get(f"/t/{world.player_token}/search", params={"q": "Vell"})).text()
    unknown = await (await world.client.get(f"/t/{world.player_token}/search", params={"q": "Qorv"})).text()
    assert hidden.replace("Vell", "Qorv") == unknown
    response = await world.client.get(f"/t/{world.player_token}/search", params={"q": "<b>Aldric</b>"})
    assert "&lt;b&gt;Aldric&lt;/b&gt;" in await response.text()


async def test_turns_are_escaped_on_the_scene_page(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.player_token}/scenes/1")
    assert status == 200
    assert "&lt;b&gt;boldly&lt;/b&gt;" in body and "<b>boldly" not in body
    assert 'id="turn-1"' in body


async def test_the_index_lists_what_the_player_may_see_and_counts_nothing_hidden(world: World) -> None:
    _, player, _ = await world.get(f"/t/{world.player_token}/entities")
    _, gm, _ = await world.get(f"/t/{world.gm_token}/entities")
    assert "Aldric" in player and "Vell" not in player and "NPC (1)" in player
    assert "Vell" in gm and "NPC (2)" in gm


async def test_a_link_is_bound_to_its_person(world: World) -> None:
    key = await world.services.wiki.links.key()
    assert read_token(world.gm_token, key).user_id == GM.id
    assert read_token(world.player_token, key).user_id == PAT.id


async def test_a_link_past_its_rate_limit_is_told_to_slow_down_and_others_are_not(world: World) -> None:
    deps = dataclasses.replace(world.services.wiki, settings=WikiSettings(requests_per_minute=3))
    async with TestClient(TestServer(wiki_app(deps))) as client:
        for _ in range(3):
            assert (await client.get(f"/t/{world.player_token}/")).status == 200
        slowed = await client.get(f"/t/{world.player_token}/e/Aldric")
        assert slowed.status == 429 and slowed.headers["Retry-After"] == "60"
        assert "Too many pages" in await slowed.text()
        assert (await client.get(f"/t/{world.gm_token}/")).status == 200


async def test_the_rate_limiter_forgets_requests_older_than_a_minute() -> None:
    limiter = RateLimiter(2)
    assert limiter.allow("a", now=0) and limiter.allow("a", now=1)
    assert not limiter.allow("a", now=59) and limiter.allow("b", now=59)
    assert limiter.allow("a", now=61)


async def test_the_index_lists_exactly_what_the_reader_sees_through_the_canon_reader(world: World) -> None:
    services = world.services
    key = await services.wiki.links.key()
    for token in (world.player_token, world.gm_token, world.quinn_token, world.branch_token):
        grant = read_token(token, key)
        campaign = await services.campaigns.by_name(
            "Aldric Fell" if token == world.branch_token else world.campaign.name
        )
        viewer = Viewer.GM if grant.gm else Viewer.PLAYER
        lens = None if grant.gm else await services.reveals.lens(campaign, grant.user_id)
        async with services.db.session() as session:
            reader = await services.access.reader(session, campaign, viewer, lens)
            expected = sorted(e.name for e in (await reader.all_entities()).values())
        _, body, _ = await world.get(f"/t/{token}/entities")
        listed = sorted(re.findall(r'<li><a href="[^"]*/e/[^"]*">([^<]*)</a>', body))
        assert listed == expected, token


async def test_reading_and_searching_write_nothing(world: World) -> None:
    async def rows() -> dict[str, int]:
        async with world.services.db.session() as session:
            return {
                t.name: int(await session.scalar(select(func.count()).select_from(t)) or 0)
                for t in metadata().sorted_tables
            }

    before = await rows()
    for path in ("", "entities", "e/Aldric", "scenes/1", "search?q=who+leads+the+watch", "gm"):
        await world.get(f"/t/{world.gm_token}/{path}")
        await world.get(f"/t/{world.player_token}/{path}")
    assert await rows() == before
