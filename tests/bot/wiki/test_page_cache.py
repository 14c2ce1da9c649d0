"""Pages kept for their link until what they show is written: a reveal, a retcon, a revoked link or an edited turn
shows at the next request, a turn logged during play drops its scene's transcript alone and the scheduler's lease
nothing; a page kept for the GM never reaches a player; the cache keeps within its size."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select

from bot.app import Services, build_services
from bot.ops.lease import Lease
from bot.services.characters import Member
from bot.wiki.html import Page
from bot.wiki.page_cache import CacheKey, PageCache
from bot.wiki.server import CACHE_KEY, MARKS_KEY, wiki_app
from canon.campaigns import Campaign
from canon.models import Visibility
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import utc_now
from canon.tables import StatementRow
from config.settings import Settings
from memory.scenes import SpeakerKind
from memory.turn_batch import IncomingMessage
from tests.bot.wiki.conftest import GM, PAT, QUINN, add
from tests.conftest import BACKENDS, drop_target, make_target

SECRET = "sold the gate codes"


@dataclass
class Small:
    services: Services
    campaign: Campaign
    client: TestClient
    gm: str
    pat: str
    quinn: str

    async def page(self, token: str, path: str = "e/Aldric") -> tuple[int, str]:
        response = await self.client.get(f"/t/{token}/{path}")
        return response.status, await response.text()

    @property
    def cache(self) -> PageCache:
        return self.client.app[CACHE_KEY]  # type: ignore[index]

    async def fact(self, predicate: str) -> int:
        async with self.services.db.session() as session:
            query = select(StatementRow.id).where(StatementRow.predicate == predicate)
            return int((await session.execute(query)).scalar_one())


@pytest_asyncio.fixture(params=BACKENDS)
async def small(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Small]:
    """Aldric (public, a public title, a GM-only secret) and Sable, Quinn's character; the wiki on a test port."""
    target = await make_target(request.param, tmp_path)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", embedding={"enabled": False}
    )
    services = await build_services(settings, db=target.open())
    try:
        campaign = await services.campaigns.for_guild(10, "Shattered Isles")
        await add(services, campaign, EntityContent(name="Aldric", entity_type="NPC"))
        title = FactContent(subject=Ref(name="Aldric"), attribute="title", value="knight-commander")
        await add(services, campaign, title)
        secret = FactContent(
            subject=Ref(name="Aldric"), attribute="secret", value=SECRET, visibility=Visibility.GM_ONLY
        )
        await add(services, campaign, secret)
        await add(services, campaign, EntityContent(name="Sable", entity_type="PC"))
        await services.characters.assign(campaign, "Sable", Member(QUINN.id, QUINN.name), GM)
        links = services.wiki.links
        async with TestClient(TestServer(wiki_app(services.wiki))) as client:
            yield Small(
                services,
                campaign,
                client,
                gm=await links.issue(campaign.id, GM.id, gm=True),
                pat=await links.issue(campaign.id, PAT.id, gm=False),
                quinn=await links.issue(campaign.id, QUINN.id, gm=False),
            )
    finally:
        await services.close()
        await drop_target(target)


async def test_a_reveal_shows_at_the_next_request(small: Small) -> None:
    status, before = await small.page(small.quinn)
    assert status == 200 and SECRET not in before
    assert len(small.cache) == 1
    assert await small.page(small.quinn) == (200, before)  # kept
    secret = await small.fact("secret")
    await small.services.reveals.reveal(small.campaign, GM, to="Sable", reason="a letter", fact=secret)
    status, after = await small.page(small.quinn)
    assert status == 200 and SECRET in after
    assert SECRET not in (await small.page(small.pat))[1]  # Pat's character learned nothing


async def test_a_retcon_shows_at_the_next_request(small: Small) -> None:
    assert "knight-commander" in (await small.page(small.pat))[1]
    assert "knight-commander" in (await small.page(small.pat))[1]
    title = await small.fact("title")
    await small.services.admin.retcon(small.campaign, title, GM, rationale="He was never knighted")
    status, after = await small.page(small.pat)
    assert status == 200 and "knight-commander" not in after


async def test_a_page_kept_for_the_gm_never_reaches_a_player(small: Small) -> None:
    status, gm = await small.page(small.gm)
    assert status == 200 and SECRET in gm and "🔒" in gm
    status, player = await small.page(small.pat)
    assert status == 200 and SECRET not in player and "🔒" not in player
    assert len(small.cache) == 2
    for _ in range(2):  # each link its own page, asked again
        assert SECRET not in (await small.page(small.pat))[1]
        assert SECRET in (await small.page(small.gm))[1]


async def test_a_revoked_link_opens_nothing_though_its_page_was_kept(small: Small) -> None:
    assert (await small.page(small.pat))[0] == 200
    await small.services.wiki.links.revoke(small.campaign.id, PAT.id)
    status, body = await small.page(small.pat)
    assert status == 403 and "Aldric" not in body


async def test_a_hidden_entity_kept_as_not_found_appears_for_the_gm_only(small: Small) -> None:
    hidden = EntityContent(name="Vell", entity_type="NPC", visibility=Visibility.GM_ONLY)
    assert (await small.page(small.pat, "e/Vell"))[0] == 404
    assert (await small.page(small.gm, "e/Vell"))[0] == 404
    await add(small.services, small.campaign, hidden)
    assert (await small.page(small.pat, "e/Vell"))[0] == 404
    status, body = await small.page(small.gm, "e/Vell")
    assert status == 200 and "Vell" in body


