"""A scene's page: when and where it was played, its recap, the canon its turns support, and its transcript.

The scene is found by its number in the reader's campaign's story (never by a row id). The canon it committed is
read as the reader sees canon (a player's page leaves out what they may not see, without a count); the transcript
is paged by turn number, each turn anchored (`#turn-12`) for the evidence links of entity pages.
"""

from __future__ import annotations

import dataclasses

from aiohttp import web

from bot.services.wording import wording_for
from canon.models import NOW
from canon.visibility import visible_views
from memory.journal import recap_of

from ..context import Reading
from ..deps import WikiDeps
from ..html import Page, esc, pager
from ..store import JournalEntry, scene_numbered, statements_cited_by, turns_numbered
from .common import TURNS_PER_PAGE, not_found, page_number, scene_url
from .entity import cited_of, statement_html
from .home import read_now, recap_html

#: A scene's page lists at most this many statements its turns support.
MAX_FACTS = 200


async def scene_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return a scene's page, or the page of what is not found."""
    number_text = request.match_info["number"]
    if not number_text.isdigit() or len(number_text) > 9:
        return not_found(reading)
    page = page_number(request.rel_url.query.get("page"))
    first = (page - 1) * TURNS_PER_PAGE + 1
    session = reading.session
    scene = await scene_numbered(session, reading.campaign.id, int(number_text))
    if scene is None:
        return not_found(reading)
    recap = await recap_of(session, scene.id)
    turns, highest = await turns_numbered(session, scene.id, first, first + TURNS_PER_PAGE - 1)
    reader = await deps.access.reader(session, reading.campaign, reading.viewer, reading.knowing)
    ids = await statements_cited_by(session, scene.id, limit=MAX_FACTS)
    views = await reader.views(await reader.statements(statement_ids=ids)) if ids else []
    views = visible_views(views, reading.viewer, reading.knowing, NOW)
    words = await wording_for(session, reader, [e for v in views for e in v.statement.evidence])
    cited = await cited_of(session, [e for v in views for e in v.statement.evidence], reading.campaign.id)
    words = dataclasses.replace(words, escape=esc, links=False)
    meta = [words.date(scene.world_date) if words.dated(scene.world_date) else "", scene.location or ""]
    if scene.status != "completed":
        meta.append("still being played")
    body = []
    said = " · ".join(esc(m) for m in meta if m)
    if said:
        body.append(f'<p class="muted">{said}</p>')
    if page == 1:
        (entry,) = await read_now(deps, reading, [JournalEntry(scene, recap)])
        body += ["<h2>Recap</h2>", recap_html(entry)]
        if views:
            lines = "".join(
                f"<li>{statement_html(v, reading, words, cited, evidence=False)}</li>" for v in views
            )
            body += ["<h2>What became canon</h2>", f"<ul>{lines}</ul>"]
    body.append("<h2>Transcript</h2>")
    if not turns:
        body.append('<p class="muted">No turns here.</p>')
    for turn in turns:
        body.append(
            f'<div class="turn" id="turn-{turn.number}"><span class="who">{esc(turn.author_name)}</span> '
            f'<span class="muted">turn {turn.number}</span><br>{esc(turn.text)}</div>'
        )
    pages = max(1, -(-highest // TURNS_PER_PAGE))
    body.append(pager(scene_url(reading, scene.story_order), page, pages))
    return Page(200, reading.page(f"Scene {scene.story_order}: {scene.title}", body))
