"""The campaign wiki's web server (aiohttp): read-only pages behind personal signed links.

Every request under `/t/{token}/` checks its link (signature, expiry, revocation) and rebuilds who is reading
(`Reading`: the link's campaign, the GM or a player through their character's lens) before anything is read;
every page reads canon as that reader. Only GET and HEAD exist (anything else: 405); every answer carries a strict
Content-Security-Policy (no script at all), `nosniff`, `no-referrer` (links carry tokens) and `no-store`. A link
makes at most `requests_per_minute` requests a minute (429 past it). An error is a plain page with an id for the
logs, never a traceback.

Routes: `/t/{token}/` the journal, `entities` the index, `search`, `e/{name}` an entity, `scenes/{number}`
a scene, `sources` and `gm` the GM's pages; `timeline` and `tree/{name}` the pictures at full size (`bot.wiki.pictures`),
under the same checks.

A page built is kept for its link until anything pages show is written to the database (`PageCache`,
`canon.write_marks`): asked again through the same link while nothing shown changed, it is answered without
reading canon again. A scene's page also shows its turns: its mark counts them, so a turn logged during play
drops that page alone. The search
reads the vector store as well as the database: it is built each time.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from importlib import resources
from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession

from canon.as_of_reading import AS_OF_PARAMETER, read_as_of
from canon.campaigns import CampaignRow, CampaignStatus, get_campaign
from canon.errors import GameError, NotFound
from canon.knowledge.learned import member_knowing
from canon.models import Viewer
from canon.write_marks import WriteMarks

from .context import Reading, link_root
from .deps import WikiDeps
from .html import Page
from .page_cache import CacheKey, PageCache
from .pages import entity, home, index, scenes
from .pages.common import as_of_refused, not_found, plain_page
from .pictures import ROUTES as PICTURE_ROUTES
from .tokens import LinkRefused, read_token

log = logging.getLogger(__name__)

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
#: The longest request line read (a long search typed into the box); longer ones get aiohttp's plain 400.
MAX_REQUEST_LINE = 64 * 1024
DEPS_KEY: web.AppKey[WikiDeps] = web.AppKey("wiki_deps")
LIMITER_KEY: web.AppKey[RateLimiter] = web.AppKey("wiki_limiter")
CACHE_KEY: web.AppKey[PageCache] = web.AppKey("wiki_pages")
MARKS_KEY: web.AppKey[WriteMarks] = web.AppKey("wiki_write_marks")
#: The route of a scene's page (its mark counts the scene's turns).
SCENE_ROUTE = "wiki-scene"
#: An as-of date is a few words: longer text is cut before it is read (and then refused as too long).
MAX_AS_OF = 200

#: A page handler: the services, the reader, the request; returns the page.
Handler = Callable[[WikiDeps, Reading, web.Request], Awaitable[Page]]


class RateLimiter:
    """At most `per_minute` requests per link in any minute (a sliding window kept per process)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._seen: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float | None = None) -> bool:
        """Return whether one more request of this link is allowed now (and count it)."""
        now = time.monotonic() if now is None else now
        recent = self._seen.get(key)
        if recent is None:
            recent = self._seen[key] = deque()
        while recent and now - recent[0] >= 60.0:  # the oldest leave first: each request is dropped once
            recent.popleft()
        if len(recent) >= self.per_minute:
            return False
        recent.append(now)
        if len(self._seen) > 10_000:  # forget quiet links
            self._seen = {k: v for k, v in self._seen.items() if v and now - v[-1] < 60.0}
        return True


def _css_url(request: web.Request) -> str:
    deps = request.app[DEPS_KEY]
    return f"{link_root(deps.settings.base_url, request.headers.get('X-Forwarded-Prefix'))}/static/wiki.css"


def _html(page: Page) -> web.Response:
    return web.Response(status=page.status, text=page.body, content_type="text/html", charset="utf-8")


