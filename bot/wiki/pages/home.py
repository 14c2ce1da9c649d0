"""The campaign's home: the journal of its scenes, newest first, each with its date and recap, paged."""

from __future__ import annotations

from aiohttp import web

from bot.services.recap_canon import as_canon_holds
from bot.services.wording import wording_for
from canon.wording import Wording

from ..context import Reading
from ..deps import WikiDeps
from ..html import Page, esc, href, pager, plural
from ..store import JournalEntry, count_scenes, journal_entries
from .common import page_number

SCENES_PER_PAGE = 20


def scene_heading(entry: JournalEntry, reading: Reading, words: Wording) -> str:
    """Return a scene's line: its number and title linked, and its date in the campaign calendar's words."""
    scene = entry.scene
    meta = [words.date(scene.world_date) if words.dated(scene.world_date) else "", scene.location or ""]
    if scene.status != "completed":
        meta.append("still being played")
    link = href(reading.url(f"scenes/{scene.story_order}"), f"Scene {scene.story_order}: {scene.title}")
    said = " · ".join(esc(m) for m in meta if m)
    return f"<h2>{link}</h2>" + (f'<p class="muted">{said}</p>' if said else "")


def recap_html(entry: JournalEntry) -> str:
    """Return a scene's recap as the journal keeps it (the public recap: public canon only), or a pointer; the
    facts a retcon has since taken out of canon struck through, with what canon says now."""
    recap = entry.recap
    if recap is None:
        return '<p class="muted">No recap written yet: read the transcript.</p>'
    parts = []
    if recap.summary:
        parts.append(f"<p>{esc(recap.summary)}</p>")
    standing = recap.standing()
    if standing:
        parts.append(
            "<p>What became canon:</p><ul>" + "".join(f"<li>{esc(f)}</li>" for f in standing) + "</ul>"
        )
    if recap.retconned:
        gone = "".join(
            f"<li><del>{esc(r.fact)}</del>" + (f" → now {esc(r.now)}" if r.now else "") + "</li>"
            for r in recap.retconned
        )
        parts.append(f"<p>Since retconned, no longer canon:</p><ul>{gone}</ul>")
    if recap.present:
        parts.append(f'<p class="muted">Who was there: {esc(", ".join(recap.present))}</p>')
    return f'<div class="recap">{"".join(parts)}</div>'


async def read_now(deps: WikiDeps, reading: Reading, entries: list[JournalEntry]) -> list[JournalEntry]:
    """Return journal entries with their recaps' retconned facts marked, as canon holds them now."""
    recaps = [e.recap for e in entries if e.recap is not None]
    if not recaps:
        return entries
    now = {
        r.scene_id: r for r in await as_canon_holds(reading.session, deps.access, reading.campaign, recaps)
    }
    return [JournalEntry(e.scene, now.get(e.scene.id, e.recap)) for e in entries]


async def journal_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the journal: the campaign's scenes newest first, with dates and recaps."""
    page = page_number(request.rel_url.query.get("page"))
    session = reading.session
    # The campaign's words for dates (as `CanonQueries.words` says them), read in the request's session.
    words = await wording_for(session, await deps.access.reader(session, reading.campaign, reading.viewer))
    total = await count_scenes(session, reading.campaign.id)
    pages = max(1, -(-total // SCENES_PER_PAGE))
    page = min(page, pages)
    entries = await journal_entries(
        session, reading.campaign.id, offset=(page - 1) * SCENES_PER_PAGE, limit=SCENES_PER_PAGE
    )
    entries = await read_now(deps, reading, entries)
    body = [f'<p class="muted">The story so far: {plural(total, "scene")}, newest first.</p>']
    if not entries:
        body.append("<p>No scene has been played yet. Scenes appear here once the GM starts them.</p>")
    for entry in entries:
        body += [scene_heading(entry, reading, words), recap_html(entry)]
    body.append(pager(reading.url(), page, pages))
    return Page(200, reading.page("Journal", body))