def _turn(number: int, words: str) -> IncomingMessage:
    return IncomingMessage(
        message_id=5000 + number,
        channel_id=77,
        author_id=PAT.id,
        author_name=PAT.name,
        speaker=SpeakerKind.PLAYER,
        text=words,
        created_at=utc_now(),
    )


async def test_a_played_evening_drops_only_the_transcript_it_writes_to(small: Small) -> None:
    services = small.services
    await services.scenes.start_scene(
        campaign_id=small.campaign.id, guild_id=10, channel_id=77, title="The Inn", location=None, actor=GM
    )
    await services.turns.append(_turn(1, "We walk in."))
    pages = ["e/Aldric", "", "entities", "timeline", "scenes/1"]
    built = {path: (await small.page(small.pat, path))[1] for path in pages}
    assert "We walk in." in built["scenes/1"] and "still being played" in built[""]
    hits = small.cache.hits
    await services.turns.append(_turn(2, "The innkeeper scowls."))
    proposed = FactContent(subject=Ref(name="Aldric"), attribute="mood", value="scowling")
    await services.proposals.propose(small.campaign, 77, proposed, PAT)  # waits for the GM's review: unshown
    await services.answers.ask(small.campaign.id, "Who is Aldric?", asker_id=PAT.id)  # a lookup, recorded
    lease = Lease(services.db, "scheduler", "this process", 60)
    assert await lease.acquire() and await lease.acquire()
    for path in pages[:-1]:  # no other page shows a turn: each is answered as kept
        assert await small.page(small.pat, path) == (200, built[path])
    assert small.cache.hits == hits + 4
    status, transcript = await small.page(small.pat, "scenes/1")
    assert status == 200 and "The innkeeper scowls." in transcript  # the scene's own page shows it at once
    assert await services.turns.edit(5002, "The innkeeper smiles.", utc_now())
    status, transcript = await small.page(small.pat, "scenes/1")
    assert "The innkeeper smiles." in transcript and "scowls" not in transcript
    assert "scowling" not in (await small.page(small.pat))[1]
    report, _ = await services.canon.end_scene(77)  # the GM reviews the proposal, and commits the scene
    await services.reviews.accept_all(report.scene.id, GM)
    await services.canon.commit_scene(report.scene.id, GM)
    assert "still being played" not in (await small.page(small.pat, ""))[1]
    assert "scowling" in (await small.page(small.pat))[1]  # what became canon shows at the next request


async def test_a_search_is_never_kept(small: Small) -> None:
    status, _ = await small.page(small.pat, "search?q=Aldric")
    assert status == 200 and len(small.cache) == 0


async def test_a_page_read_without_a_write_mark_is_not_kept(
    small: Small, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = small.client.app[MARKS_KEY]  # type: ignore[index]

    async def unreadable(_scene: object = None) -> None:  # a lost connection, a schema without the mark
        return None

    monkeypatch.setattr(marks, "mark", unreadable)
    status, _ = await small.page(small.quinn)
    assert status == 200 and len(small.cache) == 0
    keeps = PageCache(1_000_000)
    keeps.put(CacheKey("t", "", "/p"), None, _page(10))
    assert len(keeps) == 0


def _page(size: int, status: int = 200) -> Page:
    return Page(status, "x" * size)


def test_a_page_is_handed_out_only_under_the_mark_it_was_built_under() -> None:
    cache = PageCache(1_000_000)
    key = CacheKey("token", "", "/t/token/e/Aldric")
    cache.put(key, 1, _page(10))
    assert cache.get(key, 1) == _page(10)
    assert cache.get(CacheKey("other", "", "/t/token/e/Aldric"), 1) is None
    assert cache.get(CacheKey("token", "/wiki", "/t/token/e/Aldric"), 1) is None
    assert cache.get(key, 2) is None
    assert cache.get(key, 1) is None  # dropped once stale
    assert len(cache) == 0 and cache.size == 0


def test_errors_are_not_kept_and_the_cache_keeps_within_its_size() -> None:
    cache = PageCache(10_000)
    cache.put(CacheKey("t", "", "/error"), 1, _page(10, status=500))
    cache.put(CacheKey("t", "", "/huge"), 1, _page(5_000))  # over a quarter of the cache
    assert len(cache) == 0
    for n in range(20):
        cache.put(CacheKey("t", "", f"/p{n}"), 1, _page(1_000))
    assert cache.size <= 10_000
    assert cache.get(CacheKey("t", "", "/p19"), 1) is not None
    assert cache.get(CacheKey("t", "", "/p0"), 1) is None  # the least recently used went first
    nothing = PageCache(0)
    nothing.put(CacheKey("t", "", "/p"), 1, _page(1))
    assert len(nothing) == 0


def test_the_size_kept_is_the_memory_the_pages_take_whatever_their_characters() -> None:
    # A GM's page shows a lock (a character beyond the first 65,536): Python keeps its text in 4 bytes a character.
    cache = PageCache(40_000)
    keys = [CacheKey("t", "", f"/gm{n}") for n in range(40)]
    for key in keys:
        cache.put(key, 1, Page(200, "🔒" + "x" * 999))
    kept = [page for key in keys if (page := cache.get(key, 1)) is not None]
    assert kept and sum(sys.getsizeof(page.body) for page in kept) <= 40_000
