"""The index of entities by kind, search (the hybrid search and answers of `/lore`), and the GM's own pages.

Every list is read as the reader sees canon: an entity a player may not see is not listed, counted or found (the
canon reader leaves it out before anything is counted; `/lore`'s answer is filtered with the same functions its
Discord card uses). The GM's pages (sources, open conflicts and notes) answer a player exactly as an unknown
page does.
"""

from __future__ import annotations

from collections import Counter

from aiohttp import web

from canon.conflicts import Show
from canon.models import Viewer
from canon.visibility import entity_facts_seen, passages_seen, source_hidden
from canon.wording import type_words
from memory.knowledge.retrieval.answer import compose

from ..context import Reading
from ..deps import WikiDeps
from ..html import Page, esc, href, pager, plural
from ..store import index_page as index_entries
from .common import LOCK, not_found, page_number, printable
from .entity import entity_url

ENTITIES_PER_PAGE = 50
#: A search reads at most this many characters of what was typed (as `/lore` does).
MAX_QUERY = 1000
SEARCH_RESULTS = 8


def _kinds(counts: Counter[str], reading: Reading, chosen: str | None) -> str:
    links = [href(reading.url("entities"), "All") if chosen else "<strong>All</strong>"]
    for kind, count in sorted(counts.items()):
        label = f"{type_words(kind)} ({count:,})"
        links.append(
            f"<strong>{esc(label)}</strong>"
            if kind == chosen
            else href(reading.url(f"entities?kind={kind}"), label)
        )
    return f'<p class="kinds">{" ".join(links)}</p>'


async def index_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the index: the entities the reader may see, by kind, paged (in the database: any size)."""
    query = request.rel_url.query
    page = page_number(query.get("page"))
    kind = query.get("kind") or None
    session = reading.session
    reader = await deps.access.reader(session, reading.campaign, reading.viewer, reading.knowing)
    counts, total, _ = await index_entries(session, reader, kind=None, offset=0, limit=0)
    if kind is not None and kind not in counts:
        kind = None
    total = counts.get(kind, 0) if kind is not None else total
    pages = max(1, -(-total // ENTITIES_PER_PAGE))
    page = min(page, pages)
    _, _, shown = await index_entries(
        session, reader, kind=kind, offset=(page - 1) * ENTITIES_PER_PAGE, limit=ENTITIES_PER_PAGE
    )
    items = []
    for e in shown:
        lock = f" {LOCK}" if reading.gm and e.hidden else ""
        items.append(
            f"<li>{href(entity_url(reading, e.name, e.nth), e.name)}{lock}"
            f' <span class="muted">{esc(type_words(e.type))}</span></li>'
        )
    body = [
        _search_form(reading, ""),
        _kinds(Counter(counts), reading, kind),
        f'<p class="muted">{total:,} {"entry" if total == 1 else "entries"}.</p>'
        if total
        else "<p>Nothing here yet.</p>",
        f"<ul>{''.join(items)}</ul>" if items else "",
        pager(reading.url("entities"), page, pages, {"kind": kind or ""}),
    ]
    return Page(200, reading.page("Index", body))


def _search_form(reading: Reading, text: str) -> str:
    return (
        f'<form class="search" method="get" action="{esc(reading.url("search"))}">'
        f'<input type="search" name="q" value="{esc(text)}" maxlength="{MAX_QUERY}" '
        'aria-label="Search the campaign" placeholder="Ask about the world">'
        "<button>Search</button></form>"
    )


async def search_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the answer to a search as `/lore` gives it (the same visibility), with links to the entities."""
    text = " ".join(printable(request.rel_url.query.get("q", "")).split())[:MAX_QUERY]
    body = [_search_form(reading, text)]
    if not text:
        body.append("<p>Type a name or a question about the world.</p>")
        return Page(200, reading.page("Search", body))
    # `/lore`'s search and its answer from the sources found, without the language model: a page read spends
    # nothing and writes nothing (no retrieval record, no token ledger).
    answer = await deps.knowledge.ask(
        reading.campaign.id,
        text,
        viewer=reading.viewer,
        limit=SEARCH_RESULTS,
        record=False,
        knowing=reading.knowing,
    )
    results = passages_seen(reading.viewer, answer.results, reading.knowing)
    facts = entity_facts_seen(reading.viewer, answer.canon_facts, reading.knowing)
    same = len(results) == len(answer.results) and len(facts) == len(answer.canon_facts)
    reply = answer.reply if answer.reply is not None and same else compose(answer.question, facts, results)
    body.append(f'<p class="answer">{esc(reply.text)}</p>')
    if facts:
        items = []
        for f in facts:
            lock = f" {LOCK}" if reading.gm and f.hidden else ""
            items.append(
                f"<li>{href(entity_url(reading, f.entity_name), f.entity_name)}{lock} "
                f'<span class="muted">{esc(type_words(f.entity_type))}</span></li>'
            )
        body += ["<h2>In canon</h2>", f"<ul>{''.join(items)}</ul>"]
    if results:
        items = []
        for r in results:
            lock = f" {LOCK}" if reading.gm and r.hidden else ""
            passage = r.text if len(r.text) <= 600 else r.text[:599].rstrip() + "…"
            items.append(f'<li><span class="muted">{esc(r.where)}{lock}</span><br>{esc(passage)}</li>')
        body += ["<h2>From the world's sources</h2>", f"<ul>{''.join(items)}</ul>"]
    return Page(200, reading.page(f"Search: {text[:80]}", body))