@web.middleware
async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Refuse every method but GET and HEAD, turn errors into plain pages, add the security headers."""
    if request.method not in ("GET", "HEAD"):
        response: web.StreamResponse = web.Response(
            status=405, text="The wiki is read-only.", headers={"Allow": "GET, HEAD"}
        )
    else:
        try:
            response = await handler(request)
        except web.HTTPException as error:
            if error.status == 404:
                response = _html(plain_page(404, "Not found", "There is no such page.", _css_url(request)))
            else:
                response = web.Response(status=error.status, text=error.reason or "Refused.")
        except Exception:
            error_id = uuid.uuid4().hex[:8]
            log.exception("wiki page failed (error %s)", error_id)
            text = f"Something went wrong on our side showing this page (error {error_id}). Try again later."
            response = _html(plain_page(500, "Something went wrong", text, _css_url(request)))
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def _slow_down(request: web.Request) -> web.Response | None:
    """Return the page that asks a link to slow down, when it asked too much this minute (else None)."""
    if request.app[LIMITER_KEY].allow(request.match_info["token"]):
        return None
    text = "Too many pages asked for through this link in a minute. Wait a moment and try again."
    response = _html(plain_page(429, "Slow down", text, _css_url(request)))
    response.headers["Retry-After"] = "60"
    return response


async def reading_of(request: web.Request, session: AsyncSession) -> Reading | web.Response:
    """Return who reads through the request's link (read in the request's `session`), or the page that says
    why the link opens nothing."""
    deps = request.app[DEPS_KEY]
    token = request.match_info["token"]
    try:
        grant = await deps.links.check(token, session)
    except LinkRefused as refused:
        return _html(plain_page(403, "This link does not open the wiki", refused.message, _css_url(request)))
    # The campaign's row is kept by the session for the request: the calendar reads it again, from memory.
    session.info["campaign_row"] = await session.get(CampaignRow, grant.campaign_id)
    try:
        campaign = await get_campaign(session, grant.campaign_id)
    except NotFound:
        campaign = None
    if campaign is None or campaign.status == CampaignStatus.LIBRARY:
        text = "The campaign this link opened is gone. Ask for a new link with /wiki."
        return _html(plain_page(410, "This campaign is gone", text, _css_url(request)))
    viewer = Viewer.GM if grant.gm else Viewer.PLAYER
    # A player's lens: what their active character knows (as `KnowledgeDesk.lens` reads it).
    knowing = None if grant.gm else await member_knowing(session, campaign.id, grant.user_id)
    root = link_root(deps.settings.base_url, request.headers.get("X-Forwarded-Prefix"))
    reading = Reading(grant, campaign, viewer, knowing, root, token, session)
    typed = request.rel_url.query.get(AS_OF_PARAMETER)
    if typed is None or not typed.strip():
        return reading
    calendar = await (await deps.access.reader(session, campaign, viewer, knowing)).calendar()
    as_of = read_as_of(typed[:MAX_AS_OF], calendar)
    if not as_of.understood:
        unplaced = dataclasses.replace(reading, as_of=as_of)
        return _html(as_of_refused(unplaced))
    return dataclasses.replace(reading, as_of=as_of)


async def _cache_key(request: web.Request) -> tuple[CacheKey, Hashable] | None:
    """Return the key a page of this request is kept under and the database's write mark now, or None when no
    page is kept (no cache, no write mark to keep it under, or a link whose signature or expiry fails: it is
    refused on the way)."""
    deps = request.app[DEPS_KEY]
    if not request.app[CACHE_KEY].max_bytes:
        return None
    token = request.match_info["token"]
    try:
        grant = read_token(token, await deps.links.key())
    except LinkRefused:
        return None
    # A scene's page shows its turns: its mark counts them too (a turn logged moves no other page's).
    number = request.match_info.get("number") if request.match_info.route.name == SCENE_ROUTE else None
    scene = (
        (grant.campaign_id, int(number))
        if number is not None and number.isdigit() and len(number) < 10
        else None
    )
    mark = await request.app[MARKS_KEY].mark(scene)  # before anything the page reads
    if mark is None:  # no mark to keep the page under: built afresh, kept nowhere
        return None
    root = link_root(deps.settings.base_url, request.headers.get("X-Forwarded-Prefix"))
    return CacheKey(token, root, request.path_qs), mark


def _page(handler: Handler, *, kept: bool = True) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def serve(request: web.Request) -> web.StreamResponse:
        if (slow := _slow_down(request)) is not None:
            return slow
        keyed = await _cache_key(request) if kept else None
        if keyed is not None and (page := request.app[CACHE_KEY].get(*keyed)) is not None:
            return _html(page)
        async with request.app[DEPS_KEY].db.session() as session:  # the request's one session
            reading = await reading_of(request, session)
            if isinstance(reading, web.Response):
                return reading
            try:
                page = await handler(request.app[DEPS_KEY], reading, request)
            except NotFound:
                page = not_found(reading)
            except GameError as error:
                page = Page(400, reading.page("That did not work", [f"<p>{error.message}</p>"], note=""))
        if keyed is not None:
            request.app[CACHE_KEY].put(keyed[0], keyed[1], page)
        return _html(page)

    return serve


async def _entity(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    query = request.rel_url.query
    return await entity.entity_page(
        deps, reading, request.match_info["name"], query.get("n"), query.get("page")
    )


async def _front(request: web.Request) -> web.Response:
    text = (
        "Each person opens the campaign wiki through their own link: ask for yours with /wiki in the server."
    )
    return _html(plain_page(200, "Campaign wiki", text, _css_url(request)))


async def _style(request: web.Request) -> web.Response:
    body = resources.files("bot.wiki").joinpath("static", "wiki.css").read_bytes()
    return web.Response(body=body, content_type="text/css", headers={"Cache-Control": "max-age=3600"})


def wiki_app(deps: WikiDeps) -> web.Application:
    """Return the wiki's web application."""
    # A search of 10,000 characters is a URL longer than aiohttp's 8 KiB request line: read it (then clip it).
    app = web.Application(middlewares=[guard], handler_args={"max_line_size": MAX_REQUEST_LINE})
    app[DEPS_KEY] = deps
    app[LIMITER_KEY] = RateLimiter(deps.settings.requests_per_minute)
    app[CACHE_KEY] = PageCache(deps.settings.page_cache_mb * 1024 * 1024)
    marks = app[MARKS_KEY] = WriteMarks(deps.db)

    async def close_marks(_app: web.Application) -> None:
        marks.close()

    app.on_cleanup.append(close_marks)
    pages: list[tuple[str, Handler]] = [
        ("", home.journal_page),
        ("entities", index.index_page),
        ("search", index.search_page),
        ("e/{name}", _entity),
        ("scenes/{number}", scenes.scene_page),
        ("sources", index.sources_page),
        ("gm", index.gm_page),
        *PICTURE_ROUTES,
    ]
    app.router.add_get("/", _front)
    app.router.add_get("/static/wiki.css", _style)
    app.router.add_get("/t/{token}", _page(home.journal_page))  # a link pasted without its last slash
    for path, handler in pages:
        name = SCENE_ROUTE if handler is scenes.scene_page else None
        app.router.add_get(
            "/t/{token}/" + path, _page(handler, kept=handler is not index.search_page), name=name
        )
    return app


class WikiServer:
    """The wiki served on an address until stopped (inside the bot's process, or alone)."""

    def __init__(self, deps: WikiDeps) -> None:
        self.deps = deps
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        #: The address it listens on, once started (links use the base URL instead when one is set).
        self.url: str | None = None

    async def start(self, host: str | None = None, port: int | None = None) -> None:
        """Start listening (port 0: any free port, then `self.port` says which)."""
        self._runner = web.AppRunner(wiki_app(self.deps), access_log=None)
        await self._runner.setup()
        port = self.deps.settings.port if port is None else port
        site = web.TCPSite(self._runner, host or self.deps.settings.host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        host = host or self.deps.settings.host
        self.url = f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"
        self.deps.links.served_at = self.url

    async def stop(self) -> None:
        """Stop listening and close the connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