async def sources_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the GM's list of the campaign's imported sources (a player: not found)."""
    if reading.viewer != Viewer.GM:
        return not_found(reading)
    sources = await deps.knowledge.list_sources(reading.campaign.id, viewer=Viewer.GM)
    items = []
    for s in sorted(sources, key=lambda s: s.title.casefold()):
        marks = [s.knowledge_class.value.title(), plural(s.chunk_count, "passage")]
        if source_hidden(s.hidden):
            marks.append(f"{LOCK} hidden from players")
        if not s.enabled:
            marks.append("switched off")
        items.append(
            f'<li id="source-{s.id}">{esc(s.title)} <span class="muted">{esc(s.filename)} · {esc(" · ".join(marks))}</span></li>'
        )
    body = [f"<ul>{''.join(items)}</ul>" if items else "<p>No source imported yet.</p>"]
    return Page(200, reading.page("Sources", body))


async def gm_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the GM's open conflicts and open notes (a player: not found)."""
    if reading.viewer != Viewer.GM:
        return not_found(reading)
    page = page_number(request.rel_url.query.get("page"))
    conflicts = await deps.queries.conflict_page(reading.campaign, show=Show.OPEN, page=page - 1)
    notes = await deps.notes.search(reading.campaign, page=1)
    body = ["<h2>Open conflicts</h2>"]
    if conflicts.conflicts:
        body.append("<ul>" + "".join(f"<li>{esc(c.message)}</li>" for c in conflicts.conflicts) + "</ul>")
        body.append(pager(reading.url("gm"), conflicts.page + 1, conflicts.pages))
    else:
        body.append("<p>No open conflict.</p>")
    body.append("<h2>Open notes</h2>")
    if notes.page.notes:
        items = []
        for n in notes.page.notes:
            about = [notes.entities[i] for i in n.entity_ids if i in notes.entities]
            links = ", ".join(href(entity_url(reading, a), a) for a in about)
            items.append(
                f"<li>{esc(n.text)}"
                + (f' <span class="muted">about {links}</span>' if links else "")
                + "</li>"
            )
        body.append(f"<ul>{''.join(items)}</ul>")
        if notes.page.total > len(notes.page.notes):
            body.append(
                f'<p class="muted">{plural(notes.page.total, "open note")} in all; /note search shows them.</p>'
            )
    else:
        body.append("<p>No open note.</p>")
    return Page(200, reading.page("Conflicts & notes", body))
